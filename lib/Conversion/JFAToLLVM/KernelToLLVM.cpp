//===- KernelToLLVM.cpp - the kernel signature and grid/thread ids --------===//
//
// A jfa.kernel becomes an llvm.func with NVVM's kernel attributes: the
// exact thread count, the entry register count tasks' setmaxnreg needs, the
// cluster shape, and TMA descriptors as 64-byte aligned __grid_constant__
// byval parameters. A kernel whose cluster holds several CTAs ends with a
// cluster barrier: no CTA may exit while a peer's threads can still arrive
// on its barriers (copies in flight are the kernel's to wait for).
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/JFAToLLVM/JFAToLLVM.h"

using namespace mlir;
using namespace jfa;

namespace {

/// A CUtensorMap is 128 bytes and must be 64-byte aligned.
constexpr int64_t kTensorMapBytes = 128;
constexpr int64_t kTensorMapAlignment = 64;

template <typename Op, typename X, typename Y, typename Z>
struct GridIndexLowering : JFAPattern<Op> {
  using JFAPattern<Op>::JFAPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value v;
    switch (op.getDim()) {
    case Dim::x:
      v = X::create(rewriter, op.getLoc(), i32);
      break;
    case Dim::y:
      v = Y::create(rewriter, op.getLoc(), i32);
      break;
    case Dim::z:
      v = Z::create(rewriter, op.getLoc(), i32);
      break;
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

struct ThreadIdLowering : JFAPattern<ThreadIdOp> {
  ThreadIdLowering(JFATypeConverter &converter, bool atUse)
      : JFAPattern(converter), atUse(atUse) {}
  LogicalResult
  matchAndRewrite(ThreadIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!atUse) {
      rewriter.replaceOpWithNewOp<NVVM::ThreadIdXOp>(op, rewriter.getI32Type());
      return success();
    }
    // A read with side effects is neither hoisted nor merged with another,
    // so neither is the index arithmetic that depends on it.
    LLVMBuilder b(op.getLoc(), rewriter);
    rewriter.replaceOp(op, sideEffectAsm(b, rewriter.getI32Type(), ValueRange{},
                                         "mov.u32 $0, %tid.x;", "=r"));
    return success();
  }

private:
  bool atUse;
};

struct ClusterRankLowering : JFAPattern<ClusterRankOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(ClusterRankOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // NVVM's name for %cluster_ctarank.
    rewriter.replaceOpWithNewOp<NVVM::ClusterId>(op, rewriter.getI32Type());
    return success();
  }
};

/// The response lands in every CTA of a cluster of several (each one's
/// barrier gets the bytes), so that all of them learn the work they take.
struct TryCancelLowering : JFAPattern<TryCancelOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TryCancelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    bool multicast = convertedClusterSize(op) > 1;
    rewriter.replaceOpWithNewOp<NVVM::ClusterLaunchControlTryCancelOp>(
        op, multicast ? rewriter.getUnitAttr() : UnitAttr(),
        adaptor.getResponse(), adaptor.getBarrier());
    return success();
  }
};

/// The response is one 128-bit value (ld.shared.b128), queried four ways.
struct QueryCancelLowering : JFAPattern<QueryCancelOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(QueryCancelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    Value response =
        LLVM::LoadOp::create(b, b.getIntegerType(128), adaptor.getResponse(),
                             /*alignment=*/16);
    using Query = NVVM::ClusterLaunchControlQueryType;
    auto query = [&](Query kind, Type type) -> Value {
      return NVVM::ClusterLaunchControlQueryCancelOp::create(b, type, kind,
                                                             response);
    };
    rewriter.replaceOp(op, {query(Query::IS_CANCELED, b.getI1Type()),
                            query(Query::GET_FIRST_CTA_ID_X, b.getI32Type()),
                            query(Query::GET_FIRST_CTA_ID_Y, b.getI32Type()),
                            query(Query::GET_FIRST_CTA_ID_Z, b.getI32Type())});
    return success();
  }
};

