//===- Values.cpp - numbers of jfa-interp ---------------------------------===//
//
// The conversions between the float formats and the rounding after every
// op (see Values.h).
//
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/Values.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace mlir;

namespace jfa::interp {

//===----------------------------------------------------------------------===//
// Numbers
//===----------------------------------------------------------------------===//

double toBF16(double x) {
  float f = float(x);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f))
    u = 0x7fc00000u;
  else
    u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t bf16Bits(double x) {
  float f = float(toBF16(x));
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return uint16_t(u >> 16);
}

double fromBF16Bits(uint16_t bits) {
  uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t f16Bits(double x) {
  _Float16 h = _Float16(x);
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}

double fromF16Bits(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return double(h);
}

double fromFloatBits(Type type, uint64_t bits) {
  auto floatType = cast<FloatType>(type);
  llvm::APFloat value(floatType.getFloatSemantics(),
                      llvm::APInt(floatType.getWidth(), bits));
  bool losesInfo;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

uint64_t floatBits(Type type, double x) {
  auto floatType = cast<FloatType>(type);
  llvm::APFloat value(x);
  bool losesInfo;
  value.convert(floatType.getFloatSemantics(),
                llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return value.bitcastToAPInt().getZExtValue();
}

unsigned bitWidth(Type type) {
  if (type.isIndex())
    return 64;
  return type.getIntOrFloatBitWidth();
}

/// `x` as a value of `type`: rounded to its precision, integers wrapped to
/// their width (kept sign-extended; i1 as 0 or 1).
double roundTo(Type type, double x) {
  if (type.isF32())
    return double(float(x));
  if (type.isBF16())
    return toBF16(x);
  if (type.isF16())
    return double(_Float16(x));
  if (type.isF64())
    return x;
  if (isa<FloatType>(type)) // the 8-bit floats
    return fromFloatBits(type, floatBits(type, x));
  unsigned width = bitWidth(type);
  if (width == 1)
    return (int64_t(x) & 1) ? 1.0 : 0.0;
  int64_t v = int64_t(x);
  if (width < 64)
    v = int64_t(uint64_t(v) << (64 - width)) >> (64 - width);
  return double(v);
}

uint64_t asUnsigned(double x, unsigned width) {
  uint64_t v = uint64_t(int64_t(x));
  return width >= 64 ? v : v & ((uint64_t(1) << width) - 1);
}

Type elementTypeOf(Type t) {
  if (auto shaped = dyn_cast<ShapedType>(t))
    return shaped.getElementType();
  return t;
}

std::string formatNumber(double x) {
  if (std::isnan(x))
    return "nan";
  if (std::isinf(x))
    return x > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

} // namespace jfa::interp
