//===- DistributeTiles.cpp - spread register tiles over threads
//-------------===//
//
// A register tile (a ranked tensor) names the whole tile a task works on.
// This pass gives each thread its fragment: with T threads in the task and N
// elements in the tile, each thread holds vector<N/T>. Elementwise math is
// layout-agnostic, so it is rewritten type for type; only loads and stores
// need to know which elements a thread owns (see ConvertJFAToLLVM).
//
//===----------------------------------------------------------------------===//
#include "JFA/TaskInfo.h"
#include "lib/Transforms/Passes.h"

#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace jfa {
#define GEN_PASS_DEF_JFADISTRIBUTETILES
#include "lib/Transforms/Passes.h.inc"
} // namespace jfa

using namespace mlir;
using namespace jfa;

namespace {

bool hasTileTypes(Operation *op) {
  auto isTile = [](Type t) { return isa<RankedTensorType>(t); };
  if (llvm::any_of(op->getOperandTypes(), isTile) ||
      llvm::any_of(op->getResultTypes(), isTile))
    return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (llvm::any_of(block.getArgumentTypes(), isTile))
        return true;
  return false;
}

/// Maps tiles of a task with `threads` threads to their fragments, as the
/// tile's layout says.
struct TileTypeConverter : TypeConverter {
  explicit TileTypeConverter(int64_t threads) {
    addConversion([](Type t) { return t; });
    addConversion([threads](RankedTensorType t) -> std::optional<Type> {
      TileLayoutAttrInterface layout = getTileLayout(t);
      if (!layout)
        return std::nullopt;
      return layout.getFragmentType(t, threads);
    });
  }
};

/// The layout a distributed op records: the tile's encoding (absent for the
/// blocked default).
TileLayoutAttrInterface recordedLayout(RankedTensorType tile) {
  return tile.getEncoding() ? getTileLayout(tile) : TileLayoutAttrInterface();
}

/// A pattern for an op whose distributed form records its task's thread
/// count (and, for the row ops and index tiles, the tile's layout and shape:
/// what their lowering asks the layout).
template <typename Op> struct DistributedOpPattern : OpConversionPattern<Op> {
  DistributedOpPattern(const TypeConverter &tc, MLIRContext *ctx,
                       int64_t threads)
      : OpConversionPattern<Op>(tc, ctx), threads(threads) {}
  IntegerAttr threadsAttr(Builder &b) const {
    return b.getI32IntegerAttr(threads);
  }
  static DenseI64ArrayAttr shapeAttr(Builder &b, RankedTensorType tile) {
    return b.getDenseI64ArrayAttr(tile.getShape());
  }
  int64_t threads;
};

struct LocalLoadToFragment : DistributedOpPattern<LocalLoadOp> {
  using DistributedOpPattern::DistributedOpPattern;
  LogicalResult
  matchAndRewrite(LocalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type fragment = getTypeConverter()->convertType(op.getType());
    if (!fragment)
      return failure();
    Value thread = TaskThreadIdOp::create(rewriter, op.getLoc());
    rewriter.replaceOpWithNewOp<LoadFragmentOp>(
        op, fragment, adaptor.getSlot(), thread, threadsAttr(rewriter),
        recordedLayout(op.getType()), adaptor.getCta());
    return success();
  }
};

struct LocalStoreToFragment : DistributedOpPattern<LocalStoreOp> {
  using DistributedOpPattern::DistributedOpPattern;
  LogicalResult
  matchAndRewrite(LocalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value thread = TaskThreadIdOp::create(rewriter, op.getLoc());
    rewriter.replaceOpWithNewOp<StoreFragmentOp>(
        op, adaptor.getValue(), adaptor.getSlot(), thread,
        threadsAttr(rewriter), recordedLayout(op.getValue().getType()),
        adaptor.getCta());
    return success();
  }
};

/// Each warpgroup of the task runs the wgmma chain for its 64 rows.
struct AsyncDotToWarpgroupDot : OpConversionPattern<AsyncDotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value thread = TaskThreadIdOp::create(rewriter, loc);
    Value warpgroup =
        arith::DivUIOp::create(rewriter, loc, thread,
                               arith::ConstantIntOp::create(
                                   rewriter, loc, rewriter.getI32Type(), 128));
    rewriter.replaceOpWithNewOp<WarpgroupDotOp>(op, adaptor.getAcc().getType(),
                                                adaptor.getA(), adaptor.getB(),
                                                adaptor.getAcc(), warpgroup);
    return success();
  }
};

