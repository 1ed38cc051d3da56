//===- ReadMetadata.cpp - print metadata as the runtime reads it ----------===//
//
//   jfa-read-metadata FILE...
//
// Parses each file with jfa::rt::parseMetadata and prints one line per kernel
// and one per argument, or the runtime's error (exit status 1). A test tool:
// the lit tests run it on what jfac wrote (the compiler -> file -> runtime
// round trip) and on broken files. Links the runtime only.
//
//===----------------------------------------------------------------------===//
#include "jfa/runtime.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iterator>

int main(int argc, char **argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: jfa-read-metadata FILE...\n");
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      fmt::print(stderr, "jfa-read-metadata: cannot read '{}'\n", argv[i]);
      return 1;
    }
    std::string text(std::istreambuf_iterator<char>(in), {});
    try {
      for (const jfa::rt::KernelInfo &k :
           jfa::rt::parseMetadata(text, argv[i])) {
        fmt::print("kernel {} arch {} threads {} cluster {} {} {} shared_bytes "
                   "{}{}\n",
                   k.name, k.arch, k.threads, k.cluster[0], k.cluster[1],
                   k.cluster[2], k.sharedBytes,
                   k.debugBarriers ? " debug_barriers" : "");
        for (const auto &[name, value] : k.compileParams)
          fmt::print("  param {} = {}\n", name, value);
        if (!k.variant.empty())
          fmt::print("  variant {}\n", k.variant);
        for (size_t j = 0; j < k.params.size(); ++j) {
          const jfa::rt::ParamSpec &p = k.params[j];
          fmt::print("  arg {}: {}", j, jfa::rt::paramKindName(p.kind));
          if (!p.elementType.empty())
            fmt::print(" {}", p.elementType);
          if (p.kind == jfa::rt::ParamKind::TensorMap) {
            fmt::print(" box");
            for (uint32_t d : p.box)
              fmt::print(" {}", d);
            fmt::print(" swizzle {}", p.swizzle);
          }
          if (!p.name.empty())
            fmt::print(" name %{}", p.name);
          fmt::print("\n");
        }
      }
    } catch (const jfa::rt::Error &e) {
      fmt::print(stderr, "jfa-read-metadata: {}\n", e.what());
      return 1;
    }
  }
  return 0;
}
