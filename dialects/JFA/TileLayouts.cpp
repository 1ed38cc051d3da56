//===- TileLayouts.cpp - register-tile layouts ----------------------------===//
//
// Each layout attribute implements TileLayoutAttrInterface: what it accepts
// (verifyTile, verifyTask) and where a thread's registers sit in the tile
// (emitThreadBase + getRegisterOffsets). Every other piece of the compiler
// asks these methods; no layout formula is written anywhere else.
//
//===----------------------------------------------------------------------===//
#include "JFA/JFAOps.h"
#include "JFA/LLVMBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace jfa;

#include "JFA/JFAAttrInterfaces.cpp.inc"

namespace {
int64_t numColumns(ArrayRef<int64_t> shape) { return shape.back(); }
} // namespace

TileLayoutAttrInterface jfa::layoutOrBlocked(MLIRContext *ctx,
                                             TileLayoutAttrInterface layout) {
  return layout ? layout : BlockedLayoutAttr::get(ctx);
}

TileLayoutAttrInterface jfa::getTileLayout(RankedTensorType tile) {
  if (!tile.getEncoding())
    return layoutOrBlocked(tile.getContext(), {});
  return dyn_cast<TileLayoutAttrInterface>(tile.getEncoding());
}

int64_t jfa::getStoreTileVectorWidth(TileLayoutAttrInterface layout,
                                     ArrayRef<int64_t> shape, int64_t threads,
                                     int64_t elementBytes, bool add) {
  int64_t width = layout.getVectorWidth(shape, threads, elementBytes);
  // A global store, and a vector reduction (red.global.add.v2/v4.f32,
  // sm_90 and later), moves at most 16 bytes.
  while (width * elementBytes > 16)
    width /= 2;
  (void)add; // the adds are as wide as the stores
  return width;
}

//===----------------------------------------------------------------------===//
// #jfa.blocked
//===----------------------------------------------------------------------===//

/// Elements per chunk: 4, or the largest power of two dividing both a
/// thread's share and the row, so that a chunk never runs past its row's
/// end (a 256x2 tile over 128 threads takes chunks of 2, not 4).
static int64_t blockedChunk(ArrayRef<int64_t> shape, int64_t threads) {
  int64_t perThread = computeProduct(shape) / threads;
  int64_t columns = numColumns(shape);
  int64_t chunk = 4;
  while (chunk > 1 && (perThread % chunk != 0 || columns % chunk != 0))
    chunk /= 2;
  return chunk;
}

LogicalResult BlockedLayoutAttr::verifyTile(
    RankedTensorType tile, function_ref<InFlightDiagnostic()> emitError) const {
  if (tile.getRank() != 1 && tile.getRank() != 2)
    return emitError() << "a blocked tile is 1-d or 2-d, got " << tile;
  return success();
}

LogicalResult BlockedLayoutAttr::verifyTask(
    RankedTensorType tile, int64_t firstWarp, int64_t numWarps,
    function_ref<InFlightDiagnostic()> emitError) const {
  int64_t threads = 32 * numWarps;
  int64_t stride = threads * blockedChunk(tile.getShape(), threads);
  int64_t columns = numColumns(tile.getShape());
  if (columns % stride != 0 && stride % columns != 0)
    return emitError() << "tile " << tile << " in the blocked layout deals "
                       << stride << "-element rounds to the " << threads
                       << " threads of its task, which neither divide nor are "
                          "divided by its "
                       << columns << " columns";
  return success();
}

SmallVector<TileOffset>
BlockedLayoutAttr::getRegisterOffsets(ArrayRef<int64_t> shape,
                                      int64_t threads) const {
  int64_t chunk = blockedChunk(shape, threads);
  int64_t stride = threads * chunk, columns = numColumns(shape);
  int64_t count = computeProduct(shape) / threads;
  SmallVector<TileOffset> offsets;
  for (int64_t i = 0; i < count; ++i) {
    // Register i is element v of round j: element j * stride + v past the
    // thread's first element.
    int64_t round = (i / chunk) * stride, v = i % chunk;
    offsets.push_back({round / columns, round % columns + v});
  }
  return offsets;
}

int64_t BlockedLayoutAttr::getVectorWidth(ArrayRef<int64_t> shape,
                                          int64_t threads, int64_t) const {
  return blockedChunk(shape, threads);
}