/// async_dot_wait passes its values through, now as fragments.
struct DotWaitOnFragments : OpConversionPattern<AsyncDotWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncDotWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<AsyncDotWaitOp>(
        op, ValueRange(adaptor.getValues()).getTypes(), op.getPendingAttr(),
        adaptor.getValues());
    return success();
  }
};

/// Each thread loads its row of the accumulator columns.
struct TmemLoadToFragment : OpConversionPattern<TmemLoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmemLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type fragment = getTypeConverter()->convertType(op.getType());
    if (!fragment)
      return failure();
    rewriter.replaceOpWithNewOp<TmemLoadOp>(op, fragment, adaptor.getTmem(),
                                            adaptor.getColumn());
    return success();
  }
};

struct TmemStoreOfFragment : OpConversionPattern<TmemStoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TmemStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<TmemStoreOp>(
        op, adaptor.getValue(), adaptor.getTmem(), adaptor.getColumn());
    return success();
  }
};

struct ReduceRowsOnFragments : DistributedOpPattern<ReduceRowsOp> {
  using DistributedOpPattern::DistributedOpPattern;
  LogicalResult
  matchAndRewrite(ReduceRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type rows = getTypeConverter()->convertType(op.getType());
    if (!rows)
      return failure();
    auto tile = cast<RankedTensorType>(op.getInput().getType());
    rewriter.replaceOpWithNewOp<ReduceRowsOp>(
        op, rows, op.getKind(), adaptor.getInput(), threadsAttr(rewriter),
        getTileLayout(tile), shapeAttr(rewriter, tile));
    return success();
  }
};

struct BroadcastRowsOnFragments : DistributedOpPattern<BroadcastRowsOp> {
  using DistributedOpPattern::DistributedOpPattern;
  LogicalResult
  matchAndRewrite(BroadcastRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type fragment = getTypeConverter()->convertType(op.getType());
    if (!fragment)
      return failure();
    auto tile = cast<RankedTensorType>(op.getType());
    rewriter.replaceOpWithNewOp<BroadcastRowsOp>(
        op, fragment, adaptor.getInput(), threadsAttr(rewriter),
        getTileLayout(tile), shapeAttr(rewriter, tile));
    return success();
  }
};

/// Index tiles need the thread too.
struct IotaOnFragments : DistributedOpPattern<IotaOp> {
  using DistributedOpPattern::DistributedOpPattern;
  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = dyn_cast<RankedTensorType>(op.getType());
    Type fragment = getTypeConverter()->convertType(op.getType());
    if (!tile || !fragment)
      return failure();
    Value thread = TaskThreadIdOp::create(rewriter, op.getLoc());
    rewriter.replaceOpWithNewOp<IotaOp>(
        op, fragment, op.getDim(), thread, threadsAttr(rewriter),
        recordedLayout(tile), shapeAttr(rewriter, tile));
    return success();
  }
};

/// A column mask compares with the thread's first column.
struct MaskColsOnFragments : DistributedOpPattern<MaskColsOp> {
  using DistributedOpPattern::DistributedOpPattern;
  LogicalResult
  matchAndRewrite(MaskColsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = dyn_cast<RankedTensorType>(op.getType());
    Type fragment = getTypeConverter()->convertType(op.getType());
    if (!tile || !fragment)
      return failure();
    Value thread = TaskThreadIdOp::create(rewriter, op.getLoc());
    rewriter.replaceOpWithNewOp<MaskColsOp>(
        op, fragment, adaptor.getInput(), adaptor.getLimit(), adaptor.getFill(),
        adaptor.getLower(), thread, threadsAttr(rewriter), getTileLayout(tile),
        shapeAttr(rewriter, tile));
    return success();
  }
};

/// The software columns of an exp2 are registers chosen by the layout.
struct Exp2OnFragments : DistributedOpPattern<Exp2Op> {
  using DistributedOpPattern::DistributedOpPattern;
  LogicalResult
  matchAndRewrite(Exp2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = dyn_cast<RankedTensorType>(op.getType());
    Type fragment = getTypeConverter()->convertType(op.getType());
    if (!tile || !fragment)
      return failure();
    rewriter.replaceOpWithNewOp<Exp2Op>(
        op, fragment, adaptor.getInput(), adaptor.getShare(),
        op.getPeriodAttr(), threadsAttr(rewriter), getTileLayout(tile),
        shapeAttr(rewriter, tile));
    return success();
  }
};

