// CSV table and SVG plot of precision sweeps, written atomically (PREC-CLI-1).
#include <cmath>
#include <sstream>
#include <system_error>

#include "core/error.hpp"
#include "precision/precision.hpp"
#include "report/svg_plot.hpp"
#include "report/write.hpp"

namespace pecheck::precision {
namespace {

std::string num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

}  // namespace

std::string render_csv(const std::vector<SweepResult>& results) {
  std::ostringstream out;
  out << "scheme,dtype,variant,degraded,budget_row,position,max_ulps,max_budget_units,exceeds\n";
  for (const auto& r : results) {
    for (const auto& p : r.points) {
      out << r.variant.scheme << ',' << oracle::to_string(r.dtype) << ',' << r.variant.name << ','
          << (r.variant.degraded ? 1 : 0) << ',' << r.budget_row << ',' << p.position << ','
          << num(p.max_ulps) << ',' << num(p.max_units) << ',' << (p.max_units > 1 ? 1 : 0)
          << '\n';
    }
  }
  return out.str();
}

std::string render_svg(const std::vector<SweepResult>& results) {
  std::vector<report::PlotSeries> ulps, units;
  for (const auto& r : results) {
    report::PlotSeries a{r.variant.name, {}, "", false}, b{r.variant.name, {}, "", false};
    for (const auto& p : r.points) {
      // Position 0 and exact results sit on the log axes' edges (the plot says how many).
      a.points.emplace_back(static_cast<double>(p.position), p.max_ulps);
      b.points.emplace_back(static_cast<double>(p.position), p.max_units);
    }
    ulps.push_back(std::move(a));
    units.push_back(std::move(b));
  }
  const std::string scheme = results.empty() ? "" : results.front().variant.scheme;
  const std::string dtype = results.empty() ? "" : std::string(oracle::to_string(results.front().dtype));
  report::PlotOptions o1;
  o1.title = scheme + " " + dtype + ": error in ULPs of " + dtype + " (max over lanes)";
  o1.y_label = "ULPs";
  o1.log_x = o1.log_y = true;
  o1.width = 760;
  report::PlotOptions o2 = o1;
  o2.title = scheme + " " + dtype + ": error in budget units (> 1 exceeds the contract)";
  o2.y_label = "budget units";
  o2.hlines.push_back({1.0, "budget"});
  std::ostringstream svg;
  // Two plots stacked in one SVG document.
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << o1.width << "\" height=\""
      << 2 * o1.height + 20 << "\">\n<g>" << report::svg_line_plot(o1, ulps)
      << "</g>\n<g transform=\"translate(0," << o1.height + 20 << ")\">"
      << report::svg_line_plot(o2, units) << "</g>\n</svg>\n";
  return svg.str();
}

std::vector<std::filesystem::path> write_outputs(const std::filesystem::path& dir,
                                                 const std::vector<SweepResult>& results) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw IoError("cannot create output folder " + dir.string() + ": " + ec.message());
  const std::string scheme = results.empty() ? "none" : results.front().variant.scheme;
  const std::string dtype = results.empty() ? "f32" : std::string(oracle::to_string(results.front().dtype));
  const auto stem = dir / ("precision_" + scheme + "_" + dtype);
  const std::filesystem::path csv = stem.string() + ".csv", svg = stem.string() + ".svg";
  report::write_files_atomic({{csv, render_csv(results)}, {svg, render_svg(results)}});
  return {csv, svg};
}

}  // namespace pecheck::precision
