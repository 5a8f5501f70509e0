# Packaging test, run by CTest as a CMake script:
#   cmake -DBINARY_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=... -P run_package_test.cmake
# 1. installs the already-built pecheck into a fresh prefix (cmake --install),
# 2. configures and builds tests/package/consumer against it with find_package(pecheck),
# 3. runs the consumer, which verifies in-process kernels through pecheck::verify.
# Any step failing fails the test with that step's output.
foreach(v BINARY_DIR SOURCE_DIR WORK_DIR GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_package_test.cmake: -D${v}= is required")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "[${name}] exit ${rc}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "package test: step '${name}' failed (exit ${rc})")
  endif()
endfunction()

step(install ${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${prefix})
foreach(f include/pecheck/pecheck_kernel.h include/pecheck/verify/verify.hpp include/pecheck/report/result.hpp
          lib/cmake/pecheck/pecheckConfig.cmake lib/cmake/pecheck/pecheckTargets.cmake bin/pecheck)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "package test: ${f} was not installed")
  endif()
endforeach()
# The consumer is built with the same compilers, and with the same sanitizers when pecheck's
# libraries were instrumented (their runtime must then be linked into the consumer too).
set(consumer_args -DCMAKE_PREFIX_PATH=${prefix})
if(C_COMPILER)
  list(APPEND consumer_args -DCMAKE_C_COMPILER=${C_COMPILER})
endif()
if(CXX_COMPILER)
  list(APPEND consumer_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
if(BUILD_TYPE)
  list(APPEND consumer_args -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
endif()
if(SANITIZE)
  list(APPEND consumer_args "-DCMAKE_C_FLAGS=-fsanitize=${SANITIZE}" "-DCMAKE_CXX_FLAGS=-fsanitize=${SANITIZE}"
       "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=${SANITIZE}")
endif()
step(configure ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/package/consumer -B ${WORK_DIR}/build -G ${GENERATOR}
     ${consumer_args})
step(build ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(run ${WORK_DIR}/build/consumer ${WORK_DIR}/report)
step(installed-cli ${prefix}/bin/pecheck --version)
file(REMOVE_RECURSE ${WORK_DIR})
