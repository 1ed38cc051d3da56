# The `// jfa-variants:` header of a kernel source, read as
# scripts/kernel_variants.py and jfac (compiler/Variants.cpp) read it; the
# build's list of embedded cubins comes from here. In script mode it prints
# the variants one per line as kernel_variants.py does (NAME=VALUE ...; an
# empty line for none), so that a test can compare the readers
# (test/kernels/variants-readers.test):
#
#   cmake -DJFA_VARIANTS_OF=KERNEL.mlir -P runtime/cmake/KernelVariants.cmake

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED JFA_VARIANTS_OF)
  cmake_minimum_required(VERSION 3.20) # IN_LIST, as in the build
endif()

# The compile-time variants a kernel source declares in its header comment
# (`// jfa-variants: head_dim=64,128 causal=0,1`, scripts/kernel_variants.py
# and jfac read the same lines, with the same grammar: only the header, the
# `//` lines before the first that is not one; items NAME=V1,V2,... with no
# empty value, each name listed once): OUT gets one entry per variant of the
# product, each "name=value;name=value" joined with "|" ("" for a kernel
# without variants).
function(_jfa_kernel_variants mlir out)
  set(variants "")
  if(EXISTS ${mlir})
    file(READ ${mlir} text LIMIT 65536)
    set(variants "<>")
    set(names "")
    # Line by line (no CMake list: a comment may hold a ';'), each trimmed,
    # up to the first that is not a `//` comment.
    while(NOT text STREQUAL "")
      string(FIND "${text}" "\n" eol)
      if(eol EQUAL -1)
        set(line "${text}")
        set(text "")
      else()
        string(SUBSTRING "${text}" 0 ${eol} line)
        math(EXPR next "${eol} + 1")
        string(SUBSTRING "${text}" ${next} -1 text)
      endif()
      string(STRIP "${line}" line)
      if(NOT line MATCHES "^//")
        break()
      endif()
      if(NOT line MATCHES "^// jfa-variants:(.*)$")
        continue()
      endif()
      set(line "${CMAKE_MATCH_1}")
      if(line MATCHES ";")
        message(FATAL_ERROR "${mlir}: a jfa-variants line may not hold ';' (the build's lists)")
      endif()
      string(STRIP "${line}" line)
      string(REGEX REPLACE "[ \t]+" ";" items "${line}")
      foreach(item ${items})
        if(item MATCHES "(=,|,,|,$)" OR NOT item MATCHES "^([^=]+)=(.+)$")
          message(FATAL_ERROR "${mlir}: '${item}' in the jfa-variants line is not NAME=V1,V2,...")
        endif()
        set(name ${CMAKE_MATCH_1})
        string(REPLACE "," ";" values "${CMAKE_MATCH_2}")
        if(name IN_LIST names)
          message(FATAL_ERROR "${mlir}: parameter '${name}' is listed twice in the jfa-variants lines")
        endif()
        list(APPEND names ${name})
        set(product "")
        foreach(prefix ${variants})
          foreach(value ${values})
            if(prefix STREQUAL "<>")
              list(APPEND product "${name}=${value}")
            else()
              list(APPEND product "${prefix}:${name}=${value}")
            endif()
          endforeach()
        endforeach()
        set(variants ${product})
      endforeach()
    endwhile()
    if(variants STREQUAL "<>")
      set(variants "")
    endif()
  endif()
  set(${out} "${variants}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED JFA_VARIANTS_OF)
  _jfa_kernel_variants(${JFA_VARIANTS_OF} _variants)
  if(NOT _variants)
    message(NOTICE "")
  endif()
  foreach(_variant ${_variants})
    string(REPLACE ":" " " _variant "${_variant}")
    message(NOTICE "${_variant}")
  endforeach()
endif()
