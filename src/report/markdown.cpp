// report.md and the terminal summary.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "report/accuracy.hpp"
#include "report/write.hpp"

namespace pecheck::report {

namespace {

std::string opt_real(const std::optional<double>& v) { return v ? format_real(*v) : "-"; }

std::string join(const std::vector<std::string>& xs, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < xs.size(); ++i) out += (i ? std::string(sep) : "") + xs[i];
  return out;
}

// Inline code that survives any content: a backtick run longer than any inside.
std::string code(std::string_view s) {
  std::string clean = utf8_sanitize(s);
  for (char& c : clean) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::size_t longest = 0, run = 0;
  for (char c : clean) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(longest + 1, '`');
  return fence + " " + clean + " " + fence;
}

void counterexample_md(std::string& o, const CheckResult& c, const Counterexample& cx) {
  o += fmt::format("### {} — {} ({})\n\n", markdown_cell(c.name), markdown_cell(cx.clause),
                   markdown_cell(cx.kind));
  o += markdown_cell(cx.message) + "\n\n";
  if (!cx.reproduce.empty()) o += "Reproduce:\n\n```sh\n" + utf8_sanitize(cx.reproduce) + "\n```\n\n";
  o += fmt::format("Function {}", code(cx.function));
  if (cx.return_code) o += fmt::format(", returned {}", *cx.return_code);
  if (cx.signal) o += fmt::format(", killed by signal {}", *cx.signal);
  o += fmt::format(", {} shrink step(s).\n\n", cx.shrink_steps);
  if (!cx.args.empty()) {
    o += "| argument | value |\n|---|---|\n";
    for (const auto& a : cx.args) {
      o += fmt::format("| {} | {} |\n", markdown_cell(a.name), markdown_cell(format_arg(a.value)));
    }
    o += "\n";
  }
  for (const auto& t : cx.inputs) {
    std::vector<std::string> dims;
    for (auto d : t.shape) dims.push_back(std::to_string(d));
    o += fmt::format("Input `{}` [{}] (decimal, hex):\n\n```\n", markdown_cell(t.name), join(dims, "]["));
    for (std::size_t i = 0; i < t.values.size(); ++i) {
      o += fmt::format("{:>6}  {:>16}  {}\n", i, format_real(t.values[i]), format_hex(t.values[i]));
    }
    o += "```\n\n";
  }
  if (cx.worst) {
    const auto& w = *cx.worst;
    std::vector<std::string> idx;
    for (std::size_t i = 0; i < w.index.size(); ++i) {
      idx.push_back((i < w.index_names.size() ? w.index_names[i] + "=" : "") + std::to_string(w.index[i]));
    }
    o += "| worst element | |\n|---|---|\n";
    o += fmt::format("| output | {}[{}] (flat {}) |\n", markdown_cell(w.output), markdown_cell(join(idx, ", ")),
                     w.flat_index);
    if (w.position) o += fmt::format("| position | {} |\n", *w.position);
    o += fmt::format("| expected (oracle) | {} ({}) |\n", format_real(w.expected), format_hex(w.expected));
    o += fmt::format("| actual (kernel) | {} ({}) |\n", format_real(w.actual), format_hex(w.actual));
    o += fmt::format("| abs error | {} |\n", format_real(w.abs_error));
    o += fmt::format("| error (ULP) | {} |\n", format_real(w.ulps));
    o += fmt::format("| error (contract units; >1 violates) | {} |\n\n", format_real(w.contract_units));
  }
  for (const auto& n : cx.notes) o += "- Note: " + markdown_cell(n) + "\n";
  if (!cx.notes.empty()) o += "\n";
}

}  // namespace

std::string render_markdown(const VerifyResult& r) {
  std::string verdict(r.verdict());
  for (auto& ch : verdict) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  std::string o = fmt::format("# pecheck verify: {}\n\n{}\n\n", verdict, markdown_cell(r.verdict_sentence()));
  o += fmt::format("- Kernel: {}\n", code(r.kernel));
  o += fmt::format("- ABI version: {}\n", r.abi_version ? std::to_string(*r.abi_version) : "not exported");
  o += fmt::format("- Seed: {} · max position: {} · contract: {} · budget: {} s\n", r.options.seed,
                   r.options.max_position, markdown_cell(r.options.contract),
                   format_real(r.options.budget_seconds));
  if (!r.options.only.empty()) o += "- Only: " + markdown_cell(join(r.options.only, ", ")) + "\n";
  if (!r.options.shard.empty()) o += "- Shard: " + markdown_cell(r.options.shard) + "\n";
  o += "- Exported: " + (r.exported.empty() ? "none" : markdown_cell(join(r.exported, ", "))) + "\n";
  o += "- Not exported: " + (r.missing.empty() ? "none" : markdown_cell(join(r.missing, ", "))) + "\n";
  o += fmt::format("- Checks: {} pass, {} fail, {} skipped, {} unknown, {} timeout, {} error, {} incomplete · {} s\n",
                   r.count(CheckStatus::Pass), r.count(CheckStatus::Fail), r.count(CheckStatus::Skipped),
                   r.count(CheckStatus::Unknown), r.count(CheckStatus::Timeout), r.count(CheckStatus::Error),
                   r.count(CheckStatus::Incomplete), format_real(r.seconds));
  for (const auto& n : r.notes) o += "- Note: " + markdown_cell(n) + "\n";
  o += "\n| check | scheme | clause | status | cases | max ULP | seconds | reason |\n";
  o += "|---|---|---|---|---:|---:|---:|---|\n";
  for (const auto& c : r.checks) {
    o += fmt::format("| {} | {} | {} | **{}** | {} | {} | {} | {} |\n", markdown_cell(c.name),
                     markdown_cell(c.scheme), markdown_cell(c.clause), to_string(c.status), c.cases,
                     opt_real(c.max_ulps), fmt::format("{:.3f}", c.seconds), markdown_cell(c.reason));
  }
  bool any = false;
  for (const auto& c : r.checks) {
    if (!c.counterexample) continue;
    if (!any) o += "\n## Counterexamples\n\n";
    any = true;
    counterexample_md(o, c, *c.counterexample);
  }
  accuracy_markdown(o, r);
  return o;
}

std::string render_text(const VerifyResult& r) {
  std::string o;
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
    o += fmt::format("  {:<8} {:<28} {:<16} {:>8} cases", to_string(c.status), c.name, c.clause, c.cases);
    if (!c.reason.empty()) o += "  (" + c.reason + ")";
    o += "\n";
    if (c.counterexample) {
      const auto& cx = *c.counterexample;
      o += "           " + cx.message + "\n";
      if (!cx.args.empty()) {
        std::string args;
        for (const auto& a : cx.args) args += (args.empty() ? "" : ", ") + a.name + "=" + format_arg(a.value);
        o += "           args: " + args + "\n";
      }
      if (cx.worst) {
        o += fmt::format("           expected {} actual {} ({} ULP, {} x budget)\n", format_real(cx.worst->expected),
                         format_real(cx.worst->actual), format_real(cx.worst->ulps),
                         format_real(cx.worst->contract_units));
      }
      if (!cx.reproduce.empty()) o += "           reproduce: " + cx.reproduce + "\n";
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
