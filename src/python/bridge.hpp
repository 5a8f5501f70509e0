// The Python side of a kernel under test (docs/python.md): a Python object whose callables,
// named after the pec_* functions without the prefix (rope_qk_bf16, alibi_bias_f32, ...), take
// the argument struct as a Python object (types.SimpleNamespace) and the tensors as numpy arrays
// that VIEW the verifier's own buffers with the ABI's shapes and strides (16-bit tensors as
// uint16 bit patterns), and return the status (an int; None counts as 0).
//
// bind() fills a KernelTable with C trampolines that call those callables; a raised exception
// becomes KernelTable::failure's text (CallOutcome::Kind::Raised). Used by the Python provider
// (provider.cpp, pecheck verify --python) and by the pecheck module (module.cpp). The GIL: the
// trampolines run in a worker process forked from a process whose one thread holds it (the fork
// server, or the Python program that called pecheck.verify); the first call in a new process
// runs PyOS_AfterFork_Child and limits torch to one intra-op thread (fork + thread pools).
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "verify/isolation/kernel_table.hpp"

namespace pecheck::python {

// Binds `obj` (one object per process at a time). Throws std::invalid_argument when it has
// none of the callables.
KernelTable bind(const pybind11::object& obj);

// Drops the bound object.
void unbind();

// The declared domain of the bound object (its `domain` attribute: text or a callable returning
// it, spec/abi.md ABI-DOM-1), "" when it has none.
std::string domain_of(const pybind11::object& obj);

}  // namespace pecheck::python