/// Row vectors to and from global memory: their lowering needs the thread
/// (which rows it holds) as well.
struct StoreRowsOnFragments : DistributedOpPattern<StoreRowsOp> {
  using DistributedOpPattern::DistributedOpPattern;
  LogicalResult
  matchAndRewrite(StoreRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = cast<RankedTensorType>(op.getValue().getType());
    Value thread = TaskThreadIdOp::create(rewriter, op.getLoc());
    rewriter.replaceOpWithNewOp<StoreRowsOp>(
        op, adaptor.getValue(), adaptor.getPtr(), adaptor.getOffset(),
        adaptor.getCount(), adaptor.getFirst(), thread, threadsAttr(rewriter),
        getTileLayout(tile), shapeAttr(rewriter, tile));
    return success();
  }
};

struct LoadRowsOnFragments : DistributedOpPattern<LoadRowsOp> {
  using DistributedOpPattern::DistributedOpPattern;
  LogicalResult
  matchAndRewrite(LoadRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = dyn_cast<RankedTensorType>(op.getType());
    Type fragment = getTypeConverter()->convertType(op.getType());
    if (!tile || !fragment)
      return failure();
    Value thread = TaskThreadIdOp::create(rewriter, op.getLoc());
    rewriter.replaceOpWithNewOp<LoadRowsOp>(
        op, fragment, adaptor.getPtr(), adaptor.getOffset(), adaptor.getCount(),
        thread, threadsAttr(rewriter), getTileLayout(tile),
        shapeAttr(rewriter, tile));
    return success();
  }
};

/// Column values from global memory or a slot: the lowering needs the
/// thread (which columns it holds).
struct LoadColsOnFragments : DistributedOpPattern<LoadColsOp> {
  using DistributedOpPattern::DistributedOpPattern;
  LogicalResult
  matchAndRewrite(LoadColsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = dyn_cast<RankedTensorType>(op.getType());
    Type fragment = getTypeConverter()->convertType(op.getType());
    if (!tile || !fragment)
      return failure();
    Value thread = TaskThreadIdOp::create(rewriter, op.getLoc());
    rewriter.replaceOpWithNewOp<LoadColsOp>(
        op, fragment, adaptor.getSource(), adaptor.getOffset(),
        adaptor.getCount(), thread, threadsAttr(rewriter), getTileLayout(tile),
        shapeAttr(rewriter, tile));
    return success();
  }
};

/// A tile stored to global memory: each thread stores its own registers.
struct StoreTileOnFragments : DistributedOpPattern<StoreTileOp> {
  using DistributedOpPattern::DistributedOpPattern;
  LogicalResult
  matchAndRewrite(StoreTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = cast<RankedTensorType>(op.getValue().getType());
    Value thread = TaskThreadIdOp::create(rewriter, op.getLoc());
    rewriter.replaceOpWithNewOp<StoreTileOp>(
        op, adaptor.getValue(), adaptor.getPtr(), adaptor.getOffset(),
        adaptor.getRowStride(), adaptor.getCount(), adaptor.getFirst(),
        op.getAdd(), thread,
        threadsAttr(rewriter), getTileLayout(tile), shapeAttr(rewriter, tile));
    return success();
  }
};

/// A splat constant tile becomes a splat constant fragment.
struct SplatConstant : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto dense = dyn_cast<SplatElementsAttr>(op.getValue());
    auto fragment = dyn_cast_or_null<VectorType>(
        getTypeConverter()->convertType(op.getType()));
    if (!dense || !fragment)
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, fragment,
        SplatElementsAttr::get(fragment, dense.getSplatValue<Attribute>()));
    return success();
  }
};

struct SplatToBroadcast : OpConversionPattern<tensor::SplatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tensor::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type fragment = getTypeConverter()->convertType(op.getType());
    if (!fragment)
      return failure();
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(op, fragment,
                                                     adaptor.getInput());
    return success();
  }
};

