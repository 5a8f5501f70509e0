// report.html: one self-contained page (inline CSS and SVG, no scripts, no external
// resources). The first screen holds the verdict, the functions tested with their grades and
// failures, and one line for what did not run; then each failure compactly (hint, failing
// element, arguments, inputs, reproduce line; a plot only where it informs); then the checks
// that ran, with details folded.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "report/accuracy.hpp"
#include "report/svg_plot.hpp"
#include "report/write.hpp"

namespace pecheck::report {

namespace {

constexpr const char* kStyle = R"(
body{font-family:sans-serif;margin:2em;max-width:72em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}
th{background:#f2f2f2}.pass{color:#080}.fail,.error,.timeout,.unknown,.incomplete{color:#b00;font-weight:bold}
.skipped{color:#777}pre{background:#f6f6f6;padding:.5em;overflow-x:auto}
.hint{background:#fff6d6;border-left:4px solid #e0b000;padding:.3em .6em}.message{font-weight:bold}
.cx th{width:9em;vertical-align:top}.meta{color:#555}details{margin:.6em 0}summary{cursor:pointer;color:#335}
section{border-top:1px solid #ddd;margin-top:1.5em}code{background:#f2f2f2;padding:0 3px}
)";

std::string esc(std::string_view s) { return xml_escape(s); }

std::string status_span(CheckStatus s) {
  return fmt::format(R"(<span class="{0}">{0}</span>)", to_string(s));
}

void plot_html(std::string& o, const CheckResult& c) {
  if (c.series.empty()) return;
  std::vector<PlotSeries> ps;
  PlotOptions opt;
  opt.title = c.name + ": error against position";
  opt.log_x = true;
  opt.log_y = true;
  opt.y_label = c.series.front().unit == "contract" ? "error / budget" : "error (ULP)";
  for (const auto& s : c.series) {
    PlotSeries p;
    p.label = s.label;
    for (const auto& pt : s.points) p.points.emplace_back(pt.position, pt.error);
    ps.push_back(std::move(p));
    if (s.budget) opt.hlines.push_back({*s.budget, "budget " + format_real(*s.budget)});
  }
  o += "<figure>" + svg_line_plot(opt, ps) + "</figure>\n";
}

void counterexample_html(std::string& o, const Counterexample& cx) {
  o += "<p class=\"message\">" + esc(cx.message) + "</p>\n";
  for (const auto& n : cx.notes) {
    if (n.starts_with("hint: ")) o += "<p class=\"hint\">" + esc(n) + "</p>\n";
  }
  o += "<table class=\"cx\">\n";
  if (cx.worst) o += "<tr><th>failing element</th><td>" + esc(worst_text(cx)) + "</td></tr>\n";
  if (!cx.args.empty()) o += "<tr><th>arguments</th><td><code>" + esc(args_text(cx.args)) + "</code></td></tr>\n";
  if (!cx.inputs.empty()) o += "<tr><th>inputs</th><td><code>" + esc(inputs_text(cx.inputs)) + "</code></td></tr>\n";
  std::string call = "<code>" + esc(cx.function) + "</code>";
  if (cx.return_code) call += fmt::format(", returned {}", *cx.return_code);
  if (cx.signal) call += fmt::format(", killed by signal {}", *cx.signal);
  call += fmt::format(" · {} ({}) · {} shrink step(s)", esc(cx.clause), esc(cx.kind), cx.shrink_steps);
  o += "<tr><th>call</th><td>" + call + "</td></tr>\n";
  if (!cx.reproduce.empty()) o += "<tr><th>reproduce</th><td><code>" + esc(cx.reproduce) + "</code></td></tr>\n";
  o += "</table>\n";
  std::string other;
  for (const auto& n : cx.notes) {
    if (!n.starts_with("hint: ")) other += "<li>" + esc(n) + "</li>";
  }
  if (!other.empty()) o += "<ul>" + other + "</ul>\n";
  bool long_inputs = false;
  for (const auto& t : cx.inputs) long_inputs = long_inputs || !t.values.empty() || !t.listed();
  if (long_inputs) {  // every value, decimal and hex: bit-exact replay by hand
    o += "<details><summary>inputs in full (index, decimal, hex)</summary>\n";
    for (const auto& t : cx.inputs) {
      std::string dims;
      for (auto d : t.shape) dims += fmt::format("[{}]", d);
      if (!t.listed()) {
        o += fmt::format("<p><code>{}</code>{}: {}</p>\n", esc(t.name), dims, esc(t.omitted_note()));
        continue;
      }
      o += fmt::format("<p><code>{}</code>{}</p><pre>", esc(t.name), dims);
      for (std::size_t i = 0; i < t.values.size(); ++i) {
        o += fmt::format("{:>6}  {:>16}  {}\n", i, esc(format_real(t.values[i])), esc(format_hex(t.values[i])));
      }
      o += "</pre>\n";
    }
    o += "</details>\n";
  }
}

std::string join(const std::vector<std::string>& xs) {
  std::string out;
  for (std::size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + xs[i];
  return out;
}

// Whether an error-against-position plot says anything: at least two positions with a finite,
// nonzero error, none beyond a million bounds. A crash, a stray write, a wrong value or an
// all-zero error series gives spikes or a flat line.
bool plot_informs(const CheckResult& c) {
  if (c.series.empty()) return false;
  if (c.counterexample && c.counterexample->kind != "mismatch") return false;
  std::vector<double> xs;
  for (const auto& s : c.series) {
    for (const auto& pt : s.points) {
      if (std::isfinite(pt.error) && pt.error > 0) xs.push_back(pt.position);
      // An error a million times the bound is a wrong value (a swapped pairing, a stray read),
      // not a precision that drifts with the position: its plot is spikes that say nothing.
      if (s.unit == "contract" && std::isfinite(pt.error) && pt.error > 1e6) return false;
    }
  }
  std::sort(xs.begin(), xs.end());
  return std::unique(xs.begin(), xs.end()) - xs.begin() >= 2;
}

// The tightest class a function's oracle check met, and the option that pins it.
std::string grade_cell(const std::vector<const CheckResult*>& checks) {
  for (const CheckResult* c : checks) {
    if (!c->accuracy || c->accuracy->grades.empty()) continue;
    const Accuracy& a = *c->accuracy;
    for (const auto& g : a.grades) {
      if (g.met()) {
        return "meets <b>" + esc(g.name) + "</b> (" + esc(format_real(g.max_units)) + " of its bound)" +
               (a.pin.empty() ? std::string() : "<br><code>" + esc(a.pin) + "</code>");
      }
    }
    return "<span class=\"fail\">meets no class</span> (judged: " + esc(a.accuracy_class) + ")";
  }
  return "-";
}

std::string anchor(const std::string& name) {
  return fmt::format("<a href=\"#{0}\">{0}</a>", esc(name));
}

}  // namespace

std::string render_html(const VerifyResult& r) {
  const std::string verdict(r.verdict());
  std::string upper = verdict;
  for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  o += "<title>pecheck verify: " + upper + " " + esc(r.kernel) + "</title>\n";
  o += std::string("<style>") + kStyle + "</style></head><body>\n";
  // The first screen (issue 22): the verdict, the functions tested with their grades and
  // failures, and one line for everything that did not run; then each failure, compact; the
  // passing checks and the run's details after that.
  o += fmt::format("<h1>pecheck verify: <span class=\"{}\">{}</span></h1>\n", r.passed() ? "pass" : "fail", upper);
  o += "<p class=\"verdict\">" + esc(r.verdict_sentence()) + "</p>\n";
  o += fmt::format("<p class=\"meta\">Kernel <code>{}</code> · seed {} · {} s</p>\n", esc(r.kernel), r.options.seed,
                   esc(fmt::format("{:.2f}", r.seconds)));

  // Functions tested: every function with a check that ran, in the order of the checks.
  std::vector<std::string> functions;
  std::vector<std::vector<const CheckResult*>> by_fn;
  for (const auto& c : r.checks) {
    if (c.status == CheckStatus::Skipped) continue;
    auto it = std::find(functions.begin(), functions.end(), c.function);
    if (it == functions.end()) {
      functions.push_back(c.function);
      by_fn.emplace_back();
      it = functions.end() - 1;
    }
    by_fn[static_cast<std::size_t>(it - functions.begin())].push_back(&c);
  }
  o += "<h2>Functions tested</h2>\n";
  if (functions.empty()) {
    o += "<p>None: no check ran.</p>\n";
  } else {
    o += "<table class=\"functions\"><tr><th>function</th><th>checks</th><th>accuracy grade</th><th>failures</th></tr>\n";
    for (std::size_t i = 0; i < functions.size(); ++i) {
      std::int64_t pass = 0;
      std::string failures;
      for (const CheckResult* c : by_fn[i]) {
        if (c->status == CheckStatus::Pass) {
          ++pass;
        } else {
          failures += (failures.empty() ? "" : "<br>") + anchor(c->name) + " " + status_span(c->status);
          if (c->counterexample) failures += " <code>" + esc(c->counterexample->clause) + "</code>";
        }
      }
      o += fmt::format("<tr><td><code>{}</code></td><td>{} of {} pass</td><td>{}</td><td>{}</td></tr>\n",
                       esc(functions[i]), pass, by_fn[i].size(), grade_cell(by_fn[i]), failures.empty() ? "none" : failures);
    }
    o += "</table>\n";
  }

  // Everything that did not run, folded into one line.
  std::int64_t not_exported = 0, hygiene = 0, batch = 0, deselected = 0, other = 0;
  for (const auto& c : r.checks) {
    if (c.status != CheckStatus::Skipped) continue;
    if (std::find(r.missing.begin(), r.missing.end(), c.function) != r.missing.end()) ++not_exported;
    else if (c.reason.starts_with("argument hygiene")) ++hygiene;
    else if (c.reason.starts_with("batch invariance")) ++batch;
    else if (c.reason.starts_with("not selected")) ++deselected;
    else ++other;
  }
  std::vector<std::string> parts;
  if (not_exported > 0) {
    parts.push_back(fmt::format("{} checks of the {} functions not exported", not_exported, r.missing.size()));
  }
  if (hygiene > 0) parts.push_back(fmt::format("{} argument-hygiene checks (tier B: <code>--strict</code>)", hygiene));
  if (batch > 0) parts.push_back(fmt::format("{} batch-invariance checks (<code>--strict</code>)", batch));
  if (deselected > 0) parts.push_back(fmt::format("{} checks not selected by <code>--only</code>", deselected));
  if (other > 0) parts.push_back(fmt::format("{} other skipped checks (reasons in the table below)", other));
  if (!parts.empty()) {
    std::string line;
    for (std::size_t i = 0; i < parts.size(); ++i) line += (i ? "; " : "") + parts[i];
    o += "<p class=\"skipped\">Not run: " + line + ".</p>\n";
  }

  // Each check that did not pass, compact.
  for (const auto& c : r.checks) {
    if (c.status == CheckStatus::Pass || c.status == CheckStatus::Skipped) continue;
    o += fmt::format("<section id=\"{0}\"><h2>{0}: {1}</h2>\n", esc(c.name), status_span(c.status));
    o += fmt::format("<p>{} — clause <code>{}</code>, function <code>{}</code>, {} case(s){}.</p>\n", esc(c.description),
                     esc(c.clause), esc(c.function), c.cases,
                     c.planned > 0 ? fmt::format(" of {} planned", c.planned) : std::string());
    if (!c.reason.empty()) o += "<p>Reason: " + esc(c.reason) + "</p>\n";
    if (c.counterexample) counterexample_html(o, *c.counterexample);
    if (plot_informs(c)) plot_html(o, c);
    if (c.accuracy) {
      o += "<details><summary>accuracy of the run</summary>\n";
      accuracy_html(o, c);
      o += "</details>\n";
    }
    o += "</section>\n";
  }

  // The checks that ran and passed, then their details, folded.
  o += "<h2>Checks that ran</h2>\n<table><tr><th>check</th><th>clause</th><th>status</th><th>cases</th>"
       "<th>max ULP (storage type)</th><th>seconds</th></tr>\n";
  for (const auto& c : r.checks) {
    if (c.status == CheckStatus::Skipped) continue;
    o += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3f}</td></tr>\n",
                     c.status == CheckStatus::Pass ? esc(c.name) : anchor(c.name), esc(c.clause), status_span(c.status),
                     c.cases, c.max_ulps ? esc(format_real(*c.max_ulps)) : "-", c.seconds);
  }
  o += "</table>\n";
  bool any_detail = false;
  for (const auto& c : r.checks) {
    if (c.status != CheckStatus::Pass || !(c.accuracy || plot_informs(c))) continue;
    if (!any_detail) o += "<details><summary>accuracy and error plots of the passing checks</summary>\n";
    any_detail = true;
    o += fmt::format("<section id=\"{0}\"><h3>{0}</h3>\n", esc(c.name));
    accuracy_html(o, c);
    if (plot_informs(c)) plot_html(o, c);
    o += "</section>\n";
  }
  if (any_detail) o += "</details>\n";

  o += "<details><summary>run details and skipped checks</summary>\n<table>\n";
  o += "<tr><td>kernel</td><td><code>" + esc(r.kernel) + "</code></td></tr>\n";
  o += "<tr><td>ABI version</td><td>" +
       (r.abi_version ? std::to_string(*r.abi_version) : std::string("not exported")) + "</td></tr>\n";
  o += fmt::format("<tr><td>seed</td><td>{}</td></tr>\n", r.options.seed);
  o += fmt::format("<tr><td>max position</td><td>{}</td></tr>\n", r.options.max_position);
  o += "<tr><td>contract</td><td>" + esc(r.options.contract) + "</td></tr>\n";
  o += "<tr><td>budget (s)</td><td>" + esc(format_real(r.options.budget_seconds)) + "</td></tr>\n";
  if (!r.options.only.empty()) o += "<tr><td>only</td><td>" + esc(join(r.options.only)) + "</td></tr>\n";
  if (!r.options.shard.empty()) o += "<tr><td>shard</td><td>" + esc(r.options.shard) + "</td></tr>\n";
  o += "<tr><td>exported</td><td>" + esc(r.exported.empty() ? "none" : join(r.exported)) + "</td></tr>\n";
  o += "<tr><td>not exported</td><td>" + esc(r.missing.empty() ? "none" : join(r.missing)) + "</td></tr>\n";
  o += "<tr><td>time (s)</td><td>" + esc(format_real(r.seconds)) + "</td></tr>\n";
  o += "</table>\n";
  for (const auto& n : r.notes) o += "<p>Note: " + esc(n) + "</p>\n";
  std::string skipped;
  for (const auto& c : r.checks) {
    if (c.status == CheckStatus::Skipped) skipped += (skipped.empty() ? "" : ", ") + esc(c.name);
  }
  if (!skipped.empty()) o += "<p>Skipped: " + skipped + "</p>\n";
  o += "</details>\n</body></html>\n";
  return o;
}

}  // namespace pecheck::report
