// Calling a kernel's function through its KernelTable entry with its own signature, and filling
// the table from an opened library (dlsym of every pec_* symbol). Used by the worker processes
// (worker.cpp), which run inside the fork server.
#pragma once

#include "verify/isolation/kernel_table.hpp"

namespace pecheck::verifier {

// The call of `fn` with its signature: (args, x, y) for RoPE, (args, out) for the biases and tables,
// (args, q, k, q_out, k_out) for the query+key, cached and M-RoPE functions, (args, cache) for the
// cache builder, (args, q, k, v, out, lse) for attention (x3 = v). Returns the function's return code (-1 for an unknown fn).
int invoke(const KernelTable& t, Fn fn, const void* args, const void* x, void* y, const void* x2, void* y2,
           const void* x3 = nullptr);

// Resolves the pec_* symbols of a library opened with dlopen (every function of the header).
KernelTable resolve(void* handle);

}  // namespace pecheck::verifier
