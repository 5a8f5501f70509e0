# pecheck_configure_target(<target> [TEST]): per-target flags. No global CMAKE_CXX_FLAGS edits.
# Warnings on and clean; sanitizers from PECHECK_SANITIZE. A TEST target (test programs and
# their support code) is linked with the sanitizer runtimes but not instrumented: the
# sanitizer stage exists to catch memory and UB errors in pecheck's own code (every library
# the tests link is instrumented), and instrumenting the test code too doubled that build's
# compile time for no such finding (issue 21). TEST targets are also compiled at -O1 in every
# build type, -O0 in the sanitizer build: what they test is compiled as the build type says, and
# their own code (gtest fixtures, process drivers, in-process test kernels) costs ~40% less to
# compile at -O1 than -O3, and with clang another ~35% less at -O0 (test_e2e_issue13.cpp: 8.2 ->
# 5.1 s user; its tests' run times within 10%). Their floating-point results do not depend on
# the level: x86-64 SSE arithmetic has no excess precision, and without -mfma there is no
# contraction into FMA to enable.
function(pecheck_configure_target tgt)
  cmake_parse_arguments(A "TEST" "" "" ${ARGN})
  get_target_property(_type ${tgt} TYPE)
  if(_type STREQUAL "INTERFACE_LIBRARY")
    return()
  endif()
  target_compile_options(${tgt} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX,C>:-Wall -Wextra>)
  if(A_TEST)
    if(PECHECK_SANITIZE)
      target_compile_options(${tgt} PRIVATE $<$<COMPILE_LANGUAGE:CXX,C>:-O0>)
    else()
      target_compile_options(${tgt} PRIVATE $<$<COMPILE_LANGUAGE:CXX,C>:-O1>)
    endif()
  endif()
  if(PECHECK_SANITIZE)
    if(A_TEST)
      target_compile_options(${tgt} PRIVATE $<$<COMPILE_LANGUAGE:CXX,C>:-fno-omit-frame-pointer>)
    else()
      target_compile_options(${tgt} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=${PECHECK_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all>)
      # The sanitizer build also links the libFuzzer targets (issue 21: one clang build for the
      # sanitize and fuzz stages): pecheck's code carries libFuzzer's edge counters, so the
      # fuzzers see coverage inside it. Counters only (no comparison hooks, which cost a call
      # per comparison in every test); the fuzz targets themselves get -fsanitize=fuzzer.
      if(PECHECK_BUILD_FUZZERS AND NOT PECHECK_SANITIZE MATCHES "fuzzer")
        target_compile_options(${tgt} PRIVATE
          $<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize-coverage=inline-8bit-counters,pc-table>)
      endif()
    endif()
    if(NOT _type STREQUAL "STATIC_LIBRARY" OR NOT A_TEST)
      target_link_options(${tgt} PRIVATE -fsanitize=${PECHECK_SANITIZE})
    endif()
  endif()
endfunction()

# Which tests a build defines (issue 21). PECHECK_TEST_SCOPE:
#   all     every test (the release stage; tests labelled `long` are defined but the test
#           presets leave them out: `ctest --preset release-long` runs them);
#   memory  the sanitizer stage: only the tests that exercise pecheck's own memory handling --
#           the verifier against hostile kernels, isolation, reports, the CLI, bad input, our
#           kernels -- not the numeric sweeps, oracles and proofs (labels in
#           PECHECK_MEMORY_SCOPE_SKIPS), whose targets are then not even built.
# PECHECK_TIMEOUT_FACTOR multiplies every test's TIMEOUT (the sanitizer stage runs 2-4x slower;
# each TIMEOUT is set at >= 5x the test's time measured on a loaded 2-core machine, README "CI
# gate").
set(PECHECK_TEST_SCOPE "all" CACHE STRING "Tests to define: all, or memory (the sanitizer stage)")
set_property(CACHE PECHECK_TEST_SCOPE PROPERTY STRINGS all memory)
set(PECHECK_TIMEOUT_FACTOR 1 CACHE STRING "Factor applied to every test's TIMEOUT")
set(PECHECK_MEMORY_SCOPE_SKIPS numeric long repo package)
include(PecheckVerdictTests)

# pecheck_test_wanted(<out-var> <labels...>): FALSE when the scope leaves tests with these
# labels out.
function(pecheck_test_wanted out)
  set(_want TRUE)
  if(PECHECK_TEST_SCOPE STREQUAL "memory")
    foreach(l IN LISTS ARGN)
      if(l IN_LIST PECHECK_MEMORY_SCOPE_SKIPS)
        set(_want FALSE)
      endif()
    endforeach()
  endif()
  set(${out} ${_want} PARENT_SCOPE)
endfunction()

# pecheck_timeout(<out-var> <seconds>): the TIMEOUT scaled by PECHECK_TIMEOUT_FACTOR.
function(pecheck_timeout out seconds)
  math(EXPR _t "${seconds} * ${PECHECK_TIMEOUT_FACTOR}")
  set(${out} ${_t} PARENT_SCOPE)
endfunction()

# pecheck_add_test(NAME <name> COMMAND ... LABELS ... TIMEOUT s [PROPERTIES ...]): add_test with
# labels and a scaled timeout, skipped when the scope leaves its labels out.
function(pecheck_add_test)
  cmake_parse_arguments(A "" "NAME;TIMEOUT;WORKING_DIRECTORY" "COMMAND;LABELS;PROPERTIES" ${ARGN})
  pecheck_test_wanted(_want ${A_LABELS})
  if(NOT _want)
    return()
  endif()
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  pecheck_timeout(_t ${A_TIMEOUT})
  if(A_WORKING_DIRECTORY)
    add_test(NAME ${A_NAME} COMMAND ${A_COMMAND} WORKING_DIRECTORY ${A_WORKING_DIRECTORY})
  else()
    add_test(NAME ${A_NAME} COMMAND ${A_COMMAND})
  endif()
  set_tests_properties(${A_NAME} PROPERTIES LABELS "${A_LABELS}" TIMEOUT ${_t} ${A_PROPERTIES})
endfunction()

# pecheck_add_gtest(<name> SOURCES ... LIBS ... [LABELS ...] [TIMEOUT s] [DEFINES ...])
# One GoogleTest executable, its tests discovered into CTest; not even built when the test scope
# leaves its labels out (sets <name>_DEFINED in the caller's scope either way).
function(pecheck_add_gtest name)
  cmake_parse_arguments(A "" "TIMEOUT" "SOURCES;LIBS;LABELS;DEFINES" ${ARGN})
  pecheck_test_wanted(_want ${A_LABELS})
  set(${name}_DEFINED ${_want} PARENT_SCOPE)
  if(NOT _want)
    return()
  endif()
  add_executable(${name} ${A_SOURCES})
  target_link_libraries(${name} PRIVATE ${A_LIBS} GTest::gtest GTest::gtest_main)
  if(A_DEFINES)
    target_compile_definitions(${name} PRIVATE ${A_DEFINES})
  endif()
  pecheck_configure_target(${name} TEST)
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  pecheck_timeout(_t ${A_TIMEOUT})
  gtest_discover_tests(${name}
    DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT ${_t}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  # Labels are set by a test include file run after the discovered tests are defined:
  # gtest_discover_tests (CMake 3.25) splits a list in PROPERTIES, so "LABELS a;b" gave every
  # test the label a and a stray property b -- and `-L`/`-LE` filters saw only the first label.
  # Tests of the verdict catalogue (cmake/PecheckVerdictTests.cmake) get the label `verdict` too.
  set(_inc "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
  set(_res "")
  foreach(_re IN LISTS PECHECK_VERDICT_TESTS)
    string(APPEND _res "  [==[${_re}]==]\n")
  endforeach()
  file(WRITE "${_inc}"
    "set(_verdict_res\n${_res})\n"
    "foreach(_t IN LISTS ${name}_TESTS)\n"
    "  set(_labels \"${A_LABELS}\")\n"
    "  foreach(_re IN LISTS _verdict_res)\n"
    "    if(_t MATCHES \"\${_re}\")\n"
    "      list(APPEND _labels verdict)\n"
    "      break()\n"
    "    endif()\n"
    "  endforeach()\n"
    "  if(_labels)\n"
    "    set_tests_properties(\"\${_t}\" PROPERTIES LABELS \"\${_labels}\")\n"
    "  endif()\n"
    "endforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${_inc}")
endfunction()
