# Build step of EmbedAttentionKernels.cmake (cmake -P): compiles MLIR with
# JFAC for ARCH into WORK/<KERNEL>_<ARCH>.cubin(+.meta), then writes OUT, a
# C++ source embedding both. If jfac fails and STRICT is off, warns and
# writes an absent kernel instead (the library then says why it lacks it);
# QUIET makes the warning a status line.
foreach(v JFAC MLIR KERNEL ARCH SYMBOL WORK OUT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "EmbedKernel.cmake: ${v} is not set")
  endif()
endforeach()
include("${CMAKE_CURRENT_LIST_DIR}/EmbedKernelWrite.cmake")

# PARAMS: the variant's compile-time parameters, "head_dim=64,causal=0".
set(param_args)
set(suffix)
if(PARAMS)
  string(REPLACE "," ";" params "${PARAMS}")
  foreach(p ${params})
    list(APPEND param_args -P "${p}")
    string(APPEND suffix ".${p}")
  endforeach()
endif()
set(cubin "${WORK}/${KERNEL}_${ARCH}${suffix}.cubin")
file(REMOVE "${cubin}" "${cubin}.meta")
execute_process(
  COMMAND "${JFAC}" compile "${MLIR}" --arch "${ARCH}" ${param_args} -o "${cubin}" --quiet
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 AND EXISTS "${cubin}" AND EXISTS "${cubin}.meta")
  file(SIZE "${cubin}" size)
  if(size GREATER 0)
    jfa_write_embedded_kernel("${OUT}" "${SYMBOL}" "${KERNEL}" "${ARCH}" "${PARAMS}" "${cubin}" "${cubin}.meta" "")
    return()
  endif()
endif()
get_filename_component(name "${MLIR}" NAME)
set(why "jfac could not compile ${name} for ${ARCH} (${PARAMS}) when the library was built")
if(STRICT)
  message(FATAL_ERROR "${why} (JFA_EMBED_ATTENTION_KERNELS_STRICT is ON):\n${out}${err}")
endif()
if(QUIET)
  set(level STATUS)  # an expected failure (the tests' broken stand-in)
else()
  set(level WARNING)
endif()
message(${level} "${why}; the runtime is built without this kernel "
  "(set JFA_EMBED_ATTENTION_KERNELS_STRICT=ON to make this an error):\n${out}${err}")
jfa_write_embedded_kernel("${OUT}" "${SYMBOL}" "${KERNEL}" "${ARCH}" "${PARAMS}" "" "" "${why}")
