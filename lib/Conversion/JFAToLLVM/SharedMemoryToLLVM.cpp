//===- SharedMemoryToLLVM.cpp - buffers, slots and tile fragments ---------===//
//
// Buffers are offsets into the kernel's dynamic shared-memory window; a slot
// is base + index * slot bytes; a transposed view is the same address. A
// thread's fragment of a register tile is loaded and stored piece by piece,
// where its layout (TileLayoutAttrInterface) puts it, in this CTA's slot or
// (`on cta`) the same slot of a peer CTA, through `mapa`.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/JFAToLLVM/JFAToLLVM.h"

using namespace mlir;
using namespace jfa;

namespace {
/// Addresses `slot + swizzle(first + delta)` for constant deltas, computed so
/// that the register cost does not grow with the number of pieces. The
/// swizzle only moves bits [4, 10) of the offset by bits [7, 10), so for
/// delta = high + low with `high` a multiple of 1024,
///   swizzle(first + delta) = swizzle(first + low) + high,
/// and `high` folds into the store's immediate offset. Only one swizzled
/// value per distinct `low` is computed (4 for an f32 wgmma accumulator in
/// 32-column blocks, 4 for a bf16 one in 64 columns moved by stmatrix)
/// instead of one per piece: LLVM hoists these loop-invariant addresses out
/// of a kernel's main loop, where one register per piece was enough to make
/// ptxas spill.
class SwizzledPieceAddresses {
public:
  SwizzledPieceAddresses(LLVMBuilder &b, Value slot, Value first,
                         int64_t swizzle)
      : b(b), slot(slot), first(first), swizzle(swizzle) {}

  Value get(int64_t delta) {
    if (!swizzle)
      return slotAddress(b, slot, b.add(first, delta), 0);
    int64_t low = delta & (kSwizzleAtomBytes - 1);
    int64_t high = delta - low;
    Value &base = lowBases[low];
    if (!base)
      base = slotAddress(b, slot, b.add(first, low), swizzle);
    if (high == 0)
      return base;
    return LLVM::GEPOp::create(b, base.getType(), b.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{int32_t(high)});
  }

private:
  /// The period of every swizzle mode's pattern: bits [7, 10) decide it.
  static constexpr int64_t kSwizzleAtomBytes = 1024;
  LLVMBuilder &b;
  Value slot, first;
  int64_t swizzle;
  llvm::SmallDenseMap<int64_t, Value, 8> lowBases;
};
} // namespace

