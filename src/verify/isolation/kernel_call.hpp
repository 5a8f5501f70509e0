// Calling a kernel's function through its KernelTable entry with its own signature, and filling
// the table from an opened library (dlsym of every pec_* symbol). Used by the worker processes
// (worker.cpp), which run inside the fork server.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "verify/isolation/kernel_table.hpp"

namespace pecheck::verifier {

// The call of `fn` with its signature: (args, x, y) for RoPE, (args, out) for the biases and tables,
// (args, q, k, q_out, k_out) for the query+key, cached and M-RoPE functions, (args, cache) for the
// cache builder, (args, q, k, v, out, lse) for attention (x3 = v). Returns the function's return code (-1 for an unknown fn).
int invoke(const KernelTable& t, Fn fn, const void* args, const void* x, void* y, const void* x2, void* y2,
           const void* x3 = nullptr);

// A worker's answer to one call: the return value, or (raised) the provider's account of why the
// call failed without one (KernelTable::failure, a Python exception).
struct Response {
  std::int32_t rc;
  std::int32_t raised;
  char what[504];
};

// invoke(), and the provider's account of a failure into *raised / what.
int invoke_noting(const KernelTable& table, Fn fn, const void* args, const void* x, void* y, const void* x2, void* y2,
                  const void* x3, bool* raised, char* what, std::size_t what_len);

// Resolves the pec_* symbols of a library opened with dlopen (every function of the header).
KernelTable resolve(void* handle);

// The symbol a kernel provider library exports (src/python: pecheck verify --python):
//   extern "C" int pecheck_provider_open(const char* spec, pecheck::KernelTable* table,
//                                        char* error, size_t error_len);
// It loads what `spec` names and fills `table` (0), or writes a one-line reason (non-zero).
inline constexpr const char* kProviderOpenSymbol = "pecheck_provider_open";
using ProviderOpen = int (*)(const char*, KernelTable*, char*, std::size_t);

// The table of an opened library: resolve(handle) when `provider_spec` is empty, else what its
// pecheck_provider_open(provider_spec) fills. False with *error set when that fails.
bool open_table(void* handle, const std::string& provider_spec, KernelTable* table, std::string* error);

}  // namespace pecheck::verifier
