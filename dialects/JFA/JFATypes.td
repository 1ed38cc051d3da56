//===- JFATypes.td - JFA types ---------------------------------*- tablegen -*-===//
#ifndef JFA_TYPES_TD
#define JFA_TYPES_TD

include "JFA/JFADialect.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "JFA/JFAInterfaces.td"

class JFA_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<JFA_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def JFA_SharedBufferType : JFA_Type<"SharedBuffer", "smem"> {
  let summary = "a shared-memory buffer of N slots, each a tile";
  let description = [{
    `!jfa.smem<3 x 64x64xf32>` is three slots of a 64x64 f32 tile, laid out
    row-major and contiguous. Slot i starts at `i * slotBytes`.
    `!jfa.smem<3 x 128x64xbf16, swizzle 128>` stores rows with the 128-byte
    swizzle TMA and the tensor cores use: within each 8-row atom, 16-byte
    chunk c of row r lives at chunk c ^ (r % 8). A row spans the swizzle
    width (a 128-byte swizzled row holds 64 bf16 or 32 f32 values), or a
    multiple of it in a 2-d tile: `!jfa.smem<1 x 128x128xbf16, swizzle 128>`
    is stored as two column blocks, each a whole 128x64 swizzled tile, one
    after the other (the tensor cores' canonical layout for a wide operand).
    Such a blocked slot is written and read by register tiles
    (`jfa.local_store`, `jfa.local_load`) and by TMA (one copy per block),
    and read by `jfa.tc_dot` as A, K-major or transposed (M-major). A TMA
    box and a `jfa.async_dot` operand span one block, so a K-major wgmma
    operand with K = 128 bf16 takes several slots, one per 64 columns.
  }];
  let parameters = (ins "int64_t":$numSlots,
                        ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        DefaultValuedParameter<"int64_t", "0">:$swizzle);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getSlotElements() const;
    int64_t getSlotBytes() const;
    int64_t getTotalBytes() const { return getNumSlots() * getSlotBytes(); }
  }];
}

def JFA_SlotType : JFA_Type<"Slot", "slot"> {
  let summary = "a view of one slot of a shared-memory buffer";
  let description = [{
    `!jfa.slot<64x128xbf16, swizzle 128>` views a row-major slot;
    `!jfa.slot<64x128xbf16, swizzle 128, transposed>` (made by
    `jfa.transpose`) views a 128x64 row-major slot as its 64x128 transpose,
    without a copy: the tensor cores read it with their transpose bit.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        DefaultValuedParameter<"int64_t", "0">:$swizzle,
                        DefaultValuedParameter<"bool", "false">:$transposed);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumElements() const;
    int64_t getBytes() const;
    /// Column blocks of the stored tile: 1 unless its rows are wider than
    /// the swizzle (see !jfa.smem).
    int64_t getColumnBlocks() const;
    /// The shape as stored: the transpose of a transposed view's shape.
    ::llvm::SmallVector<int64_t> getStoredShape() const;
  }];
}

def JFA_BarrierArrayType : JFA_Type<"BarrierArray", "mbarriers"> {
  let summary = "an array of mbarriers in shared memory";
  let parameters = (ins "int64_t":$size);
  let assemblyFormat = "`<` $size `>`";
  let genVerifyDecl = 1;
}

def JFA_BarrierType : JFA_Type<"Barrier", "mbarrier"> {
  let summary = "one mbarrier (an element of an mbarrier array)";
}

def JFA_TensorDescType : JFA_Type<"TensorDesc", "tma"> {
  let summary = "a TMA tensor descriptor whose box is the given tile";
  let description = [{
    `!jfa.tma<64x64xf32>` is a kernel parameter: a CUtensorMap passed by value
    (a `__grid_constant__` 128-byte parameter). The global tensor's sizes and
    strides are given at launch; the box (the tile moved by one copy) and the
    element type are fixed here. The box is row-major: the last dimension is
    the contiguous one.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$boxShape,
                        "::mlir::Type":$elementType,
                        DefaultValuedParameter<"int64_t", "0">:$swizzle);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getBoxBytes() const;
  }];
}

