//===- Metadata.cpp - read what jfac wrote beside a cubin
//-------------------===//
#include "jfa/runtime.hpp"

#include <sstream>

namespace jfa::rt {

const char *paramKindName(ParamKind kind) {
  switch (kind) {
  case ParamKind::TensorMap:
    return "tma";
  case ParamKind::Pointer:
    return "ptr";
  case ParamKind::I32:
    return "i32";
  case ParamKind::I64:
    return "i64";
  case ParamKind::F32:
    return "f32";
  case ParamKind::F64:
    return "f64";
  }
  return "?";
}

size_t elementBytes(const std::string &t) {
  if (t == "f64" || t == "i64")
    return 8;
  if (t == "f32" || t == "i32")
    return 4;
  if (t == "f16" || t == "bf16" || t == "i16")
    return 2;
  if (t == "i8" || t == "f8E4M3FN" || t == "f8E5M2")
    return 1;
  return 0;
}

namespace {
[[noreturn]] void bad(int line, const std::string &what) {
  throw Error("metadata line " + std::to_string(line) + ": " + what);
}

unsigned long long parseNumber(std::istringstream &in, int line,
                               const char *what) {
  std::string word;
  if (!(in >> word))
    bad(line, std::string("missing ") + what);
  size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(word, &used);
  } catch (...) {
    used = 0;
  }
  if (used != word.size() || word[0] == '-')
    bad(line, std::string("bad ") + what + " '" + word + "'");
  return v;
}
} // namespace

std::vector<KernelInfo> parseMetadata(const std::string &text) {
  std::istringstream lines(text);
  std::string lineText;
  int line = 0;
  std::vector<KernelInfo> kernels;
  KernelInfo *current = nullptr;
  bool header = false;
  while (std::getline(lines, lineText)) {
    ++line;
    std::istringstream in(lineText);
    std::string key;
    if (!(in >> key))
      continue;
    if (!header) {
      if (key != "jfa-metadata" || parseNumber(in, line, "version") != 1)
        bad(line, "not JFA metadata version 1 (expected 'jfa-metadata 1')");
      header = true;
      continue;
    }
    if (key == "kernel") {
      if (current)
        bad(line, "kernel '" + current->name + "' has no 'end'");
      kernels.emplace_back();
      current = &kernels.back();
      if (!(in >> current->name))
        bad(line, "kernel needs a name");
      continue;
    }
    if (!current)
      bad(line, "'" + key + "' outside a kernel record");
    if (key == "arch") {
      in >> current->arch;
    } else if (key == "threads") {
      current->threads = parseNumber(in, line, "thread count");
      if (current->threads == 0 || current->threads > 1024)
        bad(line, "threads must be in [1, 1024]");
    } else if (key == "cluster") {
      for (unsigned &d : current->cluster)
        d = parseNumber(in, line, "cluster dimension");
    } else if (key == "shared_bytes") {
      current->sharedBytes = parseNumber(in, line, "shared-memory size");
    } else if (key == "param") {
      ParamSpec p;
      std::string kind;
      in >> kind;
      if (kind == "tma" || kind == "ptr") {
        p.kind = kind == "tma" ? ParamKind::TensorMap : ParamKind::Pointer;
        if (!(in >> p.elementType) || elementBytes(p.elementType) == 0)
          bad(line, "unknown element type '" + p.elementType + "'");
        if (p.kind == ParamKind::TensorMap) {
          std::string dim;
          while (in >> dim) {
            if (dim == "swizzle") {
              p.swizzle = parseNumber(in, line, "swizzle");
              if (p.swizzle != 32 && p.swizzle != 64 && p.swizzle != 128)
                bad(line, "swizzle must be 32, 64 or 128");
              break;
            }
            std::istringstream d(dim);
            p.box.push_back(parseNumber(d, line, "box dimension"));
          }
          if (p.box.empty() || p.box.size() > 5)
            bad(line, "a TMA box has 1 to 5 dimensions");
        }
      } else if (kind == "i32") {
        p.kind = ParamKind::I32;
      } else if (kind == "i64") {
        p.kind = ParamKind::I64;
      } else if (kind == "f32") {
        p.kind = ParamKind::F32;
      } else if (kind == "f64") {
        p.kind = ParamKind::F64;
      } else {
        bad(line, "unknown parameter kind '" + kind + "'");
      }
      current->params.push_back(std::move(p));
    } else if (key == "debug_barriers") {
      current->debugBarriers = true;
    } else if (key == "end") {
      if (current->threads == 0)
        bad(line, "kernel '" + current->name + "' has no thread count");
      current = nullptr;
    } else {
      bad(line, "unknown record '" + key + "'");
    }
  }
  if (!header)
    throw Error("metadata is empty");
  if (current)
    throw Error("metadata ends inside kernel '" + current->name + "'");
  return kernels;
}

} // namespace jfa::rt
