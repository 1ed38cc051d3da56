//===- runtime.hpp - the JFA runtime (C++) ----------------------*- C++ -*-===//
//
// Loads cubins produced by `jfac compile`, reads their metadata, builds TMA
// descriptors and launches kernels. Depends on the CUDA driver API only,
// which it loads at run time (libcuda.so.1), so programs link without CUDA
// libraries and fail with a clear error where no driver is installed.
// Every failure throws jfa::rt::Error with a message naming the problem.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_RUNTIME_HPP
#define JFA_RUNTIME_HPP

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace jfa::rt {

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class ParamKind { TensorMap, Pointer, I32, I64, F32, F64 };
const char *paramKindName(ParamKind kind);

/// One kernel parameter as the compiler declared it.
struct ParamSpec {
  ParamKind kind = ParamKind::I32;
  /// Element type of a tensor map or pointer ("f32", "bf16", ...).
  std::string elementType;
  /// TMA box, outermost dimension first (tensor maps only).
  std::vector<uint32_t> box;
  /// Shared-memory swizzle of a tensor map's box: 0, 32, 64 or 128 bytes.
  unsigned swizzle = 0;
  /// The parameter's name in the kernel source (`%rows` -> "rows"); empty
  /// when the metadata has none. Errors name the argument with it.
  std::string name;
};

struct KernelInfo {
  std::string name;
  std::string arch;
  unsigned threads = 0;
  unsigned cluster[3] = {1, 1, 1};
  size_t sharedBytes = 0;
  std::vector<ParamSpec> params;
  /// Built with `jfac compile --debug-barriers`: a barrier wait that times
  /// out prints a line on stdout and traps.
  bool debugBarriers = false;
  /// The compile-time parameter values the kernel was built with (the
  /// metadata's "params"), each as its text: 64, true, 0.5, bf16.
  std::map<std::string, std::string> compileParams;
  /// The variant key the kernel was built as (empty: none).
  std::string variant;
};

/// The runtime's version, "MAJOR.MINOR.PATCH" (the project's version).
const char *version();

/// The version of the JSON metadata this runtime reads (docs/METADATA.md).
constexpr int kMetadataVersion = 2;

/// Parses the JSON metadata `jfac` writes beside a cubin. Errors start with
/// `source` (a file name, say) and name the field:
/// "k.cubin.meta: kernels[0].threads is missing". The line format of jfac
/// before version 2 is refused with a message saying how to rebuild.
std::vector<KernelInfo> parseMetadata(const std::string &text,
                                      const std::string &source = "metadata");

/// Bytes of an element type name, 0 if unknown.
size_t elementBytes(const std::string &elementType);

/// A launch argument.
struct Arg {
  ParamKind kind = ParamKind::I32;
  // Tensor maps: a row-major view of global memory.
  CUdeviceptr data = 0;
  std::string elementType;
  std::vector<uint64_t> shape;   // outermost first
  std::vector<uint64_t> strides; // in elements, outermost first; empty: dense
  union {
    int32_t i32;
    int64_t i64;
    float f32;
    double f64;
  } scalar{};

  static Arg tensor(CUdeviceptr data, std::string elementType,
                    std::vector<uint64_t> shape,
                    std::vector<uint64_t> strides = {});
  static Arg pointer(CUdeviceptr data);
  static Arg i32(int32_t v);
  static Arg i64(int64_t v);
  static Arg f32(float v);
  static Arg f64(double v);
};

/// Checks arguments against a kernel's parameters without touching the GPU:
/// count, kinds, element types, ranks, sizes, strides and TMA alignment.
void validateArgs(const KernelInfo &kernel, const std::vector<Arg> &args);

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// Makes the primary context of device `ordinal` current (done implicitly by
/// the first Module load).
void initDevice(int ordinal = 0);

/// A loaded cubin and its kernels.
class Module {
public:
  /// Loads `cubinPath`; metadata from `metadataPath` or `<cubinPath>.meta`.
  static Module loadFile(const std::string &cubinPath,
                         const std::string &metadataPath = "");
  /// `metadataSource` names the metadata in errors.
  static Module loadData(const void *cubin, size_t size,
                         const std::string &metadataText,
                         const std::string &metadataSource = "metadata");

  Module(Module &&) noexcept;
  Module &operator=(Module &&) noexcept;
  ~Module();

  const std::vector<KernelInfo> &kernels() const;
  const KernelInfo &kernel(const std::string &name) const;

  /// Validates `args`, builds TMA descriptors and launches on `stream`.
  void launch(const std::string &kernel, Dim3 grid,
              const std::vector<Arg> &args, CUstream stream = nullptr) const;

private:
  struct Impl;
  explicit Module(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// The message of the Error thrown when a kernel built with
/// --debug-barriers traps: `what` failed with `cudaError` after `kernel` ran.
/// Exposed for tests; the runtime uses it for the launch and every call
/// that reports an execution failure (synchronize, copies).
std::string barrierTrapMessage(const std::string &kernel,
                               const std::string &what,
                               const std::string &cudaError);

/// Device memory helpers for hosts and tests.
CUdeviceptr deviceAlloc(size_t bytes);
void deviceFree(CUdeviceptr ptr);
void copyToDevice(CUdeviceptr dst, const void *src, size_t bytes);
void copyToHost(void *dst, CUdeviceptr src, size_t bytes);
void deviceMemset(CUdeviceptr dst, unsigned char value, size_t bytes);
/// `bytes` of device memory in `stream`'s order, from the runtime's memory
/// pool on the current context's device (cuMemAllocFromPoolAsync; the pool
/// keeps up to 32 MiB of freed memory for the next calls). Capturable in a
/// CUDA graph, which then holds memory-allocation nodes (such a graph has
/// one executable instance at a time). Give it back with
/// deviceFreeOnStream on a stream ordered after its last use.
CUdeviceptr deviceAllocOnStream(size_t bytes, CUstream stream);
void deviceFreeOnStream(CUdeviceptr ptr, CUstream stream);
/// Sets `count` 32-bit words from `dst` (4-byte aligned) to `value`, in
/// `stream`'s order; capturable in a CUDA graph.
void deviceMemsetD32OnStream(CUdeviceptr dst, uint32_t value, size_t count,
                             CUstream stream);
/// Sets `height` rows of `width` 16-bit words, `pitchBytes` apart, from
/// `dst` (2-byte aligned) to `value`, in `stream`'s order.
void deviceMemsetD2D16OnStream(CUdeviceptr dst, size_t pitchBytes,
                               uint16_t value, size_t width, size_t height,
                               CUstream stream);
void synchronize();
/// Copies `bytes` to the host in `stream`'s order, then waits for `stream`.
void copyToHostOnStream(void *dst, CUdeviceptr src, size_t bytes,
                        CUstream stream);

/// The current context; device 0's primary context is made current first
/// when none is.
CUcontext currentContext();

/// The device of the current context (device 0's primary context is made
/// current first when none is).
struct DeviceProperties {
  int ordinal = 0;
  int major = 0, minor = 0; // compute capability
  int multiprocessors = 0;  // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
};
DeviceProperties currentDevice();

} // namespace jfa::rt

#endif // JFA_RUNTIME_HPP
