//===- HelperOps.cpp - a helper's layout parameter ------------------------===//
//
// A device helper (jfa.func) may name one tile layout its layout parameter:
// a call then binds it to the layout the call's tiles hold, and inlining
// writes that layout for the parameter throughout the copy. One mask or
// online-softmax step so serves the wgmma accumulator layout of sm_90a and
// the tensor-memory row layout of sm_100a (kernels/lib/). In the same way a
// helper may name a ring's stage count its stage parameter, which a call
// binds to its rings' slot count: one GEMM mainloop so serves a 3-stage and
// a 4-stage ring. And a helper may name an element type its element
// parameter, which a call binds to its shared-memory operands' element: the
// copy's !jfa.smem, !jfa.slot and !jfa.tma of that element take the bound
// one, their rows keeping their bytes (64 bf16 columns become 128 fp8), so
// one GEMM mainloop and producer serve bf16 and fp8 operands.
//
//===----------------------------------------------------------------------===//
#include "JFA/HelperOps.h"
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

/// The element of a shared-memory operand type (!jfa.smem, !jfa.slot,
/// !jfa.tma); null otherwise.
Type operandElement(Type type) {
  if (auto smem = dyn_cast<SharedBufferType>(type))
    return smem.getElementType();
  if (auto slot = dyn_cast<SlotType>(type))
    return slot.getElementType();
  if (auto tma = dyn_cast<TensorDescType>(type))
    return tma.getElementType();
  return {};
}

/// The shape of a shared-memory operand type (a TMA tensor's box).
ArrayRef<int64_t> operandShape(Type type) {
  if (auto smem = dyn_cast<SharedBufferType>(type))
    return smem.getShape();
  if (auto slot = dyn_cast<SlotType>(type))
    return slot.getShape();
  return cast<TensorDescType>(type).getBoxShape();
}

/// The element `actual` has where `declared` is a shared-memory operand type
/// of element `param`: the same kind of type; null if none.
Type elementAt(Type declared, Type actual, Type param) {
  if (operandElement(declared) != param ||
      declared.getTypeID() != actual.getTypeID())
    return {};
  return operandElement(actual);
}

int64_t bitWidth(Type type) {
  return type.isIntOrFloat() ? type.getIntOrFloatBitWidth() : 0;
}

/// `count` elements of `param` as a count of `element` elements of the same
/// bits; nullopt if that is not a whole number.
std::optional<int64_t> scaleCount(int64_t count, Type param, Type element) {
  int64_t from = bitWidth(param), to = bitWidth(element);
  if (!from || !to || (count * from) % to)
    return std::nullopt;
  return count * from / to;
}

/// The index of a shared-memory operand type's contiguous dimension in its
/// shape (a transposed slot view's first).
size_t contiguousDim(Type type) {
  if (auto slot = dyn_cast<SlotType>(type))
    return slot.getTransposed() ? 0 : slot.getShape().size() - 1;
  if (auto smem = dyn_cast<SharedBufferType>(type))
    return smem.getShape().size() - 1;
  return cast<TensorDescType>(type).getBoxShape().size() - 1;
}

