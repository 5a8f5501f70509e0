// Internal to pecheck_classify_kernel: the state the kernel subjects share and the version 2
// subject factories (kernel_subjects_v2.cpp). Not installed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "classify/generators.hpp"
#include "classify/kernel_subjects.hpp"
#include "reference/tolerance.hpp"
#include "verify/gen/domain.hpp"
#include "verify/isolation/kernel_table.hpp"
#include "verify/isolation/worker.hpp"

namespace pecheck::classify {

struct KernelSubjects::State {
  verifier::Executor ex;
  KernelSubjectOptions opt;
  verifier::Domain domain;
  std::uint32_t mask = 0;  // the exported functions (bit i: verifier::kAllFns[i])
  // Caches written by the library's own builder, by (storage, rows, rotary_dim, theta_base):
  // built once, copied into the arena for every call (kernel_subjects_v2.cpp).
  std::map<std::tuple<int, std::int64_t, std::int64_t, double>, std::shared_ptr<const std::vector<unsigned char>>>
      built_caches;
  State(const std::string& path, verifier::ExecutorConfig cfg, KernelSubjectOptions o)
      : ex(path, cfg), opt(std::move(o)) {}
  bool exports(verifier::Fn fn) const {
    for (std::size_t i = 0; i < verifier::kAllFns.size(); ++i)
      if (verifier::kAllFns[i] == fn) return (mask >> i) & 1u;
    return false;
  }
};

namespace kernel_detail {

using State = KernelSubjects::State;

// The engine compares two scores within shift_tolerance(Ma + Mb) = K u_64 (Ma + Mb) (MODEL-TOL-1).
// A kernel's score carries its own absolute bound e (the float32 contract): the magnitude whose
// tolerance is e, so that the engine's comparison is |sa - sb| <= ea + eb.
inline double magnitude_for(double abs_bound) {
  return abs_bound / (reference::kShiftBudgetUnits * reference::unit_roundoff<double>());
}

[[noreturn]] inline void call_failed(verifier::Fn fn, const verifier::CallOutcome& o) {
  throw KernelCallError(std::string(verifier::symbol(fn)) + " " + o.describe() +
                        " on a valid call: classify cannot measure it (run `pecheck verify` on the library)");
}

// A value from the declared list, else one in [lo, hi] (even when asked).
inline std::int64_t pick(Rng& r, const std::vector<std::int64_t>& allowed, std::int64_t lo, std::int64_t hi,
                         bool even) {
  if (!allowed.empty()) return allowed[static_cast<std::size_t>(r.range(0, static_cast<std::int64_t>(allowed.size()) - 1))];
  std::int64_t v = r.range(lo, hi);
  if (even) v -= v % 2;
  return std::max(lo, v);
}

// Version 2 subjects (kernel_subjects_v2.cpp).
Subject rope_qk_subject(const std::shared_ptr<State>& st, verifier::Storage sto);
// One per M-RoPE layout (0 sectioned, 1 interleaved): <q_out(token 0), k_out(token 1)> at
// position triples (Subject::axes == 3).
Subject mrope_subject(const std::shared_ptr<State>& st, verifier::Storage sto, std::int32_t mrope_layout);
// <q_out(m), k_out(n)> rotated from a cos/sin cache: the library's own builder when it exports
// the one of the storage type, else a correctly rounded cache built by pecheck.
Subject rope_cached_subject(const std::shared_ptr<State>& st, verifier::Storage sto);

// pec_attention_* (kernel_subjects_attn.cpp): one subject per storage type and encoding inside
// (PEC_ATTN_*); `variant` is the ALiBi form (PEC_ATTN_ALIBI_*) or T5's bidirectional flag.
Subject attention_subject(const std::shared_ptr<State>& st, verifier::Storage sto, std::int32_t encoding,
                          std::int32_t variant);

}  // namespace kernel_detail

}  // namespace pecheck::classify
