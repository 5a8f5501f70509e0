// Shared between solver.cpp and the two back ends; not part of the library's interface.
#pragma once

#include "proofs/solver.hpp"

namespace pecheck::proofs {
std::string solver_version_z3();
std::string solver_version_cvc5();
}  // namespace pecheck::proofs
