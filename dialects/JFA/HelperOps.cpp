//===- HelperOps.cpp - a helper's layout parameter ------------------------===//
//
// A device helper (jfa.func) may name one tile layout its layout parameter:
// a call then binds it to the layout the call's tiles hold, and inlining
// writes that layout for the parameter throughout the copy. One mask or
// online-softmax step so serves the wgmma accumulator layout of sm_90a and
// the tensor-memory row layout of sm_100a (kernels/lib/).
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

} // namespace

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

FunctionType FuncOp::typeFor(Attribute layout) {
  Attribute param = getLayoutParameterAttr();
  if (!param || !layout || layout == param)
    return getFunctionType();
  return cast<FunctionType>(
      replacerFor(param, layout).replace(Type(getFunctionType())));
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