/// Calls `visit(address, first, count)` for each piece [first, first +
/// width) of `offsets`: elements at `base` + offsets[first..], in
/// consecutive columns of one row of the slot. The pieces must cover the
/// tile from every base, so that base column + the largest offset column
/// stays below the slot's columns (what the constant-delta path relies on).
static void forEachPiece(
    LLVMBuilder &b, SlotType slotType, Value slot, TileCoords base,
    ArrayRef<TileOffset> offsets, int64_t width, int64_t bytes,
    function_ref<void(Value address, int64_t first, int64_t count)> visit) {
  ArrayRef<int64_t> shape = slotType.getShape();
  int64_t columns = shape.back();
  int64_t swizzle = slotType.getSwizzle();
  if (slotType.getColumnBlocks() > 1) {
    // Column blocks of `swizzle` bytes, each a whole rows x block tile: the
    // block and the column within it decide the offset (a piece never
    // straddles blocks: it is at most 16 aligned bytes).
    int64_t blockColumns = swizzle / bytes;
    int64_t blockBytes = shape.front() * swizzle;
    // The fragments cover the tile, so no thread's base column exceeds
    // columns - 1 - (the largest register column offset). When no piece
    // can then leave the block its offset puts it in, the thread's part of
    // the offset is computed once and each piece adds a constant.
    int64_t maxOffset = 0;
    for (const TileOffset &o : offsets)
      maxOffset = std::max(maxOffset, o.col);
    int64_t maxBase = columns - 1 - maxOffset;
    bool constantDeltas = maxBase < blockColumns;
    for (int64_t i = 0, e = offsets.size(); i < e; i += width)
      constantDeltas &=
          offsets[i].col % blockColumns + maxBase + width - 1 < blockColumns;
    if (constantDeltas) {
      Value colBytes = b.mul(base.col, bytes);
      Value first = b.add(b.mul(base.row, swizzle), colBytes);
      SwizzledPieceAddresses addresses(b, slot, first, swizzle);
      for (int64_t i = 0, e = offsets.size(); i < e; i += width) {
        int64_t col = offsets[i].col;
        int64_t delta = col / blockColumns * blockBytes +
                        offsets[i].row * swizzle + col % blockColumns * bytes;
        visit(addresses.get(delta), i, width);
      }
      return;
    }
    for (int64_t i = 0, e = offsets.size(); i < e; i += width) {
      Value row = b.add(base.row, offsets[i].row);
      Value col = b.add(base.col, offsets[i].col);
      Value withinBlock = b.mul(b.urem(col, blockColumns), bytes);
      Value rowBytes = b.mul(row, swizzle);
      Value blockStart = b.mul(b.udiv(col, blockColumns), blockBytes);
      Value offset = b.add(b.add(blockStart, rowBytes), withinBlock);
      visit(slotAddress(b, slot, offset, swizzle), i, width);
    }
    return;
  }
  // The byte offset of the thread's first element, row-major.
  Value first = b.mul(b.add(b.mul(base.row, columns), base.col), bytes);
  SwizzledPieceAddresses addresses(b, slot, first, swizzle);
  for (int64_t i = 0, e = offsets.size(); i < e; i += width) {
    int64_t delta = (offsets[i].row * columns + offsets[i].col) * bytes;
    visit(addresses.get(delta), i, width);
  }
}

/// Calls `visit(address, first, count)` for each piece of this thread's
/// fragment: registers [first, first + count) live at `address` in the
/// slot, in consecutive columns of one row.
static void forEachFragmentPiece(
    LLVMBuilder &b, TileLayoutAttrInterface layout, SlotType slotType,
    Value slot, Value thread, int64_t threads, VectorType fragment,
    function_ref<void(Value address, int64_t first, int64_t count)> visit) {
  ArrayRef<int64_t> shape = slotType.getShape();
  int64_t bytes = getElementBytes(fragment.getElementType());
  SmallVector<TileOffset> offsets = layout.getRegisterOffsets(shape, threads);
  int64_t width = layout.getVectorWidth(shape, threads, bytes);
  TileCoords base =
      layout.emitThreadBase(b, b.getLoc(), thread, shape, threads);
  forEachPiece(b, slotType, slot, base, offsets, width, bytes, visit);
}

