// Calls the installed runtime without a GPU: the version, and the metadata
// reader on what jfac writes beside a cubin (test/consumer/CMakeLists.txt).
#include "jfa/runtime.h"
#include "jfa/runtime.hpp"

#include <cstdio>
#include <cstring>

int main() {
  const char *meta = R"({"format": "jfa-metadata", "version": 2, "kernels": [
    {"name": "scale_add", "arch": "sm_90a", "threads": 128,
     "cluster": [1, 1, 1], "shared_bytes": 49192,
     "arguments": [{"kind":"tma","element_type":"f32","box":[64,64],
                    "swizzle":0,"name":"x"}, {"kind":"f32","name":"alpha"}]}]})";
  std::vector<jfa::rt::KernelInfo> kernels = jfa::rt::parseMetadata(meta);
  if (kernels.size() != 1 || kernels[0].name != "scale_add" ||
      kernels[0].params.size() != 2 || kernels[0].params[1].name != "alpha") {
    std::fprintf(stderr, "consumer: unexpected metadata\n");
    return 1;
  }
  try {
    jfa::rt::parseMetadata("{}", "bad.meta");
    std::fprintf(stderr, "consumer: bad metadata accepted\n");
    return 1;
  } catch (const jfa::rt::Error &e) {
    std::printf("consumer: error as expected: %s\n", e.what());
  }
  if (std::strcmp(jfa::rt::version(), jfa_runtime_version()) != 0)
    return 1;
  std::printf("consumer: JFA runtime %s, kernel %s with %zu arguments\n",
              jfa_runtime_version(), kernels[0].name.c_str(),
              kernels[0].params.size());
  return 0;
}
