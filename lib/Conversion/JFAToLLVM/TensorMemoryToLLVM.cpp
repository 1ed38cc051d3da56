//===- TensorMemoryToLLVM.cpp - tensor memory and tcgen05 (sm_100a) -------===//
//
// Tensor memory is allocated by warp 0 (tcgen05.alloc writes the address to
// a shared-memory word) and addressed as lane << 16 | column. tc_dot is one
// thread's chain of tcgen05.mma over K (kind::f16 for bf16/f16 operands, K =
// 16 per instruction; kind::f8f6f4 for f8E4M3FN/f8E5M2, K = 32);
// tmem_load/tmem_store move one row per thread with the 32x32b shape, each warp
// reaching its own 32 lanes.
//
//===----------------------------------------------------------------------===//
#include "JFA/MmaTypes.h"
#include "lib/Conversion/JFAToLLVM/JFAToLLVM.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace jfa;

/// `if (warp == 0) { body }` as an scf.if (the structured form still holds
/// here; convert-scf-to-cf runs after this conversion).
static void inWarpZero(LLVMBuilder &b, function_ref<void()> body) {
  Value tid = NVVM::ThreadIdXOp::create(b, b.getI32Type());
  Value zero = b.i32(0);
  Value first =
      LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::eq, b.udiv(tid, 32), zero);
  auto ifOp = scf::IfOp::create(b, first, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

/// The tcgen05 shared-memory descriptor (nvvm.tcgen05.mma_smem_desc) of an
/// operand whose stored rows span the swizzle: 8 rows of `swizzle` bytes
/// between 8-row groups (the stride-dimension offset), swizzle mode 128B =
/// 2, 64B = 4, 32B = 6. The leading-dimension offset is unused (1) for
/// K-major operands; for an M-major one it is the distance between its
/// column blocks of `swizzle` bytes along M (CUTLASS's canonical MN-major
/// layout ((8,m),(8,k)) : ((1,LBO),(8,SBO)) in 16-byte units).
static Value tcgen05Descriptor(LLVMBuilder &b, Value address, int64_t swizzle,
                               int64_t leadingBytes = 16) {
  int64_t mode = swizzle == 128 ? 2 : swizzle == 64 ? 4 : 6;
  Value start = b.lshr(LLVM::AndOp::create(b, address, b.i32(0x3FFFF)), 4);
  auto i8 = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, b.getI8Type(), b.getI8IntegerAttr(v));
  };
  Value leadingDimOffset = b.i32(leadingBytes >> 4);
  Value strideDimOffset = b.i32((8 * swizzle) >> 4);
  Value baseOffset = i8(0);
  Value relative =
      LLVM::ConstantOp::create(b, b.getI1Type(), b.getBoolAttr(false));
  Value swizzleMode = i8(mode);
  return NVVM::Tcgen05MmaSmemDescOp::create(b, b.getI64Type(), start,
                                            leadingDimOffset, strideDimOffset,
                                            baseOffset, relative, swizzleMode);
}

/// The descriptor `offset` bytes past the operand whose descriptor is
/// `base`: the start-address field (bits [0, 14), address >> 4) plus
/// offset >> 4, which never carries (shared addresses are below 2^18). An asm
/// block with side effects, at the MMA that uses it: computed in plain LLVM,
/// every k step's descriptor of a slot that a loop keeps is loop-invariant,
/// LLVM hoists them all (two registers each) and ptxas spills them, as it
/// did for wgmma (WGMMAToLLVM.cpp).
static Value tcgen05DescriptorAt(LLVMBuilder &b, Value base, int64_t offset) {
  assert(offset % 16 == 0 && "MMA operands start on 16 bytes");
  std::string asmText = "add.s64 $0, $1, " + std::to_string(offset >> 4) + ";";
  return sideEffectAsm(b, b.getI64Type(), base, asmText, "=l,l");
}

/// An operand's 3-bit type field in the instruction descriptor (PTX ISA,
/// "Instruction descriptor"): kind::f16 F16 = 0, BF16 = 1; kind::f8f6f4
/// E4M3 = 0, E5M2 = 1.
static int64_t tcgen05TypeField(Type element) {
  return element.isBF16() || isa<Float8E5M2Type>(element) ? 1 : 0;
}

/// The kind::f16 / kind::f8f6f4 instruction descriptor: f32 accumulator
/// (bits [4, 6) = 1), A's type at bits [7, 10) and B's at [10, 13)
/// (tcgen05TypeField), A K-major or transposed (bit 15), B K-major or
/// transposed (bit 16), N >> 3 at bit 17, M >> 4 at bit 24; dense, no
/// negation.
static int64_t tcgen05InstrDescriptor(Type elementA, Type elementB, int64_t m,
                                      int64_t n, bool transposeA,
                                      bool transposeB) {
  return (int64_t(1) << 4) | (tcgen05TypeField(elementA) << 7) |
         (tcgen05TypeField(elementB) << 10) | (int64_t(transposeA) << 15) |
         (int64_t(transposeB) << 16) | ((n >> 3) << 17) | ((m >> 4) << 24);
}

