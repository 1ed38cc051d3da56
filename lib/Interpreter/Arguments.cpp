//===- Arguments.cpp - kernel arguments of jfa-interp ---------------------===//
//
// The dtypes a parameter accepts and the parsing of `TYPE:VALUE` scalars.
//
//===----------------------------------------------------------------------===//
#include "lib/Interpreter/Arguments.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace jfa::interp {

bool dtypeFits(Type elem, StringRef descr) {
  if (elem.isF32())
    return descr == "<f4";
  if (elem.isF64())
    return descr == "<f8";
  if (elem.isBF16())
    return descr == "<u2" || descr == "<i2";
  if (elem.isF16())
    return descr == "<f2" || descr == "<u2";
  if (elem.isInteger(1))
    return descr == "<b1" || descr == "<u1";
  if (elem.isInteger(8))
    return descr == "<i1" || descr == "<u1";
  // 8-bit floats (f8E4M3FN, f8E5M2) travel as their bit patterns in uint8.
  if (isa<Float8E4M3FNType, Float8E5M2Type>(elem))
    return descr == "<u1";
  if (elem.isInteger(16))
    return descr == "<i2" || descr == "<u2";
  if (elem.isInteger(32))
    return descr == "<i4" || descr == "<u4";
  if (elem.isInteger(64))
    return descr == "<i8";
  return false;
}

std::string dtypeFor(Type elem) {
  if (elem.isF32())
    return "<f4";
  if (elem.isBF16())
    return "<u2 (bf16 as raw 16-bit words)";
  if (elem.isF16())
    return "<f2";
  if (isa<Float8E4M3FNType, Float8E5M2Type>(elem))
    return "|u1 (8-bit floats as raw 8-bit patterns)";
  if (elem.isInteger(32))
    return "<i4";
  if (elem.isInteger(64))
    return "<i8";
  if (elem.isInteger(1))
    return "|b1";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << elem;
  return "a dtype of " + s;
}

/// `text` as a value of the scalar type `type`, exactly: a decimal integer
/// in the type's signed range (and exact in a double, which holds the
/// interpreter's scalars), or a float that is finite in the type unless
/// spelled inf or nan, and not a nonzero number that rounds to zero.
std::optional<double> parseScalar(Type type, StringRef text,
                                  std::string &problem) {
  if (text.empty() || text.front() == ' ' || text.back() == ' ') {
    problem = "is not a number";
    return std::nullopt;
  }
  if (auto intType = dyn_cast<IntegerType>(type)) {
    unsigned width = intType.getWidth();
    StringRef digits = text;
    digits.consume_front("-") || digits.consume_front("+");
    int64_t v;
    if (digits.empty() || !llvm::all_of(digits, llvm::isDigit) ||
        text.drop_front(text.front() == '+').getAsInteger(10, v)) {
      bool number = !digits.empty() && llvm::all_of(digits, llvm::isDigit);
      problem = number ? llvm::formatv("is out of range for i{0}", width).str()
                       : "is not a decimal integer";
      return std::nullopt;
    }
    int64_t lo = width == 1    ? 0
                 : width >= 64 ? INT64_MIN
                               : -(int64_t(1) << (width - 1));
    int64_t hi = width == 1    ? 1
                 : width >= 64 ? INT64_MAX
                               : (int64_t(1) << (width - 1)) - 1;
    if (v < lo || v > hi) {
      problem =
          llvm::formatv("is out of range for i{0} ({1} to {2})", width, lo, hi)
              .str();
      return std::nullopt;
    }
    constexpr int64_t kExact = int64_t(1) << 53;
    if (v > kExact || v < -kExact) {
      problem = "is past 2^53, which jfa-interp cannot hold exactly";
      return std::nullopt;
    }
    return double(v);
  }
  auto floatType = dyn_cast<FloatType>(type);
  if (!floatType) {
    problem = "is not a value jfa-interp can pass";
    return std::nullopt;
  }
  llvm::APFloat value(floatType.getFloatSemantics());
  auto status =
      value.convertFromString(text, llvm::APFloat::rmNearestTiesToEven);
  if (!status) {
    llvm::consumeError(status.takeError());
    problem = "is not a number";
    return std::nullopt;
  }
  StringRef lower = text.ltrim("+-");
  bool spelledSpecial = lower.starts_with_insensitive("inf") ||
                        lower.starts_with_insensitive("nan");
  std::string name;
  llvm::raw_string_ostream os(name);
  os << type;
  if ((*status & llvm::APFloat::opOverflow) ||
      (value.isInfinity() && !spelledSpecial)) {
    problem = "is out of range for " + name + " (write inf for infinity)";
    return std::nullopt;
  }
  if ((*status & llvm::APFloat::opUnderflow) && value.isZero()) {
    problem = "is too small for " + name + ": it would be 0";
    return std::nullopt;
  }
  bool losesInfo;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

} // namespace jfa::interp