/// Replaces the element `param` by `element` in shared-memory operand types,
/// scaling the contiguous dimension; `unscaled` is set to the first type
/// whose dimension does not scale (left as it is).
AttrTypeReplacer elementReplacerFor(Type param, Type element, Type &unscaled) {
  auto scaled = [param, element,
                 &unscaled](Type type) -> std::optional<SmallVector<int64_t>> {
    SmallVector<int64_t> out(operandShape(type));
    size_t dim = contiguousDim(type);
    std::optional<int64_t> count = scaleCount(out[dim], param, element);
    if (!count) {
      if (!unscaled)
        unscaled = type;
      return std::nullopt;
    }
    out[dim] = *count;
    return out;
  };
  AttrTypeReplacer replacer;
  replacer.addReplacement(
      [param, element, scaled](SharedBufferType smem) -> std::optional<Type> {
        if (smem.getElementType() != param)
          return std::nullopt;
        auto shape = scaled(smem);
        if (!shape)
          return std::nullopt;
        return SharedBufferType::get(smem.getContext(), smem.getNumSlots(),
                                     *shape, element, smem.getSwizzle());
      });
  replacer.addReplacement(
      [param, element, scaled](SlotType slot) -> std::optional<Type> {
        if (slot.getElementType() != param)
          return std::nullopt;
        auto shape = scaled(slot);
        if (!shape)
          return std::nullopt;
        return SlotType::get(slot.getContext(), *shape, element,
                             slot.getSwizzle(), slot.getTransposed());
      });
  replacer.addReplacement(
      [param, element, scaled](TensorDescType tma) -> std::optional<Type> {
        if (tma.getElementType() != param)
          return std::nullopt;
        auto shape = scaled(tma);
        if (!shape)
          return std::nullopt;
        return TensorDescType::get(tma.getContext(), *shape, element,
                                   tma.getSwizzle());
      });
  return replacer;
}

/// The rows `actual` has where `declared` has `param` rows: the same kind of
/// type; 0 if none.
int64_t rowsAt(Type declared, Type actual, int64_t param) {
  if (rowsOf(declared) != param || declared.getTypeID() != actual.getTypeID())
    return 0;
  return rowsOf(actual);
}

AttrTypeReplacer rowsReplacerFor(int64_t param, int64_t rows) {
  // `shape` with `rows` at `dim`, for a type of the parameter's rows.
  auto reshaped = [rows](ArrayRef<int64_t> shape, size_t dim) {
    SmallVector<int64_t> out(shape);
    out[dim] = rows;
    return out;
  };
  auto tileType = [reshaped,
                   param](RankedTensorType tile) -> std::optional<Type> {
    if (rowsOf(tile) != param)
      return std::nullopt;
    return RankedTensorType::get(reshaped(tile.getShape(), 0),
                                 tile.getElementType(), tile.getEncoding());
  };
  AttrTypeReplacer replacer;
  replacer.addReplacement(tileType);
  replacer.addReplacement(
      [reshaped, param](SlotType slot) -> std::optional<Type> {
        if (rowsOf(slot) != param)
          return std::nullopt;
        return SlotType::get(
            slot.getContext(),
            reshaped(slot.getShape(), slot.getTransposed() ? 1 : 0),
            slot.getElementType(), slot.getSwizzle(), slot.getTransposed());
      });
  replacer.addReplacement([reshaped, param](
                              SharedBufferType smem) -> std::optional<Type> {
    if (rowsOf(smem) != param)
      return std::nullopt;
    return SharedBufferType::get(smem.getContext(), smem.getNumSlots(),
                                 reshaped(smem.getShape(), 0),
                                 smem.getElementType(), smem.getSwizzle());
  });
  replacer.addReplacement(
      [reshaped, param](TensorDescType tma) -> std::optional<Type> {
        if (rowsOf(tma) != param)
          return std::nullopt;
        return TensorDescType::get(tma.getContext(),
                                   reshaped(tma.getBoxShape(), 0),
                                   tma.getElementType(), tma.getSwizzle());
      });
  // A dense constant's tile type is not among the sub-elements the
  // replacer visits: give the data the bound type (a splat: a constant
  // tile of other rows holds the same value everywhere).
  replacer.addReplacement(
      [tileType](DenseElementsAttr dense) -> std::optional<Attribute> {
        auto tile = dyn_cast<RankedTensorType>(dense.getType());
        if (!tile || !dense.isSplat())
          return std::nullopt;
        std::optional<Type> type = tileType(tile);
        if (!type)
          return std::nullopt;
        return DenseElementsAttr::get(cast<ShapedType>(*type),
                                      dense.getSplatValue<Attribute>());
      });
  return replacer;
}

