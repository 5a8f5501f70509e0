// The check framework: a check generates cases from (seed, name, index), evaluates each through
// the kernel, and on the first failure shrinks the case and records a counterexample.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "oracle/format.hpp"
#include "report/result.hpp"
#include "verify/checks/accuracy.hpp"
#include "verify/gen/domain.hpp"
#include "verify/v1/cases.hpp"
#include "verify/isolation/run.hpp"
#include "verify/verify.hpp"
#include "verify/isolation/worker.hpp"

namespace pecheck::verifier {

struct Failure {
  std::string clause;
  std::string kind;
  std::string message;
  std::optional<report::WorstElement> worst;
  std::optional<int> return_code;
  std::optional<int> signal;
  std::vector<std::string> notes;
};

// What evaluation functions see: the executor, the options, and statistics of passing cases.
struct Ctx {
  Executor& ex;
  const VerifyOptions& opt;
  bool record = true;           // false while shrinking
  std::int64_t elements = 0;
  double max_ulps = -1;
  std::map<std::int64_t, double> series;  // position -> largest error in contract units
  std::vector<std::string> notes;         // e.g. ambiguous T5 boundaries met
  AccuracyTrack acc;                      // oracle checks: every class, worst case, profile
  std::int64_t case_index = 0;            // the case being evaluated (for the worst case)
  const Domain* domain = nullptr;         // the declared domain (verify/domain.hpp), if any

