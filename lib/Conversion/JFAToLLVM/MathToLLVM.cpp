//===- MathToLLVM.cpp - logarithms on the GPU's special-function unit -----===//
//
// NVPTX has no lowering for llvm.log/llvm.log2 (llc stops with "no libcall
// available"), so math.log2 and math.log on f32 become the hardware's
// lg2.approx.f32 (log = lg2 * ln 2), element by element. Other element types
// have no GPU lowering: a located error says so.
//
// math.exp2 with fastmath<afn> on f32 becomes ex2.approx.ftz.f32, one
// MUFU.EX2 each: without ftz, ptxas wraps every ex2 in a range test and two
// multiplies to keep denormal results, which softmax (results below 2^-126
// are 0 to it) does not need and which cost more than the exp itself.
// Without afn, exp2 takes MLIR's default lowering.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/JFAToLLVM/JFAToLLVM.h"

#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace jfa;

namespace {

template <typename Op, bool Natural> struct LogLowering : JFAPattern<Op> {
  using JFAPattern<Op>::JFAPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = adaptor.getOperand().getType();
    auto vector = dyn_cast<VectorType>(type);
    if (!getElementTypeOrSelf(type).isF32() ||
        (vector && vector.getRank() != 1))
      return op.emitOpError()
             << "has no GPU lowering for " << type
             << "; logarithms lower for f32 scalars and fragments only";
    LLVMBuilder b(op.getLoc(), rewriter);
    StringAttr lg2 = b.getStringAttr("llvm.nvvm.lg2.approx.f");
    auto log = [&](Value x) -> Value {
      Value y =
          LLVM::CallIntrinsicOp::create(b, b.getF32Type(), lg2, ValueRange{x})
              .getResult(0);
      if (!Natural)
        return y;
      Value ln2 = LLVM::ConstantOp::create(b, b.getF32Type(),
                                           b.getF32FloatAttr(0.693147181f));
      return LLVM::FMulOp::create(b, y, ln2);
    };
    if (!vector) {
      rewriter.replaceOp(op, log(adaptor.getOperand()));
      return success();
    }
    Value result = LLVM::PoisonOp::create(b, vector);
    for (int64_t i = 0, e = vector.getNumElements(); i < e; ++i)
      result = b.insert(result, log(b.element(adaptor.getOperand(), i)), i);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// math.exp2 fastmath<afn>, f32: ex2.approx.ftz per element.
struct FastExp2Lowering : JFAPattern<math::Exp2Op> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(math::Exp2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = adaptor.getOperand().getType();
    auto vector = dyn_cast<VectorType>(type);
    if (!getElementTypeOrSelf(type).isF32() ||
        (vector && vector.getRank() != 1))
      return op.emitOpError()
             << "with fastmath<afn> has no GPU lowering for " << type
             << "; it lowers for f32 scalars and fragments only";
    LLVMBuilder b(op.getLoc(), rewriter);
    StringAttr ex2 = b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32");
    auto exp2 = [&](Value x) -> Value {
      return LLVM::CallIntrinsicOp::create(b, b.getF32Type(), ex2,
                                           ValueRange{x})
          .getResult(0);
    };
    if (!vector) {
      rewriter.replaceOp(op, exp2(adaptor.getOperand()));
      return success();
    }
    Value result = LLVM::PoisonOp::create(b, vector);
    for (int64_t i = 0, e = vector.getNumElements(); i < e; ++i)
      result = b.insert(result, exp2(b.element(adaptor.getOperand(), i)), i);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

bool jfa::isFastExp2(math::Exp2Op op) {
  return bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn);
}

void jfa::populateMathToLLVMPatterns(JFATypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<LogLowering<math::Log2Op, /*Natural=*/false>,
               LogLowering<math::LogOp, /*Natural=*/true>, FastExp2Lowering>(
      converter);
}
