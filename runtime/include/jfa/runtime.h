/*===- runtime.h - the JFA runtime (C API) ------------------------*- C -*-===//
 *
 * A C view of runtime.hpp. Functions return 0 on success and -1 on failure;
 * jfa_last_error() then gives the message (per thread).
 *
 *===----------------------------------------------------------------------===*/
#ifndef JFA_RUNTIME_H
#define JFA_RUNTIME_H

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jfa_module *jfa_module_t;

typedef enum {
  JFA_ARG_TENSOR = 0,
  JFA_ARG_PTR = 1,
  JFA_ARG_I32 = 2,
  JFA_ARG_I64 = 3,
  JFA_ARG_F32 = 4,
  JFA_ARG_F64 = 5
} jfa_arg_kind;

typedef struct {
  jfa_arg_kind kind;
  union {
    struct {
      CUdeviceptr data;
      const char *element_type; /* "f32", "bf16", ... */
      int rank;
      const uint64_t *shape;   /* outermost first */
      const uint64_t *strides; /* in elements, outermost first; NULL: dense */
    } tensor;
    CUdeviceptr ptr;
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
  } value;
} jfa_arg;

/* metadata_path may be NULL: "<cubin_path>.meta". */
int jfa_module_load_file(const char *cubin_path, const char *metadata_path,
                         jfa_module_t *module);
int jfa_module_load_data(const void *cubin, size_t size, const char *metadata,
                         jfa_module_t *module);
void jfa_module_destroy(jfa_module_t module);

/* Threads per CTA and dynamic shared memory of a kernel. */
int jfa_kernel_info(jfa_module_t module, const char *kernel, unsigned *threads,
                    size_t *shared_bytes);

int jfa_launch(jfa_module_t module, const char *kernel, unsigned grid_x,
               unsigned grid_y, unsigned grid_z, const jfa_arg *args,
               int num_args, CUstream stream);

/* Waits for the device (cuCtxSynchronize). After a kernel built with
 * --debug-barriers traps, the error says so (see jfa_last_error). */
int jfa_synchronize(void);

const char *jfa_last_error(void);

/* The runtime's version, "MAJOR.MINOR.PATCH" (the project's version). Needs
 * no GPU. */
const char *jfa_runtime_version(void);

#ifdef __cplusplus
}
#endif

#endif /* JFA_RUNTIME_H */
