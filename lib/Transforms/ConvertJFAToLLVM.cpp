//===- ConvertJFAToLLVM.cpp - JFA to the LLVM and NVVM dialects
//-------------===//
#include "lib/Transforms/Passes.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Transforms/DialectConversion.h"

namespace jfa {
#define GEN_PASS_DEF_JFACONVERTTOLLVM
#include "lib/Transforms/Passes.h.inc"
} // namespace jfa

using namespace mlir;
using namespace jfa;

namespace {

constexpr StringLiteral kSharedWindow = "jfa_smem";
/// A CUtensorMap is 128 bytes and must be 64-byte aligned.
constexpr int64_t kTensorMapBytes = 128;
/// How long one mbarrier probe may suspend the thread (ns) before retrying.
constexpr int64_t kWaitSuspendTimeHint = 10000000;

Type sharedPtr(MLIRContext *ctx) { return LLVM::LLVMPointerType::get(ctx, 3); }

Value constI32(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                  b.getI32IntegerAttr(v));
}

Value toI32(OpBuilder &b, Location loc, Value v) {
  auto type = cast<IntegerType>(v.getType());
  if (type.getWidth() == 32)
    return v;
  if (type.getWidth() > 32)
    return LLVM::TruncOp::create(b, loc, b.getI32Type(), v);
  return LLVM::ZExtOp::create(b, loc, b.getI32Type(), v);
}

/// Address `offset` bytes into the kernel's dynamic shared-memory window.
Value sharedAddress(OpBuilder &b, Location loc, int64_t offset) {
  MLIRContext *ctx = b.getContext();
  Value base = LLVM::AddressOfOp::create(b, loc, sharedPtr(ctx), kSharedWindow);
  if (offset == 0)
    return base;
  return LLVM::GEPOp::create(b, loc, sharedPtr(ctx), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{int32_t(offset)});
}

struct JFATypeConverter : LLVMTypeConverter {
  explicit JFATypeConverter(MLIRContext *ctx) : LLVMTypeConverter(ctx) {
    addConversion([ctx](SharedBufferType) { return sharedPtr(ctx); });
    addConversion([ctx](SlotType) { return sharedPtr(ctx); });
    addConversion([ctx](BarrierArrayType) { return sharedPtr(ctx); });
    addConversion([ctx](BarrierType) { return sharedPtr(ctx); });
    // A __grid_constant__ parameter is used through its generic address.
    addConversion(
        [ctx](TensorDescType) { return LLVM::LLVMPointerType::get(ctx); });
    addConversion(
        [ctx](GlobalPtrType) { return LLVM::LLVMPointerType::get(ctx, 1); });
    addConversion(
        [ctx](TensorMemoryType) { return LLVM::LLVMPointerType::get(ctx, 6); });
  }
};

template <typename Op> struct JFAPattern : ConvertOpToLLVMPattern<Op> {
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;
};

struct LocalAllocLowering : JFAPattern<LocalAllocOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(LocalAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getOffset())
      return op.emitOpError()
             << "has no shared-memory offset; run jfa-allocate-shared-memory";
    rewriter.replaceOp(op,
                       sharedAddress(rewriter, op.getLoc(), *op.getOffset()));
    return success();
  }
};

struct AllocBarriersLowering : JFAPattern<AllocBarriersOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(AllocBarriersOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getOffset())
      return op.emitOpError()
             << "has no shared-memory offset; run jfa-allocate-shared-memory";
    Location loc = op.getLoc();
    Value base = sharedAddress(rewriter, loc, *op.getOffset());
    // Thread 0 initializes every barrier; the fence and the CTA barrier make
    // the initialization visible to all threads and to the async proxy.
    Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
    Value leader = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                        tid, constI32(rewriter, loc, 0));
    Value count = constI32(rewriter, loc, op.getArriveCount());
    for (int64_t i = 0, e = op.getType().getSize(); i < e; ++i) {
      Value bar = LLVM::GEPOp::create(rewriter, loc, sharedPtr(getContext()),
                                      rewriter.getI64Type(), base,
                                      ArrayRef<LLVM::GEPArg>{int32_t(i)});
      NVVM::MBarrierInitOp::create(rewriter, loc, bar, count, leader);
    }
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    NVVM::Barrier0Op::create(rewriter, loc);
    rewriter.replaceOp(op, base);
    return success();
  }
};

/// slot/barrier: base + index * element size.
struct SlotLowering : JFAPattern<SlotOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(SlotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t bytes = op.getBuffer().getType().getSlotBytes();
    Type slotType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), bytes);
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, sharedPtr(getContext()), slotType, adaptor.getBuffer(),
        ArrayRef<LLVM::GEPArg>{adaptor.getIndex()});
    return success();
  }
};

/// A transposed view is the same address; its users read it differently.
struct TransposeLowering : JFAPattern<TransposeOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSlot());
    return success();
  }
};

struct BarrierLowering : JFAPattern<BarrierOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, sharedPtr(getContext()), rewriter.getI64Type(),
        adaptor.getBarriers(), ArrayRef<LLVM::GEPArg>{adaptor.getIndex()});
    return success();
  }
};

/// `slot + offset` after the swizzle: bits [4, 4+log2(swizzle/16)) of the
/// byte offset are XORed with bits [7, ...), the row within an 8-row atom.
Value swizzledAddress(OpBuilder &b, Location loc, Value slot, Value offset,
                      int64_t swizzle) {
  int64_t mask = (swizzle / 16 - 1) << 4;
  Value row = LLVM::LShrOp::create(b, loc, offset, constI32(b, loc, 3));
  row = LLVM::AndOp::create(b, loc, row, constI32(b, loc, mask));
  Value swizzled = LLVM::XOrOp::create(b, loc, offset, row);
  return LLVM::GEPOp::create(b, loc, slot.getType(), b.getI8Type(), slot,
                             ArrayRef<LLVM::GEPArg>{swizzled});
}

