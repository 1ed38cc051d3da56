//===- Runtime.cpp - load and launch JFA kernels
//----------------------------===//
#include "jfa/runtime.hpp"

#include <fmt/format.h>

#include <dlfcn.h>

#include <fstream>
#include <iterator>
#include <map>
#include <mutex>

namespace jfa::rt {

namespace {

/// Every driver entry point the runtime uses, listed once: X(name).
#define JFA_DRIVER_FUNCTIONS(X)                                                \
  X(cuInit)                                                                    \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxGetDevice)                                                            \
  X(cuDeviceGetAttribute)                                                      \
  X(cuCtxSynchronize)                                                          \
  X(cuModuleLoadData)                                                          \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuLaunchKernelEx)                                                          \
  X(cuTensorMapEncodeTiled)                                                    \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemPoolCreate)                                                           \
  X(cuMemPoolDestroy)                                                          \
  X(cuMemPoolSetAttribute)                                                     \
  X(cuMemAllocFromPoolAsync)                                                   \
  X(cuMemFreeAsync)                                                            \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuStreamSynchronize)                                                       \
  X(cuMemsetD8)                                                                \
  X(cuMemsetD32Async)                                                          \
  X(cuMemsetD2D16Async)

/// The driver entry points, resolved from libcuda.so.1.
struct Driver {
#define JFA_DRIVER_FN(name) decltype(&::name) name = nullptr;
  JFA_DRIVER_FUNCTIONS(JFA_DRIVER_FN)
#undef JFA_DRIVER_FN
};

// Symbol names in libcuda (cuda.h maps several APIs to versioned names).
#define JFA_STR2(x) #x
#define JFA_STR(x) JFA_STR2(x)

const Driver &driver() {
  static Driver d;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      failure = "no CUDA driver: cannot load libcuda.so.1 (is an NVIDIA "
                "driver installed and a GPU present?)";
      return;
    }
#define JFA_LOAD(name)                                                         \
  d.name = reinterpret_cast<decltype(d.name)>(dlsym(lib, JFA_STR(name)));      \
  if (!d.name) {                                                               \
    failure = "the CUDA driver lacks " JFA_STR(name) "; it is too old";        \
    return;                                                                    \
  }
    JFA_DRIVER_FUNCTIONS(JFA_LOAD)
#undef JFA_LOAD
  });
  if (!failure.empty())
    throw Error(failure);
  return d;
}

std::string describe(CUresult result) {
  const char *message = nullptr;
  driver().cuGetErrorString(result, &message);
  return fmt::format("{} (CUresult {})",
                     message ? message : "unknown CUDA error", int(result));
}

void check(CUresult result, const std::string &what) {
  if (result == CUDA_SUCCESS)
    return;
  throw Error(fmt::format("{}: {}", what, describe(result)));
}

/// The last kernel built with --debug-barriers this process launched. A
/// trap surfaces at whatever call next waits for the device (a later
/// launch, a synchronize, a copy), so it is remembered process-wide.
std::mutex debugKernelMutex;
std::string lastDebugKernel;

/// `check` for calls that report a kernel's execution failure: after a
/// --debug-barriers kernel, the errors a `trap` produces are explained.
void checkExecution(CUresult result, const std::string &what) {
  if (result == CUDA_SUCCESS)
    return;
  std::string kernel;
  {
    std::lock_guard<std::mutex> lock(debugKernelMutex);
    kernel = lastDebugKernel;
  }
  if (!kernel.empty() && (result == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
                          result == CUDA_ERROR_LAUNCH_FAILED))
    throw Error(barrierTrapMessage(kernel, what, describe(result)));
  throw Error(fmt::format("{}: {}", what, describe(result)));
}

/// Makes sure some context is current, creating the primary one if needed.
void ensureContext() {
  const Driver &d = driver();
  CUcontext ctx = nullptr;
  if (d.cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx)
    return;
  initDevice(0);
}

CUtensorMapDataType tensorMapType(const std::string &t) {
  if (t == "f32")
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  if (t == "f16")
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  if (t == "bf16")
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  if (t == "f64")
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  if (t == "i32")
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  if (t == "i64")
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  if (t == "i16")
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  // TMA copies 8-bit elements as bytes, whatever they mean.
  if (t == "i8" || t == "f8E4M3FN" || t == "f8E5M2")
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  throw Error(fmt::format("no TMA data type for element type '{}'", t));
}

