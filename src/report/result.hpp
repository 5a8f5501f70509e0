// The result of verifying a kernel: one structure filled by the verify engine and shared by
// the `pecheck verify` command, the in-process C++ API (`pecheck::verify`), the proofs command
// (its counterexamples are reported in this format) and the CI corpus.
//
// Every report writer (JSON, Markdown, HTML+SVG, JUnit) reads only this structure, so what
// the CLI prints, what the files say and what a user's GoogleTest sees cannot disagree.
//
// Statuses are a closed type. "Could not decide" (Unknown, Timeout) and "could not run"
// (Error) are distinct from Pass and never count as passing: a run passes only when every
// check that ran passed (see VerifyResult::verdict()).
//
// Values may be NaN, infinite, huge or negative. The structure stores them as they are; the
// writers encode them (JSON: non-finite numbers as the strings "nan", "inf", "-inf";
// XML/HTML: escaped text). See src/report/README.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/verdict.hpp"

namespace pecheck::report {

// Outcome of one check. JSON spelling in parentheses.
enum class CheckStatus {
  Pass,     // (pass)    every case ran and passed
  Fail,     // (fail)    a counterexample was found (wrong value, crash, hang, bad write, ...)
  Skipped,  // (skipped) not run: the function is not exported, or --only deselected it
  Unknown,  // (unknown) ran but could not decide (e.g. budget exhausted before any case)
  Timeout,  // (timeout) a time limit stopped it before a decision
  Error,    // (error)   pecheck could not run it (internal or environment failure)
  Incomplete,  // (incomplete) the run's time cap cut it short: `cases` of `planned` ran, all passed
};

std::string_view to_string(CheckStatus s);
std::optional<CheckStatus> check_status_from_string(std::string_view s);
// The closed verdict type of src/core: Pass->Pass, Fail->Counterexample, Unknown->Unknown,
// Timeout->Timeout, Error->Error, Incomplete->Timeout (the cap stopped it). Skipped has no
// verdict (nullopt).
std::optional<Verdict> to_verdict(CheckStatus s);
CheckStatus from_verdict(Verdict v);

// One value of an ABI argument. Integers stay exact (int64); reals are stored as double
// (every float is exactly representable); lists keep their order.
using ArgValue = std::variant<std::monostate,              // null (e.g. inv_freq == NULL)
                              std::int64_t,                // n_tokens, layout, ...
                              double,                      // theta_base, position_scale, ...
                              std::string,                 // symbolic names, e.g. "neox"
                              std::vector<std::int64_t>,   // positions, q_pos, k_pos
                              std::vector<double>>;        // inv_freq, table (float values)

// A named argument. `name` is the ABI field name (spec/pecheck_kernel.h), e.g. "rotary_dim".
struct Arg {
  std::string name;
  ArgValue value;
};

// A float input buffer of the failing call (x for RoPE, the initial scores for ALiBi, ...).
// Writers print each value in decimal (%.9g) and as a hex float (%a), so it replays bit-exact.
struct Tensor {
  std::string name;                 // "x", "scores", "table"
  std::vector<std::int64_t> shape;  // e.g. {n_tokens, n_heads, head_dim}
  std::vector<float> values;        // row-major
  // Values a report file lists at most per tensor (report.json, .md, .html): a production-size
  // witness (the .large checks, 2^15+ elements; the ordinary cases stay at 16,384) is described
  // by its shape, and its reproduce
  // line regenerates it; the console shows the first values of any tensor.
  static constexpr std::size_t kMaxListed = 16384;
  std::size_t omitted = 0;  // read back from a report that did not list them: their count
  bool listed() const { return omitted == 0 && values.size() <= kMaxListed; }
  std::size_t count() const { return omitted > 0 ? omitted : values.size(); }
  std::string omitted_note() const;  // "x: 98304 values, not listed (over 16384); ..."
};

// The element of the output where the kernel is furthest from the oracle.
struct WorstElement {
  std::string output;                     // buffer name: "y", "scores", "bias", "out"
  std::vector<std::int64_t> index;        // multi-index into the output's shape
  std::vector<std::string> index_names;   // e.g. {"token", "head", "lane"}
  std::int64_t flat_index = 0;            // row-major offset
  std::optional<std::int64_t> position;   // the token / query position there, when meaningful
  double expected = 0;                    // oracle value rounded to float32
  double actual = 0;                      // what the kernel wrote
  double abs_error = 0;                   // |actual - exact|
  double ulps = 0;                        // float32 ULP distance (spec/contracts.md)
  double contract_units = 0;              // error / budget: > 1 violates the contract
};

struct Counterexample {
  std::string clause;       // spec clause violated, e.g. "ABI-ROPE-4"
  std::string kind;         // short tag: mismatch, crash, hang, nonzero-return, out-of-bounds,
                            // unwritten, nondeterministic, accepted-invalid, property, nan
  std::string message;      // one line a kernel engineer reads first
  std::string function;     // ABI function, e.g. "pec_rope_f32"
  std::vector<Arg> args;    // shrunk arguments under their ABI field names, in ABI order
  std::vector<Tensor> inputs;
  std::optional<WorstElement> worst;  // absent for crashes, hangs, rejected calls, ...
  std::optional<int> return_code;     // what the kernel returned, when it returned
  std::optional<int> signal;          // the signal that killed the worker (SIGSEGV = 11, ...)
  std::string reproduce;              // one line: pecheck verify ... --seed N --only CHECK
  std::vector<std::string> notes;     // e.g. "ambiguous: both T5 buckets 7 and 8 accepted at ..."
  std::int64_t shrink_steps = 0;      // successful shrink steps from the first failure found
};

// One point of the error-against-position plot: the largest error over the elements at
// that position (in ULPs or contract units, see ErrorSeries::unit).
struct SeriesPoint {
  double position = 0;
  double error = 0;
};

struct ErrorSeries {
  std::string label;                 // legend, e.g. "max |err| over heads and lanes"
  std::string unit = "ulp";          // "ulp" or "contract" (1 = the budget)
  std::vector<SeriesPoint> points;   // any order; writers sort by position
  std::optional<double> budget;      // the contract line drawn on the plot, in `unit`
};

// Accuracy of an oracle check (issue "Verdicts that hold on real kernels"; spec/contracts.md,
// "Accuracy classes"): the run's error in units of every accuracy class of the scheme, the run's
// worst element with its full case, and the error per position octave. Evidence from the cases
// run, never a proof.
struct ClassGrade {
  std::string name;       // class = budgets.tsv variant, e.g. "powf"
  double max_units = 0;   // largest error over every compared element, in this class's bound
  bool met() const { return max_units <= 1.0; }
};

struct WorstCase {
  WorstElement element;             // in units of the chosen class (contract_units)
  std::vector<Arg> args;            // the whole case, as for counterexamples
  std::vector<Tensor> inputs;
  std::int64_t case_index = 0;      // case i of the seed (replay with --case i)
  std::string reproduce;
};

struct OctaveRow {
  std::int64_t octave = -1;         // positions in [2^octave, 2^(octave+1)); -1: position 0
  double max_units = 0;             // chosen class units
  double max_ulps = 0;
  std::optional<double> position_error;  // RoPE: max error at the fastest pair / its angular
                                         // step, in positions (>= 0.5: p and p+1 blur)
  std::int64_t elements = 0;
};

struct Accuracy {
  std::string accuracy_class;       // the class the verdict used
  std::vector<ClassGrade> grades;   // tightest first (the scheme's class order)
  std::string pin;                  // option that pins the tightest class met with margin (worst <= 0.8
                                    // of its bound), "" when none
  std::optional<WorstCase> worst;
  std::vector<OctaveRow> profile;   // increasing octaves
  std::optional<std::int64_t> largest_position;   // largest position tested
  std::optional<std::int64_t> resolved_up_to;     // RoPE: every tested position <= this has
                                                  // position_error < 0.5
  std::vector<std::pair<std::string, std::int64_t>> class_held_up_to;  // class -> largest tested
                                                  // position up to which every element met it
};

struct CheckResult {
  std::string name;        // stable id used by --only, e.g. "rope.oracle"
  std::string scheme;      // rope | alibi | t5 | sinusoidal | learned | abi
  std::string function;    // ABI function checked, e.g. "pec_rope_f32"
  std::string clause;      // the spec clause the check establishes
  std::string description; // one sentence: what the check asserts
  CheckStatus status = CheckStatus::Skipped;
  std::string reason;      // why skipped / unknown / timeout / error (empty for pass/fail)
  std::int64_t cases = 0;     // generated calls that ran
  std::int64_t planned = 0;   // cases the seed and options plan for this check (0: not recorded)
  std::int64_t elements = 0;  // output elements compared
  double seconds = 0;
  std::optional<double> max_ulps;  // largest error seen over passing cases, when measured
  std::optional<Counterexample> counterexample;  // present iff status == Fail
  std::vector<ErrorSeries> series;               // for the plot; may be empty
  std::optional<Accuracy> accuracy;              // oracle checks that measured elements
};

// The options the run used, echoed so that a report replays.
struct RunOptions {
  std::uint64_t seed = 0;
  double budget_seconds = 0;
  std::int64_t max_position = 0;
  std::string contract = "logits";      // logits | softmax
  std::vector<std::string> only;        // --only CHECK (empty: all)
  std::string shard;                    // "I/N" or empty
  std::vector<std::pair<std::string, std::string>> extra;  // anything else, in order (accuracy
                                                           // classes, strict, declared domain)
};

struct VerifyResult {
  std::string tool_version;          // PECHECK_VERSION of the writer
  std::string kernel;                // path as given, or "<in-process>" for the C++ API
  std::optional<int> abi_version;    // pec_abi_version() when exported
  RunOptions options;
  std::vector<std::string> exported;  // pec_* functions found
  std::vector<std::string> missing;   // ABI functions not exported (their checks are skipped)
  std::vector<CheckResult> checks;
  double seconds = 0;
  std::vector<std::string> notes;     // run-level notes (e.g. "corpus: 3 cases replayed")

