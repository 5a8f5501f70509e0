// Proving a kernel's per-pair arithmetic against the spec — the public entry point for kernel
// engineers (see examples/proof_kernel/).
//
// Write the arithmetic once, as a function template on the number type T that uses only
// + - * and unqualified `ffma(a, b, c)`:
//
//   template <class T>
//   void my_rotate(const T& xa, const T& xb, const T& c, const T& s, T& ya, T& yb);
//
// and hand a generic lambda calling it to prove_rope_rotation(). pecheck instantiates it with
// SymFloat (binary32 terms: the solvers see exactly your operation sequence) and with MutFloat
// (hardware float arithmetic, for the concrete replay of any counterexample), and compares it
// bit for bit with the spec's float32 evaluation of ROPE-ROT-1 / ABI-ROPE-2:
//   ya = fl(fl(xa*c) - fl(xb*s)),  yb = fl(fl(xb*c) + fl(xa*s))     (no FMA)
// for every input (NaN, infinities, subnormals, signed zeros included). The result is a proof,
// or a counterexample with the differing inputs as hex floats, the two outputs, the ULP
// distance and the exact value — replayed on real float arithmetic before it is reported.
#pragma once

#include <cmath>
#include <functional>
#include <string>

#include "proofs/claims.hpp"

namespace pecheck::proofs {

// float with hardware IEEE arithmetic; honours the active Mutation (SignFlip turns a - b into
// a + b) so that a mutant's counterexample replays on the same mutated operation sequence.
struct MutFloat {
  float v = 0;
  MutFloat() = default;
  MutFloat(float x) : v(x) {}  // NOLINT
  friend MutFloat operator+(MutFloat a, MutFloat b) { return MutFloat(a.v + b.v); }
  friend MutFloat operator-(MutFloat a, MutFloat b) {
    return MutFloat(active_mutation() == Mutation::SignFlip ? a.v + b.v : a.v - b.v);
  }
  friend MutFloat operator*(MutFloat a, MutFloat b) { return MutFloat(a.v * b.v); }
  friend MutFloat operator-(MutFloat a) { return MutFloat(-a.v); }
  friend MutFloat ffma(MutFloat a, MutFloat b, MutFloat c) { return MutFloat(std::fmaf(a.v, b.v, c.v)); }
};

struct RotationUnderTest {
  std::string name;          // claim name, e.g. "kernel.rope-rotate-f32"
  std::string clause;        // e.g. "ABI-ROPE-2, ROPE-ROT-1"
  std::string description;
  Answer expected = Answer::Proved;
  Term ya, yb;               // the symbolic outputs (inputs: fp_var xa, xb, c, s in binary32)
  std::function<void(float, float, float, float, float&, float&)> concrete;
  // Search only realistic inputs: finite x, cos and sin in [-1, 1], finite results. Used for
  // the claims meant to fail, so that their counterexamples are ones a kernel would meet.
  bool realistic = false;
  bool ieee_normalize = false;  // see Query::ieee_normalize
};

// Runs the comparison (cvc5 decides; Z3 runs too with canonical operand order).
ClaimResult check_rotation(const RotationUnderTest& r);

// The spec's float32 evaluation of one rotation (ROPE-ROT-1, in the reference's order).
template <class T>
void spec_rotate(const T& xa, const T& xb, const T& c, const T& s, T& ya, T& yb) {
  ya = xa * c - xb * s;
  yb = xb * c + xa * s;
}

template <class F>
ClaimResult prove_rope_rotation(const std::string& name, F&& rotate,
                                Answer expected = Answer::Proved,
                                const std::string& clause = "ABI-ROPE-2, ROPE-ROT-1",
                                bool ieee_normalize = false) {
  const bool swapped = active_mutation() == Mutation::SwappedPair;  // PROOF-MUT-2
  const SymFloat xa = SymFloat::var("xa", Sort::f32()), xb = SymFloat::var("xb", Sort::f32());
  const SymFloat c = SymFloat::var("c", Sort::f32()), s = SymFloat::var("s", Sort::f32());
  SymFloat ya, yb;
  if (swapped) rotate(xb, xa, c, s, yb, ya);
  else rotate(xa, xb, c, s, ya, yb);
  RotationUnderTest r;
  r.name = name;
  r.clause = clause;
  r.description = "per-pair rotation equals the spec's float32 evaluation for all inputs";
  r.expected = expected;
  r.realistic = expected == Answer::Counterexample;
  r.ieee_normalize = ieee_normalize;
  r.ya = ya.term();
  r.yb = yb.term();
  r.concrete = [rotate, swapped](float a, float b, float cc, float ss, float& oa, float& ob) {
    MutFloat ra, rb;
    if (swapped) rotate(MutFloat(b), MutFloat(a), MutFloat(cc), MutFloat(ss), rb, ra);
    else rotate(MutFloat(a), MutFloat(b), MutFloat(cc), MutFloat(ss), ra, rb);
    oa = ra.v;
    ob = rb.v;
  };
  return check_rotation(r);
}

}  // namespace pecheck::proofs