/// The fragment indices of a 16-bit #jfa.wgmma_acc tile's registers as
/// stmatrix / ldmatrix (m8n8, x4; sm_90 and later, which every target is)
/// move them, or nothing when the tile moves pair by pair. One x4
/// instruction moves a warp's 16 x 16 block: four 32-bit registers instead
/// of four 4-byte stores or loads. Each of the 8 rows of a matrix is 16
/// contiguous bytes (a swizzle moves whole 16-byte chunks), and with any
/// swizzle the 8 rows land on 8 different bank groups: no bank conflict.
/// For block k (columns 16k..16k+15), entry i holds the pair this thread
/// has of matrix i = 2 (column half) + (row half), at rows 8 (i % 2),
/// columns 16k + 8 (i / 2), looked up in the layout's own register offsets:
/// the pair at (8h, 8j + {0, 1}) from the thread's base is exactly its part
/// of that matrix in the m8n8 fragment (row lane / 4, columns 2 (lane % 4)
/// + {0, 1}). Nothing when a pair is missing or the width is not a
/// multiple of 16. (The verifiers give a 2-d slot of the tile's shape,
/// never transposed.)
using MatrixBlock = std::array<std::array<int64_t, 2>, 4>;
static SmallVector<MatrixBlock> matrixBlocks(TileLayoutAttrInterface layout,
                                             SlotType slotType, Type element,
                                             int64_t threads) {
  ArrayRef<int64_t> shape = slotType.getShape();
  if (!isa<WgmmaAccLayoutAttr>(layout) || getElementBytes(element) != 2 ||
      shape.back() % 16 != 0)
    return {};
  llvm::SmallDenseMap<std::pair<int64_t, int64_t>, int64_t> index;
  for (auto [i, o] : llvm::enumerate(layout.getRegisterOffsets(shape, threads)))
    index[{o.row, o.col}] = i;
  SmallVector<MatrixBlock> blocks;
  for (int64_t k = 0; k < shape.back() / 16; ++k) {
    MatrixBlock block;
    for (int64_t i = 0; i < 4; ++i) {
      int64_t row = 8 * (i % 2), col = 16 * k + 8 * (i / 2);
      auto lo = index.find({row, col}), hi = index.find({row, col + 1});
      if (lo == index.end() || hi == index.end())
        return {};
      block[i] = {lo->second, hi->second};
    }
    blocks.push_back(block);
  }
  return blocks;
}

/// Calls `visit(address, registers)` for each of `blocks` (matrixBlocks):
/// `address` is this lane's row of the block's four 8x8 matrices (lanes
/// 8i..8i+7 give matrix i's rows), `registers` the fragment indices of the
/// pairs this thread holds of them.
static void forEachMatrixBlock(
    LLVMBuilder &b, ArrayRef<MatrixBlock> blocks, SlotType slotType, Value slot,
    Value thread,
    function_ref<void(Value address, ArrayRef<std::array<int64_t, 2>>)> visit) {
  // Rows 16 w .. 16 w + 15 belong to warp w of the task (64 per
  // warpgroup); lane l addresses row 8 ((l / 8) % 2) + l % 8 of them and
  // the column half l / 16 of the block.
  // (One value per statement: the order of the ops is then fixed.)
  Value warp = b.udiv(thread, 32);
  Value lane = b.urem(thread, 32);
  Value rowHalf = b.urem(b.udiv(lane, 8), 2);
  Value warpRow = b.mul(warp, 16);
  Value halfRow = b.mul(rowHalf, 8);
  Value row = b.add(warpRow, halfRow);
  Value rowInMatrix = b.urem(lane, 8);
  row = b.add(row, rowInMatrix);
  Value colHalf = b.udiv(lane, 16);
  Value col = b.mul(colHalf, 8);
  // One piece of 8 columns (16 bytes) per block, at columns 16k.
  SmallVector<TileOffset> offsets;
  for (int64_t k = 0, e = blocks.size(); k < e; ++k)
    for (int64_t v = 0; v < 8; ++v)
      offsets.push_back({0, 16 * k + v});
  forEachPiece(b, slotType, slot, {row, col}, offsets, /*width=*/8,
               /*bytes=*/2, [&](Value address, int64_t first, int64_t) {
                 visit(address, blocks[first / 8]);
               });
}

/// The stmatrix / ldmatrix blocks of a fragment move (matrixBlocks), none
/// for a peer CTA's slot: the matrix instructions address this CTA's shared
/// memory only.
static SmallVector<MatrixBlock> matrixBlocks(TileLayoutAttrInterface layout,
                                             SlotType slotType, Type element,
                                             int64_t threads, Value cta) {
  if (cta)
    return {};
  return matrixBlocks(layout, slotType, element, threads);
}

/// The ldmatrix / stmatrix attributes of an m8n8 x4 16-bit move.
static NVVM::LdStMatrixShapeAttr matrixShape(MLIRContext *ctx) {
  return NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8);
}

