//===- Npy.cpp - reading and writing NumPy .npy files ---------------------===//
#include "lib/Interpreter/Npy.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace jfa::interp {

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
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    error = "'" + path + "' is not a .npy file";
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
    error = "'" + path + "' has .npy format version " +
            std::to_string(major) + "; 1, 2 and 3 are read";
    return false;
  }
  if (bytes.size() < headerStart + headerLen) {
    error = "'" + path + "' is truncated";
    return false;
  }
  std::string header = bytes.substr(headerStart, headerLen);
  std::string descr, order, shape;
  if (!findField(header, "descr", descr) ||
      !findField(header, "fortran_order", order) ||
      !findField(header, "shape", shape)) {
    error = "'" + path + "' has a .npy header without descr, fortran_order "
            "or shape";
    return false;
  }
  if (order.find("True") != std::string::npos) {
    error = "'" + path + "' is in Fortran order; save it in C order";
    return false;
  }
  if (descr.size() < 2) {
    error = "'" + path + "' has a malformed dtype";
    return false;
  }
  array.descr = descr.substr(1, descr.size() - 2);
  if (array.descr.size() >= 1 && array.descr[0] == '|')
    array.descr[0] = '<';
  if (array.descr.size() < 3 || array.descr[0] != '<') {
    error = "'" + path + "' has dtype '" + array.descr +
            "'; only little-endian arrays are read";
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
  while (std::getline(dims, dim, ',')) {
    size_t a = dim.find_first_not_of(" ");
    if (a == std::string::npos)
      continue;
    errno = 0;
    char *end = nullptr;
    long long n = std::strtoll(dim.c_str() + a, &end, 10);
    while (end && *end == ' ')
      ++end;
    if (errno || !end || *end != '\0' || n < 0 || n > limit ||
        (n && total > limit / n)) {
      error = "'" + path + "' has a malformed shape " + shape;
      return false;
    }
    total *= n;
    array.shape.push_back(n);
  }
  if (array.itemBytes() <= 0 || array.itemBytes() > 16) {
    error = "'" + path + "' has dtype '" + array.descr + "'";
    return false;
  }
  size_t dataBytes = size_t(array.numElements() * array.itemBytes());
  size_t dataStart = headerStart + headerLen;
  if (bytes.size() - dataStart < dataBytes) {
    error = "'" + path + "' holds fewer bytes than its shape needs";
    return false;
  }
  array.data.assign(bytes.begin() + dataStart,
                    bytes.begin() + dataStart + dataBytes);
  return true;
}

bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error) {
  std::string shape = "(";
  for (size_t i = 0; i < array.shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(array.shape[i]);
  shape += array.shape.size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + array.descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = uint16_t(header.size());
  char lenBytes[2] = {char(len & 0xff), char(len >> 8)};
  out.write(lenBytes, 2);
  out.write(header.data(), std::streamsize(header.size()));
  out.write(reinterpret_cast<const char *>(array.data.data()),
            std::streamsize(array.data.size()));
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

} // namespace jfa::interp