/// The tensor-memory address of this warp's lanes at `column`: warp w of
/// the warpgroup may only reach lanes 32w.. (the hardware's rule), so the
/// address is base + (32w << 16) + column.
static Value tmemLaneAddress(LLVMBuilder &b, Value tmem, Value column) {
  Value tid = NVVM::ThreadIdXOp::create(b, b.getI32Type());
  Value warp = b.urem(b.udiv(tid, 32), 4);
  Value laneShift = b.i32(16);
  Value lane = LLVM::ShlOp::create(b, b.mul(warp, 32), laneShift);
  Value base = LLVM::PtrToIntOp::create(b, b.getI32Type(), tmem);
  Value address = b.add(b.add(base, lane), column);
  return LLVM::IntToPtrOp::create(b, tmemPtr(b.getContext()), address);
}

/// The 32-bit column of element column `column`: 16-bit tiles pack two
/// elements per column.
static Value tmemColumn(LLVMBuilder &b, TensorMemoryType tmem, Value column) {
  if (tmem.getElementType().getIntOrFloatBitWidth() == 32)
    return column;
  return b.lshr(column, 1);
}

/// The b32 registers tcgen05.ld/st move for a fragment (pairs of 16-bit
/// elements packed into one).
static VectorType packedType(VectorType fragment) {
  int64_t bits = fragment.getNumElements() * fragment.getElementTypeBitWidth();
  return VectorType::get({bits / 32},
                         IntegerType::get(fragment.getContext(), 32));
}

/// cta_group::2 for the tcgen05 ops of a kernel of CTA-pair products (the
/// conversion marks them, kCtaPairAttrName), ::1 otherwise.
static NVVM::CTAGroupKind ctaGroupOf(Operation *op) {
  return op->hasAttr(kCtaPairAttrName) ? NVVM::CTAGroupKind::CTA_2
                                       : NVVM::CTAGroupKind::CTA_1;
}

