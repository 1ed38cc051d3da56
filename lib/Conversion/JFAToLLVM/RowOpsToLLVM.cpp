//===- RowOpsToLLVM.cpp - row reductions, broadcasts and index tiles ------===//
//
// All three are generic over the tile layout: a thread's registers sit at
// its base coordinates plus the layout's constant offsets, and the lanes
// sharing a row are reached by the layout's shuffle masks.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/JFAToLLVM/JFAToLLVM.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace jfa;

static Value combine(LLVMBuilder &b, ReduceKind kind, Value x, Value y) {
  if (kind == ReduceKind::max)
    return LLVM::MaxNumOp::create(b, x, y);
  return LLVM::FAddOp::create(b, x, y);
}

/// The register of a row vector that holds row offset `row`.
static int64_t rowRegister(ArrayRef<int64_t> rowOffsets, int64_t row) {
  return llvm::find(rowOffsets, row) - rowOffsets.begin();
}

namespace {

/// Each thread combines its registers of each row, then exchanges partial
/// results with the lanes holding the rest of the row (butterfly shuffles).
struct ReduceRowsLowering : JFAPattern<ReduceRowsOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(ReduceRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto rows = dyn_cast<VectorType>(op.getType());
    TileLayoutAttrInterface layout = op.getLayoutAttr();
    if (!rows || !layout || !op.getShape() || !op.getThreads())
      return notDistributed(op);
    LLVMBuilder b(op.getLoc(), rewriter);
    SmallVector<TileOffset> offsets =
        layout.getRegisterOffsets(*op.getShape(), *op.getThreads());
    SmallVector<int64_t> rowOffsets = layout.getRowOffsets();
    Value result = LLVM::PoisonOp::create(b, rows);
    for (auto [r, row] : llvm::enumerate(rowOffsets)) {
      Value acc;
      for (auto [i, offset] : llvm::enumerate(offsets)) {
        if (offset.row != row)
          continue;
        Value x = b.element(adaptor.getInput(), i);
        acc = acc ? combine(b, op.getKind(), acc, x) : x;
      }
      for (int64_t mask : layout.getRowShuffleMasks()) {
        Value clamp = b.i32(0x1f);
        Value offset = b.i32(mask);
        Value members = b.i32(-1);
        Value other = NVVM::ShflOp::create(
            b, b.getF32Type(), members, acc, offset, clamp,
            NVVM::ShflKindAttr::get(getContext(), NVVM::ShflKind::bfly),
            UnitAttr());
        acc = combine(b, op.getKind(), acc, other);
      }
      result = b.insert(result, acc, r);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Register i of the tile takes the row vector's register of its row.
struct BroadcastRowsLowering : JFAPattern<BroadcastRowsOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(BroadcastRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = dyn_cast<VectorType>(op.getType());
    TileLayoutAttrInterface layout = op.getLayoutAttr();
    if (!tile || !layout || !op.getShape() || !op.getThreads())
      return notDistributed(op);
    LLVMBuilder b(op.getLoc(), rewriter);
    SmallVector<int64_t> rowOffsets = layout.getRowOffsets();
    Value result = LLVM::PoisonOp::create(b, tile);
    for (auto [i, offset] : llvm::enumerate(
             layout.getRegisterOffsets(*op.getShape(), *op.getThreads())))
      result = b.insert(
          result,
          b.element(adaptor.getInput(), rowRegister(rowOffsets, offset.row)),
          i);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Register i holds base + offset i, row or column.
struct IotaLowering : JFAPattern<IotaOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(IotaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fragment = dyn_cast<VectorType>(op.getType());
    if (!fragment || !adaptor.getThread() || !op.getShape() || !op.getThreads())
      return notDistributed(op);
    LLVMBuilder b(op.getLoc(), rewriter);
    TileLayoutAttrInterface layout =
        layoutOrBlocked(getContext(), op.getLayoutAttr());
    ArrayRef<int64_t> shape = *op.getShape();
    int64_t threads = *op.getThreads();
    // A row vector's coordinates put its row index in the column (row c of
    // the parent is column c of the vector).
    bool wantRows = op.getDim() == IotaDim::rows && shape.size() == 2;
    TileCoords base = layout.emitThreadBase(b, b.getLoc(), adaptor.getThread(),
                                            shape, threads);
    Value result = LLVM::PoisonOp::create(b, fragment);
    for (auto [i, offset] :
         llvm::enumerate(layout.getRegisterOffsets(shape, threads))) {
      Value index =
          wantRows ? b.add(base.row, offset.row) : b.add(base.col, offset.col);
      result = b.insert(result, index, i);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Register i keeps its value where its column is below its row's limit
/// (and, with a lower bound, not below that). The column is the thread's
/// base plus a constant, so each row register's bounds less the base are
/// compared with the constants: no index registers.
struct MaskColsLowering : JFAPattern<MaskColsOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(MaskColsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fragment = dyn_cast<VectorType>(op.getType());
    TileLayoutAttrInterface layout = op.getLayoutAttr();
    if (!fragment || !layout || !adaptor.getThread() || !op.getShape() ||
        !op.getThreads())
      return notDistributed(op);
    LLVMBuilder b(op.getLoc(), rewriter);
    ArrayRef<int64_t> shape = *op.getShape();
    int64_t threads = *op.getThreads();
    TileCoords base = layout.emitThreadBase(b, b.getLoc(), adaptor.getThread(),
                                            shape, threads);
    SmallVector<int64_t> rowOffsets = layout.getRowOffsets();
    auto relativeTo = [&](Value bounds) {
      SmallVector<Value> relative;
      for (int64_t r = 0, e = rowOffsets.size(); r < e; ++r)
        relative.push_back(
            LLVM::SubOp::create(b, b.element(bounds, r), base.col));
      return relative;
    };
    SmallVector<Value> limits = relativeTo(adaptor.getLimit());
    SmallVector<Value> lowers;
    if (adaptor.getLower())
      lowers = relativeTo(adaptor.getLower());
    Value result = LLVM::PoisonOp::create(b, fragment);
    for (auto [i, offset] :
         llvm::enumerate(layout.getRegisterOffsets(shape, threads))) {
      int64_t row = rowRegister(rowOffsets, offset.row);
      Value column = b.i32(offset.col);
      Value keep = LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::sgt,
                                        limits[row], column);
      if (!lowers.empty())
        keep = LLVM::AndOp::create(
            b, keep,
            LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::sle, lowers[row],
                                 column));
      result = b.insert(result,
                        LLVM::SelectOp::create(b, keep,
                                               b.element(adaptor.getInput(), i),
                                               adaptor.getFill()),
                        i);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Where a distributed row vector's registers live in global memory: calls
/// `visit(reg, address, inside, first)` for each register, with the address
/// `pointer + offset + row`, whether the row is below `count` (and not below
/// `firstRow`, when there is one), and whether this lane is the first of
/// those holding copies of the row.
template <typename Op>
static void forEachRow(
    LLVMBuilder &b, Op op, Value ptr, Value offset, Value count,
    Value firstRow, Value thread,
    function_ref<void(int64_t reg, Value address, Value inside, Value first)>
        visit) {
  auto rows = cast<RowsOfLayoutAttr>(op.getLayoutAttr());
  auto parent = cast<TileLayoutAttrInterface>(rows.getParent());
  ArrayRef<int64_t> shape = *op.getShape();
  int64_t threads = *op.getThreads();
  int64_t copies = 0;
  for (int64_t mask : parent.getRowShuffleMasks())
    copies |= mask;
  Value lane = b.urem(thread, 32);
  Value zero = b.i32(0);
  Value copyBits = LLVM::AndOp::create(b, lane, b.i32(copies));
  Value first =
      LLVM::ICmpOp::create(b, LLVM::ICmpPredicate::eq, copyBits, zero);
  TileCoords base = rows.emitThreadBase(b, b.getLoc(), thread, shape, threads);
  Type element = cast<GlobalPtrType>(op.getPtr().getType()).getElementType();
  for (auto [i, at] :
       llvm::enumerate(rows.getRegisterOffsets(shape, threads))) {
    Value row = b.add(base.col, at.col);
    Value inside = rowInside(b, row, count, firstRow);
    Value address =
        LLVM::GEPOp::create(b, ptr.getType(), element, ptr,
                            ArrayRef<LLVM::GEPArg>{b.add(offset, row)});
    visit(i, address, inside, first);
  }
}

/// The first lane holding each row stores it, if it is in [first, count).
struct StoreRowsLowering : JFAPattern<StoreRowsOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(StoreRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<VectorType>(adaptor.getValue().getType()) || !adaptor.getThread())
      return notDistributed(op);
    LLVMBuilder b(op.getLoc(), rewriter);
    forEachRow(b, op, adaptor.getPtr(), adaptor.getOffset(), adaptor.getCount(),
               adaptor.getFirst(), adaptor.getThread(),
               [&](int64_t reg, Value address, Value inside, Value first) {
                 Value v = b.element(adaptor.getValue(), reg);
                 Value moves = LLVM::AndOp::create(b, inside, first);
                 auto ifOp = scf::IfOp::create(b, moves, false);
                 OpBuilder::InsertionGuard guard(b);
                 b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
                 LLVM::StoreOp::create(b, v, address);
               });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Every lane holding a row loads it (so no shuffle is needed); rows past
/// `count` are 0 and never read.
struct LoadRowsLowering : JFAPattern<LoadRowsOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(LoadRowsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fragment = dyn_cast<VectorType>(op.getType());
    if (!fragment || !adaptor.getThread())
      return notDistributed(op);
    LLVMBuilder b(op.getLoc(), rewriter);
    Type element = fragment.getElementType();
    Value result = LLVM::PoisonOp::create(b, fragment);
    forEachRow(b, op, adaptor.getPtr(), adaptor.getOffset(), adaptor.getCount(),
               /*firstRow=*/Value(), adaptor.getThread(),
               [&](int64_t reg, Value address, Value inside, Value) {
                 result = b.insert(
                     result, loadOrZero(b, element, address, inside), reg);
               });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void jfa::populateRowOpsToLLVMPatterns(JFATypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<ReduceRowsLowering, BroadcastRowsLowering, IotaLowering,
               MaskColsLowering, StoreRowsLowering, LoadRowsLowering>(
      converter);
}
