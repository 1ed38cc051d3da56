//===- Metadata.cpp - read what jfac wrote beside a cubin ----------------===//
//
// The metadata is JSON (docs/METADATA.md), read with nlohmann-json, a
// header-only library: the runtime stays free of LLVM and of shared-library
// dependencies. Every error names the source (a file, or "the embedded
// X.meta") and the field: `k.cubin.meta: kernels[0].arguments[2].kind: ...`.
//
//===----------------------------------------------------------------------===//
#include "jfa/runtime.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <limits>

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

using json = nlohmann::json;

/// Reads one metadata text; `source` names it in every error.
class Reader {
public:
  explicit Reader(const std::string &source) : source(source) {}

  template <typename... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> format,
                         Args &&...args) const {
    throw Error(fmt::format("{}: {}", source,
                            fmt::format(format, std::forward<Args>(args)...)));
  }

  /// What a JSON value is, for errors: `string "x"`, `number -3`, `null`.
  static std::string describe(const json &v) {
    if (v.is_object() || v.is_array() || v.is_null())
      return v.type_name();
    return fmt::format("{} {}", v.type_name(), v.dump());
  }

  /// `path.key`, or `key` at the top.
  static std::string join(const std::string &path, const char *key) {
    return path.empty() ? key : fmt::format("{}.{}", path, key);
  }

  /// `object[key]`, which must be present.
  const json &field(const json &object, const std::string &path,
                    const char *key) const {
    auto it = object.find(key);
    if (it == object.end())
      fail("{} is missing", join(path, key));
    return *it;
  }

  const json &object(const json &v, const std::string &path) const {
    if (!v.is_object())
      fail("{}: expected an object, got {}", path, describe(v));
    return v;
  }

  const json &array(const json &v, const std::string &path) const {
    if (!v.is_array())
      fail("{}: expected an array, got {}", path, describe(v));
    return v;
  }

  std::string string(const json &v, const std::string &path) const {
    if (!v.is_string())
      fail("{}: expected a string, got {}", path, describe(v));
    return v.get<std::string>();
  }

  bool boolean(const json &v, const std::string &path) const {
    if (!v.is_boolean())
      fail("{}: expected true or false, got {}", path, describe(v));
    return v.get<bool>();
  }

  /// A non-negative integer at most `max`.
  uint64_t integer(const json &v, const std::string &path, uint64_t max) const {
    if (!v.is_number_unsigned())
      fail("{}: expected a non-negative integer, got {}", path, describe(v));
    uint64_t n = v.get<uint64_t>();
    if (n > max)
      fail("{}: {} is more than {}", path, n, max);
    return n;
  }

  std::vector<KernelInfo> read(const std::string &text) const;

private:
  KernelInfo kernel(const json &k, const std::string &path) const;
  ParamSpec argument(const json &a, const std::string &path) const;
  std::string source;
};

ParamSpec Reader::argument(const json &a, const std::string &path) const {
  object(a, path);
  ParamSpec p;
  std::string kindPath = join(path, "kind");
  std::string kind = string(field(a, path, "kind"), kindPath);
  static const ParamKind kinds[] = {ParamKind::TensorMap, ParamKind::Pointer,
                                    ParamKind::I32,       ParamKind::I64,
                                    ParamKind::F32,       ParamKind::F64};
  bool known = false;
  for (ParamKind k : kinds)
    if (kind == paramKindName(k)) {
      p.kind = k;
      known = true;
    }
  if (!known)
    fail("{}: unknown parameter kind \"{}\" (known: tma, ptr, i32, i64, f32, "
         "f64)",
         kindPath, kind);
  if (auto it = a.find("name"); it != a.end())
    p.name = string(*it, join(path, "name"));
  if (p.kind != ParamKind::TensorMap && p.kind != ParamKind::Pointer)
    return p;
  std::string elementPath = join(path, "element_type");
  p.elementType = string(field(a, path, "element_type"), elementPath);
  if (elementBytes(p.elementType) == 0)
    fail("{}: unknown element type \"{}\"", elementPath, p.elementType);
  if (p.kind == ParamKind::Pointer)
    return p;
  std::string boxPath = join(path, "box");
  const json &box = array(field(a, path, "box"), boxPath);
  if (box.empty() || box.size() > 5)
    fail("{}: a TMA box has 1 to 5 dimensions, got {}", boxPath, box.size());
  for (size_t i = 0; i < box.size(); ++i) {
    std::string dimPath = fmt::format("{}[{}]", boxPath, i);
    uint64_t d = integer(box[i], dimPath, 256);
    if (d == 0)
      fail("{}: a TMA box dimension is in [1, 256], got 0", dimPath);
    p.box.push_back(uint32_t(d));
  }
  std::string swizzlePath = join(path, "swizzle");
  p.swizzle = unsigned(integer(field(a, path, "swizzle"), swizzlePath, 128));
  if (p.swizzle != 0 && p.swizzle != 32 && p.swizzle != 64 && p.swizzle != 128)
    fail("{}: swizzle must be 0 (none), 32, 64 or 128, got {}", swizzlePath,
         p.swizzle);
  return p;
}

