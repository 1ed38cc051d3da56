//===- Metadata.cpp - what the runtime needs to launch a kernel
//-------------===//
//
// A line-oriented text file, one record per line, so the runtime can read it
// without a JSON library:
//
//   jfa-metadata 1
//   kernel <name>
//   arch <chip>
//   threads <n>
//   cluster <x> <y> <z>
//   shared_bytes <n>
//   param tma <element> <box dims, outermost first...> [swizzle <bytes>]
//   param ptr <element>
//   param <i32|i64|f32|f64>
//   debug_barriers          (only when built with --debug-barriers)
//   end
//
//===----------------------------------------------------------------------===//
#include "JFA/JFAOps.h"
#include "compiler/Pipeline.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace jfa {

static std::string typeName(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

std::string buildMetadata(ModuleOp module, const Target &target,
                          bool debugBarriers) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "jfa-metadata 1\n";
  for (auto kernel : module.getOps<KernelOp>()) {
    os << "kernel " << kernel.getSymName() << "\n";
    os << "arch " << target.chip << "\n";
    os << "threads " << kernel.getNumThreads() << "\n";
    SmallVector<int32_t> cluster = {1, 1, 1};
    if (auto dims = kernel.getClusterDims())
      cluster.assign(dims->begin(), dims->end());
    os << "cluster " << cluster[0] << " " << cluster[1] << " " << cluster[2]
       << "\n";
    os << "shared_bytes " << computeSharedMemoryLayout(kernel).totalBytes
       << "\n";
    for (Type t : kernel.getFunctionType().getInputs()) {
      os << "param ";
      if (auto desc = dyn_cast<TensorDescType>(t)) {
        os << "tma " << typeName(desc.getElementType());
        for (int64_t d : desc.getBoxShape())
          os << " " << d;
        if (desc.getSwizzle())
          os << " swizzle " << desc.getSwizzle();
      } else if (auto ptr = dyn_cast<GlobalPtrType>(t)) {
        os << "ptr " << typeName(ptr.getElementType());
      } else {
        os << typeName(t);
      }
      os << "\n";
    }
    if (debugBarriers)
      os << "debug_barriers\n";
    os << "end\n";
  }
  return text;
}

} // namespace jfa
