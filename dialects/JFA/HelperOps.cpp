//===- HelperOps.cpp - a helper's layout parameter ------------------------===//
//
// A device helper (jfa.func) may name one tile layout its layout parameter:
// a call then binds it to the layout the call's tiles hold, and inlining
// writes that layout for the parameter throughout the copy. One mask or
// online-softmax step so serves the wgmma accumulator layout of sm_90a and
// the tensor-memory row layout of sm_100a (kernels/lib/). In the same way a
// helper may name a ring's stage count its stage parameter, which a call
// binds to its rings' slot count: one GEMM mainloop so serves a 3-stage and
// a 4-stage ring.
//
//===----------------------------------------------------------------------===//
#include "JFA/JFAOps.h"

#include "mlir/IR/AttrTypeSubElements.h"

using namespace mlir;
using namespace jfa;

namespace {

/// The layout `actual` holds where `declared` holds `param`: the encoding of
/// a tile, or the parent of a row vector's #jfa.rows_of; null if neither.
Attribute layoutAt(Type declared, Type actual, Attribute param) {
  auto declaredTile = dyn_cast<RankedTensorType>(declared);
  auto actualTile = dyn_cast<RankedTensorType>(actual);
  if (!declaredTile || !actualTile || !declaredTile.getEncoding())
    return {};
  // A tile binds the parameter to its tile layout; a row vector to its
  // parent's. Anything else (no encoding, a row vector where the signature
  // holds a tile) binds nothing, and the call's types then mismatch.
  if (declaredTile.getEncoding() == param) {
    Attribute layout = actualTile.getEncoding();
    if (isa_and_nonnull<TileLayoutAttrInterface>(layout) &&
        !isa<RowsOfLayoutAttr>(layout))
      return layout;
    return {};
  }
  auto declaredRows = dyn_cast<RowsOfLayoutAttr>(declaredTile.getEncoding());
  auto actualRows =
      dyn_cast_or_null<RowsOfLayoutAttr>(actualTile.getEncoding());
  if (declaredRows && declaredRows.getParent() == param && actualRows)
    return actualRows.getParent();
  return {};
}

AttrTypeReplacer replacerFor(Attribute param, Attribute layout) {
  auto swap = [param, layout](Attribute attr) -> std::optional<Attribute> {
    if (attr == param)
      return layout;
    return std::nullopt;
  };
  AttrTypeReplacer replacer;
  replacer.addReplacement(swap);
  // A dense constant's tile type is not among the sub-elements the
  // replacer visits: give the data the bound type.
  replacer.addReplacement(
      [swap](DenseElementsAttr dense) -> std::optional<Attribute> {
        AttrTypeReplacer types;
        types.addReplacement(swap);
        auto type = cast<ShapedType>(types.replace(dense.getType()));
        if (type == dense.getType())
          return std::nullopt;
        return dense.reshape(type);
      });
  return replacer;
}

/// The slot count of a ring type (!jfa.smem, !jfa.mbarriers); 0 otherwise.
int64_t ringSlots(Type type) {
  if (auto smem = dyn_cast<SharedBufferType>(type))
    return smem.getNumSlots();
  if (auto barriers = dyn_cast<BarrierArrayType>(type))
    return barriers.getSize();
  return 0;
}

/// The count `actual` has where `declared` is a ring of `param` slots: the
/// same kind of ring (for !jfa.smem, the same slot type); 0 if none.
int64_t stagesAt(Type declared, Type actual, int64_t param) {
  if (ringSlots(declared) != param || !ringSlots(actual))
    return 0;
  auto declaredSmem = dyn_cast<SharedBufferType>(declared);
  auto actualSmem = dyn_cast<SharedBufferType>(actual);
  if (declaredSmem && actualSmem &&
      declaredSmem.getShape() == actualSmem.getShape() &&
      declaredSmem.getElementType() == actualSmem.getElementType() &&
      declaredSmem.getSwizzle() == actualSmem.getSwizzle())
    return actualSmem.getNumSlots();
  if (isa<BarrierArrayType>(declared) && isa<BarrierArrayType>(actual))
    return cast<BarrierArrayType>(actual).getSize();
  return 0;
}

AttrTypeReplacer stageReplacerFor(int64_t param, int64_t stages) {
  AttrTypeReplacer replacer;
  replacer.addReplacement(
      [param, stages](SharedBufferType smem) -> std::optional<Type> {
        if (smem.getNumSlots() != param)
          return std::nullopt;
        return SharedBufferType::get(smem.getContext(), stages, smem.getShape(),
                                     smem.getElementType(), smem.getSwizzle());
      });
  replacer.addReplacement(
      [param, stages](BarrierArrayType barriers) -> std::optional<Type> {
        if (barriers.getSize() != param)
          return std::nullopt;
        return BarrierArrayType::get(barriers.getContext(), stages);
      });
  return replacer;
}

} // namespace