CUtensorMapSwizzle swizzleMode(unsigned bytes) {
  switch (bytes) {
  case 32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case 64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case 128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  default:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

/// Dense row-major strides (in elements) unless given.
std::vector<uint64_t> stridesOf(const Arg &a) {
  if (!a.strides.empty())
    return a.strides;
  std::vector<uint64_t> s(a.shape.size(), 1);
  for (size_t i = a.shape.size(); i-- > 1;)
    s[i - 1] = s[i] * a.shape[i];
  return s;
}

CUtensorMap encodeTensorMap(const ParamSpec &p, const Arg &a) {
  size_t rank = a.shape.size();
  size_t bytes = elementBytes(a.elementType);
  std::vector<uint64_t> strides = stridesOf(a);
  // The driver wants the innermost dimension first, and strides in bytes for
  // every dimension but the innermost.
  cuuint64_t dims[5], strideBytes[5];
  cuuint32_t box[5], elementStrides[5];
  for (size_t i = 0; i < rank; ++i) {
    size_t from = rank - 1 - i;
    dims[i] = a.shape[from];
    box[i] = p.box[from];
    elementStrides[i] = 1;
    if (i > 0)
      strideBytes[i - 1] = strides[from] * bytes;
  }
  CUtensorMap map;
  check(driver().cuTensorMapEncodeTiled(
            &map, tensorMapType(a.elementType), rank,
            reinterpret_cast<void *>(a.data), dims, strideBytes, box,
            elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzleMode(p.swizzle), CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        "cuTensorMapEncodeTiled");
  return map;
}

} // namespace

#ifndef JFA_VERSION_STRING
#error "JFA_VERSION_STRING is set by runtime/CMakeLists.txt"
#endif
const char *version() { return JFA_VERSION_STRING; }

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

Arg Arg::tensor(CUdeviceptr data, std::string elementType,
                std::vector<uint64_t> shape, std::vector<uint64_t> strides) {
  Arg a;
  a.kind = ParamKind::TensorMap;
  a.data = data;
  a.elementType = std::move(elementType);
  a.shape = std::move(shape);
  a.strides = std::move(strides);
  return a;
}
Arg Arg::pointer(CUdeviceptr data) {
  Arg a;
  a.kind = ParamKind::Pointer;
  a.data = data;
  return a;
}
Arg Arg::i32(int32_t v) {
  Arg a;
  a.kind = ParamKind::I32;
  a.scalar.i32 = v;
  return a;
}
Arg Arg::i64(int64_t v) {
  Arg a;
  a.kind = ParamKind::I64;
  a.scalar.i64 = v;
  return a;
}
Arg Arg::f32(float v) {
  Arg a;
  a.kind = ParamKind::F32;
  a.scalar.f32 = v;
  return a;
}
Arg Arg::f64(double v) {
  Arg a;
  a.kind = ParamKind::F64;
  a.scalar.f64 = v;
  return a;
}

void validateArgs(const KernelInfo &k, const std::vector<Arg> &args) {
  if (args.size() != k.params.size())
    throw Error(fmt::format("kernel '{}' takes {} arguments, got {}", k.name,
                            k.params.size(), args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    const ParamSpec &p = k.params[i];
    const Arg &a = args[i];
    // Named only when an argument is wrong: a launch checks every argument
    // and formatting them all cost more host time than the launch itself.
    auto where = [&] {
      return p.name.empty()
                 ? fmt::format("argument {} of '{}'", i, k.name)
                 : fmt::format("argument {} (%{}) of '{}'", i, p.name, k.name);
    };
    if (a.kind != p.kind)
      throw Error(fmt::format("{} must be {}, got {}", where(),
                              paramKindName(p.kind), paramKindName(a.kind)));
    if (p.kind != ParamKind::TensorMap)
      continue;
    if (a.elementType != p.elementType)
      throw Error(fmt::format(
          "{}: tensor of {}, but the kernel's TMA descriptor is for {}",
          where(), a.elementType, p.elementType));
    if (a.shape.size() != p.box.size())
      throw Error(
          fmt::format("{}: tensor of rank {}, but the TMA box has rank {}",
                      where(), a.shape.size(), p.box.size()));
    if (!a.strides.empty() && a.strides.size() != a.shape.size())
      throw Error(fmt::format("{}: {} strides for a rank-{} tensor", where(),
                              a.strides.size(), a.shape.size()));
    if (a.data == 0)
      throw Error(fmt::format("{}: null tensor address", where()));
    if (a.data % 16 != 0)
      throw Error(
          fmt::format("{}: TMA needs a 16-byte aligned address, got {:#x}",
                      where(), a.data));
    for (uint64_t d : a.shape)
      if (d == 0 || d > (uint64_t(1) << 32))
        throw Error(fmt::format(
            "{}: tensor dimensions must be in [1, 2^32], got {}", where(), d));
    std::vector<uint64_t> strides = stridesOf(a);
    size_t bytes = elementBytes(a.elementType);
    if (strides.back() != 1)
      throw Error(fmt::format("{}: the innermost dimension must be contiguous "
                              "(stride 1), got stride {}",
                              where(), strides.back()));
    for (size_t j = 0; j + 1 < strides.size(); ++j)
      if ((strides[j] * bytes) % 16 != 0)
        throw Error(
            fmt::format("{}: TMA needs strides that are multiples of 16 "
                        "bytes; dimension {} has a stride of {} bytes",
                        where(), j, strides[j] * bytes));
  }
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

struct Module::Impl {
  CUmodule module = nullptr;
  std::vector<KernelInfo> kernels;
  std::vector<CUfunction> functions;
  size_t indexOf(const std::string &name) const {
    for (size_t i = 0; i < kernels.size(); ++i)
      if (kernels[i].name == name)
        return i;
    throw Error(fmt::format("no kernel named '{}' in this module", name));
  }
  ~Impl() {
    if (module)
      driver().cuModuleUnload(module);
  }
};

Module::Module(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Module::Module(Module &&) noexcept = default;
Module &Module::operator=(Module &&) noexcept = default;
Module::~Module() = default;

void initDevice(int ordinal) {
  const Driver &d = driver();
  check(d.cuInit(0), "cuInit");
  int count = 0;
  check(d.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0)
    throw Error("no CUDA device found");
  if (ordinal < 0 || ordinal >= count)
    throw Error(
        fmt::format("device {} does not exist ({} devices)", ordinal, count));
  CUdevice dev;
  check(d.cuDeviceGet(&dev, ordinal), "cuDeviceGet");
  CUcontext ctx;
  check(d.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

static std::string readFile(const std::string &path, const char *what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error(fmt::format("cannot read {} '{}'", what, path));
  return std::string(std::istreambuf_iterator<char>(in), {});
}

Module Module::loadFile(const std::string &cubinPath,
                        const std::string &metadataPath) {
  std::string cubin = readFile(cubinPath, "cubin");
  std::string metaPath =
      metadataPath.empty() ? cubinPath + ".meta" : metadataPath;
  std::string meta = readFile(metaPath, "metadata");
  return loadData(cubin.data(), cubin.size(), meta, metaPath);
}

Module Module::loadData(const void *cubin, size_t size,
                        const std::string &metadataText,
                        const std::string &metadataSource) {
  auto impl = std::make_unique<Impl>();
  impl->kernels = parseMetadata(metadataText, metadataSource);
  if (impl->kernels.empty())
    throw Error(fmt::format("{}: lists no kernels", metadataSource));
  // An ELF cubin starts with \x7fELF; anything else is not a cubin.
  if (!cubin || size < 4 ||
      std::string(static_cast<const char *>(cubin), 4) != "\x7f"
                                                          "ELF")
    throw Error("not a cubin (no ELF header)");
  ensureContext();
  check(driver().cuModuleLoadData(&impl->module, cubin),
        fmt::format("cannot load the cubin (built for {})",
                    impl->kernels.front().arch));
  for (const KernelInfo &k : impl->kernels) {
    CUfunction fn;
    CUresult r =
        driver().cuModuleGetFunction(&fn, impl->module, k.name.c_str());
    if (r != CUDA_SUCCESS)
      throw Error(fmt::format(
          "kernel '{}' is listed in the metadata but not in the cubin",
          k.name));
    if (k.sharedBytes > 48 * 1024)
      check(
          driver().cuFuncSetAttribute(
              fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              int(k.sharedBytes)),
          fmt::format("cannot allow {} bytes of dynamic shared memory for '{}'",
                      k.sharedBytes, k.name));
    impl->functions.push_back(fn);
  }
  return Module(std::move(impl));
}

const std::vector<KernelInfo> &Module::kernels() const { return impl->kernels; }

const KernelInfo &Module::kernel(const std::string &name) const {
  return impl->kernels[impl->indexOf(name)];
}

void Module::launch(const std::string &name, Dim3 grid,
                    const std::vector<Arg> &args, CUstream stream) const {
  size_t index = impl->indexOf(name);
  const KernelInfo &k = impl->kernels[index];
  validateArgs(k, args);
  if (grid.x == 0 || grid.y == 0 || grid.z == 0)
    throw Error("grid dimensions must be positive");
  for (int i = 0; i < 3; ++i) {
    unsigned g = i == 0 ? grid.x : i == 1 ? grid.y : grid.z;
    if (g % k.cluster[i] != 0)
      throw Error(fmt::format(
          "grid dimension {} is not a multiple of the cluster dimension {}", g,
          k.cluster[i]));
  }

  // Storage for parameter values; tensor maps need 64-byte alignment.
  std::vector<CUtensorMap> maps;
  maps.reserve(args.size());
  // The driver copies the values at the launch and only reads them: the
  // arguments' own storage serves (no copy of every Arg per launch).
  std::vector<void *> params(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg &a = args[i];
    switch (a.kind) {
    case ParamKind::TensorMap:
      maps.push_back(encodeTensorMap(k.params[i], a));
      params[i] = &maps.back();
      break;
    case ParamKind::Pointer:
      params[i] = const_cast<CUdeviceptr *>(&a.data);
      break;
    default:
      params[i] = const_cast<decltype(a.scalar) *>(&a.scalar);
      break;
    }
  }

  const Driver &d = driver();
  CUfunction fn = impl->functions[index];
  if (k.debugBarriers) {
    std::lock_guard<std::mutex> lock(debugKernelMutex);
    lastDebugKernel = k.name;
  }
  if (k.cluster[0] * k.cluster[1] * k.cluster[2] == 1) {
    CUresult r = d.cuLaunchKernel(fn, grid.x, grid.y, grid.z, k.threads, 1, 1,
                                  unsigned(k.sharedBytes), stream,
                                  params.data(), nullptr);
    if (r != CUDA_SUCCESS) // the message is formatted only when needed
      checkExecution(r, fmt::format("cannot launch '{}'", k.name));
    return;
  }
  CUlaunchAttribute attr{};
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = k.cluster[0];
  attr.value.clusterDim.y = k.cluster[1];
  attr.value.clusterDim.z = k.cluster[2];
  CUlaunchConfig config{};
  config.gridDimX = grid.x;
  config.gridDimY = grid.y;
  config.gridDimZ = grid.z;
  config.blockDimX = k.threads;
  config.blockDimY = config.blockDimZ = 1;
  config.sharedMemBytes = unsigned(k.sharedBytes);
  config.hStream = stream;
  config.attrs = &attr;
  config.numAttrs = 1;
  CUresult r = d.cuLaunchKernelEx(&config, fn, params.data(), nullptr);
  if (r != CUDA_SUCCESS)
    checkExecution(r, fmt::format("cannot launch '{}'", k.name));
}

std::string barrierTrapMessage(const std::string &kernel,
                               const std::string &what,
                               const std::string &cudaError) {
  return fmt::format(
      "{0}: {1}. Kernel '{2}' was built with --debug-barriers, so this is "
      "most likely a barrier wait that timed out and trapped (a deadlock): "
      "the device printed the wait's source location, barrier, phase, CTA and "
      "warp on standard output, in a line starting with 'jfa: kernel {2}: "
      "barrier wait at' (if there is no such line, the trap has another "
      "cause). The CUDA context is now unusable: every later CUDA call in this "
      "process fails, so exit and fix the kernel.",
      what, cudaError, kernel);
}

//===----------------------------------------------------------------------===//
// Memory helpers
//===----------------------------------------------------------------------===//

CUdeviceptr deviceAlloc(size_t bytes) {
  ensureContext();
  CUdeviceptr p = 0;
  check(driver().cuMemAlloc(&p, bytes),
        fmt::format("cannot allocate {} bytes on the device", bytes));
  return p;
}
void deviceFree(CUdeviceptr p) {
  if (p)
    check(driver().cuMemFree(p), "cuMemFree");
}
void copyToDevice(CUdeviceptr dst, const void *src, size_t bytes) {
  checkExecution(driver().cuMemcpyHtoD(dst, src, bytes), "copy to device");
}
void copyToHost(void *dst, CUdeviceptr src, size_t bytes) {
  checkExecution(driver().cuMemcpyDtoH(dst, src, bytes), "copy to host");
}
void deviceMemset(CUdeviceptr dst, unsigned char value, size_t bytes) {
  check(driver().cuMemsetD8(dst, value, bytes), "cuMemsetD8");
}
namespace {
/// The runtime's stream-ordered memory pool on the current context's device,
/// made on first use. It keeps up to 32 MiB of what is freed into it at a
/// synchronization (its release threshold): the device's default pool
/// keeps nothing, so the next call's small buffer (the forward's schedule)
/// would be a fresh driver allocation after every synchronization.
CUmemoryPool runtimePool() {
  static std::mutex mutex;
  static std::map<CUdevice, CUmemoryPool> pools;
  const Driver &d = driver();
  currentContext();
  CUdevice dev;
  check(d.cuCtxGetDevice(&dev), "cuCtxGetDevice");
  std::lock_guard<std::mutex> lock(mutex);
  auto it = pools.find(dev);
  if (it != pools.end())
    return it->second;
  int supported = 0;
  check(d.cuDeviceGetAttribute(&supported,
                               CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev),
        "cannot query whether the device has memory pools");
  if (!supported)
    throw Error(fmt::format(
        "device {} does not support stream-ordered memory pools "
        "(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED is 0), which the "
        "attention forward's work queue allocates from; a driver of CUDA "
        "11.2 or later has them",
        int(dev)));
  CUmemPoolProps props{};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = int(dev);
  CUmemoryPool pool = nullptr;
  check(d.cuMemPoolCreate(&pool, &props), "cuMemPoolCreate");
  uint64_t keep = uint64_t(32) << 20;
  CUresult r =
      d.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
  if (r != CUDA_SUCCESS) {
    d.cuMemPoolDestroy(pool);
    check(r, "cuMemPoolSetAttribute");
  }
  return pools.emplace(dev, pool).first->second;
}
} // namespace

CUdeviceptr deviceAllocOnStream(size_t bytes, CUstream stream) {
  CUdeviceptr ptr = 0;
  check(driver().cuMemAllocFromPoolAsync(&ptr, bytes, runtimePool(), stream),
        "cuMemAllocFromPoolAsync");
  return ptr;
}
void deviceFreeOnStream(CUdeviceptr ptr, CUstream stream) {
  check(driver().cuMemFreeAsync(ptr, stream), "cuMemFreeAsync");
}
void deviceMemsetD32OnStream(CUdeviceptr dst, uint32_t value, size_t count,
                             CUstream stream) {
  check(driver().cuMemsetD32Async(dst, value, count, stream),
        "cuMemsetD32Async");
}
void deviceMemsetD2D16OnStream(CUdeviceptr dst, size_t pitchBytes,
                               uint16_t value, size_t width, size_t height,
                               CUstream stream) {
  check(driver().cuMemsetD2D16Async(dst, pitchBytes, value, width, height,
                                    stream),
        "cuMemsetD2D16Async");
}
void synchronize() {
  checkExecution(driver().cuCtxSynchronize(), "kernel execution failed");
}
void copyToHostOnStream(void *dst, CUdeviceptr src, size_t bytes,
                        CUstream stream) {
  const Driver &d = driver();
  checkExecution(d.cuMemcpyDtoHAsync(dst, src, bytes, stream), "copy to host");
  checkExecution(d.cuStreamSynchronize(stream), "copy to host");
}

//===----------------------------------------------------------------------===//
// The current device
//===----------------------------------------------------------------------===//

CUcontext currentContext() {
  ensureContext();
  CUcontext ctx = nullptr;
  check(driver().cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
  return ctx;
}

DeviceProperties currentDevice() {
  ensureContext();
  const Driver &d = driver();
  CUdevice dev;
  check(d.cuCtxGetDevice(&dev), "cuCtxGetDevice");
  DeviceProperties p;
  p.ordinal = int(dev);
  auto attribute = [&](CUdevice_attribute a, const char *what) {
    int v = 0;
    check(d.cuDeviceGetAttribute(&v, a, dev),
          std::string("cannot query the device's ") + what);
    return v;
  };
  p.major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                      "compute capability");
  p.minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                      "compute capability");
  p.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                "multiprocessor count");
  return p;
}

} // namespace jfa::rt
