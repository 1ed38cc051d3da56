//===- JFATypes.cpp - JFA types
//---------------------------------------------===//
#include "JFA/JFAOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace jfa;

#define GET_TYPEDEF_CLASSES
#include "JFA/JFATypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "JFA/JFAAttrDefs.cpp.inc"

void JFADialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "JFA/JFAAttrDefs.cpp.inc"
      >();
}

void JFADialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "JFA/JFATypes.cpp.inc"
      >();
}

int64_t jfa::getElementBytes(Type type) {
  if (type.isIntOrFloat() && type.getIntOrFloatBitWidth() % 8 == 0)
    return type.getIntOrFloatBitWidth() / 8;
  return 0;
}

static int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// Parses `64x64xf32` (a static shape and an element type).
static ParseResult parseTile(AsmParser &parser, SmallVectorImpl<int64_t> &shape,
                             Type &elementType) {
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return failure();
  return success();
}

static void printTile(AsmPrinter &printer, ArrayRef<int64_t> shape,
                      Type elementType) {
  for (int64_t d : shape)
    printer << d << 'x';
  printer << elementType;
}

/// Parses an optional `, swizzle N`.
static ParseResult parseSwizzle(AsmParser &parser, int64_t &swizzle) {
  swizzle = 0;
  if (failed(parser.parseOptionalComma()))
    return success();
  if (parser.parseKeyword("swizzle") || parser.parseInteger(swizzle))
    return failure();
  return success();
}

static void printSwizzle(AsmPrinter &printer, int64_t swizzle) {
  if (swizzle)
    printer << ", swizzle " << swizzle;
}

/// A swizzled tile's rows span the swizzle width, and the tile is whole
/// 8-row atoms so every slot starts on an atom boundary. In shared memory
/// (`allowBlocks`), a 2-d tile's rows may also span a multiple of the
/// width: the tile is then stored as column blocks, each a full
/// rows x width tile, one after the other (the tensor cores' canonical
/// layout for an operand wider than the swizzle).
static LogicalResult verifySwizzle(function_ref<InFlightDiagnostic()> emitError,
                                   StringRef what, ArrayRef<int64_t> shape,
                                   Type elementType, int64_t swizzle,
                                   bool allowBlocks) {
  if (swizzle == 0)
    return success();
  if (swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << what << " swizzle must be 32, 64 or 128 (bytes), got "
                       << swizzle;
  int64_t rowBytes = shape.back() * getElementBytes(elementType);
  bool blocked = allowBlocks && shape.size() == 2 && rowBytes > swizzle &&
                 rowBytes % swizzle == 0;
  if (rowBytes != swizzle && !blocked)
    return emitError() << what << " rows of a " << swizzle
                       << "-byte swizzle must span " << swizzle << " bytes"
                       << (allowBlocks ? " (or a multiple of it, as column "
                                         "blocks, in a 2-d tile)"
                                       : "")
                       << ", got " << rowBytes;
  int64_t rows = 1;
  for (int64_t d : shape.drop_back())
    rows *= d;
  if (rows % 8 != 0)
    return emitError() << what
                       << " with a swizzle needs a multiple of 8 rows, got "
                       << rows;
  return success();
}

/// Checks a tile shape and element type; `what` names the type in messages.
static LogicalResult verifyTile(function_ref<InFlightDiagnostic()> emitError,
                                StringRef what, ArrayRef<int64_t> shape,
                                Type elementType) {
  if (shape.empty())
    return emitError() << what << " needs a tile shape of rank >= 1";
  for (int64_t d : shape)
    if (d <= 0)
      return emitError() << what << " dimensions must be positive, got " << d;
  if (getElementBytes(elementType) == 0)
    return emitError() << what
                       << " element type must be an integer or float of a "
                          "whole number of bytes, got "
                       << elementType;
  return success();
}

/// Shared memory is addressed with 32 bits (a CTA has at most 227 KiB of
/// it): a buffer or slot past that is refused here, before any byte count
/// of it (slots x elements x bytes) can overflow and pass the kernel's
/// shared-memory check as a small number.
static LogicalResult
verifySharedBytes(function_ref<InFlightDiagnostic()> emitError, StringRef what,
                  int64_t slots, ArrayRef<int64_t> shape, Type elementType) {
  constexpr int64_t kSharedAddressBytes = int64_t(1) << 32;
  int64_t bytes = slots;
  bool overflows = false;
  for (int64_t d : shape)
    overflows |= llvm::MulOverflow(bytes, d, bytes);
  overflows |= llvm::MulOverflow(bytes, getElementBytes(elementType), bytes);
  if (overflows || bytes > kSharedAddressBytes)
    return emitError() << what << " spans more than the " << kSharedAddressBytes
                       << " bytes that 32-bit shared-memory addresses reach "
                          "(a CTA has at most "
                       << kMaxSharedMemoryBytes << " bytes)";
  return success();
}

//===----------------------------------------------------------------------===//
// SharedBufferType
//===----------------------------------------------------------------------===//

Type SharedBufferType::parse(AsmParser &parser) {
  int64_t slots;
  SmallVector<int64_t> shape;
  Type elementType;
  int64_t swizzle;
  if (parser.parseLess() || parser.parseInteger(slots) ||
      parser.parseKeyword("x") || parseTile(parser, shape, elementType) ||
      parseSwizzle(parser, swizzle) || parser.parseGreater())
    return {};
  return parser.getChecked<SharedBufferType>(parser.getContext(), slots, shape,
                                             elementType, swizzle);
}

void SharedBufferType::print(AsmPrinter &printer) const {
  printer << '<' << getNumSlots() << " x ";
  printTile(printer, getShape(), getElementType());
  printSwizzle(printer, getSwizzle());
  printer << '>';
}

LogicalResult
SharedBufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t numSlots, ArrayRef<int64_t> shape,
                         Type elementType, int64_t swizzle) {
  if (numSlots < 1)
    return emitError() << "shared-memory buffer needs at least one slot, got "
                       << numSlots;
  if (failed(
          verifyTile(emitError, "shared-memory buffer", shape, elementType)) ||
      failed(verifySharedBytes(emitError, "shared-memory buffer", numSlots,
                               shape, elementType)))
    return failure();
  return verifySwizzle(emitError, "shared-memory buffer", shape, elementType,
                       swizzle, /*allowBlocks=*/true);
}