LogicalResult FuncOp::verifyStageParameter() {
  std::optional<int64_t> stages = getStageParameter();
  if (!stages)
    return success();
  if (*stages < 1 || *stages > 64)
    return emitOpError() << "stage parameter must be in [1, 64], got "
                         << *stages;
  auto isRing = [&](Type type) { return ringSlots(type) == *stages; };
  if (llvm::none_of(getArgumentTypes(), isRing) &&
      llvm::none_of(getResultTypes(), isRing))
    return emitOpError() << "names " << *stages
                         << " its stage parameter, but no argument or result "
                            "is a !jfa.smem or !jfa.mbarriers of "
                         << *stages << " slots";
  return success();
}

int64_t FuncOp::boundStages(TypeRange args, TypeRange results) {
  std::optional<int64_t> param = getStageParameter();
  if (!param)
    return 0;
  for (auto [d, a] : llvm::zip(getArgumentTypes(), args))
    if (int64_t stages = stagesAt(d, a, *param))
      return stages;
  for (auto [d, a] : llvm::zip(getResultTypes(), results))
    if (int64_t stages = stagesAt(d, a, *param))
      return stages;
  return *param;
}

Attribute FuncOp::boundLayout(TypeRange args, TypeRange results) {
  Attribute param = getLayoutParameterAttr();
  if (!param)
    return {};
  auto bind = [&](ArrayRef<Type> declared, TypeRange actual) -> Attribute {
    for (auto [d, a] : llvm::zip(declared, actual))
      if (Attribute layout = layoutAt(d, a, param))
        return layout;
    return {};
  };
  if (Attribute layout = bind(getArgumentTypes(), args))
    return layout;
  if (Attribute layout = bind(getResultTypes(), results))
    return layout;
  return param;
}

FunctionType FuncOp::typeFor(Attribute layout, int64_t stages) {
  FunctionType type = getFunctionType();
  Attribute param = getLayoutParameterAttr();
  if (param && layout && layout != param)
    type = cast<FunctionType>(replacerFor(param, layout).replace(Type(type)));
  std::optional<int64_t> stageParam = getStageParameter();
  if (stageParam && stages > 0 && stages != *stageParam)
    type = cast<FunctionType>(
        stageReplacerFor(*stageParam, stages).replace(Type(type)));
  return type;
}

void FuncOp::bindLayoutIn(Operation *op, Attribute layout) {
  Attribute param = getLayoutParameterAttr();
  if (!param || !layout || layout == param)
    return;
  // Attributes (inherent ones too: a constant's value holds its tile
  // type), result types and nested block arguments.
  replacerFor(param, layout)
      .recursivelyReplaceElementsIn(op, /*replaceAttrs=*/true,
                                    /*replaceLocs=*/false,
                                    /*replaceTypes=*/true);
}

void FuncOp::bindStagesIn(Operation *op, int64_t param, int64_t stages) {
  if (param <= 0 || stages <= 0 || stages == param)
    return;
  stageReplacerFor(param, stages)
      .recursivelyReplaceElementsIn(op, /*replaceAttrs=*/true,
                                    /*replaceLocs=*/false,
                                    /*replaceTypes=*/true);
  op->walk([&](RingPositionOp ring) {
    if (ring.getStages() == static_cast<uint64_t>(param))
      ring.setStages(static_cast<uint32_t>(stages));
  });
}