KernelInfo Reader::kernel(const json &k, const std::string &path) const {
  object(k, path);
  KernelInfo info;
  info.name = string(field(k, path, "name"), join(path, "name"));
  if (info.name.empty())
    fail("{}: a kernel needs a name", join(path, "name"));
  info.arch = string(field(k, path, "arch"), join(path, "arch"));
  std::string threadsPath = join(path, "threads");
  info.threads = unsigned(integer(field(k, path, "threads"), threadsPath,
                                  std::numeric_limits<uint32_t>::max()));
  if (info.threads == 0 || info.threads > 1024)
    fail("{}: threads must be in [1, 1024], got {}", threadsPath, info.threads);
  std::string clusterPath = join(path, "cluster");
  const json &cluster = array(field(k, path, "cluster"), clusterPath);
  if (cluster.size() != 3)
    fail("{}: expected 3 dimensions, got {}", clusterPath, cluster.size());
  for (size_t i = 0; i < 3; ++i) {
    std::string dimPath = fmt::format("{}[{}]", clusterPath, i);
    info.cluster[i] = unsigned(integer(cluster[i], dimPath, 1024));
    if (info.cluster[i] == 0)
      fail("{}: a cluster dimension is at least 1, got 0", dimPath);
  }
  info.sharedBytes =
      size_t(integer(field(k, path, "shared_bytes"), join(path, "shared_bytes"),
                     std::numeric_limits<uint32_t>::max()));
  if (auto it = k.find("debug_barriers"); it != k.end())
    info.debugBarriers = boolean(*it, join(path, "debug_barriers"));
  std::string argsPath = join(path, "arguments");
  const json &args = array(field(k, path, "arguments"), argsPath);
  for (size_t i = 0; i < args.size(); ++i)
    info.params.push_back(
        argument(args[i], fmt::format("{}[{}]", argsPath, i)));
  if (auto it = k.find("params"); it != k.end()) {
    std::string paramsPath = join(path, "params");
    object(*it, paramsPath);
    for (const auto &[name, value] : it->items()) {
      std::string valuePath = fmt::format("{}.{}", paramsPath, name);
      if (value.is_string())
        info.compileParams[name] = value.get<std::string>();
      else if (value.is_number() || value.is_boolean())
        info.compileParams[name] = value.dump();
      else
        fail("{}: expected a number, a boolean or a string, got {}", valuePath,
             describe(value));
    }
  }
  if (auto it = k.find("variant"); it != k.end())
    info.variant = string(*it, join(path, "variant"));
  return info;
}

std::vector<KernelInfo> Reader::read(const std::string &text) const {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    fail("the metadata is empty");
  // The line format of jfac before JSON (`jfa-metadata 1`, `kernel ...`).
  if (text.compare(first, 12, "jfa-metadata") == 0)
    fail("metadata in the old line format ('jfa-metadata 1') of an earlier "
         "jfac; this runtime reads JSON metadata version {}: rebuild the "
         "cubin with this jfac (`jfac compile <kernel.mlir> -o <cubin>` "
         "writes <cubin>.meta beside it)",
         kMetadataVersion);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error &e) {
    // e.what() is "[json.exception.parse_error.101] parse error at ...".
    std::string what = e.what();
    size_t bracket = what.find("] ");
    fail("not valid JSON ({})",
         bracket == std::string::npos ? what : what.substr(bracket + 2));
  }
  object(doc, "the metadata");
  std::string format = string(field(doc, "", "format"), "format");
  if (format != "jfa-metadata")
    fail("format: expected \"jfa-metadata\", got \"{}\"", format);
  const json &version = field(doc, "", "version");
  if (!version.is_number_unsigned() ||
      version.get<uint64_t>() != uint64_t(kMetadataVersion))
    fail("version: metadata version {} is not supported (this runtime reads "
         "version {}); rebuild the cubin with the jfac that matches this "
         "runtime",
         version.dump(), kMetadataVersion);
  const json &kernels = array(field(doc, "", "kernels"), "kernels");
  std::vector<KernelInfo> infos;
  for (size_t i = 0; i < kernels.size(); ++i)
    infos.push_back(kernel(kernels[i], fmt::format("kernels[{}]", i)));
  return infos;
}

} // namespace

std::vector<KernelInfo> parseMetadata(const std::string &text,
                                      const std::string &source) {
  return Reader(source).read(text);
}

} // namespace jfa::rt
