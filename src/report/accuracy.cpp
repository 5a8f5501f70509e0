#include "report/accuracy.hpp"

#include <fmt/format.h>

#include <cmath>

#include "report/svg_plot.hpp"
#include "report/write.hpp"

namespace pecheck::report {

std::string octave_label(std::int64_t octave) { return octave < 0 ? "0" : "2^" + std::to_string(octave); }

std::string grade_line(const Accuracy& a) {
  std::string met, exceeded, unbounded;
  for (const auto& g : a.grades) {
    if (g.met()) {
      met += (met.empty() ? "" : ", ") + g.name + " " + format_real(g.max_units);
    } else if (std::isfinite(g.max_units)) {
      exceeded += (exceeded.empty() ? "" : ", ") + g.name + " " + format_real(g.max_units) + "x";
    } else {
      unbounded += (unbounded.empty() ? "" : ", ") + g.name;
    }
  }
  std::string s = "meets " + (met.empty() ? std::string("no class") : met);
  if (!exceeded.empty()) s += "; exceeds " + exceeded;
  if (!unbounded.empty()) s += "; exceeds " + unbounded + " without bound (a NaN or infinite element)";
  return s;
}

namespace {

std::string held_line(const Accuracy& a) {
  std::string s;
  for (const auto& [cls, p] : a.class_held_up_to) s += (s.empty() ? "" : ", ") + cls + " to " + std::to_string(p);
  return s;
}

std::string resolved_line(const Accuracy& a) {
  if (!a.largest_position) return "";
  bool any = false;
  for (const auto& r : a.profile) any = any || r.position_error.has_value();
  if (!any) return "";
  const std::string top = std::to_string(*a.largest_position);
  if (!a.resolved_up_to) return "position information: lost already at the smallest position tested";
  if (*a.resolved_up_to == *a.largest_position) {
    return "position information: positions resolved to < 1/2 at every tested position (up to " + top + ")";
  }
  return "position information: resolved to < 1/2 up to position " + std::to_string(*a.resolved_up_to) +
         ", then lost (largest tested " + top + ")";
}

}  // namespace

void accuracy_text(std::string& o, const CheckResult& c) {
  if (!c.accuracy) return;
  const Accuracy& a = *c.accuracy;
  const std::string ind = "             ";  // under the check name (markdown.cpp render_text)
  // A passing production-size check (.large) repeats what its .oracle check grades: one line.
  if (c.name.ends_with(".large") && c.status == CheckStatus::Pass && a.worst) {
    o += ind + fmt::format("{} elements at production size; worst {} x '{}'\n", c.elements,
                           format_real(a.worst->element.contract_units), a.accuracy_class);
    return;
  }
  o += ind + "accuracy (evidence from " + std::to_string(c.cases) + " cases, class '" + a.accuracy_class +
       "' judged): " + grade_line(a) + "\n";
  if (!a.pin.empty()) o += ind + "pin in CI (the tightest class met with margin, worst <= 0.8 of it): " + a.pin + "\n";
  if (a.worst) {
    const auto& w = a.worst->element;
    // ULPs of the storage type, and none where the exact value is 0 (issue 22).
    const std::string ulps = w.expected != 0 && std::isfinite(w.ulps)
                                 ? " (" + format_real(w.ulps) + " ulp of " + storage_of(c.function) + ")"
                                 : std::string();
    // A NaN or infinite element has no class-unit figure: it is said in words (issue 22).
    const std::string units = std::isfinite(w.contract_units)
                                  ? format_real(w.contract_units) + " x '" + a.accuracy_class + "'" + ulps
                                  : std::string("a NaN or infinite value (no bound holds)");
    o += ind + fmt::format("worst: {} at {}{}; expected {} actual {}\n", units, w.output,
                           w.position ? " position " + std::to_string(*w.position) : std::string(),
                           format_real(w.expected), format_real(w.actual));
    o += ind + "worst case reproduce: " + a.worst->reproduce + "\n";
  }
  if (!a.profile.empty()) {
    std::string line;
    for (const auto& r : a.profile) line += (line.empty() ? "" : " | ") + octave_label(r.octave) + " " + format_real(r.max_units);
    o += ind + "profile (max '" + a.accuracy_class + "' units per position octave): " + line + "\n";
  }
  if (const std::string h = held_line(a); !h.empty()) o += ind + "classes held up to position: " + h + "\n";
  if (const std::string r = resolved_line(a); !r.empty()) o += ind + r + "\n";
}

void accuracy_markdown(std::string& o, const VerifyResult& r) {
  bool any = false;
  for (const auto& c : r.checks) {
    if (!c.accuracy) continue;
    if (!any) o += "\n## Accuracy\n\nEvidence from the cases run (not a proof). Class units: error / the class's bound (spec/budgets.tsv); 1 is the bound.\n";
    any = true;
    const Accuracy& a = *c.accuracy;
    o += fmt::format("\n### {} (judged by class `{}`)\n\n", markdown_cell(c.name), markdown_cell(a.accuracy_class));
    o += "| class | max error (class units) | met |\n|---|---:|---|\n";
    for (const auto& g : a.grades) o += fmt::format("| {} | {} | {} |\n", g.name, format_real(g.max_units), g.met() ? "yes" : "**no**");
    if (!a.pin.empty()) o += "\nPin in CI: `" + a.pin + "`\n";
    if (a.worst) {
      const auto& w = a.worst->element;
      o += fmt::format("\nWorst element: {} class units ({} ulp), {} at position {}; expected {} actual {}. Case {}:\n\n",
                       format_real(w.contract_units), format_real(w.ulps), w.output,
                       w.position ? std::to_string(*w.position) : "-", format_real(w.expected),
                       format_real(w.actual), a.worst->case_index);
      std::string args;
      for (const auto& ar : a.worst->args) args += (args.empty() ? "" : ", ") + ar.name + "=" + format_arg(ar.value);
      o += "```\n" + utf8_sanitize(args) + "\n" + utf8_sanitize(a.worst->reproduce) + "\n```\n";
    }
    if (!a.profile.empty()) {
      o += "\n| position octave | max class units | max ulp | position error (positions) | elements |\n|---|---:|---:|---:|---:|\n";
      for (const auto& p : a.profile) {
        o += fmt::format("| {} | {} | {} | {} | {} |\n", octave_label(p.octave), format_real(p.max_units),
                         format_real(p.max_ulps), p.position_error ? format_real(*p.position_error) : "-", p.elements);
      }
    }
    if (const std::string h = held_line(a); !h.empty()) o += "\nClasses held up to position: " + h + "\n";
    if (const std::string rl = resolved_line(a); !rl.empty()) o += "\n" + rl + "\n";
  }
}

void accuracy_html(std::string& o, const CheckResult& c) {
  if (!c.accuracy) return;
  const Accuracy& a = *c.accuracy;
  o += "<h3>Accuracy (class <code>" + xml_escape(a.accuracy_class) + "</code> judged; evidence from " +
       std::to_string(c.cases) + " cases)</h3>\n<p>" + xml_escape(grade_line(a)) + "</p>\n";
  if (!a.pin.empty()) o += "<p>Pin in CI: <code>" + xml_escape(a.pin) + "</code></p>\n";
  if (a.worst) {
    o += "<p>Worst element: " + xml_escape(format_real(a.worst->element.contract_units)) + " class units; reproduce:</p><pre>" +
         xml_escape(a.worst->reproduce) + "</pre>\n";
  }
  if (a.profile.empty()) return;
  // A plot only where it informs: at least two octaves with a finite, nonzero error.
  int informative = 0;
  for (const auto& p : a.profile) informative += p.octave >= 0 && std::isfinite(p.max_units) && p.max_units > 0;
  if (informative >= 2) {
  PlotOptions opt;
  opt.title = c.name + ": accuracy profile (max class units per position octave)";
  opt.x_label = "position octave (lower end)";
  opt.y_label = "error / class bound";
  opt.log_x = true;
  opt.log_y = true;
  opt.hlines.push_back({1.0, "class '" + a.accuracy_class + "' bound"});
  PlotSeries s;
  s.label = "max over the octave";
  for (const auto& p : a.profile) {  // position 0 has no place on a log axis: it is in the table
    if (p.octave >= 0) s.points.emplace_back(std::ldexp(1.0, static_cast<int>(p.octave)), p.max_units);
  }
  o += "<figure>" + svg_line_plot(opt, {s}) + "</figure>\n";
  }
  o += "<table><tr><th>octave</th><th>max class units</th><th>max ulp</th><th>position error</th></tr>\n";
  for (const auto& p : a.profile) {
    o += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", octave_label(p.octave),
                     xml_escape(format_real(p.max_units)), xml_escape(format_real(p.max_ulps)),
                     p.position_error ? xml_escape(format_real(*p.position_error)) : "-");
  }
  o += "</table>\n";
}

}  // namespace pecheck::report
