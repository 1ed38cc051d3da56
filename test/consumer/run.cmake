# ctest's consumer-project test (registered in test/CMakeLists.txt):
#   cmake -DBUILD=<jfa build> -DWORK=<scratch> -DSRC=<test/consumer>
#         -DGENERATOR=<gen> [-DCUDA_INCLUDE=<dir>] -P run.cmake
# installs BUILD into WORK/prefix, then configures, builds and runs the
# consumer project against it.
foreach(v BUILD WORK SRC GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake needs -D${v}=...")
  endif()
endforeach()

function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "consumer test: `${cmd}` failed (${rc})")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
step(${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix
     --component jfa_runtime)
foreach(f include/jfa/runtime.h include/jfa/runtime.hpp lib/libjfart.a
          lib/libjfart.so lib/cmake/JFA/JFAConfig.cmake
          lib/cmake/JFA/JFAConfigVersion.cmake)
  if(NOT EXISTS ${WORK}/prefix/${f})
    message(FATAL_ERROR "consumer test: the install lacks ${f}")
  endif()
endforeach()
set(cuda)
if(CUDA_INCLUDE)
  set(cuda -DJFA_CUDA_INCLUDE_DIR=${CUDA_INCLUDE})
endif()
step(${CMAKE_COMMAND} -S ${SRC} -B ${WORK}/build -G ${GENERATOR}
     -DCMAKE_PREFIX_PATH=${WORK}/prefix -DCMAKE_BUILD_TYPE=Release ${cuda})
step(${CMAKE_COMMAND} --build ${WORK}/build)
step(${WORK}/build/consumer)
step(${WORK}/build/consumer_c)
# A version the install does not satisfy is refused.
file(WRITE ${WORK}/v/CMakeLists.txt
  "cmake_minimum_required(VERSION 3.20)\nproject(v LANGUAGES C)\n"
  "find_package(JFA 99 REQUIRED)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/v -B ${WORK}/v/build
                -DCMAKE_PREFIX_PATH=${WORK}/prefix ${cuda}
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "JFAConfigVersion|version")
  message(FATAL_ERROR "consumer test: find_package(JFA 99) did not fail: ${err}")
endif()
message(STATUS "consumer test: passed")
