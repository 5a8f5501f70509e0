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
step(configure ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/package/consumer -B ${WORK_DIR}/build -G ${GENERATOR}
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix})
step(build ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(run ${WORK_DIR}/build/consumer ${WORK_DIR}/report)
step(installed-cli ${prefix}/bin/pecheck --version)
file(REMOVE_RECURSE ${WORK_DIR})
