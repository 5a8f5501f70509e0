// report.md (the terminal summary is report/console.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

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
    if (!t.listed()) {
      o += fmt::format("Input `{}` [{}]: {}\n\n", markdown_cell(t.name), join(dims, "]["), t.omitted_note());
      continue;
    }
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
    o += fmt::format("| expected (exact) | {} ({}) |\n", format_real(w.expected), format_hex(w.expected));
    o += fmt::format("| actual (kernel) | {} ({}) |\n", format_real(w.actual), format_hex(w.actual));
    o += fmt::format("| abs error | {} |\n", format_real(w.abs_error));
    // No ULP figure where the exact value is 0 (or not finite): every other value is "infinitely
    // many" ULPs of it. ULPs are of the function's storage type.
    if (w.expected != 0 && std::isfinite(w.expected) && std::isfinite(w.ulps)) {
      o += fmt::format("| error (ULP of {}) | {} |\n", storage_of(cx.function), format_real(w.ulps));
    }
    o += fmt::format("| error (class units; >1 violates) | {} |\n\n", format_real(w.contract_units));
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
  o += "\n| check | scheme | clause | status | cases | max ULP (storage type, at the operands' magnitude) | seconds | reason |\n";
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

}  // namespace pecheck::report