/// Thread t of T owns the chunks t, t+T, ... of 4 elements (16 bytes of
/// f32) of the row-major tile. The chunk is counted in elements, never in
/// bytes, so that tiles of every element type share one distribution and
/// elementwise casts (f32 -> bf16) keep each element on its thread.
struct FragmentGeometry {
  int64_t chunk;     // elements per vector access
  int64_t numChunks; // accesses per thread
};

constexpr int64_t kBlockedChunk = 4;

FragmentGeometry fragmentGeometry(VectorType fragment) {
  int64_t perThread = fragment.getNumElements();
  int64_t chunk = kBlockedChunk;
  while (perThread % chunk != 0)
    chunk /= 2;
  return {chunk, perThread / chunk};
}

/// Address of chunk `j` of thread `thread`'s fragment. In a swizzled slot
/// the 16-byte chunk index within each row is XORed with the row index
/// modulo 8 (the TMA/MMA swizzle), which moves chunks but never splits one.
Value chunkAddress(OpBuilder &b, Location loc, Value slot, Value thread,
                   int64_t j, int64_t threads, FragmentGeometry g,
                   Type elementType, int64_t swizzle) {
  // element = (j * threads + thread) * chunk
  Value index =
      LLVM::AddOp::create(b, loc, thread, constI32(b, loc, j * threads));
  index = LLVM::MulOp::create(b, loc, index, constI32(b, loc, g.chunk));
  if (swizzle == 0)
    return LLVM::GEPOp::create(b, loc, slot.getType(), elementType, slot,
                               ArrayRef<LLVM::GEPArg>{index});
  Value offset = LLVM::MulOp::create(
      b, loc, index, constI32(b, loc, getElementBytes(elementType)));
  return swizzledAddress(b, loc, slot, offset, swizzle);
}

/// Where the wgmma accumulator layout puts a thread's elements: for each
/// 8-column block j and half h, the pair at (row, col), (row, col + 1) with
/// row = 64g + 16w + l/4 + 8h and col = 8j + 2(l%4).
/// The first row and column a thread holds in the wgmma layout:
/// row = 64g + 16w + l/4, col = 2(l%4). Its element of pair (j, h) is at
/// (row + 8h, col + 8j); computed once per fragment.
struct WgmmaCoords {
  Value row, col;
};

WgmmaCoords wgmmaCoords(OpBuilder &b, Location loc, Value thread) {
  Value warpgroup = LLVM::UDivOp::create(b, loc, thread, constI32(b, loc, 128));
  Value inGroup = LLVM::URemOp::create(b, loc, thread, constI32(b, loc, 128));
  Value warp = LLVM::UDivOp::create(b, loc, inGroup, constI32(b, loc, 32));
  Value lane = LLVM::URemOp::create(b, loc, inGroup, constI32(b, loc, 32));
  Value row = LLVM::MulOp::create(b, loc, warpgroup, constI32(b, loc, 64));
  row = LLVM::AddOp::create(
      b, loc, row, LLVM::MulOp::create(b, loc, warp, constI32(b, loc, 16)));
  row = LLVM::AddOp::create(
      b, loc, row, LLVM::UDivOp::create(b, loc, lane, constI32(b, loc, 4)));
  Value col = LLVM::MulOp::create(
      b, loc, LLVM::URemOp::create(b, loc, lane, constI32(b, loc, 4)),
      constI32(b, loc, 2));
  return {row, col};
}

Value slotAddress(OpBuilder &b, Location loc, Value slot, Value offset,
                  int64_t swizzle) {
  if (swizzle)
    return swizzledAddress(b, loc, slot, offset, swizzle);
  return LLVM::GEPOp::create(b, loc, slot.getType(), b.getI8Type(), slot,
                             ArrayRef<LLVM::GEPArg>{offset});
}

/// Calls `visit(address, first, count)` for each piece of this thread's
/// fragment: elements [first, first + count) of the fragment live at
/// `address` in the slot, contiguous. The layouts:
/// - blocked (no layout): 4-element chunks t, t + T, ... of the tile;
/// - #jfa.wgmma_acc: the pairs (j, h) of the wgmma accumulator;
/// - #jfa.tmem_row: row t % 128, in 16-byte chunks.
void forEachFragmentPiece(
    OpBuilder &b, Location loc, std::optional<Attribute> layout,
    SlotType slotType, Value slot, Value thread, int64_t threads,
    VectorType fragment,
    function_ref<void(Value address, int64_t first, int64_t count)> visit) {
  Type element = fragment.getElementType();
  int64_t bytes = getElementBytes(element);
  int64_t columns = slotType.getShape().back();
  int64_t swizzle = slotType.getSwizzle();
  if (!layout) {
    FragmentGeometry g = fragmentGeometry(fragment);
    for (int64_t j = 0; j < g.numChunks; ++j)
      visit(chunkAddress(b, loc, slot, thread, j, threads, g, element, swizzle),
            j * g.chunk, g.chunk);
    return;
  }
  if (isa<WgmmaAccLayoutAttr>(*layout)) {
    // Byte offset of (row, col) is (row * columns + col) * bytes.
    WgmmaCoords at = wgmmaCoords(b, loc, thread);
    Value base = LLVM::MulOp::create(
        b, loc,
        LLVM::AddOp::create(
            b, loc,
            LLVM::MulOp::create(b, loc, at.row, constI32(b, loc, columns)),
            at.col),
        constI32(b, loc, bytes));
    for (int64_t j = 0; j < columns / 8; ++j)
      for (int64_t h = 0; h < 2; ++h) {
        Value offset = LLVM::AddOp::create(
            b, loc, base, constI32(b, loc, (8 * h * columns + 8 * j) * bytes));
        visit(slotAddress(b, loc, slot, offset, swizzle), 4 * j + 2 * h, 2);
      }
    return;
  }
  int64_t chunk = std::max<int64_t>(1, 16 / bytes);
  while (columns % chunk != 0)
    chunk /= 2;
  Value row = LLVM::URemOp::create(b, loc, thread, constI32(b, loc, 128));
  Value rowOffset =
      LLVM::MulOp::create(b, loc, row, constI32(b, loc, columns * bytes));
  for (int64_t c = 0; c < columns / chunk; ++c) {
    Value offset = LLVM::AddOp::create(b, loc, rowOffset,
                                       constI32(b, loc, c * chunk * bytes));
    visit(slotAddress(b, loc, slot, offset, swizzle), c * chunk, chunk);
  }
}

