# pecheck_configure_target(<target>): per-target flags. No global CMAKE_CXX_FLAGS edits.
# Warnings on and clean; sanitizers from PECHECK_SANITIZE.
function(pecheck_configure_target tgt)
  get_target_property(_type ${tgt} TYPE)
  if(_type STREQUAL "INTERFACE_LIBRARY")
    return()
  endif()
  target_compile_options(${tgt} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX,C>:-Wall -Wextra>)
  if(PECHECK_SANITIZE)
    target_compile_options(${tgt} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX,C>:-fsanitize=${PECHECK_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all>)
    target_link_options(${tgt} PRIVATE -fsanitize=${PECHECK_SANITIZE})
  endif()
endfunction()

# pecheck_add_gtest(<name> SOURCES ... LIBS ... [LABELS ...] [TIMEOUT s])
# One GoogleTest executable, its tests discovered into CTest.
function(pecheck_add_gtest name)
  cmake_parse_arguments(A "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${A_SOURCES})
  target_link_libraries(${name} PRIVATE ${A_LIBS} GTest::gtest GTest::gtest_main)
  pecheck_configure_target(${name})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 300)
  endif()
  # gtest_discover_tests splits PROPERTIES on ';': escape it so every label survives.
  string(REPLACE ";" "\\;" _labels "${A_LABELS}")
  gtest_discover_tests(${name}
    DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT ${A_TIMEOUT} LABELS "${_labels}"
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()
