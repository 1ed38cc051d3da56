//===- Npy.cpp - reading and writing NumPy .npy files ---------------------===//
#include "lib/Interpreter/Npy.h"

#include "compiler/FileIO.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace jfa::interp {

/// The largest .npy file read (far past anything the interpreter can run).
constexpr uint64_t kNpyLimit = uint64_t(16) << 30;

int64_t NpyArray::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t NpyArray::itemBytes() const {
  if (descr.size() < 3)
    return 0;
  return std::atoi(descr.c_str() + 2);
}

// The value of `key` in the header's Python dict literal, as text.
static bool findField(const std::string &header, const std::string &key,
                      std::string &value) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return false;
  size_t colon = header.find(':', at);
  if (colon == std::string::npos)
    return false;
  size_t start = colon + 1;
  while (start < header.size() && std::isspace(uint8_t(header[start])))
    ++start;
  size_t end = start;
  if (header[start] == '(') {
    end = header.find(')', start);
    if (end == std::string::npos)
      return false;
    ++end;
  } else if (header[start] == '\'') {
    end = header.find('\'', start + 1);
    if (end == std::string::npos)
      return false;
    ++end;
  } else {
    while (end < header.size() && header[end] != ',' && header[end] != '}')
      ++end;
  }
  value = header.substr(start, end - start);
  return true;
}

bool readNpy(const std::string &path, NpyArray &array, std::string &error) {
  // A tensor argument is read and written back: it must be a regular file
  // (not a directory, a device such as /dev/zero, or a pipe).
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status)) {
    error = "'" + path + "': cannot read it: " + ec.message();
    return false;
  }
  if (llvm::sys::fs::is_directory(status)) {
    error = "'" + path + "' is a directory, not a .npy file";
    return false;
  }
  if (!llvm::sys::fs::is_regular_file(status)) {
    error = "'" + path +
            "' is not a regular file (a tensor argument is "
            "read from a .npy file and written back to it)";
    return false;
  }
  std::string readError;
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      readInputFile(path, readError, kNpyLimit);
  if (!buffer) {
    error = readError;
    return false;
  }
  llvm::StringRef bytes = buffer->getBuffer();
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY")) {
    error = "'" + path + "' is not a .npy file" +
            (bytes.empty() ? " (it is empty)" : "");
    return false;
  }
  uint8_t major = uint8_t(bytes[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) {
      error = "'" + path + "' is truncated";
      return false;
    }
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
    headerStart = 12;
  } else {
    error = fmt::format("'{}' has .npy format version {}; 1, 2 and 3 are read",
                        path, major);
    return false;
  }
  if (bytes.size() < headerStart + headerLen) {
    error = "'" + path + "' is truncated";
    return false;
  }
  std::string header = bytes.substr(headerStart, headerLen).str();
  std::string descr, order, shape;
  if (!findField(header, "descr", descr) ||
      !findField(header, "fortran_order", order) ||
      !findField(header, "shape", shape)) {
    error = "'" + path +
            "' has a .npy header without descr, fortran_order "
            "or shape";
    return false;
  }
  if (order == "True") {
    error = "'" + path + "' is in Fortran order; save it in C order";
    return false;
  }
  if (order != "False") {
    error = "'" + path + "' has fortran_order " + order +
            "; a .npy header says True or False";
    return false;
  }
  if (descr.size() < 2 || descr.front() != '\'' || descr.back() != '\'') {
    error = "'" + path + "' has a malformed dtype " + descr;
    return false;
  }
  array.descr = descr.substr(1, descr.size() - 2);
  // '|' (no byte order: one-byte types) and '=' (native: little-endian
  // here) read as '<'.
  if (!array.descr.empty() && (array.descr[0] == '|' || array.descr[0] == '='))
    array.descr[0] = '<';
  static const char *const kKnown[] = {"<b1", "<i1", "<u1", "<i2",
                                       "<u2", "<f2", "<i4", "<u4",
                                       "<f4", "<i8", "<u8", "<f8"};
  if (llvm::find(kKnown, array.descr) == std::end(kKnown)) {
    error = "'" + path + "' has dtype '" + array.descr + "'; jfa-interp " +
            (!array.descr.empty() && array.descr[0] == '>'
                 ? "reads only little-endian arrays"
                 : "reads bool, integer and float arrays of 1 to 8 bytes");
    return false;
  }
  array.shape.clear();
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') {
    error = "'" + path + "' has a malformed shape " + shape;
    return false;
  }
  std::stringstream dims(shape.substr(1, shape.size() - 2));
  std::string dim;
  // Sizes past 2^40 elements are refused: nothing that large is a test input.
  const long long limit = 1ll << 40;
  long long total = 1;
  bool sawEmpty = false;
  while (std::getline(dims, dim, ',')) {
    size_t a = dim.find_first_not_of(" ");
    if (a == std::string::npos) {
      sawEmpty = true; // only the trailing comma of "(3,)" may be empty
      continue;
    }
    errno = 0;
    char *end = nullptr;
    long long n = std::strtoll(dim.c_str() + a, &end, 10);
    while (end && *end == ' ')
      ++end;
    if (sawEmpty || errno || !end || *end != '\0' || n < 0 || n > limit ||
        (n && total > limit / n) || !std::isdigit(uint8_t(dim[a]))) {
      error = "'" + path + "' has a malformed shape " + shape;
      return false;
    }
    total *= n;
    array.shape.push_back(n);
  }
  size_t dataBytes = size_t(array.numElements() * array.itemBytes());
  size_t dataStart = headerStart + headerLen;
  size_t held = bytes.size() - dataStart;
  if (held != dataBytes) {
    error = fmt::format(
        "'{}' holds {} data bytes; its header (shape {}, dtype '{}') says {}",
        path, held, shape, array.descr, dataBytes);
    return false;
  }
  array.data.assign(bytes.begin() + dataStart, bytes.end());
  return true;
}

bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error) {
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i)
    shape += fmt::format("{}{}", i ? ", " : "", array.shape[i]);
  shape += array.shape.size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + array.descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string bytes("\x93NUMPY\x01\x00", 8);
  uint16_t len = uint16_t(header.size());
  bytes += char(len & 0xff);
  bytes += char(len >> 8);
  bytes += header;
  bytes.append(reinterpret_cast<const char *>(array.data.data()),
               array.data.size());
  return writeOutputFile(path, bytes, error);
}

} // namespace jfa::interp