struct LoadFragmentLowering : JFAPattern<LoadFragmentOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(LoadFragmentOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    VectorType fragment = op.getType();
    Type element = fragment.getElementType();
    int64_t bytes = getElementBytes(element);
    Value result = LLVM::PoisonOp::create(rewriter, loc, fragment);
    forEachFragmentPiece(
        rewriter, loc, op.getLayout(), op.getSlot().getType(),
        adaptor.getSlot(), adaptor.getThread(), op.getThreads(), fragment,
        [&](Value address, int64_t first, int64_t count) {
          Value piece = LLVM::LoadOp::create(rewriter, loc,
                                             VectorType::get({count}, element),
                                             address, count * bytes);
          for (int64_t v = 0; v < count; ++v)
            result = LLVM::InsertElementOp::create(
                rewriter, loc, result,
                LLVM::ExtractElementOp::create(rewriter, loc, piece,
                                               constI32(rewriter, loc, v)),
                constI32(rewriter, loc, first + v));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct StoreFragmentLowering : JFAPattern<StoreFragmentOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(StoreFragmentOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    VectorType fragment = op.getValue().getType();
    Type element = fragment.getElementType();
    int64_t bytes = getElementBytes(element);
    forEachFragmentPiece(
        rewriter, loc, op.getLayout(), op.getSlot().getType(),
        adaptor.getSlot(), adaptor.getThread(), op.getThreads(), fragment,
        [&](Value address, int64_t first, int64_t count) {
          auto pieceType = VectorType::get({count}, element);
          Value piece = LLVM::PoisonOp::create(rewriter, loc, pieceType);
          for (int64_t v = 0; v < count; ++v)
            piece = LLVM::InsertElementOp::create(
                rewriter, loc, piece,
                LLVM::ExtractElementOp::create(
                    rewriter, loc, adaptor.getValue(),
                    constI32(rewriter, loc, first + v)),
                constI32(rewriter, loc, v));
          LLVM::StoreOp::create(rewriter, loc, piece, address, count * bytes);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierExpectLowering : JFAPattern<BarrierExpectOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BarrierExpectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::MBarrierArriveExpectTxOp::create(
        rewriter, loc, rewriter.getI64Type(), adaptor.getBarrier(),
        constI32(rewriter, loc, op.getBytes()), NVVM::MemScopeKind::CTA,
        /*relaxed=*/false, /*predicate=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierArriveLowering : JFAPattern<BarrierArriveOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::MBarrierArriveOp::create(rewriter, op.getLoc(), rewriter.getI64Type(),
                                   adaptor.getBarrier(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierWaitLowering : JFAPattern<BarrierWaitOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<NVVM::MBarrierTryWaitParityOp>(
        op, adaptor.getBarrier(), adaptor.getPhase(),
        constI32(rewriter, loc, kWaitSuspendTimeHint));
    return success();
  }
};

/// A shared-memory matrix descriptor for a K-major operand whose rows span
/// the swizzle: the start address in 16-byte units in bits 0-13, then the
/// target's fixed fields (`fixedBits`). Both tensor-core generations share
/// this layout of the low bits.
Value matrixDescriptor(OpBuilder &b, Location loc, Value address,
                       int64_t fixedBits) {
  Type i64 = b.getI64Type();
  auto c64 = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  Value start = LLVM::LShrOp::create(
      b, loc, LLVM::AndOp::create(b, loc, address, c64(0x3FFFF)), c64(4));
  return LLVM::OrOp::create(b, loc, start, c64(fixedBits));
}

/// Leading byte offset 1 (unused when swizzled) and the stride between
/// 8-row groups (8 * swizzle bytes), in 16-byte units.
int64_t strideBits(int64_t swizzle) {
  return (int64_t(1) << 16) | (int64_t((8 * swizzle) >> 4) << 32);
}

/// wgmma (sm_90a): swizzle mode in bits 62-63 (128B = 1, 64B = 2, 32B = 3).
int64_t wgmmaDescriptorBits(int64_t swizzle) {
  int64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
  return strideBits(swizzle) | (mode << 62);
}

/// Byte offset of the k16 step `kk` in an operand slot: along a K-major row
/// it is 16 elements; in a transposed (N-major) view it is 16 stored rows.
int64_t kStepBytes(SlotType slot, int64_t kk) {
  int64_t bytes = getElementBytes(slot.getElementType());
  if (slot.getTransposed())
    return kk * 16 * slot.getStoredShape().back() * bytes;
  return kk * 16 * bytes;
}

NVVM::WGMMATypes wgmmaType(Type t) {
  return t.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
}

/// One warpgroup's share of an async_dot: a chain of m64nNk16 wgmmas over K,
/// then a commit. The accumulator travels as the struct wgmma takes.
/// wgmma with A in registers, as inline PTX (NVVM's wgmma op takes A only
/// as a descriptor): `regsA` are the 4 b32 registers of this k16 step.
Value wgmmaRegisterA(OpBuilder &b, Location loc, Type structType, int64_t count,
                     Value acc, ArrayRef<Value> regsA, Value descB, int64_t n,
                     StringRef type, bool transposeB) {
  SmallVector<Value> operands;
  for (int64_t i = 0; i < count; ++i)
    operands.push_back(
        LLVM::ExtractValueOp::create(b, loc, acc, ArrayRef<int64_t>{i}));
  llvm::append_range(operands, regsA);
  operands.push_back(descB);
  operands.push_back(constI32(b, loc, 1)); // scale-d: accumulate
  std::string constraints, outputs;
  for (int64_t i = 0; i < count; ++i) {
    constraints += "=f,";
    outputs += (i ? ", $" : "$") + std::to_string(i);
  }
  for (int64_t i = 0; i < count; ++i)
    constraints += std::to_string(i) + ",";
  constraints += "r,r,r,r,l,n";
  int64_t first = 2 * count;
  std::string asmText =
      "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(first + 5) +
      ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(n) +
      "k16.f32." + type.str() + "." + type.str() + " {" + outputs + "}, {$" +
      std::to_string(first) + ", $" + std::to_string(first + 1) + ", $" +
      std::to_string(first + 2) + ", $" + std::to_string(first + 3) + "}, $" +
      std::to_string(first + 4) + ", p, 1, 1, " + (transposeB ? "1" : "0") +
      ";\n}\n";
  return LLVM::InlineAsmOp::create(b, loc, structType, operands, asmText,
                                   constraints, /*has_side_effects=*/true,
                                   /*is_align_stack=*/false,
                                   LLVM::TailCallKind::None,
                                   LLVM::AsmDialectAttr(), ArrayAttr())
      .getResult(0);
}

/// One warpgroup's share of an async_dot: a chain of m64nNk16 wgmmas over K,
/// then a commit. The accumulator travels as the struct wgmma takes.
struct WarpgroupDotLowering : JFAPattern<WarpgroupDotOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(WarpgroupDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    SlotType b = op.getB().getType();
    auto slotA = dyn_cast<SlotType>(op.getA().getType());
    auto regsA = dyn_cast<VectorType>(op.getA().getType());
    VectorType accType = op.getAcc().getType();
    Type element = b.getElementType();
    int64_t n = b.getShape()[0], k = b.getShape()[1];
    int64_t bytes = getElementBytes(element);
    int64_t count = accType.getNumElements();
    Type f32 = rewriter.getF32Type();
    auto structType =
        LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(count, f32));

    Value acc = LLVM::UndefOp::create(rewriter, loc, structType);
    for (int64_t i = 0; i < count; ++i)
      acc = LLVM::InsertValueOp::create(
          rewriter, loc, acc,
          LLVM::ExtractElementOp::create(rewriter, loc, adaptor.getAcc(),
                                         constI32(rewriter, loc, i)),
          ArrayRef<int64_t>{i});

    Type i64 = rewriter.getI64Type();
    auto c64 = [&](int64_t v) {
      return LLVM::ConstantOp::create(rewriter, loc, i64,
                                      rewriter.getI64IntegerAttr(v));
    };
    Value baseA;
    if (slotA) {
      // Warpgroup g multiplies rows [64g, 64g + 64) of A.
      Value g =
          LLVM::ZExtOp::create(rewriter, loc, i64, adaptor.getWarpgroup());
      baseA = LLVM::AddOp::create(
          rewriter, loc,
          LLVM::PtrToIntOp::create(rewriter, loc, i64, adaptor.getA()),
          LLVM::MulOp::create(rewriter, loc, g, c64(64 * k * bytes)));
    }
    Value baseB = LLVM::PtrToIntOp::create(rewriter, loc, i64, adaptor.getB());

    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    auto shape = NVVM::MMAShapeAttr::get(ctx, 64, n, 16);
    NVVM::WGMMATypes type = wgmmaType(element);
    // A transposed B view is N-major: wgmma's transpose-B bit (layout row).
    NVVM::MMALayout layoutB =
        b.getTransposed() ? NVVM::MMALayout::row : NVVM::MMALayout::col;
    for (int64_t kk = 0; kk < k / 16; ++kk) {
      Value descB = matrixDescriptor(
          rewriter, loc,
          LLVM::AddOp::create(rewriter, loc, baseB, c64(kStepBytes(b, kk))),
          wgmmaDescriptorBits(b.getSwizzle()));
      if (regsA) {
        // Columns [16kk, 16kk + 16) of the wgmma layout are elements
        // [8kk, 8kk + 8) of the fragment, in the order of the A registers.
        SmallVector<Value> regs;
        auto pairType = VectorType::get({2}, element);
        for (int64_t r = 0; r < 4; ++r) {
          Value pair = LLVM::PoisonOp::create(rewriter, loc, pairType);
          for (int64_t v = 0; v < 2; ++v)
            pair = LLVM::InsertElementOp::create(
                rewriter, loc, pair,
                LLVM::ExtractElementOp::create(
                    rewriter, loc, adaptor.getA(),
                    constI32(rewriter, loc, 8 * kk + 2 * r + v)),
                constI32(rewriter, loc, v));
          regs.push_back(LLVM::BitcastOp::create(rewriter, loc,
                                                 rewriter.getI32Type(), pair));
        }
        acc = wgmmaRegisterA(rewriter, loc, structType, count, acc, regs, descB,
                             n, element.isBF16() ? "bf16" : "f16",
                             b.getTransposed());
        continue;
      }
      Value descA = matrixDescriptor(
          rewriter, loc,
          LLVM::AddOp::create(rewriter, loc, baseA, c64(kStepBytes(slotA, kk))),
          wgmmaDescriptorBits(slotA.getSwizzle()));
      acc = NVVM::WgmmaMmaAsyncOp::create(
          rewriter, loc, structType, acc, descA, descB, shape, type, type,
          NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
          NVVM::MMALayout::row, layoutB,
          /*satfinite=*/NVVM::MMAIntOverflowAttr());
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);

    Value result = LLVM::PoisonOp::create(rewriter, loc, accType);
    for (int64_t i = 0; i < count; ++i)
      result = LLVM::InsertElementOp::create(
          rewriter, loc, result,
          LLVM::ExtractValueOp::create(rewriter, loc, acc,
                                       ArrayRef<int64_t>{i}),
          constI32(rewriter, loc, i));
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
    Location loc = op.getLoc();
    NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, op.getPending());
    SmallVector<Value> results;
    for (Value v : adaptor.getValues()) {
      auto vec = dyn_cast<VectorType>(v.getType());
      if (!vec || !vec.getElementType().isF32())
        return op.emitOpError()
               << "waits on f32 fragments only, got " << v.getType();
      Value pinned = LLVM::PoisonOp::create(rewriter, loc, vec);
      for (int64_t i = 0; i < vec.getNumElements(); ++i) {
        Value x = LLVM::ExtractElementOp::create(rewriter, loc, v,
                                                 constI32(rewriter, loc, i));
        auto asmOp = LLVM::InlineAsmOp::create(
            rewriter, loc, rewriter.getF32Type(), ValueRange{x}, "", "=f,0",
            /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
        pinned = LLVM::InsertElementOp::create(rewriter, loc, pinned,
                                               asmOp.getResult(0),
                                               constI32(rewriter, loc, i));
      }
      results.push_back(pinned);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Row reductions, broadcasts and index tiles
//===----------------------------------------------------------------------===//

Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value x, Value y) {
  if (kind == ReduceKind::max)
    return LLVM::MaxNumOp::create(b, loc, x, y);
  return LLVM::FAddOp::create(b, loc, x, y);
}

Value element(OpBuilder &b, Location loc, Value vector, int64_t i) {
  return LLVM::ExtractElementOp::create(b, loc, vector, constI32(b, loc, i));
}

struct ReduceRowsLowering : JFAPattern<ReduceRowsOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(ReduceRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto input = dyn_cast<VectorType>(adaptor.getInput().getType());
    auto rows = dyn_cast<VectorType>(op.getType());
    if (!input || !rows || !op.getLayout())
      return op.emitOpError() << "run jfa-distribute-tiles first";
    int64_t count = input.getNumElements();
    Value result = LLVM::PoisonOp::create(rewriter, loc, rows);
    if (isa<TmemRowLayoutAttr>(*op.getLayout())) {
      Value acc = element(rewriter, loc, adaptor.getInput(), 0);
      for (int64_t i = 1; i < count; ++i)
        acc = combine(rewriter, loc, op.getKind(), acc,
                      element(rewriter, loc, adaptor.getInput(), i));
      rewriter.replaceOpWithNewOp<LLVM::InsertElementOp>(
          op, result, acc, constI32(rewriter, loc, 0));
      return success();
    }
    // wgmma: a thread's elements of row half h are 4j + 2h + {0, 1}; the
    // other columns of the row live on the 3 other lanes of the quad.
    Type f32 = rewriter.getF32Type();
    for (int64_t h = 0; h < 2; ++h) {
      Value acc;
      for (int64_t j = 0; j < count / 4; ++j)
        for (int64_t v = 0; v < 2; ++v) {
          Value x =
              element(rewriter, loc, adaptor.getInput(), 4 * j + 2 * h + v);
          acc = acc ? combine(rewriter, loc, op.getKind(), acc, x) : x;
        }
      for (int64_t offset : {1, 2}) {
        Value other = NVVM::ShflOp::create(
            rewriter, loc, f32, constI32(rewriter, loc, -1), acc,
            constI32(rewriter, loc, offset), constI32(rewriter, loc, 0x1f),
            NVVM::ShflKindAttr::get(getContext(), NVVM::ShflKind::bfly),
            UnitAttr());
        acc = combine(rewriter, loc, op.getKind(), acc, other);
      }
      result = LLVM::InsertElementOp::create(rewriter, loc, result, acc,
                                             constI32(rewriter, loc, h));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BroadcastRowsLowering : JFAPattern<BroadcastRowsOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BroadcastRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tile = dyn_cast<VectorType>(op.getType());
    if (!tile || !op.getLayout())
      return op.emitOpError() << "run jfa-distribute-tiles first";
    bool wgmma = isa<WgmmaAccLayoutAttr>(*op.getLayout());
    Value result = LLVM::PoisonOp::create(rewriter, loc, tile);
    for (int64_t i = 0; i < tile.getNumElements(); ++i)
      result = LLVM::InsertElementOp::create(
          rewriter, loc, result,
          element(rewriter, loc, adaptor.getInput(), wgmma ? (i % 4) / 2 : 0),
          constI32(rewriter, loc, i));
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct IotaLowering : JFAPattern<IotaOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto fragment = dyn_cast<VectorType>(op.getType());
    auto threadsAttr = op->getAttrOfType<IntegerAttr>("threads");
    if (!fragment || !adaptor.getThread() || !op.getShape() || !threadsAttr)
      return op.emitOpError() << "run jfa-distribute-tiles first";
    ArrayRef<int64_t> shape = *op.getShape();
    int64_t columns = shape[1], count = fragment.getNumElements();
    bool wantRows = op.getDim() == IotaDim::rows;
    Value t = adaptor.getThread();
    auto c = [&](int64_t v) { return constI32(rewriter, loc, v); };
    auto add = [&](Value x, Value y) -> Value {
      return LLVM::AddOp::create(rewriter, loc, x, y);
    };
    auto mul = [&](Value x, int64_t y) -> Value {
      return LLVM::MulOp::create(rewriter, loc, x, c(y));
    };
    auto udiv = [&](Value x, int64_t y) -> Value {
      return LLVM::UDivOp::create(rewriter, loc, x, c(y));
    };
    auto urem = [&](Value x, int64_t y) -> Value {
      return LLVM::URemOp::create(rewriter, loc, x, c(y));
    };

    Value result = LLVM::PoisonOp::create(rewriter, loc, fragment);
    std::optional<Attribute> layout = op.getLayout();
    bool wgmma = layout && isa<WgmmaAccLayoutAttr>(*layout);
    WgmmaCoords at;
    if (wgmma)
      at = wgmmaCoords(rewriter, loc, t);
    for (int64_t i = 0; i < count; ++i) {
      Value index;
      if (wgmma) {
        int64_t j = i / 4, h = (i % 4) / 2, v = i % 2;
        index = wantRows ? add(at.row, c(8 * h)) : add(at.col, c(8 * j + v));
      } else if (layout && isa<TmemRowLayoutAttr>(*layout)) {
        index = wantRows ? urem(t, 128) : c(i);
      } else {
        // Blocked: element (j * threads + t) * chunk + v of the row-major tile.
        FragmentGeometry g = fragmentGeometry(fragment);
        int64_t j = i / g.chunk, v = i % g.chunk;
        Value e = add(mul(add(t, c(j * threadsAttr.getInt())), g.chunk), c(v));
        index = wantRows ? udiv(e, columns) : urem(e, columns);
      }
      result =
          LLVM::InsertElementOp::create(rewriter, loc, result, index, c(i));
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Tensor memory and tcgen05
//===----------------------------------------------------------------------===//

Type tmemPtr(MLIRContext *ctx) { return LLVM::LLVMPointerType::get(ctx, 6); }

/// `if (warp == 0) { body }` as an scf.if (the structured form still holds
/// here; convert-scf-to-cf runs after this pass).
void inWarpZero(OpBuilder &b, Location loc, function_ref<void()> body) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value warp = LLVM::UDivOp::create(b, loc, tid, constI32(b, loc, 32));
  Value first = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, warp,
                                     constI32(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

struct TmemAllocLowering : JFAPattern<TmemAllocOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TmemAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getOffset())
      return op.emitOpError()
             << "has no shared-memory offset; run jfa-allocate-shared-memory";
    Location loc = op.getLoc();
    Value slot = sharedAddress(rewriter, loc, *op.getOffset());
    Value columns = constI32(rewriter, loc, op.getType().getColumns());
    inWarpZero(rewriter, loc, [&] {
      NVVM::Tcgen05AllocOp::create(rewriter, loc, slot, columns);
      NVVM::Tcgen05RelinquishAllocPermitOp::create(rewriter, loc);
    });
    NVVM::Tcgen05FenceOp::create(rewriter, loc,
                                 NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    NVVM::Barrier0Op::create(rewriter, loc);
    NVVM::Tcgen05FenceOp::create(rewriter, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value address =
        LLVM::LoadOp::create(rewriter, loc, rewriter.getI32Type(), slot, 4);
    rewriter.replaceOpWithNewOp<LLVM::IntToPtrOp>(op, tmemPtr(getContext()),
                                                  address);
    return success();
  }
};

struct TmemDeallocLowering : JFAPattern<TmemDeallocOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TmemDeallocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value columns =
        constI32(rewriter, loc, op.getTmem().getType().getColumns());
    NVVM::Tcgen05FenceOp::create(rewriter, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    inWarpZero(rewriter, loc, [&] {
      NVVM::Tcgen05DeallocOp::create(rewriter, loc, adaptor.getTmem(), columns);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// tcgen05 (sm_100a): the version bit 46 and the layout type in bits 61-63
/// (128B = 2, 64B = 4, 32B = 6).
int64_t tcgen05DescriptorBits(int64_t swizzle) {
  int64_t layout = swizzle == 128 ? 2 : swizzle == 64 ? 4 : 6;
  return strideBits(swizzle) | (int64_t(1) << 46) | (layout << 61);
}

/// The kind::f16 instruction descriptor: f32 accumulator, A/B type, A
/// K-major, B K-major or transposed (bit 16), N >> 3 at bit 17, M >> 4 at
/// bit 24.
int64_t tcgen05InstrDescriptor(Type element, int64_t m, int64_t n,
                               bool transposeB) {
  int64_t ab = element.isBF16() ? 1 : 0;
  return (int64_t(1) << 4) | (ab << 7) | (ab << 10) |
         (int64_t(transposeB) << 16) | ((n >> 3) << 17) | ((m >> 4) << 24);
}

struct TcDotLowering : JFAPattern<TcDotOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TcDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SlotType b = op.getB().getType();
    auto slotA = dyn_cast<SlotType>(op.getA().getType());
    Type element = b.getElementType();
    int64_t n = b.getShape()[0], k = b.getShape()[1];
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    Value baseA = slotA ? Value(LLVM::PtrToIntOp::create(rewriter, loc, i64,
                                                         adaptor.getA()))
                        : Value(LLVM::PtrToIntOp::create(rewriter, loc, i32,
                                                         adaptor.getA()));
    Value baseB = LLVM::PtrToIntOp::create(rewriter, loc, i64, adaptor.getB());
    Value idesc =
        constI32(rewriter, loc,
                 tcgen05InstrDescriptor(element, 128, n, b.getTransposed()));
    Value always = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                            rewriter.getBoolAttr(true));
    auto c64 = [&](int64_t v) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i64,
                                      rewriter.getI64IntegerAttr(v));
    };
    // Order after the barrier the issuing thread passed: tensor-memory
    // writes of other threads (tmem_store) become visible to the MMA.
    NVVM::Tcgen05FenceOp::create(rewriter, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    for (int64_t kk = 0; kk < k / 16; ++kk) {
      Value matrixA;
      if (slotA) {
        matrixA =
            matrixDescriptor(rewriter, loc,
                             LLVM::AddOp::create(rewriter, loc, baseA,
                                                 c64(kStepBytes(slotA, kk))),
                             tcgen05DescriptorBits(slotA.getSwizzle()));
      } else {
        // A in tensor memory: 16 elements of K are 8 (32-bit) columns on.
        int64_t columns = kk * 16 * element.getIntOrFloatBitWidth() / 32;
        Value address = LLVM::AddOp::create(rewriter, loc, baseA,
                                            constI32(rewriter, loc, columns));
        matrixA = LLVM::IntToPtrOp::create(rewriter, loc, tmemPtr(getContext()),
                                           address);
      }
      Value descB = matrixDescriptor(
          rewriter, loc,
          LLVM::AddOp::create(rewriter, loc, baseB, c64(kStepBytes(b, kk))),
          tcgen05DescriptorBits(b.getSwizzle()));
      NVVM::Tcgen05MMAOp::create(
          rewriter, loc, NVVM::Tcgen05MMAKind::F16, NVVM::CTAGroupKind::CTA_1,
          NVVM::Tcgen05MMACollectorOp::DISCARD, /*aShift=*/false,
          adaptor.getAcc(), matrixA, descB, idesc,
          kk == 0 ? adaptor.getAccumulate() : always, Value(), Value());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct TcCommitLowering : JFAPattern<TcCommitOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TcCommitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::Tcgen05CommitOp>(op, adaptor.getBarrier(),
                                                       Value());
    return success();
  }
};

/// The tensor-memory address of this warp's lanes at `column`: warp w of
/// the warpgroup may only reach lanes 32w.. (the hardware's rule), so the
/// address is base + (32w << 16) + column.
Value tmemLaneAddress(OpBuilder &b, Location loc, Value tmem, Value column) {
  Type i32 = b.getI32Type();
  Value tid = NVVM::ThreadIdXOp::create(b, loc, i32);
  Value warp = LLVM::URemOp::create(
      b, loc, LLVM::UDivOp::create(b, loc, tid, constI32(b, loc, 32)),
      constI32(b, loc, 4));
  Value lane = LLVM::ShlOp::create(
      b, loc, LLVM::MulOp::create(b, loc, warp, constI32(b, loc, 32)),
      constI32(b, loc, 16));
  Value base = LLVM::PtrToIntOp::create(b, loc, i32, tmem);
  Value address = LLVM::AddOp::create(
      b, loc, LLVM::AddOp::create(b, loc, base, lane), column);
  return LLVM::IntToPtrOp::create(b, loc, tmemPtr(b.getContext()), address);
}

/// The 32-bit column of element column `column`: 16-bit tiles pack two
/// elements per column.
Value tmemColumn(OpBuilder &b, Location loc, TensorMemoryType tmem,
                 Value column) {
  if (tmem.getElementType().getIntOrFloatBitWidth() == 32)
    return column;
  return LLVM::LShrOp::create(b, loc, column, constI32(b, loc, 1));
}

/// The b32 registers tcgen05.ld/st move for a fragment (pairs of 16-bit
/// elements packed into one).
VectorType packedType(VectorType fragment) {
  int64_t bits = fragment.getNumElements() * fragment.getElementTypeBitWidth();
  return VectorType::get({bits / 32},
                         IntegerType::get(fragment.getContext(), 32));
}

struct TmemSliceLowering : JFAPattern<TmemSliceOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TmemSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TensorMemoryType from = op.getTmem().getType();
    int64_t columns =
        op.getColumns() * from.getElementType().getIntOrFloatBitWidth() / 32;
    Value base = LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                          adaptor.getTmem());
    Value address = LLVM::AddOp::create(rewriter, loc, base,
                                        constI32(rewriter, loc, columns));
    rewriter.replaceOpWithNewOp<LLVM::IntToPtrOp>(op, tmemPtr(getContext()),
                                                  address);
    return success();
  }
};

struct TmemLoadLowering : JFAPattern<TmemLoadOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TmemLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto fragment = dyn_cast<VectorType>(op.getType());
    if (!fragment)
      return op.emitOpError() << "run jfa-distribute-tiles first";
    Value taddr = tmemLaneAddress(
        rewriter, loc, adaptor.getTmem(),
        tmemColumn(rewriter, loc, op.getTmem().getType(), adaptor.getColumn()));
    NVVM::Tcgen05FenceOp::create(rewriter, loc,
                                 NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    auto raw = packedType(fragment);
    Value bits = NVVM::Tcgen05LdOp::create(rewriter, loc, raw, /*pack=*/false,
                                           NVVM::Tcgen05LdStShape::SHAPE_32X32B,
                                           taddr, Value());
    NVVM::Tcgen05WaitOp::create(rewriter, loc, NVVM::Tcgen05WaitKind::LOAD);
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(op, fragment, bits);
    return success();
  }
};

struct TmemStoreLowering : JFAPattern<TmemStoreOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TmemStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto fragment = dyn_cast<VectorType>(adaptor.getValue().getType());
    if (!fragment)
      return op.emitOpError() << "run jfa-distribute-tiles first";
    Value taddr = tmemLaneAddress(
        rewriter, loc, adaptor.getTmem(),
        tmemColumn(rewriter, loc, op.getTmem().getType(), adaptor.getColumn()));
    auto raw = packedType(fragment);
    Value bits =
        LLVM::BitcastOp::create(rewriter, loc, raw, adaptor.getValue());
    NVVM::Tcgen05StOp::create(rewriter, loc, /*unpack=*/false,
                              NVVM::Tcgen05LdStShape::SHAPE_32X32B, taddr, bits,
                              Value());
    NVVM::Tcgen05WaitOp::create(rewriter, loc, NVVM::Tcgen05WaitKind::STORE);
    // Make the stores visible to tcgen05 ops issued after a barrier.
    NVVM::Tcgen05FenceOp::create(rewriter, loc,
                                 NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    rewriter.eraseOp(op);
    return success();
  }
};

/// TMA coordinates are innermost first; JFA's are outermost first.
SmallVector<Value> tmaCoordinates(ValueRange coords) {
  return llvm::to_vector(llvm::reverse(coords));
}

struct TMALoadLowering : JFAPattern<TMALoadOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TMALoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        rewriter, op.getLoc(), adaptor.getSlot(), adaptor.getDesc(),
        tmaCoordinates(adaptor.getCoords()), adaptor.getBarrier(), ValueRange{},
        /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
        NVVM::TMALoadMode::TILE, /*isCTAOnly=*/true,
        /*group=*/NVVM::CTAGroupKindAttr(), /*predicate=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreLowering : JFAPattern<TMAStoreOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TMAStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
        rewriter, op.getLoc(), adaptor.getDesc(), adaptor.getSlot(),
        tmaCoordinates(adaptor.getCoords()), /*l2CacheHint=*/Value(),
        NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

struct TMAStoreWaitLowering : JFAPattern<TMAStoreWaitOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TMAStoreWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, op.getPending(), rewriter.getUnitAttr());
    return success();
  }
};