/// Tiles joined or cut along columns (`tensor.concat dim(1)`,
/// `tensor.extract_slice` of whole rows) are register moves when the layout
/// puts a column at the same register offset in tiles of any width: the
/// wgmma accumulator (8-column groups in order) and tmem_row (a thread's
/// row, column by column). For each register of `to`, the register of the
/// side-by-side `parts` (part i starting at column starts[i]) that holds its
/// element, counted over the parts in order; failure if none does.
static FailureOr<SmallVector<int64_t>>
gatherColumns(RankedTensorType to, ArrayRef<RankedTensorType> parts,
              ArrayRef<int64_t> starts, int64_t threads) {
  TileLayoutAttrInterface layout = getTileLayout(to);
  if (!isa_and_nonnull<WgmmaAccLayoutAttr, TmemRowLayoutAttr>(layout))
    return failure();
  auto partOffsets = llvm::map_to_vector(parts, [&](RankedTensorType part) {
    return layout.getRegisterOffsets(part.getShape(), threads);
  });
  SmallVector<int64_t> indices;
  for (TileOffset at : layout.getRegisterOffsets(to.getShape(), threads)) {
    int64_t first = 0, found = -1;
    for (auto [part, start, offsets] : llvm::zip(parts, starts, partOffsets)) {
      if (at.col >= start && at.col < start + part.getDimSize(1)) {
        for (auto [i, offset] : llvm::enumerate(offsets))
          if (offset.row == at.row && offset.col == at.col - start)
            found = first + i;
        break;
      }
      first += offsets.size();
    }
    if (found < 0)
      return failure();
    indices.push_back(found);
  }
  return indices;
}

/// The register gather of a column join or cut, failure if its tiles do not
/// allow one (checked with a located error before the conversion).
static FailureOr<SmallVector<int64_t>> columnMoves(Operation *op,
                                                   int64_t threads) {
  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    RankedTensorType to = concat.getResultType();
    auto parts = llvm::map_to_vector(concat.getInputs(), [](Value v) {
      return cast<RankedTensorType>(v.getType());
    });
    if (concat.getDim() != 1 || parts.size() != 2 || to.getRank() != 2)
      return failure();
    return gatherColumns(to, parts, {0, parts[0].getDimSize(1)}, threads);
  }
  auto slice = cast<tensor::ExtractSliceOp>(op);
  RankedTensorType from = slice.getSourceType(), to = slice.getResultType();
  ArrayRef<int64_t> offsets = slice.getStaticOffsets();
  if (from.getRank() != 2 || to.getRank() != 2 || !slice.hasUnitStride() ||
      offsets[0] != 0 || ShapedType::isDynamic(offsets[1]) ||
      to.getDimSize(0) != from.getDimSize(0))
    return failure();
  return gatherColumns(to, {from}, {-offsets[1]}, threads);
}

/// The located error for a join or cut that is not a register move.
static void reportColumnMoves(Operation *op) {
  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    op->emitOpError()
        << "joins register tiles only along columns, two at a time, in the "
           "#jfa.wgmma_acc or #jfa.tmem_row layout (where a column keeps its "
           "register offset at any width), got "
        << concat.getResultType();
    return;
  }
  auto slice = cast<tensor::ExtractSliceOp>(op);
  op->emitOpError() << "takes whole rows of a register tile at a constant "
                       "column, in the #jfa.wgmma_acc or #jfa.tmem_row layout "
                       "(where a column keeps its register offset at any "
                       "width), got "
                    << slice.getResultType() << " of " << slice.getSourceType();
}

struct ConcatColumnsOnFragments : DistributedOpPattern<tensor::ConcatOp> {
  using DistributedOpPattern::DistributedOpPattern;
  LogicalResult
  matchAndRewrite(tensor::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<SmallVector<int64_t>> indices = columnMoves(op, threads);
    if (failed(indices))
      return failure(); // reported before the conversion
    ValueRange inputs = adaptor.getInputs();
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, inputs[0], inputs[1],
                                                   *indices);
    return success();
  }
};

struct ExtractColumnsOnFragments
    : DistributedOpPattern<tensor::ExtractSliceOp> {
  using DistributedOpPattern::DistributedOpPattern;
  LogicalResult
  matchAndRewrite(tensor::ExtractSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<SmallVector<int64_t>> indices = columnMoves(op, threads);
    if (failed(indices))
      return failure(); // reported before the conversion
    Value source = adaptor.getSource();
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(op, source, source,
                                                   *indices);
    return success();
  }
};

/// Elementwise arith/math ops keep their name and attributes, on fragments.
struct ElementwiseOnFragments : ConversionPattern {
  ElementwiseOnFragments(const TypeConverter &tc, MLIRContext *ctx)
      : ConversionPattern(tc, MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumRegions() != 0)
      return failure();
    FailureOr<Operation *> converted =
        convertOpResultTypes(op, operands, *getTypeConverter(), rewriter);
    if (failed(converted))
      return failure();
    rewriter.replaceOp(op, (*converted)->getResults());
    return success();
  }
};