TileCoords BlockedLayoutAttr::emitThreadBase(OpBuilder &b, Location loc,
                                             Value thread,
                                             ArrayRef<int64_t> shape,
                                             int64_t threads) const {
  LLVMBuilder m(loc, b);
  Value first = m.mul(thread, blockedChunk(shape, threads));
  int64_t columns = numColumns(shape);
  return {m.udiv(first, columns), m.urem(first, columns)};
}

SmallVector<int64_t> BlockedLayoutAttr::getRowOffsets() const { return {}; }
SmallVector<int64_t> BlockedLayoutAttr::getRowShuffleMasks() const {
  return {};
}

//===----------------------------------------------------------------------===//
// #jfa.wgmma_acc
//===----------------------------------------------------------------------===//

LogicalResult WgmmaAccLayoutAttr::verifyTile(
    RankedTensorType tile, function_ref<InFlightDiagnostic()> emitError) const {
  if (tile.getRank() != 2 || tile.getDimSize(0) % 64 != 0 ||
      tile.getDimSize(1) % 8 != 0 || tile.getDimSize(1) > 256)
    return emitError()
           << "a #jfa.wgmma_acc tile is M x N with M a multiple of 64 and N "
              "a multiple of 8 up to 256, got "
           << tile;
  return success();
}

LogicalResult WgmmaAccLayoutAttr::verifyTask(
    RankedTensorType tile, int64_t firstWarp, int64_t numWarps,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (firstWarp % 4 != 0 || numWarps % 4 != 0 ||
      tile.getDimSize(0) != 16 * numWarps)
    return emitError() << "tile " << tile
                       << " in the wgmma layout needs 64 rows per "
                       << "warpgroup of its task; the task has " << numWarps
                       << " warps starting at warp " << firstWarp
                       << " (whole, aligned warpgroups needed)";
  return success();
}

/// In warpgroup g, lane l of warp w holds, for each 8-column block j, the
/// pairs (r, 8j + 2(l%4) + {0,1}) for r = 64g + 16w + l/4 and r + 8: the
/// registers of wgmma.mma_async.m64nNk16, register 4j + 2h + v at
/// (8h, 8j + v) from the base.
SmallVector<TileOffset>
WgmmaAccLayoutAttr::getRegisterOffsets(ArrayRef<int64_t> shape, int64_t) const {
  SmallVector<TileOffset> offsets;
  for (int64_t j = 0; j < numColumns(shape) / 8; ++j)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t v = 0; v < 2; ++v)
        offsets.push_back({8 * h, 8 * j + v});
  return offsets;
}

int64_t WgmmaAccLayoutAttr::getVectorWidth(ArrayRef<int64_t>, int64_t,
                                           int64_t) const {
  return 2;
}

/// row = 64g + 16w + l/4, col = 2(l%4).
TileCoords WgmmaAccLayoutAttr::emitThreadBase(OpBuilder &b, Location loc,
                                              Value thread, ArrayRef<int64_t>,
                                              int64_t) const {
  LLVMBuilder m(loc, b);
  Value warpgroup = m.udiv(thread, 128);
  Value inGroup = m.urem(thread, 128);
  Value warp = m.udiv(inGroup, 32);
  Value lane = m.urem(inGroup, 32);
  Value row = m.mul(warpgroup, 64);
  row = m.add(row, m.mul(warp, 16));
  row = m.add(row, m.udiv(lane, 4));
  return {row, m.mul(m.urem(lane, 4), 2)};
}

SmallVector<int64_t> WgmmaAccLayoutAttr::getRowOffsets() const {
  return {0, 8};
}

/// The 4 lanes of a quad hold the columns of the same rows.
SmallVector<int64_t> WgmmaAccLayoutAttr::getRowShuffleMasks() const {
  return {1, 2};
}

//===----------------------------------------------------------------------===//
// #jfa.tmem_row
//===----------------------------------------------------------------------===//

LogicalResult TmemRowLayoutAttr::verifyTile(
    RankedTensorType tile, function_ref<InFlightDiagnostic()> emitError) const {
  if (tile.getRank() != 2 || tile.getDimSize(0) != 128)
    return emitError() << "a #jfa.tmem_row tile has 128 rows, got " << tile;
  return success();
}

