//===- WGMMAToLLVM.cpp - warpgroup MMA (sm_90a) ---------------------------===//
//
// jfa.warpgroup_dot is one warpgroup's share of a jfa.async_dot: a chain of
// wgmma.mma_async m64nNk16 (16-bit operands) or m64nNk32 (8-bit: .e4m3,
// .e5m2; both K-major, which the verifier checks) over K, then a commit. The
// accumulator fragment is the #jfa.wgmma_acc layout, which is exactly wgmma's
// register order, so it travels into the instruction's struct element for
// element; a bf16/f16 register A operand in that layout is A's register
// fragment likewise.
//
//===----------------------------------------------------------------------===//
#include "JFA/MmaTypes.h"
#include "lib/Conversion/JFAToLLVM/JFAToLLVM.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace jfa;

/// The low word of the wgmma descriptor of the operand at `address` (an i64
/// shared-memory address): start address and leading-dimension offset. The
/// latter is unused (1) but for an N-major B wider than its swizzle: there
/// it is the distance between the slot's column blocks along N (CUTLASS's
/// canonical MN-major layout ((T,8,m),(8,k)) : ((1,T,LBO),(8T,SBO)) in
/// 16-byte units).
static Value wgmmaDescriptorLow(LLVMBuilder &b, Value address,
                                int64_t leadingBytes = 16) {
  Value address32 = LLVM::TruncOp::create(b, b.getI32Type(), address);
  Value start = b.lshr(LLVM::AndOp::create(b, address32, b.i32(0x3FFFF)), 4);
  return LLVM::OrOp::create(b, start, b.i32((leadingBytes >> 4) << 16));
}

/// The wgmma shared-memory matrix descriptor of a K-major operand whose rows
/// span the swizzle (PTX ISA, "Matrix Descriptor Format"), for the operand
/// `offset` bytes past the one whose low word (wgmmaDescriptorLow) is `low`:
///   [0, 14)  start address >> 4
///   [16, 30) leading-dimension byte offset >> 4: 1, unused when swizzled
///   [32, 46) stride between 8-row groups >> 4: 8 rows of `swizzle` bytes
///   [62, 64) swizzle mode: 128B = 1, 64B = 2, 32B = 3
///
/// It adds offset >> 4 to the low word (shared addresses are below 2^18, so
/// the 14-bit field never carries) and sets the constant high word in an asm
/// block with side effects, at the wgmma that uses it. Computed in plain
/// LLVM, every step's descriptor of a slot that a loop keeps (K and V over a
/// whole unit) is loop-invariant: LLVM hoists all of them out of the loop,
/// one register each, and ptxas spilled them and reloaded them before the
/// wgmmas (attention_bwd_sm90 spilled 256 bytes, 0 since; bench/NOTES.md
/// run 26).
static Value wgmmaDescriptor(LLVMBuilder &b, Value low, int64_t offset,
                             int64_t swizzle) {
  assert(offset % 16 == 0 && "wgmma operands start on 16 bytes");
  int64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
  int64_t high = ((8 * swizzle) >> 4) | (mode << 30);
  std::string asmText = "{\n.reg .b32 lo, hi;\nadd.u32 lo, $1, " +
                        std::to_string(offset >> 4) + ";\nmov.b32 hi, " +
                        std::to_string(high) + ";\nmov.b64 $0, {lo, hi};\n}\n";
  return sideEffectAsm(b, b.getI64Type(), low, asmText, "=l,r");
}