/// The most 32-bit values per thread one register tile may take: four times
/// a thread's 255 registers, far above the kernels' largest tiles (128: the
/// sm_90a GEMMs' 128x256xf32 accumulator, the sm_100a attention forward's
/// 128x128xf32 rows) and far below the tiles that make LLVM run for minutes
/// and take gigabytes (1024x1024xf32 on one warp: 32768).
constexpr int64_t kMaxTileValuesPerThread = 1024;

/// The 32-bit values a thread holds of `tile`, without building its
/// fragment for the blocked layout (its size grows with the tile's).
int64_t valuesPerThread(RankedTensorType tile, TileLayoutAttrInterface layout,
                        int64_t threads) {
  int64_t count =
      isa<BlockedLayoutAttr>(layout)
          ? tile.getNumElements() / threads
          : int64_t(layout.getRegisterOffsets(tile.getShape(), threads).size());
  Type element = tile.getElementType();
  int64_t bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 32;
  return llvm::divideCeil(count * bits, 32);
}

struct DistributeTiles : jfa::impl::JFADistributeTilesBase<DistributeTiles> {
  /// Distributes the tiles of `ops`, which run on `threads` threads.
  LogicalResult distribute(ArrayRef<Operation *> ops, const TaskInfo &task) {
    MLIRContext *ctx = &getContext();
    int64_t threads = task.numThreads();
    // Diagnose tiles that do not spread evenly, with their location.
    for (Operation *root : ops) {
      WalkResult result = root->walk([&](Operation *op) {
        for (Type t :
             llvm::concat<Type>(llvm::to_vector(op->getOperandTypes()),
                                llvm::to_vector(op->getResultTypes()))) {
          auto tile = dyn_cast<RankedTensorType>(t);
          if (!tile)
            continue;
          TileLayoutAttrInterface layout = getTileLayout(tile);
          if (!layout) {
            op->emitError()
                << "unknown register-tile layout " << tile.getEncoding();
            return WalkResult::interrupt();
          }
          if (!tile.hasStaticShape()) {
            op->emitError()
                << "register tile " << tile << " needs a static shape";
            return WalkResult::interrupt();
          }
          // The element count of a huge tile overflows, and the register
          // offsets that valuesPerThread asks a distributed layout for take
          // minutes and gigabytes: refuse such a tile first, by its
          // elements per thread (at most four to a 32-bit value, so a
          // quarter of them is a lower bound of its values).
          int64_t elements = 1;
          bool overflows = false;
          for (int64_t d : tile.getShape())
            overflows |= llvm::MulOverflow(elements, d, elements);
          if (overflows || (!isa<BlockedLayoutAttr>(layout) &&
                            llvm::divideCeil(elements, threads) >
                                4 * kMaxTileValuesPerThread)) {
            op->emitError()
                << "tile " << tile << " holds more than "
                << 4 * kMaxTileValuesPerThread
                << " elements per thread over its " << threads
                << " threads (one tile may take at most "
                << kMaxTileValuesPerThread
                << " 32-bit values per thread); a thread has at most 255 "
                   "registers: split the tile or use more warps";
            return WalkResult::interrupt();
          }
          if (!isa<RowsOfLayoutAttr>(layout) &&
              tile.getNumElements() % threads != 0) {
            op->emitError()
                << "tile " << tile << " has " << tile.getNumElements()
                << " elements, which cannot be spread evenly over "
                   "the "
                << threads << " threads of its task";
            return WalkResult::interrupt();
          }
          if (failed(layout.verifyTask(tile, task.firstWarp, task.numWarps,
                                       [op] { return op->emitError(); })))
            return WalkResult::interrupt();
          // A tile far beyond a thread's registers is a mistake, and its
          // distributed form (one SSA value per register) would take LLVM
          // minutes and gigabytes before ptxas spilled it anyway.
          int64_t values = valuesPerThread(tile, layout, threads);
          if (values > kMaxTileValuesPerThread) {
            op->emitError()
                << "tile " << tile << " needs " << values
                << " 32-bit values per thread over its " << threads
                << " threads (one tile may take at most "
                << kMaxTileValuesPerThread
                << "); a thread has at most 255 registers: split the tile or "
                   "use more warps";
            return WalkResult::interrupt();
          }
          if (isa<tensor::ConcatOp, tensor::ExtractSliceOp>(op) &&
              failed(columnMoves(op, threads))) {
            reportColumnMoves(op);
            return WalkResult::interrupt();
          }
          auto constant = dyn_cast<arith::ConstantOp>(op);
          if (constant && !isa<SplatElementsAttr>(constant.getValue())) {
            op->emitError() << "only splat constant tiles are supported";
            return WalkResult::interrupt();
          }
        }
        return WalkResult::advance();
      });
      if (result.wasInterrupted())
        return failure();
    }

    TileTypeConverter converter(threads);
    ConversionTarget target(*ctx);
    target.markUnknownOpDynamicallyLegal(
        [](Operation *op) { return !hasTileTypes(op); });
    target.addIllegalOp<LocalLoadOp, LocalStoreOp>();
    RewritePatternSet patterns(ctx);
    patterns.add<LocalLoadToFragment, LocalStoreToFragment>(converter, ctx,
                                                            threads);
    patterns
        .add<SplatConstant, SplatToBroadcast, ElementwiseOnFragments,
             AsyncDotToWarpgroupDot, DotWaitOnFragments, TmemLoadToFragment>(
            converter, ctx);
    patterns.add<IotaOnFragments, MaskColsOnFragments, Exp2OnFragments,
                 ReduceRowsOnFragments, BroadcastRowsOnFragments,
                 StoreRowsOnFragments, LoadRowsOnFragments, LoadColsOnFragments,
                 StoreTileOnFragments>(converter, ctx, threads);
    patterns.add<TmemStoreOfFragment>(converter, ctx);
    patterns.add<ConcatColumnsOnFragments, ExtractColumnsOnFragments>(
        converter, ctx, threads);
    scf::populateSCFStructuralTypeConversions(converter, patterns);
    return applyPartialConversion(ops, target, std::move(patterns));
  }

