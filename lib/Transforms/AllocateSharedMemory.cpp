//===- AllocateSharedMemory.cpp - place buffers in shared memory
//------------===//
#include "lib/Transforms/Passes.h"

#include "llvm/ADT/TypeSwitch.h"

#include "mlir/IR/Builders.h"

namespace jfa {
#define GEN_PASS_DEF_JFAALLOCATESHAREDMEMORY
#include "lib/Transforms/Passes.h.inc"
} // namespace jfa

using namespace mlir;
using namespace jfa;

namespace {
struct AllocateSharedMemory
    : jfa::impl::JFAAllocateSharedMemoryBase<AllocateSharedMemory> {
  void runOnOperation() override {
    Builder b(&getContext());
    // The module's target (jfa-check-target), else what any target allows.
    const Target *target = getModuleTarget(getOperation());
    int64_t limit =
        target ? target->maxSharedMemoryPerBlock : kMaxSharedMemoryBytes;
    for (auto kernel : getOperation().getOps<KernelOp>()) {
      SharedMemoryLayout layout = computeSharedMemoryLayout(kernel);
      if (layout.totalBytes > limit) {
        InFlightDiagnostic diag = kernel.emitError()
                                  << "uses " << layout.totalBytes
                                  << " bytes of shared memory, more than the "
                                  << limit << " a CTA can have";
        if (target)
          diag << " on " << target->name;
        return signalPassFailure();
      }
      for (auto [op, offset] : layout.offsets) {
        IntegerAttr placed = b.getI64IntegerAttr(offset);
        llvm::TypeSwitch<Operation *>(op)
            .Case<LocalAllocOp, AllocBarriersOp, TmemAllocOp>(
                [&](auto alloc) { alloc.setOffsetAttr(placed); });
      }
      kernel->getContext()
          ->getLoadedDialect<JFADialect>()
          ->getSharedBytesAttrHelper()
          .setAttr(kernel, b.getI64IntegerAttr(layout.totalBytes));
    }
  }
};
} // namespace
