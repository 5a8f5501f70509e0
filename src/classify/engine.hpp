// The classification engine behind `pecheck classify` (spec/README.md, CLASSIFY-1..3).
//
// A Subject is an encoding as a score function of one random model instance: given an instance
// seed it returns s(m, n) with the magnitude term of MODEL-TOL-1. The engine runs three
// properties on it — shift invariance, swap symmetry and softmax-row shift invariance — and
// derives depends_on and softmax_row_invariant from their outcomes, with shrunk witnesses.
// Nothing is looked up in a table: a broken subject gets a different verdict.
#pragma once

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

// One random model instance of an encoding: its score function and a one-line description of
// the drawn configuration (dimensions, parameters), printed with witnesses.
struct Instance {
  Scorer score;
  // The same instance (configuration, projections, tables) with other token embeddings: how the
  // score reacts to a change of content tells where the position enters (CLASSIFY-4).
  Scorer score_other_content;
  std::string config;
};

struct Subject {
  std::string name;                                   // e.g. "rope-neox-yarn"
  std::string family;                                 // sinusoidal | learned | t5 | rope | alibi
  std::int64_t max_position = std::int64_t{1} << 31;  // positions lie in [0, max_position)
  // A fresh random model instance (embeddings, projections, tables, config) for a seed.
  std::function<Instance(std::uint64_t instance_seed)> instance;
};

// A concrete counterexample to a property, after shrinking.
struct Witness {
  std::string property;  // "shift", "swap", "softmax-row", "additive-bias" or "diagonal"
  std::uint64_t instance_seed = 0;
  std::string config;           // the instance's configuration
  std::int64_t m1 = 0, n1 = 0;  // first pair (query, key)
  std::int64_t m2 = 0, n2 = 0;  // second pair
  double s1 = 0, s2 = 0;        // scores (softmax-row: the probabilities that differ)
  double tolerance = 0;
  int shrink_steps = 0;
};

struct PropertyRun {
  std::string property;
  std::int64_t cases = 0;  // cases run (up to and including the first failure)
  std::optional<Witness> witness;
};

struct Classification {
  std::string name, family, applied_at;
  std::string depends_on;  // positions | offset | abs-offset
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

Classification classify(const Subject& s, const EngineOptions& o);

// The built-in subjects: every encoding and variant of spec/, built on src/reference in double.
std::vector<Subject> builtin_subjects();

}  // namespace pecheck::classify
