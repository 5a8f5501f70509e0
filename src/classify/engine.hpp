// The classification engine behind `pecheck classify` (spec/README.md, CLASSIFY-1..3).
//
// A Subject is an encoding as a score function of one random model instance: given an instance
// seed it returns s(m, n) with the magnitude term of MODEL-TOL-1. The engine runs three
// properties on it — shift invariance, swap symmetry and softmax-row shift invariance — and
// derives depends_on and softmax_row_invariant from their outcomes, with shrunk witnesses.
// Nothing is looked up in a table: a broken subject gets a different verdict.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pecheck::classify {

// One evaluated score, in double: the value (may be -infinity where masked) and the magnitude
// term M of MODEL-TOL-1 for this score.
struct Score {
  double value = 0;
  double magnitude = 0;
};

using Scorer = std::function<Score(std::int64_t m, std::int64_t n)>;

// Positions with several axes (M-RoPE's (t, h, w), spec/rope.md ROPE-MROPE-1).
using Position3 = std::array<std::int64_t, 3>;
using Scorer3 = std::function<Score(const Position3& m, const Position3& n)>;

// One random model instance of an encoding: its score function and a one-line description of
// the drawn configuration (dimensions, parameters), printed with witnesses.
struct Instance {
  Scorer score;
  // The same instance (configuration, projections, tables) with other token embeddings: how the
  // score reacts to a change of content tells where the position enters (CLASSIFY-4).
  Scorer score_other_content;
  std::string config;
  // Subjects with 3-axis positions (Subject::axes == 3): the score at (t, h, w) positions; the
  // 1-D `score` is then the text-token score, t = h = w (ROPE-MROPE-4).
  Scorer3 score3;
  // Optional regime of a pair (CLASSIFY-6): LongRoPE's factor table, Llama 4's chunk
  // membership. When the shift property fails, a second one draws only shifts that keep the
  // regime; if it holds, the score is offset-only within a regime.
  std::function<std::int64_t(std::int64_t m, std::int64_t n)> regime;
};

struct Subject {
  std::string name;                                   // e.g. "rope-neox-yarn"
  std::string family;                                 // sinusoidal | learned | t5 | rope | alibi
  std::int64_t max_position = std::int64_t{1} << 31;  // positions lie in [0, max_position)
  // A fresh random model instance (embeddings, projections, tables, config) for a seed.
  std::function<Instance(std::uint64_t instance_seed)> instance;
  // 3: positions are (t, h, w) triples and the shift property shifts each axis by its own
  // amount (CLASSIFY-5); 1: scalar positions.
  int axes = 1;
  // 3-axis subjects of `classify --kernel` (CLASSIFY-9): when the vector shift holds, one
  // axis-free property per axis tells which axes enter at all, so that a kernel rotating every
  // pair by the t row is "Δt only", not "the offset vector (Δt, Δh, Δw)".
  bool report_axes = false;
  // Non-empty when the instances define a regime (Instance::regime, CLASSIFY-6): what the
  // score is a function of when the regime-shift property holds.
  std::string regime_function_of;
};

// A concrete counterexample to a property, after shrinking.
struct Witness {
  // "shift", "swap", "softmax-row", "additive-bias", "diagonal", "position-free",
  // "regime-shift", "key-free", "query-free" or "vector-shift", "logit-scale",
  // "axis-free:t", "axis-free:h", "axis-free:w"
  std::string property;
  std::uint64_t instance_seed = 0;
  std::string config;           // the instance's configuration
  std::int64_t m1 = 0, n1 = 0;  // first pair (query, key)
  std::int64_t m2 = 0, n2 = 0;  // second pair
  double s1 = 0, s2 = 0;        // scores (softmax-row: the probabilities that differ)
  double tolerance = 0;
  int shrink_steps = 0;
  std::string detail;  // vector-shift, axis-free: the (t, h, w) positions; else empty
};

struct PropertyRun {
  std::string property;
  std::int64_t cases = 0;  // cases run (up to and including the first failure)
  std::optional<Witness> witness;
};

struct Classification {
  std::string name, family;
  std::string applied_at;  // input | qk-rotation | logits | logit-scale | none
  std::string depends_on;  // positions | offset | abs-offset | none
  // What the score is a function of, in words derived from the runs (CLASSIFY-5..7):
  // "n - m", "|n - m|", "(Δt, Δh, Δw)", "n - m within one <regime>", "m only", "n only",
  // "m and n", "neither position".
  std::string function_of;
  bool softmax_row_invariant = false;
  std::int64_t cases = 0;          // total cases over all properties run
  std::optional<Witness> witness;  // the shift-invariance witness (null when invariant)
  std::vector<PropertyRun> evidence;
};

struct EngineOptions {
  std::uint64_t seed = 1;
  std::int64_t shift_cases = 2000;
  std::int64_t swap_cases = 1000;
  std::int64_t softmax_cases = 1000;
  std::int64_t applied_cases = 500;
  int softmax_keys = 6;  // keys per softmax row
};

// The three properties, usable alone (tests) and by classify().
PropertyRun run_shift_property(const Subject& s, const EngineOptions& o);
PropertyRun run_swap_property(const Subject& s, const EngineOptions& o);
PropertyRun run_softmax_row_property(const Subject& s, const EngineOptions& o);
// CLASSIFY-4: s_A(m,n) - s_B(m,n) independent of (m, n) for two contents A, B (a pure logit bias).
PropertyRun run_additive_bias_property(const Subject& s, const EngineOptions& o);
// CLASSIFY-4: s(m, m) independent of m (query and key rotated alike cancel).
PropertyRun run_diagonal_property(const Subject& s, const EngineOptions& o);
// CLASSIFY-8: s_A(m1,n1) s_B(m2,n2) = s_A(m2,n2) s_B(m1,n1) for two contents A, B: the position
// only multiplies the logit by a content-independent factor (Llama 4's temperature tuning).
PropertyRun run_logit_scale_property(const Subject& s, const EngineOptions& o);
// CLASSIFY-7: s(m1, n1) = s(m2, n2) for every two unmasked pairs (n <= m): no position at all.
PropertyRun run_position_free_property(const Subject& s, const EngineOptions& o);
// CLASSIFY-5: s(m, n) = s(m + c, n + c) with a shift vector c of one component per axis.
PropertyRun run_vector_shift_property(const Subject& s, const EngineOptions& o);
// CLASSIFY-9 (3-axis subjects with report_axes): s(m, n) = s(m', n') where m', n' differ from
// m, n only in axis `axis` (0 t, 1 h, 2 w) and the offset along it changed: the axis does not enter.
PropertyRun run_axis_free_property(const Subject& s, const EngineOptions& o, int axis);
// CLASSIFY-6: the shift property over shifts that keep Subject::regime.
PropertyRun run_regime_shift_property(const Subject& s, const EngineOptions& o);
// CLASSIFY-7: s(m, n) = s(m, n') (key-free) / s(m, n) = s(m', n) (query-free) over unmasked
// pairs: the score depends on one position only.
PropertyRun run_key_free_property(const Subject& s, const EngineOptions& o);
PropertyRun run_query_free_property(const Subject& s, const EngineOptions& o);

Classification classify(const Subject& s, const EngineOptions& o);

// The built-in subjects: every encoding and variant of spec/, built on src/reference in double.
std::vector<Subject> builtin_subjects();

}  // namespace pecheck::classify