  /// convert_layout is a round trip through its scratch slot, written at
  /// the tile level so the stores and loads distribute like any others.
  void expandLayoutConversions() {
    getOperation().walk([](ConvertLayoutOp op) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      LocalStoreOp::create(b, loc, op.getValue(), op.getScratch(),
                           /*cta=*/Value());
      TaskBarrierOp::create(b, loc);
      Value converted = LocalLoadOp::create(b, loc, op.getType(),
                                            op.getScratch(), /*cta=*/Value());
      TaskBarrierOp::create(b, loc);
      op.replaceAllUsesWith(converted);
      op.erase();
    });
  }

  void runOnOperation() override {
    if (failed(verifyTasksExpanded(getOperation(), "jfa-distribute-tiles")))
      return signalPassFailure();
    expandLayoutConversions();
    for (auto kernel : getOperation().getOps<KernelOp>()) {
      // Tiles may not cross from one task into another (or from the kernel
      // body into a task): their distribution differs.
      WalkResult crossing = kernel.walk([&](Operation *op) {
        for (Value operand : op->getOperands()) {
          if (!isa<RankedTensorType>(operand.getType()))
            continue;
          Operation *owner = operand.getDefiningOp();
          if (!owner)
            owner = operand.getParentBlock()->getParentOp();
          auto defTask = isa<TaskOp>(owner) ? cast<TaskOp>(owner)
                                            : owner->getParentOfType<TaskOp>();
          if (op->getParentOfType<TaskOp>() != defTask) {
            op->emitError() << "uses a register tile defined outside its "
                               "task; define tiles inside the task that "
                               "uses them";
            return WalkResult::interrupt();
          }
        }
        return WalkResult::advance();
      });
      if (crossing.wasInterrupted())
        return signalPassFailure();

      SmallVector<Operation *> kernelOps;
      for (Operation &op : kernel.getBodyBlock()) {
        auto tasks = dyn_cast<AsyncTasksOp>(op);
        if (!tasks) {
          kernelOps.push_back(&op);
          continue;
        }
        auto layout = computeTaskLayout(tasks);
        if (failed(layout))
          return signalPassFailure(); // the verifier reported it
        auto taskOps =
            llvm::to_vector(tasks.getBody().front().getOps<TaskOp>());
        for (auto [task, info] : llvm::zip(taskOps, *layout)) {
          SmallVector<Operation *> inner;
          for (Operation &op : task.getBody().front())
            inner.push_back(&op);
          if (!inner.empty() && failed(distribute(inner, info)))
            return signalPassFailure();
        }
      }
      TaskInfo whole;
      whole.numWarps = kernel.getNumWarps();
      if (failed(distribute(kernelOps, whole)))
        return signalPassFailure();
    }
  }
};
} // namespace
