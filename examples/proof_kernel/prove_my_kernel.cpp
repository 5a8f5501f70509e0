// Worked example: prove a kernel's per-pair RoPE arithmetic against the spec with pecheck.
//
// my_rope_arith.hpp holds the arithmetic, written once and templated on the number type; the
// kernel uses it with float (or a SIMD vector type), and this program hands the very same
// template to pecheck::proofs, which instantiates it with a symbolic binary32 type and asks
// Z3 and cvc5 whether it equals the spec's float32 evaluation for EVERY input.
//
//   build:  cmake --build build --target prove_my_kernel
//   run:    build/examples/proof_kernel/prove_my_kernel    (exit 0: both results as expected)
#include <cstdio>

#include "my_rope_arith.hpp"
#include "proofs/kernel_check.hpp"

using pecheck::proofs::Answer;

namespace {
bool report(const pecheck::proofs::ClaimResult& r) {
  std::printf("%-22s %-15s (expected %s)\n", r.name.c_str(),
              std::string(pecheck::proofs::to_string(r.verdict)).c_str(),
              std::string(pecheck::proofs::to_string(r.expected)).c_str());
  if (r.counterexample) std::printf("  %s\n", r.counterexample->message.c_str());
  return r.as_expected();
}
}  // namespace

int main() {
  // 1. The plain version: every product and sum rounded, in the spec's order -> proved.
  const auto plain = pecheck::proofs::prove_rope_rotation(
      "my_rotate",
      [](const auto& xa, const auto& xb, const auto& c, const auto& s, auto& ya, auto& yb) {
        my_kernel::my_rotate(xa, xb, c, s, ya, yb);
      });
  // 2. The FMA version: one rounding fewer -> the solver returns inputs where it differs,
  //    replayed on this machine's fmaf before it is printed.
  const auto fused = pecheck::proofs::prove_rope_rotation(
      "my_rotate_fma",
      [](const auto& xa, const auto& xb, const auto& c, const auto& s, auto& ya, auto& yb) {
        my_kernel::my_rotate_fma(xa, xb, c, s, ya, yb);
      },
      Answer::Counterexample);
  const bool ok = report(plain) & report(fused);
  return ok ? 0 : 1;
}
