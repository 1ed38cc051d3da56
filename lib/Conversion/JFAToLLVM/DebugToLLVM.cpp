//===- DebugToLLVM.cpp - the debug-mode ops to LLVM and NVVM --------------===//
//
// jfa.barrier_try_wait is one `mbarrier.try_wait.parity` probe;
// jfa.debug_trap is a `vprintf` of a global format string and an argument
// buffer (as gpu.printf lowers for NVVM) by the lowest active lane of each
// warp, then `trap`.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/JFAToLLVM/JFAToLLVM.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace jfa;

namespace {

/// How long one probe may suspend the thread (ns): short next to the
/// timeout, so the spin notices the deadline promptly.
constexpr int64_t kProbeSuspendTimeHint = 1000000;

struct BarrierTryWaitLowering : JFAPattern<BarrierTryWaitOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BarrierTryWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    rewriter.replaceOp(
        op, mbarrierProbe(b, adaptor.getBarrier(), adaptor.getPhase(),
                          kProbeSuspendTimeHint, op.getAcquireCluster()));
    return success();
  }
};

struct DebugTrapLowering : JFAPattern<DebugTrapOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(DebugTrapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto module = op->getParentOfType<ModuleOp>();
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    Type i32 = rewriter.getI32Type();

    FailureOr<LLVM::LLVMFuncOp> vprintf =
        LLVM::lookupOrCreateFn(rewriter, module, "vprintf", {ptr, ptr}, i32);
    if (failed(vprintf))
      return rewriter.notifyMatchFailure(op, "vprintf has another signature");

    // The format and an empty string: lanes that do not report print "",
    // which keeps the call unconditional (no branch to build here).
    std::string name;
    for (unsigned i = 0; name.empty() || module.lookupSymbol(name); ++i)
      name = "jfa_debug_format_" + std::to_string(i);
    std::string format = op.getFormat().str();
    Value formatPtr = LLVM::createGlobalString(
        loc, rewriter, name, StringRef(format.c_str(), format.size() + 1),
        LLVM::Linkage::Internal);
    constexpr StringLiteral kEmpty = "jfa_debug_empty";
    Value emptyPtr =
        module.lookupSymbol(kEmpty)
            ? LLVM::AddressOfOp::create(rewriter, loc, ptr, kEmpty).getResult()
            : LLVM::createGlobalString(loc, rewriter, kEmpty, StringRef("", 1),
                                       LLVM::Linkage::Internal);

    // The lowest active lane of the warp reports: one line per warp rather
    // than one per thread.
    LLVMBuilder lb(loc, rewriter);
    Value reports = lowestActiveLane(lb).isLeader;
    Value chosen =
        LLVM::SelectOp::create(rewriter, loc, reports, formatPtr, emptyPtr);

    // vprintf reads its arguments from a buffer of naturally aligned
    // values; every argument here is an i32.
    ValueRange args = adaptor.getArgs();
    Value buffer = LLVM::ZeroOp::create(rewriter, loc, ptr);
    if (!args.empty()) {
      SmallVector<Type> fields(args.size(), i32);
      auto structType = LLVM::LLVMStructType::getLiteral(ctx, fields);
      Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(),
                                           rewriter.getI64IntegerAttr(1));
      buffer = LLVM::AllocaOp::create(rewriter, loc, ptr, structType, one,
                                      /*alignment=*/8);
      for (auto [i, arg] : llvm::enumerate(args)) {
        Value field =
            LLVM::GEPOp::create(rewriter, loc, ptr, structType, buffer,
                                ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
        LLVM::StoreOp::create(rewriter, loc, arg, field);
      }
    }
    LLVM::CallOp::create(rewriter, loc, *vprintf, ValueRange{chosen, buffer});
    LLVM::Trap::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void jfa::populateDebugToLLVMPatterns(JFATypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<BarrierTryWaitLowering, DebugTrapLowering>(converter);
}