namespace {

struct TmemAllocLowering : JFAPattern<TmemAllocOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TmemAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    // tcgen05.alloc writes the tensor-memory address to this word.
    FailureOr<Value> slot = allocationAddress(b, op, op.getOffset());
    if (failed(slot))
      return failure();
    Value columns = b.i32(op.getType().getColumns());
    // A CTA may not allocate after giving up its permit: only the kernel's
    // last allocation relinquishes it (allocations are converted in order,
    // so later ones are still jfa.tmem_alloc here).
    bool last = true;
    for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
      if (isa<TmemAllocOp>(next))
        last = false;
    // A pair kernel's warp 0 of each CTA allocates with its peer's.
    NVVM::CTAGroupKind group = ctaGroupOf(op);
    inWarpZero(b, [&] {
      NVVM::Tcgen05AllocOp::create(b, *slot, columns, group);
      if (last)
        NVVM::Tcgen05RelinquishAllocPermitOp::create(b, group);
    });
    NVVM::Tcgen05FenceOp::create(b, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    NVVM::Barrier0Op::create(b);
    NVVM::Tcgen05FenceOp::create(b, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value address = LLVM::LoadOp::create(b, b.getI32Type(), *slot, 4);
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
    LLVMBuilder b(op.getLoc(), rewriter);
    Value columns = b.i32(op.getTmem().getType().getColumns());
    NVVM::Tcgen05FenceOp::create(b, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    NVVM::CTAGroupKind group = ctaGroupOf(op);
    inWarpZero(b, [&] {
      NVVM::Tcgen05DeallocOp::create(b, adaptor.getTmem(), columns, group);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct TcDotLowering : JFAPattern<TcDotOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TcDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    SlotType slotB = op.getB().getType();
    auto slotA = dyn_cast<SlotType>(op.getA().getType());
    Type element = slotB.getElementType();
    int64_t n = slotB.getShape()[0], k = slotB.getShape()[1];
    // A pair product is 256 x N, each CTA holding 128 rows of A and N/2 of
    // B at the same slots (the hardware reads the peer's by the same
    // addresses).
    bool pair = op.getPair();
    int64_t m = pair ? 256 : 128;
    if (pair)
      n *= 2;
    Type i32 = b.getI32Type();
    // Shared-memory addresses are 32-bit; so are tensor-memory ones.
    Value baseA = LLVM::PtrToIntOp::create(b, i32, adaptor.getA());
    Value baseB = LLVM::PtrToIntOp::create(b, i32, adaptor.getB());
    bool transposeA = slotA && slotA.getTransposed();
    // A in tensor memory has B's element type (the verifier's rule).
    Type elementA = slotA ? slotA.getElementType() : element;
    Value idesc = b.i32(tcgen05InstrDescriptor(
        elementA, element, m, n, transposeA, slotB.getTransposed()));
    // One instruction takes 32 bytes of K: 16 elements of 16 bits (kind::f16)
    // or 32 of 8 (kind::f8f6f4).
    int64_t kStep = getMmaKStep(element);
    auto kind = isMmaFp8(element) ? NVVM::Tcgen05MMAKind::F8F6F4
                                  : NVVM::Tcgen05MMAKind::F16;
    // An M-major A is stored K x 128 as two column blocks of 64 rows of A.
    int64_t leadingA =
        transposeA ? slotA.getStoredShape().front() * slotA.getSwizzle() : 16;
    Value always =
        LLVM::ConstantOp::create(b, b.getI1Type(), b.getBoolAttr(true));
    Value descA0 =
        slotA ? tcgen05Descriptor(b, baseA, slotA.getSwizzle(), leadingA)
              : Value();
    Value descB0 = tcgen05Descriptor(b, baseB, slotB.getSwizzle());
    // Order after the barrier the issuing thread passed: tensor-memory
    // writes of other threads (tmem_store) become visible to the MMA.
    NVVM::Tcgen05FenceOp::create(b, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    for (int64_t kk = 0; kk < k / kStep; ++kk) {
      Value matrixA;
      if (slotA) {
        matrixA = tcgen05DescriptorAt(b, descA0, kStepBytes(slotA, kk));
      } else {
        // A in tensor memory: 16 elements of K are 8 (32-bit) columns on.
        int64_t columns = kk * kStep * element.getIntOrFloatBitWidth() / 32;
        matrixA = LLVM::IntToPtrOp::create(b, tmemPtr(getContext()),
                                           b.add(baseA, columns));
      }
      Value descB = tcgen05DescriptorAt(b, descB0, kStepBytes(slotB, kk));
      NVVM::Tcgen05MMAOp::create(
          b, kind, pair ? NVVM::CTAGroupKind::CTA_2 : NVVM::CTAGroupKind::CTA_1,
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
    // A multicast commit arrives on the barrier at the same place in every
    // CTA of the mask (.shared::cluster.multicast::cluster). In a pair
    // kernel it tracks the pair products this thread issued.
    rewriter.replaceOpWithNewOp<NVVM::Tcgen05CommitOp>(
        op, adaptor.getBarrier(), adaptor.getMulticast(), ctaGroupOf(op));
    return success();
  }
};

struct TmemSliceLowering : JFAPattern<TmemSliceOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TmemSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    TensorMemoryType from = op.getTmem().getType();
    int64_t columns =
        op.getColumns() * from.getElementType().getIntOrFloatBitWidth() / 32;
    Value base = LLVM::PtrToIntOp::create(b, b.getI32Type(), adaptor.getTmem());
    rewriter.replaceOpWithNewOp<LLVM::IntToPtrOp>(op, tmemPtr(getContext()),
                                                  b.add(base, columns));
    return success();
  }
};

struct TmemLoadLowering : JFAPattern<TmemLoadOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TmemLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fragment = dyn_cast<VectorType>(op.getType());
    if (!fragment)
      return notDistributed(op);
    LLVMBuilder b(op.getLoc(), rewriter);
    Value taddr = tmemLaneAddress(
        b, adaptor.getTmem(),
        tmemColumn(b, op.getTmem().getType(), adaptor.getColumn()));
    NVVM::Tcgen05FenceOp::create(b, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value bits = NVVM::Tcgen05LdOp::create(
        b, packedType(fragment), /*pack=*/false,
        NVVM::Tcgen05LdStShape::SHAPE_32X32B, taddr, Value());
    NVVM::Tcgen05WaitOp::create(b, NVVM::Tcgen05WaitKind::LOAD);
    // Orders the read before a barrier that hands the columns to an MMA
    // that overwrites them (a double-buffered accumulator's epilogue).
    NVVM::Tcgen05FenceOp::create(b, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(op, fragment, bits);
    return success();
  }
};

struct TmemStoreLowering : JFAPattern<TmemStoreOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(TmemStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fragment = dyn_cast<VectorType>(adaptor.getValue().getType());
    if (!fragment)
      return notDistributed(op);
    LLVMBuilder b(op.getLoc(), rewriter);
    Value taddr = tmemLaneAddress(
        b, adaptor.getTmem(),
        tmemColumn(b, op.getTmem().getType(), adaptor.getColumn()));
    Value bits =
        LLVM::BitcastOp::create(b, packedType(fragment), adaptor.getValue());
    NVVM::Tcgen05StOp::create(b, /*unpack=*/false,
                              NVVM::Tcgen05LdStShape::SHAPE_32X32B, taddr, bits,
                              Value());
    NVVM::Tcgen05WaitOp::create(b, NVVM::Tcgen05WaitKind::STORE);
    // Make the stores visible to tcgen05 ops issued after a barrier.
    NVVM::Tcgen05FenceOp::create(b, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void jfa::populateTensorMemoryToLLVMPatterns(JFATypeConverter &converter,
                                             RewritePatternSet &patterns,
                                             const TargetInfo &targetInfo) {
  if (!targetInfo.has(TargetFeature::TensorMemory))
    return;
  patterns.add<TmemAllocLowering, TmemDeallocLowering, TcDotLowering,
               TcCommitLowering, TmemSliceLowering, TmemLoadLowering,
               TmemStoreLowering>(converter);
}