/// wgmma with A in registers, as inline PTX (NVVM's wgmma op takes A only as
/// a descriptor): `regsA` are the 4 b32 registers of this k16 step.
static Value wgmmaRegisterA(LLVMBuilder &b, Type structType, int64_t count,
                            Value acc, ArrayRef<Value> regsA, Value descB,
                            int64_t n, StringRef type, bool transposeB,
                            bool accumulate) {
  SmallVector<Value> operands;
  for (int64_t i = 0; i < count; ++i)
    operands.push_back(
        LLVM::ExtractValueOp::create(b, acc, ArrayRef<int64_t>{i}));
  llvm::append_range(operands, regsA);
  operands.push_back(descB);
  operands.push_back(b.i32(accumulate ? 1 : 0)); // scale-d
  std::string constraints, outputs;
  for (int64_t i = 0; i < count; ++i) {
    constraints += "=f,";
    outputs += (i ? ", $" : "$") + std::to_string(i);
  }
  for (int64_t i = 0; i < count; ++i)
    constraints += std::to_string(i) + ",";
  constraints += "r,r,r,r,l,n";
  int64_t first = 2 * count;
  auto arg = [&](int64_t i) { return "$" + std::to_string(first + i); };
  std::string asmText =
      "{\n.reg .pred p;\nsetp.ne.b32 p, " + arg(5) +
      ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(n) +
      "k16.f32." + type.str() + "." + type.str() + " {" + outputs + "}, {" +
      arg(0) + ", " + arg(1) + ", " + arg(2) + ", " + arg(3) + "}, " + arg(4) +
      ", p, 1, 1, " + (transposeB ? "1" : "0") + ";\n}\n";
  return LLVM::InlineAsmOp::create(b, structType, operands, asmText,
                                   constraints, /*has_side_effects=*/true,
                                   /*is_align_stack=*/false,
                                   LLVM::TailCallKind::None,
                                   LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

/// wgmma's name of an operand element type (the verifier admits these).
static NVVM::WGMMATypes wgmmaType(Type element) {
  if (element.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (isa<Float8E4M3FNType>(element))
    return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(element))
    return NVVM::WGMMATypes::e5m2;
  return NVVM::WGMMATypes::f16;
}

namespace {

struct WarpgroupDotLowering : JFAPattern<WarpgroupDotOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(WarpgroupDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    MLIRContext *ctx = getContext();
    SlotType slotB = op.getB().getType();
    auto slotA = dyn_cast<SlotType>(op.getA().getType());
    auto regsA = dyn_cast<VectorType>(op.getA().getType());
    VectorType accType = op.getAcc().getType();
    Type element = slotB.getElementType();
    int64_t n = slotB.getShape()[0], k = slotB.getShape()[1];
    int64_t bytes = getElementBytes(element);
    int64_t count = accType.getNumElements();
    auto structType = LLVM::LLVMStructType::getLiteral(
        ctx, SmallVector<Type>(count, b.getF32Type()));

    // A zero accumulator is not materialized: the first k step runs with
    // scale-d = 0 (D = A B) on undefined registers. Moving zeros into the
    // 32..128 accumulator registers costs as many instructions per product,
    // keeps a zero live across the loop, and the moves into registers of an
    // in-flight wgmma's neighbours made ptxas serialize the products (its
    // C7517 "warpgroup.wait is injected" note).
    bool zeroAcc = matchPattern(op.getAcc(), m_AnyZeroFloat()) ||
                   matchPattern(adaptor.getAcc(), m_AnyZeroFloat());
    Value acc = LLVM::PoisonOp::create(b, structType);
    if (!zeroAcc)
      for (int64_t i = 0; i < count; ++i)
        acc = LLVM::InsertValueOp::create(
            b, acc, b.element(adaptor.getAcc(), i), ArrayRef<int64_t>{i});

    Type i64 = b.getI64Type();
    Value baseA;
    if (slotA && slotA.getTransposed()) {
      // An M-major A is one warpgroup's 64 rows (the verifier's rule).
      baseA = LLVM::PtrToIntOp::create(b, i64, adaptor.getA());
    } else if (slotA) {
      // Warpgroup g multiplies rows [64g, 64g + 64) of A (of each column
      // block, when A is blocked along K).
      Value g = LLVM::ZExtOp::create(b, i64, adaptor.getWarpgroup());
      int64_t rowBytes =
          slotA.getColumnBlocks() > 1 ? slotA.getSwizzle() : k * bytes;
      Value rowsOffset = b.mul(g, 64 * rowBytes);
      baseA =
          b.add(LLVM::PtrToIntOp::create(b, i64, adaptor.getA()), rowsOffset);
    }
    Value baseB = LLVM::PtrToIntOp::create(b, i64, adaptor.getB());
    // An N-major B of several column blocks: N steps from block to block.
    int64_t leadingB = slotB.getTransposed() && slotB.getColumnBlocks() > 1
                           ? slotB.getStoredShape().front() * slotB.getSwizzle()
                           : 16;
    Value lowB = wgmmaDescriptorLow(b, baseB, leadingB);
    Value lowA = baseA ? wgmmaDescriptorLow(b, baseA) : Value();

    NVVM::WgmmaFenceAlignedOp::create(b);
    // One instruction takes 32 bytes of K: 16 elements of 16 bits, 32 of 8.
    int64_t kStep = getMmaKStep(element);
    auto shape = NVVM::MMAShapeAttr::get(ctx, 64, n, kStep);
    Type elementA = slotA ? slotA.getElementType() : element;
    NVVM::WGMMATypes typeA = wgmmaType(elementA), typeB = wgmmaType(element);
    // A transposed B view is N-major: wgmma's transpose-B bit (layout row).
    NVVM::MMALayout layoutB =
        slotB.getTransposed() ? NVVM::MMALayout::row : NVVM::MMALayout::col;
    for (int64_t kk = 0; kk < k / kStep; ++kk) {
      Value descB =
          wgmmaDescriptor(b, lowB, kStepBytes(slotB, kk), slotB.getSwizzle());
      if (regsA) {
        // Columns [16kk, 16kk + 16) of the wgmma layout are elements
        // [8kk, 8kk + 8) of the fragment, in the order of the A registers.
        SmallVector<Value> regs;
        auto pairType = VectorType::get({2}, element);
        for (int64_t r = 0; r < 4; ++r) {
          Value pair = LLVM::PoisonOp::create(b, pairType);
          for (int64_t v = 0; v < 2; ++v)
            pair = b.insert(pair, b.element(adaptor.getA(), 8 * kk + 2 * r + v),
                            v);
          regs.push_back(LLVM::BitcastOp::create(b, b.getI32Type(), pair));
        }
        acc = wgmmaRegisterA(b, structType, count, acc, regs, descB, n,
                             element.isBF16() ? "bf16" : "f16",
                             slotB.getTransposed(),
                             /*accumulate=*/!(zeroAcc && kk == 0));
        continue;
      }
      Value descA =
          wgmmaDescriptor(b, lowA, kStepBytes(slotA, kk), slotA.getSwizzle());
      acc = NVVM::WgmmaMmaAsyncOp::create(
          b, structType, acc, descA, descB, shape, typeA, typeB,
          NVVM::WGMMATypes::f32,
          zeroAcc && kk == 0 ? NVVM::WGMMAScaleOut::zero
                             : NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
          slotA.getTransposed() ? NVVM::MMALayout::col : NVVM::MMALayout::row,
          layoutB,
          /*satfinite=*/NVVM::MMAIntOverflowAttr());
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b);

    Value result = LLVM::PoisonOp::create(b, accType);
    for (int64_t i = 0; i < count; ++i)
      result = b.insert(
          result, LLVM::ExtractValueOp::create(b, acc, ArrayRef<int64_t>{i}),
          i);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// wgmma.wait_group, then every accumulator element passes through an empty
/// asm so that no read of it is scheduled before the wait.
struct AsyncDotWaitLowering : JFAPattern<AsyncDotWaitOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(AsyncDotWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    NVVM::WgmmaWaitGroupSyncOp::create(b, op.getPending());
    SmallVector<Value> results;
    for (Value v : adaptor.getValues()) {
      auto vec = dyn_cast<VectorType>(v.getType());
      if (!vec || !vec.getElementType().isF32())
        return op.emitOpError()
               << "waits on f32 fragments only, got " << v.getType();
      Value pinned = LLVM::PoisonOp::create(b, vec);
      for (int64_t i = 0; i < vec.getNumElements(); ++i) {
        Value element =
            sideEffectAsm(b, b.getF32Type(), b.element(v, i), "", "=f,0");
        pinned = b.insert(pinned, element, i);
      }
      results.push_back(pinned);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void jfa::populateWGMMAToLLVMPatterns(JFATypeConverter &converter,
                                      RewritePatternSet &patterns,
                                      const TargetInfo &targetInfo) {
  if (!targetInfo.has(TargetFeature::Wgmma))
    return;
  patterns.add<WarpgroupDotLowering, AsyncDotWaitLowering>(converter);
}