int64_t SharedBufferType::getSlotElements() const {
  return product(getShape());
}
int64_t SharedBufferType::getSlotBytes() const {
  return getSlotElements() * getElementBytes(getElementType());
}

//===----------------------------------------------------------------------===//
// SlotType
//===----------------------------------------------------------------------===//

Type SlotType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  int64_t swizzle = 0;
  bool transposed = false;
  if (parser.parseLess() || parseTile(parser, shape, elementType))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword("transposed"))) {
      transposed = true;
      continue;
    }
    if (parser.parseKeyword("swizzle") || parser.parseInteger(swizzle))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<SlotType>(parser.getContext(), shape, elementType,
                                     swizzle, transposed);
}

void SlotType::print(AsmPrinter &printer) const {
  printer << '<';
  printTile(printer, getShape(), getElementType());
  printSwizzle(printer, getSwizzle());
  if (getTransposed())
    printer << ", transposed";
  printer << '>';
}

LogicalResult SlotType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               int64_t swizzle, bool transposed) {
  if (failed(verifyTile(emitError, "slot", shape, elementType)) ||
      failed(verifySharedBytes(emitError, "slot", 1, shape, elementType)))
    return failure();
  if (transposed && shape.size() != 2)
    return emitError() << "a transposed slot view is 2-d, got rank "
                       << shape.size();
  SmallVector<int64_t> stored(shape);
  if (transposed)
    std::swap(stored[0], stored[1]);
  return verifySwizzle(emitError, "slot", stored, elementType, swizzle,
                       /*allowBlocks=*/true);
}

SmallVector<int64_t> SlotType::getStoredShape() const {
  SmallVector<int64_t> stored(getShape());
  if (getTransposed())
    std::swap(stored[0], stored[1]);
  return stored;
}

int64_t SlotType::getNumElements() const { return product(getShape()); }
int64_t SlotType::getColumnBlocks() const {
  if (!getSwizzle())
    return 1;
  int64_t rowBytes =
      getStoredShape().back() * getElementBytes(getElementType());
  return std::max<int64_t>(1, rowBytes / getSwizzle());
}
int64_t SlotType::getBytes() const {
  return getNumElements() * getElementBytes(getElementType());
}

