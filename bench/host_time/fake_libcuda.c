// bench/host_time: a do-nothing libcuda.so.1: every entry point the runtime resolves succeeds
// at once, so timing the runtime's calls against it measures the runtime's own
// host work (the driver's own cost excluded).
#include <cuda.h>
#include <string.h>
#include <stdlib.h>
static int dummy;
CUresult cuInit(unsigned f) { return CUDA_SUCCESS; }
CUresult cuGetErrorString(CUresult e, const char **s) { *s = "fake"; return CUDA_SUCCESS; }
CUresult cuDeviceGetCount(int *c) { *c = 1; return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *d, int o) { *d = 0; return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { *c = (CUcontext)&dummy; return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { return CUDA_SUCCESS; }
CUresult cuCtxGetCurrent(CUcontext *c) { *c = (CUcontext)&dummy; return CUDA_SUCCESS; }
CUresult cuCtxGetDevice(CUdevice *d) { *d = 0; return CUDA_SUCCESS; }
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
  default: *v = 1 << 20; break;
  }
  return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize(void) { return CUDA_SUCCESS; }
CUresult cuModuleLoadData(CUmodule *m, const void *p) { *m = (CUmodule)&dummy; return CUDA_SUCCESS; }
CUresult cuModuleUnload(CUmodule m) { return CUDA_SUCCESS; }
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *n) { *f = (CUfunction)&dummy; return CUDA_SUCCESS; }
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) { return CUDA_SUCCESS; }
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned sm, CUstream s, void **p, void **e) { return CUDA_SUCCESS; }
CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **p, void **e) { return CUDA_SUCCESS; }
CUresult cuTensorMapEncodeTiled(CUtensorMap *t, CUtensorMapDataType dt, cuuint32_t r, void *g, const cuuint64_t *d, const cuuint64_t *s, const cuuint32_t *b, const cuuint32_t *es, CUtensorMapInterleave i, CUtensorMapSwizzle sw, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill o) { memset(t, 0, sizeof *t); return CUDA_SUCCESS; }
CUresult cuMemAlloc(CUdeviceptr *p, size_t n) { *p = (CUdeviceptr)malloc(n ? n : 1); return CUDA_SUCCESS; }
CUresult cuMemFree(CUdeviceptr p) { return CUDA_SUCCESS; }
CUresult cuMemPoolCreate(CUmemoryPool *p, const CUmemPoolProps *props) { *p = (CUmemoryPool)1; return CUDA_SUCCESS; }
CUresult cuMemPoolDestroy(CUmemoryPool p) { return CUDA_SUCCESS; }
CUresult cuMemPoolSetAttribute(CUmemoryPool p, CUmemPool_attribute a, void *v) { return CUDA_SUCCESS; }
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t n, CUmemoryPool pool, CUstream s) { *p = (CUdeviceptr)malloc(n ? n : 1); return CUDA_SUCCESS; }
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s) { free((void *)p); return CUDA_SUCCESS; }
CUresult cuMemcpyHtoD(CUdeviceptr d, const void *s, size_t n) { return CUDA_SUCCESS; }
CUresult cuMemcpyDtoH(void *d, CUdeviceptr s, size_t n) { return CUDA_SUCCESS; }
CUresult cuMemcpyDtoHAsync(void *d, CUdeviceptr s, size_t n, CUstream st) { return CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream s) { return CUDA_SUCCESS; }
CUresult cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) { return CUDA_SUCCESS; }
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, CUstream s) { return CUDA_SUCCESS; }
CUresult cuMemsetD2D16Async(CUdeviceptr d, size_t p, unsigned short v, size_t w, size_t h, CUstream s) { return CUDA_SUCCESS; }
