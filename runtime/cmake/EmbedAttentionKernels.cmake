# Embeds the jagged attention kernels (kernels/jagged_attention/: forward
# and backward) in the runtime: at build time jfac compiles each to a cubin + metadata, and a
# generated C++ source holds their bytes (EmbedKernelWrite.cmake). Defines the
# OBJECT library jfa_attention_kernels, which jfart and jfart_shared link.
#
#   JFA_EMBED_ATTENTION_KERNELS         ON: embed (default); OFF: embed none
#   JFA_JFAC                            a jfac to use instead of this build's
#                                       (e.g. for JFA_BUILD_COMPILER=OFF)
#   JFA_EMBED_ATTENTION_KERNELS_STRICT  ON: a kernel that jfac fails on fails
#                                       the build; OFF (default): warn and
#                                       build the library without it
#
# A kernel source that does not exist yet is skipped (the configuration is
# redone when kernels/jagged_attention/ changes). A kernel that is not
# embedded is recorded with the reason, which Attention::embedded() reports.

option(JFA_EMBED_ATTENTION_KERNELS
  "Compile kernels/jagged_attention with jfac and embed the cubins in jfart" ON)
option(JFA_EMBED_ATTENTION_KERNELS_STRICT
  "Fail the build when jfac cannot compile an embedded attention kernel" OFF)
set(JFA_JFAC "" CACHE FILEPATH
  "jfac used to compile the embedded kernels (empty: this build's jfac target)")

include(${CMAKE_CURRENT_LIST_DIR}/EmbedKernelWrite.cmake)
# The targets: one forward kernel each, attention_fwd_<kernel suffix>
# (dialects/JFA/Targets.def, read without Python).
include(${PROJECT_SOURCE_DIR}/cmake/JFATargets.cmake)
jfa_read_targets()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${JFA_TARGETS_DEF})

set(_jfa_embed_dir ${CMAKE_CURRENT_BINARY_DIR}/embedded)
set(_jfa_kernel_dir ${PROJECT_SOURCE_DIR}/kernels/jagged_attention)
file(MAKE_DIRECTORY ${_jfa_embed_dir})
set(_jfa_embed_sources)

if(JFA_JFAC)
  set(_jfa_jfac ${JFA_JFAC})
  set(_jfa_jfac_depends ${JFA_JFAC})
elseif(JFA_BUILD_COMPILER)
  # The jfac target is defined later (tools/); both are resolved when the
  # build files are generated.
  set(_jfa_jfac $<TARGET_FILE:jfac>)
  set(_jfa_jfac_depends jfac)
endif()

