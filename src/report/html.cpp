// report.html: one self-contained page (inline CSS and SVG, no scripts, no external
// resources) with the summary, an error-against-position plot per check and every
// counterexample.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

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
  o += fmt::format("<h3>Counterexample: {} ({})</h3>\n<p>{}</p>\n", esc(cx.clause), esc(cx.kind), esc(cx.message));
  if (!cx.reproduce.empty()) o += "<p>Reproduce:</p><pre>" + esc(cx.reproduce) + "</pre>\n";
  o += "<p>Function <code>" + esc(cx.function) + "</code>";
  if (cx.return_code) o += fmt::format(", returned {}", *cx.return_code);
  if (cx.signal) o += fmt::format(", killed by signal {}", *cx.signal);
  o += fmt::format(", {} shrink step(s).</p>\n", cx.shrink_steps);
  if (!cx.args.empty()) {
    o += "<table><tr><th>argument</th><th>value</th></tr>\n";
    for (const auto& a : cx.args) {
      o += fmt::format("<tr><td><code>{}</code></td><td>{}</td></tr>\n", esc(a.name), esc(format_arg(a.value)));
    }
    o += "</table>\n";
  }
  for (const auto& t : cx.inputs) {
    std::string dims;
    for (auto d : t.shape) dims += fmt::format("[{}]", d);
    o += fmt::format("<p>Input <code>{}</code>{} (index, decimal, hex)</p><pre>", esc(t.name), dims);
    for (std::size_t i = 0; i < t.values.size(); ++i) {
      o += fmt::format("{:>6}  {:>16}  {}\n", i, esc(format_real(t.values[i])), esc(format_hex(t.values[i])));
    }
    o += "</pre>\n";
  }
  if (cx.worst) {
    const auto& w = *cx.worst;
    std::string idx;
    for (std::size_t i = 0; i < w.index.size(); ++i) {
      idx += (i ? ", " : "") + (i < w.index_names.size() ? w.index_names[i] + "=" : "") + std::to_string(w.index[i]);
    }
    o += "<table><tr><th colspan=\"2\">worst element</th></tr>\n";
    o += fmt::format("<tr><td>output</td><td><code>{}[{}]</code> (flat {})</td></tr>\n", esc(w.output), esc(idx),
                     w.flat_index);
    if (w.position) o += fmt::format("<tr><td>position</td><td>{}</td></tr>\n", *w.position);
    o += fmt::format("<tr><td>expected (oracle)</td><td>{} <code>{}</code></td></tr>\n", esc(format_real(w.expected)),
                     esc(format_hex(w.expected)));
    o += fmt::format("<tr><td>actual (kernel)</td><td>{} <code>{}</code></td></tr>\n", esc(format_real(w.actual)),
                     esc(format_hex(w.actual)));
    o += fmt::format("<tr><td>abs error</td><td>{}</td></tr>\n", esc(format_real(w.abs_error)));
    o += fmt::format("<tr><td>error (ULP)</td><td>{}</td></tr>\n", esc(format_real(w.ulps)));
    o += fmt::format("<tr><td>error (contract units; &gt;1 violates)</td><td>{}</td></tr>\n</table>\n",
                     esc(format_real(w.contract_units)));
  }
  if (!cx.notes.empty()) {
    o += "<ul>";
    for (const auto& n : cx.notes) o += "<li>" + esc(n) + "</li>";
    o += "</ul>\n";
  }
}

std::string join(const std::vector<std::string>& xs) {
  std::string out;
  for (std::size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + xs[i];
  return out;
}

}  // namespace

std::string render_html(const VerifyResult& r) {
  const std::string verdict(r.verdict());
  std::string upper = verdict;
  for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  o += "<title>pecheck verify: " + upper + " " + esc(r.kernel) + "</title>\n";
  o += std::string("<style>") + kStyle + "</style></head><body>\n";
  // What a reader needs first: the verdict in one sentence, then the checks that did not pass
  // (worst case and plot), then the run's details; passing and skipped checks collapsed last.
  o += fmt::format("<h1>pecheck verify: <span class=\"{}\">{}</span></h1>\n", r.passed() ? "pass" : "fail", upper);
  o += "<p class=\"verdict\">" + esc(r.verdict_sentence()) + "</p>\n";
  auto section = [&](const CheckResult& c) {
    o += fmt::format("<section id=\"{0}\"><h2>{0}: {1}</h2>\n", esc(c.name), status_span(c.status));
    o += fmt::format("<p>{} — clause <code>{}</code>, function <code>{}</code>, {} case(s){}, {} element(s).</p>\n",
                     esc(c.description), esc(c.clause), esc(c.function), c.cases,
                     c.planned > 0 ? fmt::format(" of {} planned", c.planned) : std::string(), c.elements);
    if (!c.reason.empty()) o += "<p>Reason: " + esc(c.reason) + "</p>\n";
    if (c.counterexample) counterexample_html(o, *c.counterexample);
    accuracy_html(o, c);  // the run's worst element and the profile beside the shrunk case
    plot_html(o, c);
    o += "</section>\n";
  };
  for (const auto& c : r.checks) {
    if (c.status != CheckStatus::Pass && c.status != CheckStatus::Skipped) section(c);
  }
  o += "<h2>Run</h2>\n<table>\n";
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

  o += "<h2>Checks</h2>\n<table><tr><th>check</th><th>scheme</th><th>clause</th><th>status</th><th>cases</th>"
       "<th>max ULP</th><th>seconds</th><th>reason</th></tr>\n";
  for (const auto& c : r.checks) {
    o += fmt::format(
        "<tr><td><a href=\"#{0}\">{0}</a></td><td>{1}</td><td>{2}</td><td>{3}</td><td>{4}</td><td>{5}</td>"
        "<td>{6:.3f}</td><td>{7}</td></tr>\n",
        esc(c.name), esc(c.scheme), esc(c.clause), status_span(c.status), c.cases,
        c.max_ulps ? esc(format_real(*c.max_ulps)) : "-", c.seconds, esc(c.reason));
  }
  o += "</table>\n";
  const auto passing = std::count_if(r.checks.begin(), r.checks.end(), [](const CheckResult& c) {
    return c.status == CheckStatus::Pass || (c.status == CheckStatus::Skipped && !c.series.empty());
  });
  if (passing > 0) {
    o += fmt::format("<details><summary>{} passing or skipped check(s) with details</summary>\n", passing);
    for (const auto& c : r.checks) {
      if (c.status == CheckStatus::Pass || (c.status == CheckStatus::Skipped && !c.series.empty())) section(c);
    }
    o += "</details>\n";
  }
  o += "</body></html>\n";
  return o;
}

}  // namespace pecheck::report
