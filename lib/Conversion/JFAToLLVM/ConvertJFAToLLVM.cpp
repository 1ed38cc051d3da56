//===- ConvertJFAToLLVM.cpp - the JFA -> LLVM/NVVM conversion pass --------===//
//
// Declares the shared-memory window, rewrites kernel signatures, then runs
// the patterns of every hardware concept (JFAToLLVM.h lists the files).
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/JFAToLLVM/JFAToLLVM.h"
#include "lib/Conversion/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

namespace jfa {
#define GEN_PASS_DEF_JFACONVERTTOLLVM
#include "lib/Conversion/Passes.h.inc"
} // namespace jfa

using namespace mlir;
using namespace jfa;

namespace {
/// The canonicalizer turns an scf.if that picks one of two JFA values (a
/// double-buffered accumulator's half) into arith.select, which the arith
/// lowering does not know: the select of the converted values.
struct JFASelectLowering : OpConversionPattern<arith::SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "no LLVM type for the values");
    rewriter.replaceOpWithNewOp<LLVM::SelectOp>(
        op, type, adaptor.getCondition(), adaptor.getTrueValue(),
        adaptor.getFalseValue());
    return success();
  }
};

struct ConvertJFAToLLVM : jfa::impl::JFAConvertToLLVMBase<ConvertJFAToLLVM> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    JFATypeConverter converter(ctx);

    // The dynamic shared-memory window every buffer and barrier lives in.
    bool usesShared = false;
    module.walk([&](Operation *op) {
      usesShared |= isa<LocalAllocOp, AllocBarriersOp, TmemAllocOp>(op);
    });
    if (usesShared && !module.lookupSymbol(kSharedWindow)) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      LLVM::GlobalOp::create(
          b, module.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), 0),
          /*isConstant=*/false, LLVM::Linkage::External, kSharedWindow,
          Attribute(), /*alignment=*/kSharedBufferAlignment,
          static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
    }

    // The conversion takes the distributed form: a JFA op still on register
    // tiles would otherwise only fail to legalize, with no reason given.
    WalkResult tiles = module.walk([](Operation *op) {
      auto isTile = [](Type t) { return isa<RankedTensorType>(t); };
      if (!isa<JFADialect>(op->getDialect()) ||
          (llvm::none_of(op->getOperandTypes(), isTile) &&
           llvm::none_of(op->getResultTypes(), isTile)))
        return WalkResult::advance();
      (void)notDistributed(op); // reports; the walk stops the pass
      return WalkResult::interrupt();
    });
    if (tiles.wasInterrupted())
      return signalPassFailure();

    // A pair kernel's tcgen05 ops are all cta_group::2 (jfa-check-target
    // rejects a mix); the kernel op is gone once its signature is converted.
    for (auto kernel : module.getOps<KernelOp>()) {
      if (!findPairProduct(kernel))
        continue;
      kernel.walk([&](Operation *op) {
        if (isa<TcCommitOp, TmemAllocOp, TmemDeallocOp>(op))
          op->setAttr(kCtaPairAttrName, UnitAttr::get(ctx));
      });
    }

    for (auto kernel : llvm::make_early_inc_range(module.getOps<KernelOp>()))
      if (failed(convertKernelSignature(kernel, converter)))
        return signalPassFailure();

    // The target jfa-check-target recorded; none: every feature lowers.
    TargetInfo targetInfo(getModuleTarget(module));
    RewritePatternSet patterns(ctx);
    populateSharedMemoryToLLVMPatterns(converter, patterns);
    populateBarrierToLLVMPatterns(converter, patterns);
    populateTMAToLLVMPatterns(converter, patterns, targetInfo);
    populateWGMMAToLLVMPatterns(converter, patterns, targetInfo);
    populateTensorMemoryToLLVMPatterns(converter, patterns, targetInfo);
    populateRowOpsToLLVMPatterns(converter, patterns);
    populateKernelToLLVMPatterns(converter, patterns, threadIndexAtUse);
    populateMathToLLVMPatterns(converter, patterns);
    populateGlobalMemoryToLLVMPatterns(converter, patterns);
    populateDebugToLLVMPatterns(converter, patterns);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<JFADialect>();
    target.addIllegalOp<math::LogOp, math::Log2Op>();
    target.addDynamicallyLegalOp<math::Exp2Op>(
        [](math::Exp2Op op) { return !isFastExp2(op); });
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    // scf ops that carry JFA values (a double-buffered accumulator chosen
    // by an scf.if, a slot through a loop) get the converted types; the
    // others are left as they are (their index types are the later
    // passes').
    scf::populateSCFStructuralTypeConversions(converter, patterns);
    auto carriesJFA = [](Operation *op) {
      auto isJFA = [](Type t) { return isa<JFADialect>(t.getDialect()); };
      return llvm::any_of(op->getOperandTypes(), isJFA) ||
             llvm::any_of(op->getResultTypes(), isJFA);
    };
    target
        .addDynamicallyLegalOp<scf::IfOp, scf::ForOp, scf::WhileOp,
                               scf::YieldOp, scf::ConditionOp, arith::SelectOp>(
            [=](Operation *op) { return !carriesJFA(op); });
    patterns.add<JFASelectLowering>(converter, ctx);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