# A kernel may import helpers from kernels/lib/ (jfa.import): every library
# there is a dependency of every embedded kernel, so that editing one
# recompiles them (conservative: a kernel that imports none is recompiled
# too; the glob picks up a new library at the next build).
file(GLOB _jfa_libraries CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/kernels/lib/*.mlir)

# _jfa_kernel_variants(MLIR OUT): the variants a kernel source declares.
include(${CMAKE_CURRENT_LIST_DIR}/KernelVariants.cmake)

# Every embedded variant, for the generated table (EmbeddedKernels.h).
set(_jfa_embedded_symbols)
set(_jfa_embedded_entries)

# Per target: the forward, its specializations (attention_fwd_<kernel
# suffix>_<tag>.mlir: a kernel of its own for some variants, which the
# runtime takes over the forward's), the backward (attention_bwd_<kernel
# suffix>) and the backward's three target-free kernels.
set(_jfa_shared_kernels attention_bwd_delta attention_bwd_schedule attention_bwd_dq_convert)
foreach(_jfa_arch ${JFA_TARGETS})
  set(_jfa_suffix_of_target ${JFA_TARGET_${_jfa_arch}_KERNEL_SUFFIX})
  file(GLOB _jfa_specializations CONFIGURE_DEPENDS
       ${_jfa_kernel_dir}/attention_fwd_${_jfa_suffix_of_target}_*.mlir)
  set(_jfa_specialization_names)
  foreach(_jfa_file ${_jfa_specializations})
    get_filename_component(_jfa_name ${_jfa_file} NAME_WE)
    # The runtime loads tags of letters and digits only.
    if(NOT _jfa_name MATCHES "^attention_fwd_${_jfa_suffix_of_target}_[A-Za-z0-9]+$")
      message(FATAL_ERROR "kernels/jagged_attention/${_jfa_name}.mlir: a "
        "specialization's name is attention_fwd_${_jfa_suffix_of_target}_<tag>, "
        "the tag letters and digits only (the runtime loads no other)")
    endif()
    list(APPEND _jfa_specialization_names ${_jfa_name})
  endforeach()
  foreach(_jfa_kernel attention_fwd_${_jfa_suffix_of_target} ${_jfa_specialization_names}
                       attention_bwd_${_jfa_suffix_of_target} ${_jfa_shared_kernels})
    set(_jfa_mlir ${_jfa_kernel_dir}/${_jfa_kernel}.mlir)
    # Configure again when the kernel's variant line changes.
    if(EXISTS ${_jfa_mlir})
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_jfa_mlir})
    endif()
    _jfa_kernel_variants(${_jfa_mlir} _jfa_variants)
    if(NOT _jfa_variants)
      set(_jfa_variants "<none>")
    endif()
    foreach(_jfa_variant ${_jfa_variants})
      if(_jfa_variant STREQUAL "<none>")
        set(_jfa_variant "")
      endif()
      # head_dim=64:causal=0 -> file suffix .head_dim=64.causal=0, symbol
      # suffix _head_dim_64_causal_0, jfac -P head_dim=64 -P causal=0.
      string(REPLACE ":" ";" _jfa_pairs "${_jfa_variant}")
      set(_jfa_suffix "")
      set(_jfa_symbol ${_jfa_kernel}_${_jfa_arch})
      set(_jfa_params "")
      foreach(_jfa_pair ${_jfa_pairs})
        string(APPEND _jfa_suffix ".${_jfa_pair}")
        string(REGEX REPLACE "[^A-Za-z0-9_]" "_" _jfa_pair_id "${_jfa_pair}")
        string(APPEND _jfa_symbol "_${_jfa_pair_id}")
        list(APPEND _jfa_params ${_jfa_pair})
      endforeach()
      string(REPLACE ";" "," _jfa_params_text "${_jfa_params}")
      list(APPEND _jfa_embedded_symbols ${_jfa_symbol})
      set(_jfa_out ${_jfa_embed_dir}/${_jfa_kernel}_${_jfa_arch}${_jfa_suffix}.cpp)
      set(_jfa_reason)
      if(NOT JFA_EMBED_ATTENTION_KERNELS)
        set(_jfa_reason "it was configured with JFA_EMBED_ATTENTION_KERNELS=OFF")
      elseif(NOT _jfa_jfac)
        set(_jfa_reason "it was configured without a jfac: JFA_BUILD_COMPILER=OFF and no JFA_JFAC")
      elseif(NOT EXISTS ${_jfa_mlir})
        set(_jfa_reason "kernels/jagged_attention/${_jfa_kernel}.mlir did not exist when it was configured")
        # Configure again once the kernel appears.
        if(EXISTS ${_jfa_kernel_dir})
          set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_jfa_kernel_dir})
        else()
          set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/kernels)
        endif()
      endif()
      if(_jfa_reason)
        message(STATUS "jfart: not embedding ${_jfa_kernel} (${_jfa_arch}${_jfa_suffix}): ${_jfa_reason}")
        jfa_write_embedded_kernel(${_jfa_out} ${_jfa_symbol} ${_jfa_kernel} ${_jfa_arch}
                                  "${_jfa_params_text}" "" "" "${_jfa_reason}")
      else()
        add_custom_command(
          OUTPUT ${_jfa_out}
          COMMAND ${CMAKE_COMMAND} -DJFAC=${_jfa_jfac} -DMLIR=${_jfa_mlir}
                  -DKERNEL=${_jfa_kernel} -DARCH=${_jfa_arch} -DWORK=${_jfa_embed_dir}
                  -DSYMBOL=${_jfa_symbol} "-DPARAMS=${_jfa_params_text}"
                  -DOUT=${_jfa_out} -DSTRICT=${JFA_EMBED_ATTENTION_KERNELS_STRICT}
                  -P ${CMAKE_CURRENT_LIST_DIR}/EmbedKernel.cmake
          DEPENDS ${_jfa_mlir} ${_jfa_libraries} ${_jfa_jfac_depends}
                  ${CMAKE_CURRENT_LIST_DIR}/EmbedKernel.cmake
                  ${CMAKE_CURRENT_LIST_DIR}/EmbedKernelWrite.cmake
          COMMENT "jfac: embedding ${_jfa_kernel} for ${_jfa_arch}${_jfa_suffix}"
          VERBATIM)
      endif()
      list(APPEND _jfa_embed_sources ${_jfa_out})
    endforeach()
  endforeach()
endforeach()

# The table of every embedded kernel variant (present or not).
jfa_write_embedded_table(${_jfa_embed_dir}/embedded_table.cpp "${_jfa_embedded_symbols}")
list(APPEND _jfa_embed_sources ${_jfa_embed_dir}/embedded_table.cpp)

add_library(jfa_attention_kernels OBJECT ${_jfa_embed_sources})
target_include_directories(jfa_attention_kernels PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
set_target_properties(jfa_attention_kernels PROPERTIES POSITION_INDEPENDENT_CODE ON)
