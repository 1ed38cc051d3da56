//===- GlobalMemoryToLLVM.cpp - plain loads and stores of global memory ---===//
//
// What does not go through TMA: a scalar load (a jagged batch's offsets),
// the row-clipped store of a register tile (an output tile that runs past
// the end of its sequence) and a tile's column values (from global memory
// or a slot), plus the ring bookkeeping that pipelined loops over such data
// share.
//
//===----------------------------------------------------------------------===//
#include "lib/Conversion/JFAToLLVM/JFAToLLVM.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace jfa;

namespace {

struct LoadLowering : JFAPattern<LoadOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    Value address = LLVM::GEPOp::create(
        b, adaptor.getPtr().getType(), op.getType(), adaptor.getPtr(),
        ArrayRef<LLVM::GEPArg>{adaptor.getIndex()});
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, op.getType(), address);
    return success();
  }
};

struct StoreLowering : JFAPattern<StoreOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    Value address = LLVM::GEPOp::create(
        b, adaptor.getPtr().getType(), op.getValue().getType(),
        adaptor.getPtr(), ArrayRef<LLVM::GEPArg>{adaptor.getIndex()});
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(op, adaptor.getValue(), address);
    return success();
  }
};

/// One element of an unswizzled slot, read by every thread.
struct LoadScalarLowering : JFAPattern<LoadScalarOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(LoadScalarOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    Value address = LLVM::GEPOp::create(
        b, adaptor.getSlot().getType(), op.getType(), adaptor.getSlot(),
        ArrayRef<LLVM::GEPArg>{adaptor.getIndex()});
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, op.getType(), address);
    return success();
  }
};

