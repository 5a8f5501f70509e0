#include "report/svg_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/write.hpp"

namespace pecheck::report {

namespace {

// Ten distinguishable colours (matplotlib's tab10); series beyond ten repeat them dashed, so no
// two series of one plot look alike.
constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                    "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};
constexpr const char* kDashes[] = {"", "6 3", "2 2", "8 3 2 3"};

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  // Maps a data value to [0, 1] along the axis; clamps values outside the range.
  double unit(double v) const {
    double a = log ? std::log10(std::max(v, lo)) : v;
    double l = log ? std::log10(lo) : lo, h = log ? std::log10(hi) : hi;
    double u = h > l ? (a - l) / (h - l) : 0.5;
    return std::clamp(u, 0.0, 1.0);
  }
};

// Range of the finite (and, on a log axis, positive) values; a sensible default when empty.
// `edge` (the y axis): room below a log axis for non-positive values, drawn on its edge. The x
// axis has none: position 0 has no place on a log axis, it is not drawn and the plot says so.
Axis make_axis(const std::vector<double>& vs, bool log, bool edge) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  bool non_positive = false;
  for (double v : vs) {
    if (log && std::isfinite(v) && v <= 0) non_positive = true;
    if (!std::isfinite(v) || (log && v <= 0)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  Axis a;
  a.log = log;
  if (!(lo <= hi)) {
    a.lo = log ? 1 : 0;
    a.hi = log ? 10 : 1;
    return a;
  }
  if (log) {
    a.lo = std::pow(10.0, std::floor(std::log10(lo)));
    a.hi = std::pow(10.0, std::ceil(std::log10(hi)));
    if (a.hi <= a.lo) a.hi = a.lo * 10;
    if (non_positive && edge) a.lo /= 10;  // room on the edge for the clamped zeros
  } else {
    if (lo > 0 && lo < hi * 0.5) lo = 0;  // errors and positions read best from zero
    if (hi == lo) {
      hi = lo + (lo == 0 ? 1 : std::abs(lo) * 0.1);
    }
    auto t = axis_ticks(lo, hi, false);
    a.lo = std::min(lo, t.front());
    a.hi = std::max(hi, t.back());
  }
  return a;
}

std::string tick_label(double v) {
  if (v == 0) return "0";
  double a = std::abs(v);
  if (a >= 1e5 || a < 1e-3) {
    int e = static_cast<int>(std::floor(std::log10(a)));
    double m = v / std::pow(10.0, e);
    if (std::abs(m - std::round(m)) < 1e-9) return fmt::format("{}e{}", std::lround(m), e);
    return fmt::format("{:.3g}e{}", m, e);
  }
  return fmt::format("{:.6g}", v);
}

}  // namespace

std::vector<double> axis_ticks(double lo, double hi, bool log) {
  std::vector<double> t;
  if (!(std::isfinite(lo) && std::isfinite(hi)) || hi < lo) return t;
  if (log) {
    if (lo <= 0) return t;
    int e0 = static_cast<int>(std::ceil(std::log10(lo) - 1e-9));
    int e1 = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
    int step = std::max(1, (e1 - e0 + 1 + 7) / 8);  // at most about 8 labels
    for (int e = e0; e <= e1; e += step) t.push_back(std::pow(10.0, e));
    if (t.empty()) t = {lo, hi};
    return t;
  }
  if (hi == lo) return {lo};
  double raw = (hi - lo) / 5;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  double start = std::floor(lo / step) * step;
  for (double v = start; v <= hi + step * 0.999 && t.size() < 20; v += step) {
    t.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  }
  return t;
}

std::string svg_line_plot(const PlotOptions& opt, const std::vector<PlotSeries>& series) {
  const double W = std::max(opt.width, 200), H = std::max(opt.height, 150);
  const double left = 70, right = 20, top = opt.title.empty() ? 16 : 34;
  // Legend entries flow into rows of the plot's width; what could not be drawn gets its own
  // line under them, so no two texts overlap.
  std::vector<std::pair<double, int>> legend_pos;  // x and row of each entry
  int rows = 1;
  {
    double x = left;
    for (const auto& s : series) {
      const double w = 24 + 7.0 * static_cast<double>(s.label.size());
      if (x > left && x + w > W - right) x = left, ++rows;
      legend_pos.emplace_back(x, rows - 1);
      x += w;
    }
  }
  std::size_t hidden = 0, clamped = 0, off_x = 0;
  std::vector<double> xs, ys;
  for (const auto& s : series) {
    for (auto [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) {
        ++hidden;
      } else if (opt.log_x && x <= 0) {
        ++off_x;
      } else {
        xs.push_back(x);
        ys.push_back(y);
      }
    }
  }
  for (const auto& h : opt.hlines) ys.push_back(h.y);
  Axis ax = make_axis(xs, opt.log_x, false), ay = make_axis(ys, opt.log_y, true);
  for (const auto& s : series) {
    for (auto [x, y] : s.points) {
      if (std::isfinite(x) && std::isfinite(y) && !(opt.log_x && x <= 0) && ay.log && y < ay.lo) ++clamped;
    }
  }
  const bool note = hidden || clamped || off_x;
  const double bottom = 44 + 16.0 * rows + (note ? 16 : 0);
  const double pw = W - left - right, ph = H - top - bottom;

  auto px = [&](double x) { return left + ax.unit(x) * pw; };
  auto py = [&](double y) { return top + (1 - ay.unit(y)) * ph; };

  std::string o = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
      R"(font-family="sans-serif" font-size="11" role="img">)",
      W, H);
  o += fmt::format(R"(<title>{}</title>)", xml_escape(opt.title.empty() ? opt.y_label : opt.title));
  o += fmt::format(R"(<rect x="0" y="0" width="{}" height="{}" fill="white"/>)", W, H);
  if (!opt.title.empty()) {
    // A long title shrinks to the plot's width instead of running past its edges (a glyph of
    // sans-serif is about 0.6 em wide).
    const double fs = std::min(13.0, (W - 20) / (0.6 * static_cast<double>(std::max<std::size_t>(opt.title.size(), 1))));
    o += fmt::format(R"(<text x="{}" y="18" text-anchor="middle" font-size="{:.1f}">{}</text>)",
                     W / 2, fs, xml_escape(opt.title));
  }
  // Grid and ticks.
  for (double t : axis_ticks(ax.lo, ax.hi, ax.log)) {
    double x = px(t);
    o += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="#ddd"/>)", x, top, top + ph);
    o += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)", x, top + ph + 14,
                     tick_label(t));
  }
  for (double t : axis_ticks(ay.lo, ay.hi, ay.log)) {
    double y = py(t);
    o += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}" stroke="#ddd"/>)", left, y, left + pw);
    o += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)", left - 4, y + 4,
                     tick_label(t));
  }
  o += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#333"/>)", left, top, pw, ph);
  o += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle">{}{}</text>)", left + pw / 2,
                   top + ph + 30, xml_escape(opt.x_label), opt.log_x ? " (log scale)" : "");
  o += fmt::format(
      R"svg(<text x="14" y="{0:.1f}" text-anchor="middle" transform="rotate(-90 14 {0:.1f})">{1}{2}</text>)svg",
      top + ph / 2, xml_escape(opt.y_label), opt.log_y ? " (log scale)" : "");

  for (const auto& h : opt.hlines) {
    if (!std::isfinite(h.y)) continue;
    double y = py(h.y);
    o += fmt::format(
        R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{2:.1f}" y2="{1:.1f}" stroke="#000" stroke-dasharray="6 4"/>)",
        left, y, left + pw);
    o += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)", left + pw - 4, y - 4,
                     xml_escape(h.label));
  }

  for (std::size_t i = 0; i < series.size(); ++i) {
    const auto& s = series[i];
    std::string color = s.color.empty() ? kPalette[i % std::size(kPalette)] : xml_escape(s.color);
    const char* dash = kDashes[(i / std::size(kPalette)) % std::size(kDashes)];
    const std::string dash_attr = *dash ? fmt::format(R"( stroke-dasharray="{}")", dash) : "";
    std::vector<std::pair<double, double>> pts;
    for (auto [x, y] : s.points) {
      if (std::isfinite(x) && std::isfinite(y) && !(ax.log && x <= 0)) pts.emplace_back(x, y);
    }
    std::sort(pts.begin(), pts.end());
    if (!pts.empty()) {
      std::string d;
      for (std::size_t k = 0; k < pts.size(); ++k) {
        d += fmt::format("{}{:.1f},{:.1f}", k ? " L" : "M", px(pts[k].first), py(pts[k].second));
      }
      o += fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="1.5"{}/>)", d, color, dash_attr);
      if (s.markers) {
        for (auto [x, y] : pts) {
          o += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="2" fill="{}"/>)", px(x), py(y), color);
        }
      }
    }
    const auto [lx, row] = legend_pos[i];
    const double ly = top + ph + 48 + 16.0 * row;
    if (*dash) {
      o += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="2"{}/>)", lx,
                       ly - 4, lx + 10, ly - 4, color, dash_attr);
    } else {
      o += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="10" height="10" fill="{}"/>)", lx, ly - 9, color);
    }
    o += fmt::format(R"(<text x="{:.1f}" y="{:.1f}">{}</text>)", lx + 14, ly, xml_escape(s.label));
  }
  if (note) {
    std::string t;
    if (hidden) t += fmt::format("{} non-finite point(s) not drawn", hidden);
    if (off_x) {
      t += fmt::format("{}{} point(s) at position 0 (or below) not drawn (no place on a log axis)", t.empty() ? "" : "; ",
                       off_x);
    }
    if (clamped) {
      t += fmt::format("{}{} at or below the log-axis minimum drawn on its edge", t.empty() ? "" : "; ", clamped);
    }
    o += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" fill="#a00">{}</text>)", left, top + ph + 48 + 16.0 * rows,
                     xml_escape(t));
  }
  o += "</svg>";
  return o;
}

}  // namespace pecheck::report
