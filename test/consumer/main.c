/* The C API from C, linked against libjfart.so; needs no GPU. */
#include "jfa/runtime.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  jfa_module_t module = 0;
  if (jfa_module_load_file("/nonexistent.cubin", NULL, &module) == 0) {
    fprintf(stderr, "consumer_c: a missing cubin loaded\n");
    return 1;
  }
  if (!strstr(jfa_last_error(), "/nonexistent.cubin")) {
    fprintf(stderr, "consumer_c: unexpected error: %s\n", jfa_last_error());
    return 1;
  }
  printf("consumer_c: JFA runtime %s; error as expected: %s\n",
         jfa_runtime_version(), jfa_last_error());
  return 0;
}
