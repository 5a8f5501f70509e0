// The Python kernel provider: libpecheck_python.so, loaded by `pecheck verify --python
// MODULE:OBJECT` in its fork server only (verify/isolation/worker.hpp), never in pecheck itself,
// so the C path neither links nor starts Python. pecheck_provider_open starts an interpreter
// (Debian's, the one CMake found: PECHECK_PYTHON_EXECUTABLE), imports MODULE, takes OBJECT and
// fills a KernelTable with the bridge's trampolines (bridge.hpp); every worker forked from the
// server then calls into that interpreter, so start-up and imports are paid once per run.
#include <pybind11/embed.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "python/bridge.hpp"
#include "verify/isolation/kernel_call.hpp"

namespace py = pybind11;

namespace {

std::string g_domain;
const char* domain() { return g_domain.c_str(); }

// The folder that holds the pecheck package: this library lives in <root>/pecheck/.
std::string package_root() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&package_root), &info) == 0 || !info.dli_fname) return "";
  std::string p = info.dli_fname;
  for (int i = 0; i < 2; ++i) {
    const auto cut = p.find_last_of('/');
    if (cut == std::string::npos) return ".";
    p = p.substr(0, cut);
  }
  return p;
}

void start_interpreter() {
  // pecheck dlopens this provider RTLD_LOCAL; extension modules (numpy, torch) resolve the
  // interpreter's symbols globally, so libpython is promoted to RTLD_GLOBAL first.
  Dl_info py{};
  if (dladdr(reinterpret_cast<void*>(&Py_InitializeFromConfig), &py) != 0 && py.dli_fname) {
    dlopen(py.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  }
  // One OpenMP/MKL thread unless the user says otherwise, before torch can read it.
  setenv("OMP_NUM_THREADS", "1", 0);
  setenv("MKL_NUM_THREADS", "1", 0);
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;  // the server's dispositions stay (a crash ends a worker by its signal)
  config.parse_argv = 0;
  // Debian's interpreter, not whatever `python3` is first on PATH (docs/python.md).
  const char* exe = std::getenv("PECHECK_PYTHON");
  PyStatus st = PyConfig_SetBytesString(&config, &config.program_name, exe && *exe ? exe : PECHECK_PYTHON_EXECUTABLE);
  if (!PyStatus_Exception(st)) st = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(st)) {
    throw std::runtime_error(std::string("cannot start Python: ") + (st.err_msg ? st.err_msg : "unknown error"));
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int pecheck_provider_open(const char* spec, pecheck::KernelTable* table,
                                                                           char* error, std::size_t error_len) {
  try {
    if (!Py_IsInitialized()) start_interpreter();
    // In this server's one thread the GIL stays held: workers fork from here holding it.
    PyGILState_Ensure();
    try {
      py::list path = py::module_::import("sys").attr("path");
      const std::string root = package_root();
      if (!root.empty()) path.insert(0, root);
      const py::module_ prov = py::module_::import("pecheck._provider");
      const py::object obj = prov.attr("load")(spec);
      pecheck::KernelTable t = pecheck::python::bind(obj);
      g_domain = pecheck::python::domain_of(obj);
      if (!g_domain.empty()) t.domain = &domain;
      prov.attr("server_setup")();
      *table = t;
      return 0;
    } catch (py::error_already_set& e) {
      const py::module_ prov = py::module_::import("pecheck._provider");
      const std::string what = py::str(prov.attr("describe_exception")(e.type(), e.value(), e.trace()));
      std::snprintf(error, error_len, "%s", what.c_str());
      return 1;
    }
  } catch (const std::exception& e) {
    std::snprintf(error, error_len, "%s", e.what());
    return 1;
  }
}