LogicalResult TmemRowLayoutAttr::verifyTask(
    RankedTensorType tile, int64_t firstWarp, int64_t numWarps,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (firstWarp % 4 != 0 || numWarps != 4)
    return emitError() << "tile " << tile << " in the tmem_row layout needs "
                       << "a task of exactly one aligned warpgroup; the task "
                          "has "
                       << numWarps << " warps starting at warp " << firstWarp;
  return success();
}

/// Thread t holds row t % 128, every column in order.
SmallVector<TileOffset>
TmemRowLayoutAttr::getRegisterOffsets(ArrayRef<int64_t> shape, int64_t) const {
  SmallVector<TileOffset> offsets;
  for (int64_t col = 0; col < numColumns(shape); ++col)
    offsets.push_back({0, col});
  return offsets;
}

/// 16-byte pieces of the row.
int64_t TmemRowLayoutAttr::getVectorWidth(ArrayRef<int64_t> shape, int64_t,
                                          int64_t elementBytes) const {
  int64_t chunk = std::max<int64_t>(1, 16 / elementBytes);
  while (numColumns(shape) % chunk != 0)
    chunk /= 2;
  return chunk;
}

TileCoords TmemRowLayoutAttr::emitThreadBase(OpBuilder &b, Location loc,
                                             Value thread, ArrayRef<int64_t>,
                                             int64_t) const {
  LLVMBuilder m(loc, b);
  return {m.urem(thread, 128), m.i32(0)};
}

SmallVector<int64_t> TmemRowLayoutAttr::getRowOffsets() const { return {0}; }
SmallVector<int64_t> TmemRowLayoutAttr::getRowShuffleMasks() const {
  return {};
}

//===----------------------------------------------------------------------===//
// #jfa.rows_of<parent>
//===----------------------------------------------------------------------===//

/// The parent layout if it has row vectors, else null.
static TileLayoutAttrInterface rowParent(RowsOfLayoutAttr rows) {
  auto parent = dyn_cast<TileLayoutAttrInterface>(rows.getParent());
  if (!parent || parent.getRowOffsets().empty())
    return {};
  return parent;
}

LogicalResult
RowsOfLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         Attribute parent) {
  auto layout = dyn_cast_or_null<TileLayoutAttrInterface>(parent);
  if (!layout || isa<RowsOfLayoutAttr>(parent) ||
      layout.getRowOffsets().empty())
    return emitError() << "#jfa.rows_of takes a tile layout with row vectors "
                          "(#jfa.wgmma_acc or #jfa.tmem_row), got "
                       << parent;
  return success();
}

LogicalResult RowsOfLayoutAttr::verifyTile(
    RankedTensorType tile, function_ref<InFlightDiagnostic()> emitError) const {
  if (!rowParent(*this))
    return emitError() << "unknown register-tile layout " << *this
                       << "; row vectors exist in #jfa.wgmma_acc and "
                          "#jfa.tmem_row";
  if (tile.getRank() != 1)
    return emitError() << "a row vector is 1-d, got " << tile;
  return success();
}

LogicalResult RowsOfLayoutAttr::verifyTask(
    RankedTensorType tile, int64_t firstWarp, int64_t numWarps,
    function_ref<InFlightDiagnostic()> emitError) const {
  return rowParent(*this).verifyTask(tile, firstWarp, numWarps, emitError);
}

/// One register per distinct row of the parent's registers. A row vector
/// is one row whose column c is row c of the parent tile.
SmallVector<TileOffset> RowsOfLayoutAttr::getRegisterOffsets(ArrayRef<int64_t>,
                                                             int64_t) const {
  SmallVector<TileOffset> offsets;
  for (int64_t row : rowParent(*this).getRowOffsets())
    offsets.push_back({0, row});
  return offsets;
}

int64_t RowsOfLayoutAttr::getVectorWidth(ArrayRef<int64_t>, int64_t,
                                         int64_t) const {
  return 1;
}

TileCoords RowsOfLayoutAttr::emitThreadBase(OpBuilder &b, Location loc,
                                            Value thread,
                                            ArrayRef<int64_t> shape,
                                            int64_t threads) const {
  TileCoords parent =
      rowParent(*this).emitThreadBase(b, loc, thread, shape, threads);
  return {LLVMBuilder(loc, b).i32(0), parent.row};
}

SmallVector<int64_t> RowsOfLayoutAttr::getRowOffsets() const { return {}; }
SmallVector<int64_t> RowsOfLayoutAttr::getRowShuffleMasks() const { return {}; }