/// The first binding `at(declared, actual)` finds (non-null, non-zero) over
/// `func`'s arguments against `args`, then its results against `results`;
/// T() if none. A call binds a helper's layout, stage and element parameters
/// so.
template <typename T, typename At>
T firstBinding(FuncOp func, TypeRange args, TypeRange results, At at) {
  for (auto [d, a] : llvm::zip(func.getArgumentTypes(), args))
    if (T bound = at(d, a))
      return bound;
  for (auto [d, a] : llvm::zip(func.getResultTypes(), results))
    if (T bound = at(d, a))
      return bound;
  return T();
}

} // namespace

std::string jfa::describeUnscaled(Type unscaled, Type param, Type element) {
  std::string text;
  llvm::raw_string_ostream os(text);
  int64_t count = operandShape(unscaled)[contiguousDim(unscaled)];
  os << unscaled << " does not scale: its rows of " << count << " " << param
     << " (" << count * bitWidth(param) << " bits) are no whole number of "
     << element << " (" << bitWidth(element) << " bits each)";
  return text;
}

int64_t jfa::rowsOf(Type type) {
  if (auto tile = dyn_cast<RankedTensorType>(type))
    return isa_and_nonnull<TileLayoutAttrInterface>(tile.getEncoding()) &&
                   tile.getRank() >= 1
               ? tile.getDimSize(0)
               : 0;
  if (auto slot = dyn_cast<SlotType>(type))
    return slot.getShape().size() >= 2
               ? slot.getShape()[slot.getTransposed() ? 1 : 0]
               : 0;
  if (auto smem = dyn_cast<SharedBufferType>(type))
    return smem.getShape().size() >= 2 ? smem.getShape()[0] : 0;
  if (auto tma = dyn_cast<TensorDescType>(type))
    return tma.getBoxShape().size() >= 2 ? tma.getBoxShape()[0] : 0;
  return 0;
}

Type FuncOp::bindElement(Type type, Type param, Type element, Type *unscaled) {
  if (!param || !element || param == element)
    return type;
  Type first;
  Type out = elementReplacerFor(param, element, first).replace(type);
  if (unscaled)
    *unscaled = first;
  return first ? Type() : out;
}

LogicalResult FuncOp::verifyElementParameter() {
  TypeAttr attr = getElementParameterAttr();
  if (!attr)
    return success();
  Type param = attr.getValue();
  if (!param.isIntOrFloat() || param.getIntOrFloatBitWidth() % 8 != 0)
    return emitOpError() << "element parameter must be an integer or float "
                            "type of whole bytes (a shared-memory element, "
                            "e.g. bf16), got "
                         << param;
  bool used = false;
  Type(getFunctionType()).walk([&](Type type) {
    used |= operandElement(type) == param;
  });
  if (!used)
    return emitOpError() << "names " << param
                         << " its element parameter, but no argument or "
                            "result is a !jfa.smem, !jfa.slot or !jfa.tma of "
                         << param;
  return success();
}

Type FuncOp::boundElement(TypeRange args, TypeRange results) {
  TypeAttr attr = getElementParameterAttr();
  if (!attr)
    return {};
  Type param = attr.getValue();
  if (Type element =
          firstBinding<Type>(*this, args, results, [&](Type d, Type a) {
            return elementAt(d, a, param);
          }))
    return element;
  return param;
}