//===----------------------------------------------------------------------===//
// BarrierArrayType
//===----------------------------------------------------------------------===//

LogicalResult
BarrierArrayType::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t size) {
  if (size < 1)
    return emitError() << "mbarrier array needs at least one barrier, got "
                       << size;
  // More than shared memory holds would overflow the kernel's byte count
  // (and jfa-convert-to-llvm initializes each one).
  int64_t maxBarriers = kMaxSharedMemoryBytes / kMbarrierBytes;
  if (size > maxBarriers)
    return emitError() << "mbarrier array of " << size
                       << " barriers does not fit in shared memory: "
                       << kMbarrierBytes << " bytes each, at most "
                       << maxBarriers << " in " << kMaxSharedMemoryBytes
                       << " bytes";
  return success();
}

//===----------------------------------------------------------------------===//
// TensorDescType
//===----------------------------------------------------------------------===//

Type TensorDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  int64_t swizzle;
  if (parser.parseLess() || parseTile(parser, shape, elementType) ||
      parseSwizzle(parser, swizzle) || parser.parseGreater())
    return {};
  return parser.getChecked<TensorDescType>(parser.getContext(), shape,
                                           elementType, swizzle);
}

void TensorDescType::print(AsmPrinter &printer) const {
  printer << '<';
  printTile(printer, getBoxShape(), getElementType());
  printSwizzle(printer, getSwizzle());
  printer << '>';
}

LogicalResult
TensorDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                       ArrayRef<int64_t> boxShape, Type elementType,
                       int64_t swizzle) {
  if (failed(verifyTile(emitError, "TMA box", boxShape, elementType)))
    return failure();
  if (boxShape.size() > 5)
    return emitError() << "TMA box rank must be at most 5, got "
                       << boxShape.size();
  for (int64_t d : boxShape)
    if (d > 256)
      return emitError() << "TMA box dimensions must be at most 256, got " << d;
  int64_t innerBytes = boxShape.back() * getElementBytes(elementType);
  if (innerBytes % 16 != 0)
    return emitError() << "TMA box inner dimension must span a multiple of 16 "
                          "bytes, got "
                       << innerBytes << " bytes";
  return verifySwizzle(emitError, "TMA box", boxShape, elementType, swizzle,
                       /*allowBlocks=*/false);
}

int64_t TensorDescType::getBoxBytes() const {
  return product(getBoxShape()) * getElementBytes(getElementType());
}

//===----------------------------------------------------------------------===//
// TensorMemoryType
//===----------------------------------------------------------------------===//

Type TensorMemoryType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() || parseTile(parser, shape, elementType) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<TensorMemoryType>(parser.getContext(), shape,
                                             elementType);
}

void TensorMemoryType::print(AsmPrinter &printer) const {
  printer << '<';
  printTile(printer, getShape(), getElementType());
  printer << '>';
}

LogicalResult
TensorMemoryType::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> shape, Type elementType) {
  if (shape.size() != 2 || shape[0] != 128)
    return emitError() << "tensor memory tiles are 128 lanes x N columns, got "
                          "a shape of rank "
                       << shape.size()
                       << (shape.size() == 2
                               ? " with " + std::to_string(shape[0]) + " lanes"
                               : std::string());
  if (!elementType.isF32() && !elementType.isBF16() && !elementType.isF16())
    return emitError() << "tensor memory tiles are f32 (accumulators) or "
                          "bf16/f16 (MMA operands), got "
                       << elementType;
  int64_t bits = elementType.getIntOrFloatBitWidth();
  // A width whose column count would overflow is out of range too.
  if (shape[1] > std::numeric_limits<int64_t>::max() / bits)
    return emitError() << "tensor memory has " << kTensorMemoryColumns
                       << " columns, got a tile " << shape[1] << " "
                       << elementType << " wide";
  int64_t cols = shape[1] * bits / 32;
  if (shape[1] < 1 || cols > kTensorMemoryColumns)
    return emitError() << "tensor memory has " << kTensorMemoryColumns
                       << " columns, got a tile of " << cols;
  return success();
}
