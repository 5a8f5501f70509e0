# The Python pieces (docs/python.md): the kernel provider behind `pecheck verify --python` and the
# `pecheck` Python package. Optional: when python3-dev, pybind11-dev or python3-numpy is missing,
# configure says so and the rest of pecheck builds without them (PECHECK_PYTHON=ON makes them
# required). Debian's interpreter is used (/usr/bin/python3), not whatever `python3` comes first
# on PATH: the package must import Debian's numpy and torch. Override with -DPython3_EXECUTABLE=...
# Not built in sanitizer builds (PECHECK_SANITIZE): an ASan-instrumented module cannot be loaded
# into an uninstrumented /usr/bin/python3 without LD_PRELOADing the runtime, and CPython, numpy
# and torch then report their own allocations; the C isolation path stays covered there.
set(PECHECK_PYTHON "AUTO" CACHE STRING "Build the Python kernel provider and package: AUTO, ON, OFF")
set(PECHECK_HAVE_PYTHON OFF)
if(PECHECK_PYTHON STREQUAL "OFF")
  message(STATUS "pecheck: PECHECK_PYTHON=OFF, the Python provider and package are not built")
elseif(PECHECK_SANITIZE AND PECHECK_PYTHON STREQUAL "AUTO")
  message(STATUS "pecheck: sanitizer build, the Python provider and package are not built (docs/python.md)")
else()
  if(NOT Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python3 COMPONENTS Interpreter Development.Module Development.Embed QUIET)
  set(_pecheck_py_missing "")
  if(NOT Python3_Development.Module_FOUND OR NOT Python3_Development.Embed_FOUND)
    list(APPEND _pecheck_py_missing python3-dev)
  endif()
  if(Python3_FOUND)
    find_package(pybind11 CONFIG QUIET)
  endif()
  if(NOT pybind11_FOUND)
    list(APPEND _pecheck_py_missing pybind11-dev)
  endif()
  if(Python3_Interpreter_FOUND)
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import numpy" RESULT_VARIABLE _pecheck_np OUTPUT_QUIET ERROR_QUIET)
    if(NOT _pecheck_np EQUAL 0)
      list(APPEND _pecheck_py_missing python3-numpy)
    endif()
    execute_process(COMMAND ${Python3_EXECUTABLE} -c "import torch, pytest" RESULT_VARIABLE _pecheck_torch
                    OUTPUT_QUIET ERROR_QUIET)
    set(PECHECK_HAVE_TORCH_PYTEST OFF)
    if(_pecheck_torch EQUAL 0)
      set(PECHECK_HAVE_TORCH_PYTEST ON)
    endif()
  endif()
  if(_pecheck_py_missing)
    string(REPLACE ";" " " _m "${_pecheck_py_missing}")
    if(PECHECK_PYTHON STREQUAL "ON")
      message(FATAL_ERROR "pecheck: PECHECK_PYTHON=ON but missing: ${_m} (apt-get install ${_m}, or bash scripts/setup.sh)")
    endif()
    message(STATUS "pecheck: the Python provider and package are not built: missing ${_m} (apt-get install ${_m})")
  else()
    set(PECHECK_HAVE_PYTHON ON)
    message(STATUS "pecheck: Python provider and package for ${Python3_EXECUTABLE} (${Python3_VERSION}); "
                   "tests with torch+pytest: ${PECHECK_HAVE_TORCH_PYTEST}")
  endif()
endif()