LogicalResult FuncOp::bindElementIn(Operation *op, Type element) {
  TypeAttr attr = getElementParameterAttr();
  if (!attr || !element || element == attr.getValue())
    return success();
  Type param = attr.getValue();
  // Every type the copy makes (results, block arguments, attributes) must
  // scale before any is written: one replacer checks them all (it records
  // the first that does not scale), then rewrites the copy.
  Type unscaled;
  AttrTypeReplacer replacer = elementReplacerFor(param, element, unscaled);
  WalkResult walk = op->walk([&](Operation *inner) {
    for (Type type : inner->getResultTypes())
      replacer.replace(type);
    for (Region &region : inner->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          replacer.replace(arg.getType());
    inner->getAttrDictionary().walk([&](Type type) { replacer.replace(type); });
    if (!unscaled)
      return WalkResult::advance();
    inner->emitOpError() << "in @" << getSymName() << ", its element parameter "
                         << param << " bound to " << element << ": "
                         << describeUnscaled(unscaled, param, element);
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return failure();
  replacer.recursivelyReplaceElementsIn(op, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  return success();
}

LogicalResult FuncOp::verifyRowsParameter() {
  std::optional<int64_t> rows = getRowsParameter();
  if (!rows)
    return success();
  if (*rows < 1)
    return emitOpError() << "rows parameter must be positive, got " << *rows;
  auto hasRows = [&](Type type) { return rowsOf(type) == *rows; };
  if (llvm::none_of(getArgumentTypes(), hasRows) &&
      llvm::none_of(getResultTypes(), hasRows))
    return emitOpError() << "names " << *rows
                         << " its rows parameter, but no argument or result "
                            "is a register tile, row vector, !jfa.slot, "
                            "!jfa.smem or !jfa.tma of "
                         << *rows << " rows";
  return success();
}

int64_t FuncOp::boundRows(TypeRange args, TypeRange results) {
  std::optional<int64_t> param = getRowsParameter();
  if (!param)
    return 0;
  if (int64_t rows =
          firstBinding<int64_t>(*this, args, results, [&](Type d, Type a) {
            return rowsAt(d, a, *param);
          }))
    return rows;
  return *param;
}

void FuncOp::bindRowsIn(Operation *op, int64_t rows) {
  std::optional<int64_t> param = getRowsParameter();
  if (!param || rows <= 0 || rows == *param)
    return;
  rowsReplacerFor(*param, rows)
      .recursivelyReplaceElementsIn(op, /*replaceAttrs=*/true,
                                    /*replaceLocs=*/false,
                                    /*replaceTypes=*/true);
}

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
  // A ring of the rows parameter's rows or of the element parameter's
  // element is compared as bound.
  TypeAttr elementParam = getElementParameterAttr();
  Type element = boundElement(args, results);
  std::optional<int64_t> rowsParam = getRowsParameter();
  int64_t rows = boundRows(args, results);
  auto declaredAs = [&](Type declared) {
    if (rowsParam && rows > 0 && rows != int64_t(*rowsParam))
      declared = rowsReplacerFor(*rowsParam, rows).replace(declared);
    if (!elementParam)
      return declared;
    Type bound = bindElement(declared, elementParam.getValue(), element);
    return bound ? bound : declared;
  };
  if (int64_t stages =
          firstBinding<int64_t>(*this, args, results, [&](Type d, Type a) {
            return stagesAt(declaredAs(d), a, *param);
          }))
    return stages;
  return *param;
}

Attribute FuncOp::boundLayout(TypeRange args, TypeRange results) {
  Attribute param = getLayoutParameterAttr();
  if (!param)
    return {};
  if (Attribute layout =
          firstBinding<Attribute>(*this, args, results, [&](Type d, Type a) {
            return layoutAt(d, a, param);
          }))
    return layout;
  return param;
}

FunctionType FuncOp::typeFor(Attribute layout, int64_t stages, Type element,
                             int64_t rows) {
  FunctionType type = getFunctionType();
  Attribute param = getLayoutParameterAttr();
  if (param && layout && layout != param)
    type = cast<FunctionType>(replacerFor(param, layout).replace(Type(type)));
  std::optional<int64_t> stageParam = getStageParameter();
  if (stageParam && stages > 0 && stages != *stageParam)
    type = cast<FunctionType>(
        stageReplacerFor(*stageParam, stages).replace(Type(type)));
  std::optional<int64_t> rowsParam = getRowsParameter();
  if (rowsParam && rows > 0 && rows != *rowsParam)
    type = cast<FunctionType>(
        rowsReplacerFor(*rowsParam, rows).replace(Type(type)));
  if (TypeAttr elementParam = getElementParameterAttr())
    return cast_or_null<FunctionType>(
        bindElement(type, elementParam.getValue(), element));
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