  bool softmax() const { return opt.contract == "softmax"; }
  void observe(std::int64_t position, double ulps, double units);
  void note(const std::string& s);
};

template <class Case>
struct CheckDef {
  std::string name, clause, description;
  Fn fn;
  std::int64_t cases = 100;
  std::function<Case(Rng&, const GenParams&)> generate;
  std::function<std::optional<Failure>(Ctx&, const Case&)> evaluate;
  bool grade_all = false;  // oracle checks: run every case even after a wrong value (accuracy)
  bool valid_cases = true; // generates valid calls: kept inside the declared domain
  // Guard pages around the inputs (CaseCommon::placement bits 2, 3), by case index: kSomeGuarded
  // puts them after the inputs in one case of three and before them in another (reads past
  // either end of an input fault, ABI-GEN-4); kAllGuarded in every case, alternating (tier A
  // rejections: harm is a touch outside what the call describes); kNoGuards never.
  int guards = 1;
  // Shrinking evaluations at most (0: check_impl.hpp's default); production-size checks, whose
  // every evaluation is a large call and its oracle, shrink only a few steps.
  std::int64_t max_shrink_evals = 0;
  // The case count scales down to none (cases x --case-scale rounded half down) instead of at
  // least one: a quick run (--case-scale <= 1/(2 cases)) skips the check, saying so (.large).
  bool may_scale_to_none = false;
  // Shrinking candidates of a case (empty: shrink_candidates, the family's cases.hpp).
  std::function<std::vector<Case>(const Case&)> candidates = {};
};
inline constexpr int kNoGuards = 0, kSomeGuarded = 1, kAllGuarded = 2;
// Shrinking evaluations of the production-size (.large) checks: each is a call of 10^5 elements
// and its oracle; a size-gated failure stops shrinking where the size falls below its gate.
inline constexpr std::int64_t kLargeShrinkEvals = 16;

// The placement bits of the guard pages of case `index` under CheckDef::guards.
inline std::int32_t guard_placement(int guards, std::int64_t index, std::int32_t placement) {
  if (guards == 2) return (index % 2 == 0) ? 8 : 4;
  if (guards == 1 && (placement & 2) == 0) return index % 3 == 1 ? 4 : index % 3 == 2 ? 8 : 0;
  return 0;
}

struct CorpusEntry;  // verify/corpus.hpp

// A type-erased check, ready to run.
struct AnyCheck {
  std::string name, clause, description;
  Fn fn;
  std::function<report::CheckResult(Ctx&)> run;  // the run's time cap is the Executor's
  std::function<std::int64_t(const VerifyOptions&)> planned;  // generated cases the options plan
  // Evaluates one stored corpus case (verify/corpus_replay.hpp); nullopt when it passes.
  std::function<std::optional<Failure>(Ctx&, const CorpusEntry&)> replay;
  bool strict_only = false;  // tier B rejection requirement, batch invariance: runs under --strict only
  // A strict-only check that also runs without --strict when --only names it by a selector
  // containing `opt_in_part` (".batch": `--only rope.batch`, `--only .batch`; spec/abi.md
  // ABI-BATCH-1). Empty: --strict only.
  std::string opt_in_part;
  std::string skip_reason;  // why it is skipped without --strict (opt-in checks)
};

// The failure of a valid call that did not return 0: a crash, abort, exit or hang (ABI-GEN-7)
// or a non-zero status (ABI-GEN-2). nullopt when the call returned 0.
std::optional<Failure> call_failure(Fn fn, const RunResult& r);

// An invalid call the kernel accepted (returned 0; spec/abi.md ABI-GEN-8). Under --strict every
// acceptance fails (tier B). Without it, only harm shown fails (tier A): a non-empty call
// (`nonempty`) after which the kernel was seen touching memory the call must not touch
// (`harm`, in words: a write outside its outputs or into an input; a read or write at a guard
// page ends the call by SIGSEGV instead and is judged as a crash). nullopt: it passes.
std::optional<Failure> accepted_invalid(const VerifyOptions& o, bool nonempty, const std::string& harm,
                                        const std::string& sym, const std::string& why, const std::string& clause);

// Report location of a flat output index.
report::WorstElement locate(const RopeCase& c, std::int64_t flat);
report::WorstElement locate(const AlibiCase& c, std::int64_t flat);
report::WorstElement locate(const T5Case& c, std::int64_t flat);
report::WorstElement locate(const SinusoidalCase& c, std::int64_t flat);
report::WorstElement locate(const LearnedCase& c, std::int64_t flat);

// Checks every ABI function gets: rejections, bounds, completeness, determinism.
template <class Case>
void add_generic_checks(std::vector<AnyCheck>& out, Fn fn, const std::string& domain_clause,
                        std::function<Case(Rng&, const GenParams&)> gen,
                        std::function<Case(Rng&, const GenParams&, int)> gen_invalid, bool write_only);

template <class Case>
AnyCheck make_check(CheckDef<Case> def);

// The checks of one function of a version 1 family, in any storage type (ABI-STORE-2): `fn` is
// its float32, bf16 or f16 function; check names start with check_prefix(fn).
void add_rope_checks(std::vector<AnyCheck>& out, Fn fn = Fn::Rope);
void add_alibi_checks(std::vector<AnyCheck>& out, Fn fn = Fn::Alibi);
void add_t5_checks(std::vector<AnyCheck>& out, Fn fn = Fn::T5);
void add_sinusoidal_checks(std::vector<AnyCheck>& out, Fn fn = Fn::Sinusoidal);
void add_learned_checks(std::vector<AnyCheck>& out, Fn fn = Fn::Learned);
void add_mrope_checks(std::vector<AnyCheck>& out);  // pec_mrope_*, every storage type (rope_v2/checks_mrope.cpp)
void add_rope_qk_checks(std::vector<AnyCheck>& out);  // rope_qk, rope_cached, rope_cache, every storage type (rope_v2/checks_rope_qk.cpp)

double now_seconds();  // monotonic clock

// The error in ULPs (of the storage format; float32 by default) of the larger of |exact| and `scale`, the magnitude the result is
// formed from (RoPE |xa| + |xb|, sinusoidal 1, ALiBi |bias|, |score|): the yardstick of the
// "max ULP" statistic, which an output near zero by cancellation would otherwise inflate
// (3e8 "ULPs" for an error at the inputs' rounding level). Not a pass criterion.
double scale_ulps(double actual, double exact, double scale, Storage s = Storage::F32);

// The oracle's format of a storage type, and its name in messages ("float32", "bf16", "f16").
oracle::Format storage_format(Storage s);
std::string dtype_label(Storage s);

}  // namespace pecheck::verifier
