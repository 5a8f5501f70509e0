// A small self-contained SVG line plot (no scripts, no external resources) with linear or
// log-10 axes. Used for the error-against-position plots of report.html and reusable by
// `pecheck precision`.
//
// Points with a non-finite coordinate are not drawn (the caption counts them). On a log
// axis, values <= the axis minimum (including 0, e.g. position 0 or an exact result) are
// drawn on the axis edge and the caption says how many were clamped, so nothing is hidden.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pecheck::report {

struct PlotSeries {
  std::string label;
  std::vector<std::pair<double, double>> points;  // (x, y), any order; drawn sorted by x
  std::string color;                              // CSS colour; empty: from a palette
  bool markers = true;                            // a dot at every point
};

struct PlotLine {  // horizontal reference line, e.g. the contract budget
  double y = 0;
  std::string label;
};

struct PlotOptions {
  std::string title;
  std::string x_label = "position";
  std::string y_label = "error";
  bool log_x = false;
  bool log_y = false;
  int width = 640;
  int height = 320;
  std::vector<PlotLine> hlines;
};

// Returns an <svg> element (UTF-8 text; every label is XML-escaped).
std::string svg_line_plot(const PlotOptions& opt, const std::vector<PlotSeries>& series);

// Axis ticks, exposed for tests: "nice" linear ticks (1, 2, 5 x 10^k) covering [lo, hi], or
// the powers of ten in [lo, hi] for a log axis (at least the two ends when none falls inside).
std::vector<double> axis_ticks(double lo, double hi, bool log);

}  // namespace pecheck::report
