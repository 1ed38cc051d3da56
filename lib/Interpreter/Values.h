//===- Values.h - numbers and values of jfa-interp ------------*- C++ -*-===//
//
// How jfa-interp holds numbers (doubles rounded to the element type after
// every op; bf16, f16 and the 8-bit floats converted with round to nearest
// even) and the
// runtime value of each SSA value of a kernel: a scalar or register tile,
// or a handle to a buffer, slot, barrier, tensor-memory range or argument.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_INTERPRETER_VALUES_H
#define JFA_INTERPRETER_VALUES_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace jfa::interp {

using llvm::SmallVector;
using mlir::Attribute;
using mlir::Operation;
using mlir::Type;

//===----------------------------------------------------------------------===//
// Numbers
//===----------------------------------------------------------------------===//

double toBF16(double x);
uint16_t bf16Bits(double x);
double fromBF16Bits(uint16_t bits);
uint16_t f16Bits(double x);
double fromF16Bits(uint16_t bits);
/// The value of the bit pattern `bits` of a float type other than f32/f64
/// (8-bit floats: f8E4M3FN, f8E5M2), exactly.
double fromFloatBits(Type type, uint64_t bits);
/// `x` rounded to nearest even in such a float type, as its bit pattern.
uint64_t floatBits(Type type, double x);
unsigned bitWidth(Type type);
/// `x` as a value of `type`: rounded to its precision, integers wrapped to
/// their width (kept sign-extended; i1 as 0 or 1).
double roundTo(Type type, double x);
uint64_t asUnsigned(double x, unsigned width);
/// The element type of a shaped type, else the type.
Type elementTypeOf(Type t);
/// `x` for messages: nan, inf, -inf or 9 significant digits.
std::string formatNumber(double x);

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// A scalar (rank 0) or a register tile. A per-thread scalar (from the
/// thread ids) is `varying`: one value per thread of the executor.
struct Tile {
  SmallVector<int64_t, 2> shape;
  Type elem;
  Attribute layout;
  std::vector<double> v;
  bool varying = false;
  /// The result of this executor's async_dot number `wgmmaSeq` (from 1):
  /// readable once an async_dot_wait has completed it.
  int64_t wgmmaSeq = 0;
  Operation *dot = nullptr;

  int64_t rows() const { return shape.empty() ? 1 : shape[0]; }
  int64_t cols() const { return shape.size() < 2 ? 1 : shape[1]; }
};
using TileP = std::shared_ptr<Tile>;

struct RtValue {
  enum Kind { Empty, Data, Buffer, Slot, Barriers, Barrier, Desc, Ptr, Tmem };
  Kind kind = Empty;
  TileP data;
  /// Buffer: buffer id. Slot: buffer id. Barriers/Barrier: first/own global
  /// barrier id. Desc/Ptr: argument index.
  int id = -1;
  /// Slot: the slot index. Barriers: the array size.
  int64_t index = 0;
  /// Tmem: the first 32-bit column. Slot: the first stored column of a
  /// jfa.column_block view.
  int64_t column = 0;
  /// Slot: the first stored row of a jfa.row_block view.
  int64_t row = 0;
  Type type;
};

} // namespace jfa::interp

#endif // JFA_INTERPRETER_VALUES_H
