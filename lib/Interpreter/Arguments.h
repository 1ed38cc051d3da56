//===- Arguments.h - kernel arguments of jfa-interp -----------*- C++ -*-===//
//
// A kernel argument as jfa-interp holds it: a scalar, or a .npy file standing
// for a TMA tensor or a pointer (the same file given twice is one buffer),
// with the element conversions between the file's dtype and the parameter's
// element type; and the parsing of `TYPE:VALUE` scalars.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_INTERPRETER_ARGUMENTS_H
#define JFA_INTERPRETER_ARGUMENTS_H

#include "lib/Interpreter/Npy.h"
#include "lib/Interpreter/Values.h"

#include "llvm/ADT/StringRef.h"

#include <cstring>
#include <optional>

namespace jfa::interp {

using llvm::StringRef;

struct ArgState {
  enum Kind { Scalar, Desc, Ptr } kind = Scalar;
  std::string path;
  /// Shared by the arguments given the same file: the same device memory.
  std::shared_ptr<NpyArray> array;
  Type elem;
  /// Desc: the global tensor's sizes, outermost first, at the box's rank.
  SmallVector<int64_t, 2> dims;
  TileP scalar;
  std::string name;

  int64_t numElements() const { return array->numElements(); }

  double load(int64_t i) const {
    const uint8_t *p = array->data.data() + i * array->itemBytes();
    const std::string &d = array->descr;
    if (d == "<f4") {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    if (d == "<f8") {
      double f;
      std::memcpy(&f, p, 8);
      return f;
    }
    if (d == "<u2" || d == "<i2" || d == "<f2") {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      if (elem.isBF16())
        return fromBF16Bits(bits);
      if (elem.isF16())
        return fromF16Bits(bits);
      return d == "<i2" ? double(int16_t(bits)) : double(bits);
    }
    if (d == "<i4") {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    if (d == "<u4") {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return roundTo(elem, double(v));
    }
    if (d == "<i8") {
      int64_t v;
      std::memcpy(&v, p, 8);
      return double(v);
    }
    if (d == "<i1")
      return double(int8_t(*p));
    if (d == "<u1" && isFp8())
      return fromFloatBits(elem, *p); // an 8-bit float's bit pattern
    return double(*p); // <u1, <b1
  }

  void store(int64_t i, double x) {
    uint8_t *p = array->data.data() + i * array->itemBytes();
    const std::string &d = array->descr;
    if (d == "<f4") {
      float f = float(x);
      std::memcpy(p, &f, 4);
    } else if (d == "<f8") {
      std::memcpy(p, &x, 8);
    } else if (d == "<u2" || d == "<i2" || d == "<f2") {
      uint16_t bits = elem.isBF16()  ? bf16Bits(x)
                      : elem.isF16() ? f16Bits(x)
                                     : uint16_t(int64_t(x));
      std::memcpy(p, &bits, 2);
    } else if (d == "<i4" || d == "<u4") {
      int32_t v = int32_t(int64_t(x));
      std::memcpy(p, &v, 4);
    } else if (d == "<i8") {
      int64_t v = int64_t(x);
      std::memcpy(p, &v, 8);
    } else if (isFp8()) {
      *p = uint8_t(floatBits(elem, x));
    } else {
      *p = uint8_t(int64_t(x));
    }
  }

  /// An 8-bit float element (f8E4M3FN, f8E5M2): the file holds bit patterns.
  bool isFp8() const {
    return elem && elem.isIntOrFloat() && !elem.isInteger() &&
           elem.getIntOrFloatBitWidth() == 8;
  }
};

/// The .npy dtypes that hold a parameter's element type.
bool dtypeFits(Type elem, StringRef descr);
/// The dtype to name in a message for `elem`.
std::string dtypeFor(Type elem);

/// `text` as a value of the scalar type `type`, exactly (see Arguments.cpp);
/// none with `problem` set when it is not one.
std::optional<double> parseScalar(Type type, StringRef text,
                                  std::string &problem);

} // namespace jfa::interp

#endif // JFA_INTERPRETER_ARGUMENTS_H