/// `atom.global.add.u32`, the old value to the slot, then `mbarrier.arrive`
/// (release at CTA scope: the slot's value is visible to the threads that
/// see the phase complete). With `and cta %rank`, the same again at the
/// slot's and the barrier's places in CTA %rank (`mapa`):
/// `st.shared::cluster.u32`, then `mbarrier.arrive.release.cluster.
/// shared::cluster`, whose release orders the store before the arrival for
/// the peer's waiters. jfa-lower-async-tasks has put it under its task's
/// first thread.
struct AtomicFetchAddLowering : JFAPattern<AtomicFetchAddOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(AtomicFetchAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    Type i32 = rewriter.getI32Type();
    Value counter = LLVM::GEPOp::create(
        b, adaptor.getCounter().getType(), i32, adaptor.getCounter(),
        ArrayRef<LLVM::GEPArg>{adaptor.getIndex()});
    Value old = LLVM::AtomicRMWOp::create(b, LLVM::AtomicBinOp::add, counter,
                                          adaptor.getValue(),
                                          LLVM::AtomicOrdering::monotonic);
    LLVM::StoreOp::create(b, old, adaptor.getSlot());
    NVVM::MBarrierArriveOp::create(b, rewriter.getI64Type(),
                                   adaptor.getBarrier(), Value());
    if (Value cta = adaptor.getCta()) {
      // Mapped here (clusterAddress), not hoisted out of a loop.
      Value slot = clusterAddress(b, adaptor.getSlot(), cta);
      LLVM::StoreOp::create(b, old, slot);
      Value barrier = clusterAddress(b, adaptor.getBarrier(), cta);
      NVVM::MBarrierArriveOp::create(b, Type(), barrier, Value(),
                                     NVVM::MemScopeKind::CLUSTER,
                                     /*relaxed=*/false);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The vector atomic adds of a thread, row by row: one bound check and one
/// address per row, each run of `width` columns at a constant byte offset
/// from it (`[addr+imm]` in the instruction). Inline PTX (NVPTX has no
/// vector atomics) takes its address in a register, and LLVM does not fold
/// offsets into it: an address per run kept 64 of them live at once after
/// the sm_90a backward's loop, and ptxas spilled.
static void emitVectorAdds(LLVMBuilder &b, StoreTileOp::Adaptor adaptor,
                           ArrayRef<TileOffset> offsets, int64_t width,
                           TileCoords base, Type element) {
  SmallVector<int64_t> rowOrder;
  llvm::DenseMap<int64_t, SmallVector<int64_t>> runsOfRow;
  for (int64_t first = 0; first < int64_t(offsets.size()); first += width) {
    auto [it, added] = runsOfRow.try_emplace(offsets[first].row);
    if (added)
      rowOrder.push_back(offsets[first].row);
    it->second.push_back(first);
  }
  int64_t elementBytes = getElementBytes(element);
  Value ptr = adaptor.getPtr();
  for (int64_t rowOffset : rowOrder) {
    Value row = b.add(base.row, rowOffset);
    Value inside = rowInside(b, row, adaptor.getCount(), adaptor.getFirst());
    Value index = b.add(adaptor.getOffset(),
                        b.add(b.mul(row, adaptor.getRowStride()), base.col));
    Value address = LLVM::GEPOp::create(b, ptr.getType(), element, ptr,
                                        ArrayRef<LLVM::GEPArg>{index});
    auto ifOp = scf::IfOp::create(b, inside, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    for (int64_t first : runsOfRow[rowOffset]) {
      SmallVector<Value> operands{address};
      std::string values, constraints = "l";
      for (int64_t i = 0; i < width; ++i) {
        operands.push_back(b.element(adaptor.getValue(), first + i));
        values += (i ? ", $" : "$") + std::to_string(i + 1);
        constraints += ",f";
      }
      int64_t bytes = offsets[first].col * elementBytes;
      std::string at = bytes ? "[$0+" + std::to_string(bytes) + "]" : "[$0]";
      sideEffectAsm(b, /*result=*/Type(), operands,
                    "red.global.add.v" + std::to_string(width) + ".f32 " + at +
                        ", {" + values + "};",
                    constraints);
    }
  }
}

/// Each thread stores its registers in runs of the layout's vector width
/// (consecutive columns of one row), each run guarded by its row's bound.
struct StoreTileLowering : JFAPattern<StoreTileOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(StoreTileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fragment = dyn_cast<VectorType>(adaptor.getValue().getType());
    TileLayoutAttrInterface layout = op.getLayoutAttr();
    if (!fragment || !adaptor.getThread() || !layout || !op.getShape() ||
        !op.getThreads())
      return notDistributed(op);
    LLVMBuilder b(op.getLoc(), rewriter);
    ArrayRef<int64_t> shape = *op.getShape();
    int64_t threads = *op.getThreads();
    Type element = fragment.getElementType();
    SmallVector<TileOffset> offsets = layout.getRegisterOffsets(shape, threads);
    // The atomic adds go in the same runs: one red.global.add.v2/v4.f32
    // per run (a fourth of the instructions of scalar adds for a 16-byte
    // run, and the same L2 sectors).
    int64_t width = getStoreTileVectorWidth(
        layout, shape, threads, getElementBytes(element), op.getAdd());
    TileCoords base = layout.emitThreadBase(b, b.getLoc(), adaptor.getThread(),
                                            shape, threads);
    if (op.getAdd() && width > 1) {
      emitVectorAdds(b, adaptor, offsets, width, base, element);
      rewriter.eraseOp(op);
      return success();
    }
    Value ptr = adaptor.getPtr();
    auto runType = VectorType::get({width}, element);
    for (int64_t first = 0; first < int64_t(offsets.size()); first += width) {
      Value row = b.add(base.row, offsets[first].row);
      Value col = b.add(base.col, offsets[first].col);
      Value inside =
          rowInside(b, row, adaptor.getCount(), adaptor.getFirst());
      Value index = b.add(adaptor.getOffset(),
                          b.add(b.mul(row, adaptor.getRowStride()), col));
      Value address = LLVM::GEPOp::create(b, ptr.getType(), element, ptr,
                                          ArrayRef<LLVM::GEPArg>{index});
      Value run = LLVM::PoisonOp::create(b, runType);
      for (int64_t i = 0; i < width; ++i)
        run = b.insert(run, b.element(adaptor.getValue(), first + i), i);
      auto ifOp = scf::IfOp::create(b, inside, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      if (op.getAdd()) {
        // Runs of one: the result is unused, so NVPTX emits
        // red.global.add.f32.
        LLVM::AtomicRMWOp::create(b, LLVM::AtomicBinOp::fadd, address,
                                  b.element(adaptor.getValue(), first),
                                  LLVM::AtomicOrdering::monotonic);
        continue;
      }
      LLVM::StoreOp::create(b, run, address,
                            /*alignment=*/width * getElementBytes(element));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Each thread loads every column it holds once (guarded by the column's
/// bound where there is one, 0 past it) and gives that value to all its
/// registers of the column; from global memory or a slot alike (the
/// converted source is a pointer either way).
struct LoadColsLowering : JFAPattern<LoadColsOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(LoadColsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto fragment = dyn_cast<VectorType>(op.getType());
    TileLayoutAttrInterface layout = op.getLayoutAttr();
    if (!fragment || !adaptor.getThread() || !layout || !op.getShape() ||
        !op.getThreads())
      return notDistributed(op);
    LLVMBuilder b(op.getLoc(), rewriter);
    ArrayRef<int64_t> shape = *op.getShape();
    int64_t threads = *op.getThreads();
    Type element = fragment.getElementType();
    TileCoords base = layout.emitThreadBase(b, b.getLoc(), adaptor.getThread(),
                                            shape, threads);
    Value source = adaptor.getSource();
    Value result = LLVM::PoisonOp::create(b, fragment);
    llvm::DenseMap<int64_t, Value> valueOfColumn;
    for (auto [reg, at] :
         llvm::enumerate(layout.getRegisterOffsets(shape, threads))) {
      Value &value = valueOfColumn[at.col];
      if (!value) {
        Value col = b.add(base.col, at.col);
        Value address = LLVM::GEPOp::create(
            b, source.getType(), element, source,
            ArrayRef<LLVM::GEPArg>{b.add(adaptor.getOffset(), col)});
        value = adaptor.getCount()
                    ? loadOrZero(b, element, address,
                                 rowInside(b, col, adaptor.getCount(),
                                           /*first=*/Value()))
                    : LLVM::LoadOp::create(b, element, address).getResult();
      }
      result = b.insert(result, value, reg);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct RingPositionLowering : JFAPattern<RingPositionOp> {
  using JFAPattern::JFAPattern;
  LogicalResult
  matchAndRewrite(RingPositionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LLVMBuilder b(op.getLoc(), rewriter);
    int64_t stages = op.getStages();
    Value slot = b.urem(adaptor.getIndex(), stages);
    Value one = b.i32(1);
    Value phase =
        LLVM::AndOp::create(b, b.udiv(adaptor.getIndex(), stages), one);
    rewriter.replaceOp(op, {slot, phase});
    return success();
  }
};

} // namespace

void jfa::populateGlobalMemoryToLLVMPatterns(JFATypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns
      .add<LoadLowering, StoreLowering, LoadScalarLowering, LoadColsLowering,
           AtomicFetchAddLowering, StoreTileLowering, RingPositionLowering>(
          converter);
}