/// A request to code generation that jfac reads before lowering
/// (jfa::takeSchedulingRequest); here it has nothing left to say.
struct ScheduleForRegistersLowering : JFAPattern<ScheduleForRegistersOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(ScheduleForRegistersOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

int64_t jfa::convertedClusterSize(Operation *op) {
  auto fn = op->getParentOfType<LLVM::LLVMFuncOp>();
  auto dims = fn ? fn->getAttrOfType<DenseI32ArrayAttr>(
                       NVVM::NVVMDialect::getClusterDimAttrName())
                 : DenseI32ArrayAttr();
  int64_t size = 1;
  if (dims)
    for (int32_t d : dims.asArrayRef())
      size *= d;
  return size;
}

void jfa::populateKernelToLLVMPatterns(JFATypeConverter &converter,
                                       RewritePatternSet &patterns,
                                       bool threadIndexAtUse) {
  patterns.add<ThreadIdLowering>(converter, threadIndexAtUse);
  patterns.add<ClusterRankLowering, TryCancelLowering, QueryCancelLowering,
               ScheduleForRegistersLowering,
               GridIndexLowering<ClusterIdOp, NVVM::ClusterIdXOp,
                                 NVVM::ClusterIdYOp, NVVM::ClusterIdZOp>,
               GridIndexLowering<ProgramIdOp, NVVM::BlockIdXOp,
                                 NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
               GridIndexLowering<NumProgramsOp, NVVM::GridDimXOp,
                                 NVVM::GridDimYOp, NVVM::GridDimZOp>>(
      converter);
}

/// The body moves unchanged; its arguments get LLVM types behind casts that
/// the conversion folds away.
LogicalResult jfa::convertKernelSignature(KernelOp kernel,
                                          const JFATypeConverter &converter) {
  MLIRContext *ctx = kernel.getContext();
  OpBuilder b(kernel);
  ArrayRef<Type> parameters = kernel.getArgumentTypes();
  SmallVector<Type> inputs;
  for (Type t : parameters) {
    Type converted = converter.convertType(t);
    if (!converted)
      return kernel.emitOpError() << "cannot lower parameter type " << t;
    inputs.push_back(converted);
  }
  auto fnType =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), inputs);
  auto fn =
      LLVM::LLVMFuncOp::create(b, kernel.getLoc(), kernel.getSymName(), fnType);
  using NVVM::NVVMDialect;
  fn->setAttr(NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  int32_t threads = kernel.getNumThreads();
  fn->setAttr(NVVMDialect::getReqntidAttrName(),
              b.getDenseI32ArrayAttr({threads, 1, 1}));
  auto *jfaDialect = ctx->getLoadedDialect<JFADialect>();
  if (IntegerAttr entry =
          jfaDialect->getEntryRegistersAttrHelper().getAttr(kernel)) {
    // setmaxnreg needs a known register count at entry.
    fn->setAttr(NVVMDialect::getMaxnregAttrName(),
                b.getI32IntegerAttr(entry.getInt()));
    fn->setAttr(NVVMDialect::getMinctasmAttrName(), b.getI32IntegerAttr(1));
  }
  if (auto cluster = kernel.getClusterDims())
    fn->setAttr(NVVMDialect::getClusterDimAttrName(),
                b.getDenseI32ArrayAttr(*cluster));

  for (auto [i, t] : llvm::enumerate(parameters)) {
    if (!isa<TensorDescType>(t))
      continue;
    fn.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                  TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(),
                                                         kTensorMapBytes)));
    fn.setArgAttr(i, NVVMDialect::getGridConstantAttrName(), b.getUnitAttr());
    fn.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                  b.getI64IntegerAttr(kTensorMapAlignment));
  }

  fn.getBody().takeBody(kernel.getFunctionBody());
  Block &entry = fn.getBody().front();
  b.setInsertionPointToStart(&entry);
  for (auto [arg, type] : llvm::zip(entry.getArguments(), inputs)) {
    Type original = arg.getType();
    if (original == type)
      continue;
    arg.setType(type);
    auto cast =
        UnrealizedConversionCastOp::create(b, kernel.getLoc(), original, arg);
    arg.replaceAllUsesExcept(cast.getResult(0), cast);
  }
  b.setInsertionPointToEnd(&entry);
  if (kernel.getClusterSize() > 1) {
    NVVM::ClusterArriveOp::create(b, kernel.getLoc(), /*aligned=*/nullptr);
    NVVM::ClusterWaitOp::create(b, kernel.getLoc(), /*aligned=*/nullptr);
  }
  LLVM::ReturnOp::create(b, kernel.getLoc(), ValueRange{});
  kernel.erase();
  return success();
}
