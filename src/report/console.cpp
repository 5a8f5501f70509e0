// The terminal summary of `pecheck verify` and the compact forms of a counterexample it shares
// with report.html (issue 22): arguments with enum names, inputs on one line, the failing
// element with one error-unit story (class units, absolute error, ULPs of the storage type).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/accuracy.hpp"
#include "report/write.hpp"

namespace pecheck::report {

// Enum arguments by name (spec/pecheck_kernel.h): `layout=neox`, not `layout=0`.
namespace {

std::string arg_text(const Arg& a) {
  if (const auto* v = std::get_if<std::int64_t>(&a.value)) {
    static const std::vector<std::pair<std::string, std::vector<std::string>>> kEnums = {
        {"layout", {"neox", "gptj"}},
        {"mode", {"symmetric", "causal"}},
        {"mrope_layout", {"sectioned", "interleaved"}},
        {"cache_dtype", {"f32", "bf16", "f16"}},
        {"bidirectional", {"false", "true"}}};
    for (const auto& [name, values] : kEnums) {
      if (a.name == name && *v >= 0 && *v < static_cast<std::int64_t>(values.size())) {
        return a.name + "=" + values[static_cast<std::size_t>(*v)];
      }
    }
  }
  // A long list (a production-size case's positions) on a terminal: its first values and its
  // length; report.md and report.json list every value.
  if (const auto* xs = std::get_if<std::vector<std::int64_t>>(&a.value); xs && xs->size() > 32) {
    std::string v;
    for (std::size_t i = 0; i < 16; ++i) v += (i ? ", " : "") + std::to_string((*xs)[i]);
    return a.name + "=[" + v + fmt::format(", ... ({} values)]", xs->size());
  }
  return a.name + "=" + format_arg(a.value);
}

std::string join(const std::vector<std::string>& xs, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < xs.size(); ++i) out += (i ? std::string(sep) : "") + xs[i];
  return out;
}

}  // namespace

// The arguments of a shrunk case on one line. A NULL inv_freq is the default (theta_base's
// frequencies) and is not shown; nor is a generator note about an inv_freq table the shrinker
// has since removed.
std::string args_text(const std::vector<Arg>& args) {
  bool null_inv_freq = false;
  for (const auto& a : args) null_inv_freq |= a.name == "inv_freq" && std::holds_alternative<std::monostate>(a.value);
  std::string s;
  for (const auto& a : args) {
    if (a.name == "inv_freq" && null_inv_freq) continue;
    if (a.name == "generator" && null_inv_freq && format_arg(a.value).find("inv_freq") != std::string::npos) continue;
    s += (s.empty() ? "" : ", ") + arg_text(a);
  }
  return s;
}

// Input tensors compactly: `k=[0, 0, 0, 1]` (the first 16 values and a count past that; every
// value in decimal and hex is in report.md).
std::string inputs_text(const std::vector<Tensor>& inputs) {
  std::string s;
  for (const auto& t : inputs) {
    std::string v;
    const std::size_t n = t.values.size(), shown = std::min<std::size_t>(n, 16);
    for (std::size_t i = 0; i < shown; ++i) v += (i ? ", " : "") + fmt::format("{:.6g}", static_cast<double>(t.values[i]));
    if (n > shown) v += fmt::format(", ... ({} values)", n);
    if (t.omitted > 0) v = fmt::format("{} values, not listed in the report", t.omitted);
    s += (s.empty() ? "" : "; ") + t.name + "=[" + v + "]";
  }
  return s;
}

// The storage type a function stores ("bf16" for pec_rope_qk_bf16): ULPs are of that type.
std::string storage_of(const std::string& function) {
  if (function.ends_with("_bf16")) return "bf16";
  if (function.ends_with("_f16")) return "fp16";
  return "float32";
}

