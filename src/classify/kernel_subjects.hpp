// `pecheck classify --kernel LIB.so`: the functions a kernel library exports as classification
// subjects (spec/README.md CLASSIFY-9), so that the engine's properties — shift invariance, swap
// symmetry, softmax-row invariance, additive bias, diagonal — measure what the library's scores
// are really a function of, with the same shrunk witnesses as for the built-in encodings.
//
// Every score is formed from the kernel's own outputs, called through pecheck verify's isolated
// executor (a fork server loads the library once; kernel code never runs in pecheck's process):
//   RoPE (pec_rope_f32):      s(m, n) = <y_q, y_k>, y the kernel's rotations of q at m and k at n
//                             (one call, two tokens), q, k random float32 head vectors;
//   RoPE q+k, cached (v2):    s(m, n) = <q_out(token 0), k_out(token 1)> from one call of
//                             pec_rope_qk_* / pec_rope_cached_* (the cache from the library's own
//                             pec_rope_cache_* when exported, else pecheck's correctly rounded one);
//   M-RoPE (pec_mrope_*):     the same score at (t, h, w) triples, one subject per M-RoPE layout,
//                             shifted by a vector (CLASSIFY-5) with one axis-free run per axis;
//   ALiBi, T5 (biases):       s(m, n) = c + bias(q_pos = m, k_pos = n) with a content term c;
//   sinusoidal, learned:      s(m, n) = <Wq (xq + P[m]), Wk (xk + P[n])> with P the kernel's rows;
//   attention (pec_attention_*): S(m, n) = log(out0 / out1) = s(m, n) - s(m, m) from one call, a
//                             query at m over a key at n (value e0) and one at m (value e1), one
//                             subject per encoding inside (kernel_subjects_attn.cpp).
// Tolerances are the contracts of verify (spec/contracts.md) for the function's storage type: a
// kernel within its accuracy class is never called position-dependent because of its rounding.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "classify/engine.hpp"

namespace pecheck::classify {

struct KernelSubjectOptions {
  std::int64_t max_position = 131072;  // positions drawn in [0, max_position]
  double call_timeout_seconds = 1.0;
  std::string rope_class = "field";    // accuracy class behind the RoPE score tolerance
};

// A loaded library and the subjects of the functions it exports. The subjects share one
// executor and must not outlive the returned object.
class KernelSubjects {
 public:
  // Throws pecheck::UsageError with a one-line reason when the library cannot be loaded or
  // exports no function classify can measure.
  KernelSubjects(const std::string& library_path, const KernelSubjectOptions& o);
  ~KernelSubjects();
  KernelSubjects(const KernelSubjects&) = delete;
  KernelSubjects& operator=(const KernelSubjects&) = delete;

  const std::vector<Subject>& subjects() const { return subjects_; }
  // Exported functions classify does not measure (listed in the output).
  const std::vector<std::string>& not_measured() const { return not_measured_; }

  struct State;

 private:
  std::shared_ptr<State> state_;
  std::vector<Subject> subjects_;
  std::vector<std::string> not_measured_;
};

// Thrown from a subject's score function when the kernel does not complete a valid call (a
// crash, hang, non-zero return): the classification of that function cannot be decided.
struct KernelCallError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace pecheck::classify