struct FenceAsyncSharedLowering : JFAPattern<FenceAsyncSharedOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(getContext(),
                                   NVVM::SharedSpace::shared_cta));
    return success();
  }
};

struct NamedBarrierSyncLowering : JFAPattern<NamedBarrierSyncOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(NamedBarrierSyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::BarrierOp::create(rewriter, loc, Type(),
                            constI32(rewriter, loc, op.getId()),
                            constI32(rewriter, loc, op.getThreads()),
                            NVVM::BarrierReductionAttr(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct NamedBarrierArriveLowering : JFAPattern<NamedBarrierArriveOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(NamedBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<NVVM::BarrierArriveOp>(
        op, constI32(rewriter, loc, op.getId()),
        constI32(rewriter, loc, op.getThreads()));
    return success();
  }
};

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
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(ThreadIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::ThreadIdXOp>(op, rewriter.getI32Type());
    return success();
  }
};

/// Replaces a jfa.kernel by an llvm.func carrying the NVVM launch facts. The
/// body moves unchanged; its arguments get LLVM types behind casts that the
/// conversion folds away.
LogicalResult convertKernelSignature(KernelOp kernel,
                                     const JFATypeConverter &converter) {
  MLIRContext *ctx = kernel.getContext();
  OpBuilder b(kernel);
  SmallVector<Type> inputs;
  for (Type t : kernel.getFunctionType().getInputs()) {
    Type converted = converter.convertType(t);
    if (!converted)
      return kernel.emitOpError() << "cannot lower parameter type " << t;
    inputs.push_back(converted);
  }
  auto fnType =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), inputs);
  auto fn =
      LLVM::LLVMFuncOp::create(b, kernel.getLoc(), kernel.getSymName(), fnType);
  fn->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  int32_t threads = kernel.getNumThreads();
  fn->setAttr("nvvm.reqntid", b.getDenseI32ArrayAttr({threads, 1, 1}));
  if (auto entry = kernel->getAttrOfType<IntegerAttr>("jfa.entry_registers")) {
    // setmaxnreg needs a known register count at entry.
    fn->setAttr("nvvm.maxnreg", b.getI32IntegerAttr(entry.getInt()));
    fn->setAttr("nvvm.minctasm", b.getI32IntegerAttr(1));
  }
  if (auto cluster = kernel.getClusterDims())
    fn->setAttr("nvvm.cluster_dim", b.getDenseI32ArrayAttr(*cluster));

  for (auto [i, t] : llvm::enumerate(kernel.getFunctionType().getInputs())) {
    if (!isa<TensorDescType>(t))
      continue;
    fn.setArgAttr(i, "llvm.byval",
                  TypeAttr::get(LLVM::LLVMArrayType::get(b.getI8Type(),
                                                         kTensorMapBytes)));
    fn.setArgAttr(i, "nvvm.grid_constant", b.getUnitAttr());
    fn.setArgAttr(i, "llvm.align", b.getI64IntegerAttr(64));
  }

  fn.getBody().takeBody(kernel.getBody());
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
  LLVM::ReturnOp::create(b, kernel.getLoc(), ValueRange{});
  kernel.erase();
  return success();
}

