// A kernel provider without Python (verify/isolation/kernel_call.hpp, pecheck_provider_open):
// the spec names a plug-in library, whose pec_rope_f32 becomes the table's rope_f32; spec
// "raise:LIB" makes every call "raise" instead (KernelTable::failure), spec "refuse" fails to
// load. It exercises the provider and failure paths the Python provider uses, in every build
// (the sanitizer stage included, where the Python pieces are not built).
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "verify/isolation/kernel_table.hpp"

namespace {

int (*g_rope)(const pec_rope_args*, const float*, float*) = nullptr;
bool g_failed = false;

int raising_rope(const pec_rope_args* a, const float* x, float* y) {
  g_failed = a != nullptr && a->n_heads >= 2;  // "raises" from 2 heads on
  return g_failed ? -1 : g_rope(a, x, y);
}

const char* failure() { return g_failed ? "raised RuntimeError: two heads (at provider.cpp:22 in raising_rope)" : nullptr; }

}  // namespace

extern "C" __attribute__((visibility("default"))) int pecheck_provider_open(const char* spec, pecheck::KernelTable* t,
                                                                           char* error, std::size_t n) {
  std::string s = spec;
  if (s == "refuse") {
    std::snprintf(error, n, "ValueError: refused on purpose");
    return 1;
  }
  const bool raise = s.rfind("raise:", 0) == 0;
  if (raise) s = s.substr(6);
  void* h = dlopen(s.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    std::snprintf(error, n, "%s", dlerror());
    return 1;
  }
  g_rope = reinterpret_cast<decltype(g_rope)>(dlsym(h, "pec_rope_f32"));
  t->rope_f32 = raise ? &raising_rope : g_rope;
  t->failure = &failure;
  return 0;
}
