//===- JFAInterfaces.td - JFA attribute interfaces -----------*- tablegen -*-===//
#ifndef JFA_INTERFACES_TD
#define JFA_INTERFACES_TD

include "mlir/IR/OpBase.td"

def JFA_TileLayoutAttrInterface : AttrInterface<"TileLayoutAttrInterface"> {
  let cppNamespace = "::jfa";
  let description = [{
    A register-tile layout: how the elements of a tile (a ranked tensor with
    this layout as its encoding) are spread over the threads of a task. Every
    question the compiler asks about a layout goes through these methods: the
    verifiers (`verifyTile`, `verifyTask`), the tile distribution (the
    fragment size) and the lowering (a thread's base coordinates plus
    constant per-register offsets, which the fragment walk, `jfa.iota`,
    `jfa.reduce_rows` and `jfa.broadcast_rows` all use). A new layout is one
    attribute implementing this interface; see docs/EXTENDING.md.

    Register `i` of thread `t` holds the tile element at
    `emitThreadBase(t) + getRegisterOffsets()[i]` (row, column). A 1-d tile
    is one row: its index is the column (for a `#jfa.rows_of` vector, the
    row of the parent tile).
  }];
  let methods = [
    InterfaceMethod<[{
        Checks the tile's rank, shape and element type against the layout,
        reporting through `emitError`.
      }], "::mlir::LogicalResult", "verifyTile",
      (ins "::mlir::RankedTensorType":$tile,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError)>,
    InterfaceMethod<[{
        Checks that a task of `numWarps` warps starting at warp `firstWarp`
        can hold `tile` in this layout.
      }], "::mlir::LogicalResult", "verifyTask",
      (ins "::mlir::RankedTensorType":$tile, "int64_t":$firstWarp,
           "int64_t":$numWarps,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError)>,
    InterfaceMethod<[{
        The (row, column) offset of each register of a thread's fragment
        from the thread's base coordinates; its size is the fragment size.
      }], "::llvm::SmallVector<::jfa::TileOffset>", "getRegisterOffsets",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "int64_t":$threads)>,
    InterfaceMethod<[{
        How many consecutive registers, starting at a multiple of this
        number, sit in consecutive columns of one row (one vector access).
      }], "int64_t", "getVectorWidth",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "int64_t":$threads,
           "int64_t":$elementBytes)>,
    InterfaceMethod<[{
        Emits (as LLVM dialect i32 values) the first row and column that
        thread `thread` (of `threads`, counted within its task) holds.
      }], "::jfa::TileCoords", "emitThreadBase",
      (ins "::mlir::OpBuilder &":$b, "::mlir::Location":$loc,
           "::mlir::Value":$thread, "::llvm::ArrayRef<int64_t>":$shape,
           "int64_t":$threads)>,
    InterfaceMethod<[{
        The distinct row offsets a thread holds elements of, in register
        order of a row vector (`#jfa.rows_of<this>`); empty if the layout
        has no row vectors.
      }], "::llvm::SmallVector<int64_t>", "getRowOffsets", (ins)>,
    InterfaceMethod<[{
        The lane XOR masks that reach every other lane holding parts of the
        same rows (a row reduction's butterfly shuffles).
      }], "::llvm::SmallVector<int64_t>", "getRowShuffleMasks", (ins)>,
  ];
  let extraSharedClassDeclaration = [{
    /// The per-thread vector a tile in this layout becomes.
    ::mlir::VectorType getFragmentType(::mlir::RankedTensorType tile,
                                       int64_t threads) {
      return ::mlir::VectorType::get(
          {int64_t($_attr.getRegisterOffsets(tile.getShape(), threads).size())},
          tile.getElementType());
    }
  }];
}

#endif // JFA_INTERFACES_TD