struct ConvertJFAToLLVM : jfa::impl::JFAConvertToLLVMBase<ConvertJFAToLLVM> {
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
      LLVM::GlobalOp::create(b, module.getLoc(),
                             LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                             /*isConstant=*/false, LLVM::Linkage::External,
                             kSharedWindow, Attribute(),
                             /*alignment=*/kSharedBufferAlignment,
                             /*addrSpace=*/3);
    }

    for (auto kernel : llvm::make_early_inc_range(module.getOps<KernelOp>()))
      if (failed(convertKernelSignature(kernel, converter)))
        return signalPassFailure();

    {
      RewritePatternSet patterns(ctx);
      patterns.add<LocalAllocLowering, AllocBarriersLowering, SlotLowering,
                   BarrierLowering, LoadFragmentLowering, StoreFragmentLowering,
                   BarrierExpectLowering, BarrierArriveLowering,
                   BarrierWaitLowering, TMALoadLowering, TMAStoreLowering,
                   TMAStoreWaitLowering, FenceAsyncSharedLowering,
                   NamedBarrierSyncLowering, NamedBarrierArriveLowering,
                   ThreadIdLowering, WarpgroupDotLowering, AsyncDotWaitLowering,
                   TmemAllocLowering, TmemDeallocLowering, TcDotLowering,
                   TcCommitLowering, TmemLoadLowering, TmemStoreLowering,
                   TmemSliceLowering, ReduceRowsLowering, BroadcastRowsLowering,
                   IotaLowering, TransposeLowering,
                   GridIndexLowering<ProgramIdOp, NVVM::BlockIdXOp,
                                     NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
                   GridIndexLowering<NumProgramsOp, NVVM::GridDimXOp,
                                     NVVM::GridDimYOp, NVVM::GridDimZOp>>(
          converter);
      populateJFADebugToLLVMPatterns(converter, patterns);
      ConversionTarget target(*ctx);
      target.addIllegalDialect<JFADialect>();
      target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
      if (failed(applyPartialConversion(module, target, std::move(patterns))))
        return signalPassFailure();
    }
  }
};
} // namespace
