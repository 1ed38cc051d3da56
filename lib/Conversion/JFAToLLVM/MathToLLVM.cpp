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
// jfa.exp2 ... software(k of n) is that, except in the column groups the
// op names: there a polynomial on the FMA pipes computes 2^x, so that an
// attention softmax's exponentials do not all queue for the special-function
// unit (16 a cycle on an SM against 128 FMAs; FlashAttention-4's trick).
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

/// One ex2.approx.ftz (MUFU.EX2): math.exp2 fastmath<afn>, and jfa.exp2
/// outside its software columns.
static Value unitExp2(LLVMBuilder &b, Value x) {
  return LLVM::CallIntrinsicOp::create(
             b, b.getF32Type(), b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
             ValueRange{x})
      .getResult(0);
}

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
    if (!vector) {
      rewriter.replaceOp(op, unitExp2(b, adaptor.getOperand()));
      return success();
    }
    Value result = LLVM::PoisonOp::create(b, vector);
    for (int64_t i = 0, e = vector.getNumElements(); i < e; ++i)
      result =
          b.insert(result, unitExp2(b, b.element(adaptor.getOperand(), i)), i);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// 2^x on the FMA pipes: x clamped to [-127, 127] (max.NaN/min.NaN keep a
/// NaN), n = floor(x) from adding 1.5 * 2^23 rounding down (n is then the
/// sum's low bits), f = x - n in [0, 1), 2^f by a degree-3 polynomial
/// (relative error below 9e-5, exact at f = 0), times 2^n built from n's
/// bits: 2^n is 0 for n = -127 (so -inf and x < -126 give 0, as ftz does),
/// and a NaN stays one through the multiply. 7 FMA-pipe instructions (3
/// adds, 3 FMAs, a multiply) and 3 or 4 ALU ones (the clamps, a shift and
/// an add, or one LEA). jfa-interp computes the same operations.
static Value softwareExp2(LLVMBuilder &b, Value x) {
  Type f32 = b.getF32Type();
  Type i32 = b.getI32Type();
  auto constant = [&](float v) -> Value {
    return LLVM::ConstantOp::create(b, f32, b.getF32FloatAttr(v));
  };
  auto intrinsic = [&](StringRef name, Value l, Value r) -> Value {
    return LLVM::CallIntrinsicOp::create(b, f32, b.getStringAttr(name),
                                         ValueRange{l, r})
        .getResult(0);
  };
  Value magic = constant(0x1.8p23f);
  x = intrinsic("llvm.nvvm.fmax.nan.f", x, constant(-127.0f));
  x = intrinsic("llvm.nvvm.fmin.nan.f", x, constant(127.0f));
  Value shifted = intrinsic("llvm.nvvm.add.rm.ftz.f", x, magic);
  Value whole = LLVM::FSubOp::create(b, shifted, magic);
  Value frac = LLVM::FSubOp::create(b, x, whole);
  Value poly = LLVM::FMAOp::create(b, constant(kExp2Poly[3]), frac,
                                   constant(kExp2Poly[2]));
  poly = LLVM::FMAOp::create(b, poly, frac, constant(kExp2Poly[1]));
  poly = LLVM::FMAOp::create(b, poly, frac, constant(kExp2Poly[0]));
  // (n << 23) + bits(1.0): the low bits of `shifted` are n + 0x400000, and
  // 0x400000 << 23 wraps to 0.
  Value scaleBits = LLVM::AddOp::create(
      b,
      LLVM::ShlOp::create(b, LLVM::BitcastOp::create(b, i32, shifted),
                          b.i32(23)),
      b.i32(0x3f800000));
  return LLVM::FMulOp::create(b, poly,
                              LLVM::BitcastOp::create(b, f32, scaleBits));
}

/// jfa.exp2 on a fragment: each register's column group (its column offset
/// over 8: a thread's first column is below 8 in the layouts the op takes)
/// picks the polynomial or ex2.approx.ftz.
struct Exp2Lowering : JFAPattern<Exp2Op> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(Exp2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fragment = dyn_cast<VectorType>(adaptor.getInput().getType());
    TileLayoutAttrInterface layout = op.getLayoutAttr();
    if (!fragment || !layout || !op.getShape() || !op.getThreads())
      return notDistributed(op);
    llvm::APInt shareValue;
    if (!matchPattern(op.getShare(), m_ConstantInt(&shareValue)))
      return op.emitOpError()
             << "needs a compile-time software share (a jfa.param or a "
                "constant; jfac -P sets a param)";
    int64_t share = shareValue.getSExtValue();
    int64_t period = op.getPeriod();
    LLVMBuilder b(op.getLoc(), rewriter);
    Value result = LLVM::PoisonOp::create(b, fragment);
    for (auto [i, offset] : llvm::enumerate(
             layout.getRegisterOffsets(*op.getShape(), *op.getThreads()))) {
      Value x = b.element(adaptor.getInput(), i);
      Value y = (offset.col / 8) % period < share ? softwareExp2(b, x)
                                                  : unitExp2(b, x);
      result = b.insert(result, y, i);
    }
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
               LogLowering<math::LogOp, /*Natural=*/true>, FastExp2Lowering,
               Exp2Lowering>(converter);
}