  // Pass iff no check has status Fail, Unknown, Timeout, Error or Incomplete. A run in which
  // every check was skipped passes vacuously; callers that need coverage also check ran() > 0.
  bool passed() const;
  // "pass" | "fail" | "incomplete" — the top-level `verdict` of report.json. "incomplete": no
  // check failed or errored, but the time cap cut at least one short.
  std::string_view verdict() const;
  // One sentence: the verdict, and which checks are incomplete (with cases run of planned).
  std::string verdict_sentence() const;
  std::int64_t ran() const;          // checks with status other than Skipped
  std::int64_t count(CheckStatus s) const;
  const CheckResult* find(std::string_view check_name) const;
  // Exit status of `pecheck verify` for this result (src/core/verdict.hpp): ok when passed(),
  // incomplete (5) when verdict() is "incomplete" (nothing failed, but a check was cut short),
  // counterexample (1) otherwise (a check that could not decide or could not run is not a pass).
  int exit_status() const;
};

// Formats used by all writers, exposed for tests and for the CLI's text output.
std::string format_real(double v);   // "%.9g", or "nan" / "inf" / "-inf"
std::string format_hex(double v);    // "%a", or "nan" / "inf" / "-inf"
std::string format_hex(float v);     // "%a" of the float (exact), specials as above
std::string format_arg(const ArgValue& v);  // one-line text, lists as [a, b, ...]

}  // namespace pecheck::report