def JFA_GlobalPtrType : JFA_Type<"GlobalPtr", "ptr"> {
  let summary = "a pointer to elements in global memory";
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

def JFA_TensorMemoryType : JFA_Type<"TensorMemory", "tmem"> {
  let summary = "an accumulator in tensor memory (sm_100a)";
  let description = [{
    `!jfa.tmem<128x256xf32>`: 128 lanes (rows) by 256 32-bit columns of
    tensor memory, allocated with `jfa.tmem_alloc`. A 16-bit tile packs two
    elements per column: `!jfa.tmem<128x64xbf16>` takes 32 columns (the A
    operand of `jfa.tc_dot` in tensor memory, as P in attention).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// 32-bit columns: one per f32, one per pair of 16-bit elements.
    int64_t getColumns() const {
      return getShape()[1] * getElementType().getIntOrFloatBitWidth() / 32;
    }
  }];
}

//===----------------------------------------------------------------------===//
// Register-tile layouts (tensor encodings)
//===----------------------------------------------------------------------===//

def JFA_BlockedLayout : AttrDef<JFA_Dialect, "BlockedLayout",
                                [DeclareAttrInterfaceMethods<JFA_TileLayoutAttrInterface>]> {
  let mnemonic = "blocked";
  let summary = "the default layout: consecutive chunks dealt round-robin";
  let description = [{
    A tile without an encoding is in this layout; `#jfa.blocked` names it
    (the distributed form always does). With T threads and P elements per
    thread, the row-major tile is cut into chunks of C elements (C = 4, or
    the largest power of two dividing P) and thread t holds chunks t, t + T,
    t + 2T, ... The chunk is counted in elements, never in bytes, so that
    tiles of every element type share one distribution and elementwise casts
    (f32 -> bf16) keep each element on its thread. The tile's columns must
    be a multiple of T * C, or T * C a multiple of the columns.
  }];
}

def JFA_WgmmaAccLayout : AttrDef<JFA_Dialect, "WgmmaAccLayout",
                                 [DeclareAttrInterfaceMethods<JFA_TileLayoutAttrInterface>]> {
  let mnemonic = "wgmma_acc";
  let summary = "the wgmma accumulator layout (sm_90a)";
  let description = [{
    `tensor<128x256xf32, #jfa.wgmma_acc>` in a task of W warpgroups: rows
    are split in 64-row blocks, one per warpgroup. In warpgroup g, lane l of
    warp w holds, for each 8-column block j, the pairs (r, 8j + 2(l%4) + {0,1})
    for r = 64g + 16w + l/4 and r + 8, in that order: exactly the registers of
    `wgmma.mma_async.m64nNk16`.
  }];
}

def JFA_TmemRowLayout : AttrDef<JFA_Dialect, "TmemRowLayout",
                                [DeclareAttrInterfaceMethods<JFA_TileLayoutAttrInterface>]> {
  let mnemonic = "tmem_row";
  let summary = "one row per thread: the tcgen05.ld 32x32b layout (sm_100a)";
  let description = [{
    `tensor<128x64xf32, #jfa.tmem_row>` in a task of one warpgroup: thread t
    holds row t, all columns in order. Warp w of the warpgroup reads tensor
    memory lanes 32w..32w+31, as the hardware requires.
  }];
}

def JFA_RowsOfLayout : AttrDef<JFA_Dialect, "RowsOfLayout",
                               [DeclareAttrInterfaceMethods<JFA_TileLayoutAttrInterface>]> {
  let mnemonic = "rows_of";
  let summary = "a vector with one value per row of a tile in the parent layout";
  let description = [{
    `tensor<128xf32, #jfa.rows_of<#jfa.wgmma_acc>>` is what `jfa.reduce_rows`
    makes of a `tensor<128xNxf32, #jfa.wgmma_acc>`: each thread holds the
    values of the rows it holds elements of (2 rows in the wgmma layout,
    replicated over the 4 lanes of a quad; 1 in the tmem_row layout).
  }];
  let parameters = (ins "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` $parent `>`";
  // The parent must be a tile layout with row vectors (checked when parsed:
  // every use of the attribute relies on it).
  let genVerifyDecl = 1;
}

#endif // JFA_TYPES_TD