namespace {

struct LocalAllocLowering : JFAPattern<LocalAllocOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(LocalAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    FailureOr<Value> base = allocationAddress(b, op, op.getOffset());
    if (failed(base))
      return failure();
    rewriter.replaceOp(op, *base);
    return success();
  }
};

/// base + index * slot bytes.
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

/// base + index * block bytes (rows x swizzle).
struct ColumnBlockLowering : JFAPattern<ColumnBlockOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(ColumnBlockOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SlotType slot = op.getSlot().getType();
    int64_t bytes = slot.getShape()[0] * slot.getSwizzle();
    Type blockType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), bytes);
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, sharedPtr(getContext()), blockType, adaptor.getSlot(),
        ArrayRef<LLVM::GEPArg>{adaptor.getIndex()});
    return success();
  }
};

/// Row blocks of an unblocked slot are contiguous: block i starts i * R
/// rows in.
struct RowBlockLowering : JFAPattern<RowBlockOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(RowBlockOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t bytes = op.getType().getBytes();
    Type blockType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), bytes);
    rewriter.replaceOpWithNewOp<LLVM::GEPOp>(
        op, sharedPtr(getContext()), blockType, adaptor.getSlot(),
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

struct LoadFragmentLowering : JFAPattern<LoadFragmentOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(LoadFragmentOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    VectorType fragment = op.getType();
    Type element = fragment.getElementType();
    int64_t bytes = getElementBytes(element);
    Value result = LLVM::PoisonOp::create(b, fragment);
    TileLayoutAttrInterface layout =
        layoutOrBlocked(getContext(), op.getLayoutAttr());
    SlotType slotType = op.getSlot().getType();
    if (auto blocks = matrixBlocks(layout, slotType, element, op.getThreads(),
                                   adaptor.getCta());
        !blocks.empty()) {
      Type i32 = b.getI32Type();
      Type matrices = LLVM::LLVMStructType::getLiteral(
          getContext(), SmallVector<Type>(4, i32));
      auto pairType = VectorType::get({2}, element);
      forEachMatrixBlock(
          b, blocks, slotType, adaptor.getSlot(), adaptor.getThread(),
          [&](Value address, ArrayRef<std::array<int64_t, 2>> registers) {
            Value loaded = NVVM::LdMatrixOp::create(
                b, matrices, address, /*num=*/4, NVVM::MMALayout::row,
                matrixShape(getContext()), NVVM::LdStMatrixEltType::B16);
            for (auto [i, pair] : llvm::enumerate(registers)) {
              Value word = LLVM::ExtractValueOp::create(b, loaded, i);
              Value halves = LLVM::BitcastOp::create(b, pairType, word);
              result = b.insert(result, b.element(halves, 0), pair[0]);
              result = b.insert(result, b.element(halves, 1), pair[1]);
            }
          });
      rewriter.replaceOp(op, result);
      return success();
    }
    ClusterWindow window(b, adaptor.getSlot(), adaptor.getCta());
    forEachFragmentPiece(
        b, layout, slotType, adaptor.getSlot(), adaptor.getThread(),
        op.getThreads(), fragment,
        [&](Value address, int64_t first, int64_t count) {
          Value piece =
              LLVM::LoadOp::create(b, VectorType::get({count}, element),
                                   window.map(address), count * bytes);
          for (int64_t v = 0; v < count; ++v)
            result = b.insert(result, b.element(piece, v), first + v);
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
    LLVMBuilder b(op.getLoc(), rewriter);
    VectorType fragment = op.getValue().getType();
    Type element = fragment.getElementType();
    int64_t bytes = getElementBytes(element);
    TileLayoutAttrInterface layout =
        layoutOrBlocked(getContext(), op.getLayoutAttr());
    SlotType slotType = op.getSlot().getType();
    if (auto blocks = matrixBlocks(layout, slotType, element, op.getThreads(),
                                   adaptor.getCta());
        !blocks.empty()) {
      auto pairType = VectorType::get({2}, element);
      forEachMatrixBlock(
          b, blocks, slotType, adaptor.getSlot(), adaptor.getThread(),
          [&](Value address, ArrayRef<std::array<int64_t, 2>> registers) {
            SmallVector<Value, 4> words;
            for (const std::array<int64_t, 2> &pair : registers) {
              Value halves = LLVM::PoisonOp::create(b, pairType);
              halves =
                  b.insert(halves, b.element(adaptor.getValue(), pair[0]), 0);
              halves =
                  b.insert(halves, b.element(adaptor.getValue(), pair[1]), 1);
              words.push_back(
                  LLVM::BitcastOp::create(b, b.getI32Type(), halves));
            }
            NVVM::StMatrixOp::create(b, address, words, NVVM::MMALayout::row,
                                     matrixShape(getContext()),
                                     NVVM::LdStMatrixEltType::B16);
          });
      rewriter.eraseOp(op);
      return success();
    }
    // A wgmma accumulator's 8-byte pieces (two f32) into a 128-byte swizzle:
    // a half-warp (the unit of an 8-byte shared store) writes rows r..r+3,
    // 32 bytes each, and the swizzle puts rows 2i and 2i+1 on the same two
    // 16-byte chunks, so every store was a 2-way bank conflict (ncu on the
    // attention backward's dQ staging: 69.6 M, 23% of its shared-store
    // wavefronts). Two 4-byte stores, odd rows writing their second element
    // first, put those rows on alternate banks: a whole warp per wavefront.
    // A thread's rows are 16 w + lane / 4 (+ 8): its row parity is bit 2 of
    // its index.
    // (A peer's slot takes whole pieces: one address each.)
    Value cta = adaptor.getCta();
    ClusterWindow window(b, adaptor.getSlot(), cta);
    Value oddRow;
    if (!cta && isa<WgmmaAccLayoutAttr>(layout) && bytes == 4 &&
        slotType.getSwizzle() == 128) {
      Value one = b.constLike(adaptor.getThread(), 1);
      Value parity =
          LLVM::AndOp::create(b, b.lshr(adaptor.getThread(), 2), one);
      oddRow = LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::ne, parity,
                                    b.constLike(parity, 0));
    }
    forEachFragmentPiece(
        b, layout, slotType, adaptor.getSlot(), adaptor.getThread(),
        op.getThreads(), fragment,
        [&](Value address, int64_t first, int64_t count) {
          if (oddRow && count == 2) {
            Value x0 = b.element(adaptor.getValue(), first);
            Value x1 = b.element(adaptor.getValue(), first + 1);
            Value firstValue = LLVM::SelectOp::create(b, oddRow, x1, x0);
            Value secondValue = LLVM::SelectOp::create(b, oddRow, x0, x1);
            Value zero = b.i32(0), four = b.i32(4);
            Value firstOffset = LLVM::SelectOp::create(b, oddRow, four, zero);
            Value secondOffset = LLVM::SelectOp::create(b, oddRow, zero, four);
            auto at = [&](Value offset) {
              return LLVM::GEPOp::create(b, address.getType(), b.getI8Type(),
                                         address,
                                         ArrayRef<LLVM::GEPArg>{offset});
            };
            LLVM::StoreOp::create(b, firstValue, at(firstOffset), 4);
            LLVM::StoreOp::create(b, secondValue, at(secondOffset), 4);
            return;
          }
          auto pieceType = VectorType::get({count}, element);
          Value piece = LLVM::PoisonOp::create(b, pieceType);
          for (int64_t v = 0; v < count; ++v)
            piece =
                b.insert(piece, b.element(adaptor.getValue(), first + v), v);
          LLVM::StoreOp::create(b, piece, window.map(address), count * bytes);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void jfa::populateSharedMemoryToLLVMPatterns(JFATypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns.add<LocalAllocLowering, SlotLowering, ColumnBlockLowering,
               RowBlockLowering, TransposeLowering, LoadFragmentLowering,
               StoreFragmentLowering>(converter);
}
