//===- AttentionTestSupport.h - helpers of the attention tests --*- C++ -*-===//
//
// What AttentionTest.cpp and AttentionBackwardTest.cpp both need: the
// message of a runtime Error (RuntimeTest.cpp's too), a fresh folder, and
// fake cubins with their metadata as scripts/build-package.sh lays them out.
//
//===----------------------------------------------------------------------===//
#ifndef JFA_TEST_RUNTIME_ATTENTIONTESTSUPPORT_H
#define JFA_TEST_RUNTIME_ATTENTIONTESTSUPPORT_H

#include "jfa/runtime.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <sys/stat.h>

namespace jfa::rt::test {

/// The message of the Error `f` throws; "" when it throws none.
template <typename F> std::string errorOf(F &&f) {
  try {
    f();
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

/// A fresh, empty folder `name` under the test's temporary directory.
inline std::string makeTempDir(const std::string &name) {
  std::string dir = testing::TempDir() + "/" + name;
  std::system(("rm -rf '" + dir + "'").c_str());
  mkdir(dir.c_str(), 0755);
  return dir;
}

/// Writes the fake cubin `dir`/`file` and, unless `metadata` is empty, its
/// `.meta` beside it.
inline void writeCubin(const std::string &dir, const std::string &file,
                       const std::string &metadata) {
  std::ofstream(dir + "/" + file, std::ios::binary) << "\x7f"
                                                       "ELF fake cubin";
  if (!metadata.empty())
    std::ofstream(dir + "/" + file + ".meta") << metadata;
}

/// Why the forward on sm_90a is absent when kernel_dir `dir` has no
/// attention_bwd_schedule_sm_90a.cubin (Attention::absentReason).
inline std::string missingScheduleReason(const std::string &dir) {
  return "the forward's work queue needs attention_bwd_schedule_sm_90a "
         "(kernel_dir '" +
         dir +
         "' lacks attention_bwd_schedule_sm_90a.cubin "
         "(scripts/build-package.sh compiles it))";
}

/// The metadata of attention_bwd_schedule for `arch` (the forward runs it
/// first, the backward too).
inline std::string scheduleMetadata(const std::string &arch) {
  return R"({"format": "jfa-metadata", "version": 2, "kernels": [
  {"name": "attention_bwd_schedule", "arch": ")" +
         arch + R"(", "threads": 128, "cluster": [1, 1, 1],
   "shared_bytes": 0, "debug_barriers": false, "arguments": [
   {"name": "offsets", "kind": "ptr", "element_type": "i32"},
   {"name": "schedule", "kind": "ptr", "element_type": "i32"},
   {"name": "batch", "kind": "i32"}, {"name": "k_tiles", "kind": "i32"},
   {"name": "block_aligned", "kind": "i32"},
   {"name": "tile_rows", "kind": "i32"}]}]}
)";
}

} // namespace jfa::rt::test

#endif // JFA_TEST_RUNTIME_ATTENTIONTESTSUPPORT_H
