//===- Npy.h - reading and writing NumPy .npy files -------------*- C++ -*-===//
//
// The interpreter's tensor arguments are .npy files (format version 1.0/2.0,
// C order, little-endian). bf16 travels as raw 16-bit words (`<u2`).
//
//===----------------------------------------------------------------------===//
#ifndef JFA_INTERPRETER_NPY_H
#define JFA_INTERPRETER_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace jfa::interp {

struct NpyArray {
  /// The dtype as NumPy spells it: "<f4", "<u2", "<i4", ...
  std::string descr;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  int64_t numElements() const;
  int64_t itemBytes() const;
};

/// Reads `path`; on failure returns false with `error` set.
bool readNpy(const std::string &path, NpyArray &array, std::string &error);
/// Writes `array` to `path` (format 1.0).
bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error);

} // namespace jfa::interp

#endif // JFA_INTERPRETER_NPY_H