// The failing element in one line (issue 22's one error-unit story): where it is, the exact
// expected value and the actual one, then the error in class units first, the absolute error,
// and the ULPs of the storage type, labelled; no ULP figure where the exact value is 0 (every
// nonzero value is "infinitely many" ULPs of 0), no figures at all for a NaN, and a
// determinism failure as the two values the two calls gave.
std::string worst_text(const Counterexample& cx) {
  const WorstElement& w = *cx.worst;
  std::string where = w.output;
  if (!w.index.empty()) {
    where += "[";
    for (std::size_t i = 0; i < w.index.size(); ++i) {
      where += (i ? ", " : "") + (i < w.index_names.size() ? w.index_names[i] + "=" : "") + std::to_string(w.index[i]);
    }
    where += "]";
  }
  if (w.position) where += fmt::format(" (position {})", *w.position);
  if (w.output == "score") {  // a shift check: the kernel's score before and after the shift
    std::string s = fmt::format("at {}: before the shift {}, after {}", where, format_real(w.expected), format_real(w.actual));
    if (std::isfinite(w.contract_units) && w.contract_units > 0) s += "; " + format_real(w.contract_units) + " x the bound";
    return s;
  }
  if (cx.kind == "nondeterministic") {
    return fmt::format("at {}: first call {}, second call {}", where, format_real(w.expected), format_real(w.actual));
  }
  std::string s = fmt::format("at {}: expected {} (exact), actual {}", where, format_real(w.expected), format_real(w.actual));
  if (std::isnan(w.actual)) return s + " (not a number)";
  std::string err;
  // Class units are error / bound; where the exact value is 0 from zero operands its bound is ~0
  // and the ratio (1e38 and more) says nothing: the absolute error stands alone.
  const bool zero_bound = w.expected == 0 && w.contract_units > 1e20;
  if (!zero_bound && std::isfinite(w.contract_units) && w.contract_units > 0) {
    err = format_real(w.contract_units) + " x the bound";
  }
  if (std::isfinite(w.abs_error) && w.abs_error > 0) err += (err.empty() ? "" : ", ") + std::string("|error| ") + format_real(w.abs_error);
  if (w.expected != 0 && std::isfinite(w.expected) && std::isfinite(w.ulps) && w.ulps > 0) {
    err += (err.empty() ? "" : ", ") + format_real(w.ulps) + " ulp of " + storage_of(cx.function);
  }
  return err.empty() ? s : s + "; " + err;
}

std::string render_text(const VerifyResult& r) {
  std::string o;
  std::size_t name_width = 28;  // long check names widen the column instead of breaking it
  for (const auto& c : r.checks) name_width = std::max(name_width, c.name.size() + 1);
  for (const auto& c : r.checks) {
    // Checks of functions the library does not export are summarised by one line below.
    if (c.status == CheckStatus::Skipped &&
        std::find(r.missing.begin(), r.missing.end(), c.function) != r.missing.end()) {
      continue;
    }
    // Deselected, tier-B and batch-invariance checks are summarised by one line each below.
    if (c.status == CheckStatus::Skipped && (c.reason.starts_with("not selected") || c.reason.starts_with("argument hygiene") ||
                                             c.reason.starts_with("batch invariance"))) {
      continue;
    }
    o += fmt::format("  {:<10} {:<{}} {:<16} {:>8} cases", to_string(c.status), c.name, name_width, c.clause, c.cases);
    if (!c.reason.empty()) o += "  (" + c.reason + ")";
    o += "\n";
    if (c.counterexample) {
      const auto& cx = *c.counterexample;
      const std::string ind = "             ";
      o += ind + cx.message + "\n";
      if (!cx.args.empty()) o += ind + "args: " + args_text(cx.args) + "\n";
      if (!cx.inputs.empty()) o += ind + "inputs: " + inputs_text(cx.inputs) + "\n";
      if (cx.worst) o += ind + worst_text(cx) + "\n";
      for (const auto& n : cx.notes) {
        if (n.starts_with("hint: ")) o += ind + n + "\n";
      }
      if (!cx.reproduce.empty()) o += ind + "reproduce: " + cx.reproduce + "\n";
    }
    accuracy_text(o, c);
  }
  if (!r.missing.empty()) o += "  not exported (their checks skipped): " + join(r.missing, ", ") + "\n";
  std::int64_t deselected = 0, hygiene = 0, batch = 0;
  for (const auto& c : r.checks) {
    if (c.status != CheckStatus::Skipped) continue;
    deselected += c.reason.starts_with("not selected");
    hygiene += c.reason.starts_with("argument hygiene");
    batch += c.reason.starts_with("batch invariance");
  }
  if (deselected > 0) o += fmt::format("  {} checks not selected by --only\n", deselected);
  if (hygiene > 0) {
    o += fmt::format("  {} argument-hygiene checks (tier B, spec/abi.md ABI-GEN-8) not run: --strict runs them\n", hygiene);
  }
  if (batch > 0) {
    o += fmt::format("  {} batch-invariance checks (spec/abi.md ABI-BATCH-1) not run: --strict or --only .batch runs them\n",
                     batch);
  }
  for (const auto& n : r.notes) {
    if (n.starts_with("declared domain: ")) o += "  " + n + "\n";
  }
  o += fmt::format("verdict: {} ({} pass, {} fail, {} skipped, {} undecided/error, {} incomplete) in {} s\n",
                   r.verdict(), r.count(CheckStatus::Pass), r.count(CheckStatus::Fail), r.count(CheckStatus::Skipped),
                   r.count(CheckStatus::Unknown) + r.count(CheckStatus::Timeout) + r.count(CheckStatus::Error),
                   r.count(CheckStatus::Incomplete), fmt::format("{:.2f}", r.seconds));
  if (r.count(CheckStatus::Incomplete) > 0) o += r.verdict_sentence() + "\n";
  return o;
}

}  // namespace pecheck::report
