// The budget table (spec/budgets.tsv, compiled in) and the bound formulas (spec/contracts.md).
#include "oracle/budget.hpp"

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "core/error.hpp"

namespace pecheck::oracle {
namespace detail {
extern const std::string_view kBudgetsTsv;
}

namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == '\t') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

Format parse_format(const std::string& s, int line) {
  auto f = format_from_string(s);
  if (!f) {
    throw std::logic_error("spec/budgets.tsv line " + std::to_string(line) + ": unknown format '" +
                           s + "'");
  }
  return *f;
}

double parse_number(const std::string& s, int line) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || !std::isfinite(v) || v < 0) {
    throw std::logic_error("spec/budgets.tsv line " + std::to_string(line) + ": bad number '" + s +
                           "'");
  }
  return v;
}

std::vector<Budget> parse_table(std::string_view text) {
  std::vector<Budget> rows;
  std::istringstream in{std::string(text)};
  std::string line;
  int n = 0;
  bool header = false;
  std::size_t columns = 15;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    auto f = split_tabs(line);
    if (!header) {
      header = true;  // the column names; checked by tests/oracle against the documented order
      // 15 columns, or 16 with the optional trailing c_result (absent in a row = 0).
      if ((f.size() != 15 && !(f.size() == 16 && f[15] == "c_result")) || f[0] != "scheme") {
        throw std::logic_error("spec/budgets.tsv: unexpected header");
      }
      columns = f.size();
      continue;
    }
    if (f.size() != 15 && f.size() != columns) {
      throw std::logic_error("spec/budgets.tsv line " + std::to_string(n) + ": expected 15 or " +
                             std::to_string(columns) + " columns");
    }
    Budget b;
    b.scheme = f[0];
    b.dtype = f[1];
    b.variant = f[2];
    b.storage = parse_format(f[1], n);
    b.arith = parse_format(f[3], n);
    b.angle_fmt = parse_format(f[4], n);
    b.c_const = parse_number(f[5], n);
    b.c_angle = parse_number(f[6], n);
    b.c_out = parse_number(f[7], n);
    b.c_floor = parse_number(f[8], n);
    b.c_kconst = parse_number(f[9], n);
    b.c_kangle = parse_number(f[10], n);
    b.c_logb = parse_number(f[11], n);
    b.max_position = static_cast<std::int64_t>(parse_number(f[12], n));
    b.clause = f[13];
    b.note = f[14];
    if (f.size() == 16) {
      b.c_result = parse_number(f[15], n);
      b.has_result_column = true;
    }
    rows.push_back(std::move(b));
  }
  return rows;
}

}  // namespace

double Budget::bound(const BudgetInputs& in) const {
  const double m = std::fabs(in.magnitude);
  const double th = std::fabs(in.angle);
  const double k = std::fabs(in.index), lf = std::fabs(in.log_freq);
  const double rel = (c_const + c_kconst * k) * format_info(arith).unit_roundoff +
                     (c_angle + c_kangle * k + c_logb * lf) * th * format_info(angle_fmt).unit_roundoff +
                     c_out * format_info(storage).unit_roundoff;
  return m * rel + c_result * format_info(storage).unit_roundoff * std::fabs(in.result) +
         c_floor * format_info(storage).min_subnormal;
}

double Budget::units(double abs_error, const BudgetInputs& in) const {
  const double inf = std::numeric_limits<double>::infinity();
  if (std::isnan(abs_error)) return inf;
  const double e = std::fabs(abs_error);
  if (e == 0) return 0;
  const double b = bound(in);
  if (!(b > 0)) return inf;
  return e / b;
}

const std::vector<Budget>& budgets() {
  static const std::vector<Budget> rows = parse_table(detail::kBudgetsTsv);
  return rows;
}

const Budget& budget(std::string_view scheme, std::string_view dtype, std::string_view variant) {
  for (const auto& b : budgets()) {
    if (b.scheme == scheme && b.dtype == dtype && b.variant == variant) return b;
  }
  throw InvalidArgument("PREC-BUDGET-1", "no budget for scheme '" + std::string(scheme) +
                                             "', dtype '" + std::string(dtype) + "', variant '" +
                                             std::string(variant) + "' in spec/budgets.tsv");
}

const Budget& budget(std::string_view scheme, Format dtype, std::string_view variant) {
  return budget(scheme, to_string(dtype), variant);
}

std::string_view budgets_tsv_text() { return detail::kBudgetsTsv; }

double t5_magnitude(std::int64_t dist, std::int64_t exact, std::int64_t nb,
                    std::int64_t max_distance) {
  if (dist < exact || exact <= 0 || max_distance <= exact) return 0;
  const double k = static_cast<double>(nb - exact);
  const double l2 = std::log(static_cast<double>(max_distance) / static_cast<double>(exact));
  const double l1 = std::log(static_cast<double>(dist) / static_cast<double>(exact));
  const double v = k * l1 / l2;
  return k / l2 + v * (6.0 + 1.0 / l2);
}

double rope_score_bound(const Budget& row, std::span<const double> q, std::span<const double> k,
                        std::span<const double> theta_m, std::span<const double> theta_n,
                        std::span<const double> log_freq) {
  const std::size_t d = q.size();
  if (k.size() != d || d % 2 != 0 || theta_m.size() != d / 2 || theta_n.size() != d / 2 ||
      (!log_freq.empty() && log_freq.size() != d / 2)) {
    throw InvalidArgument("PREC-SCORE-1", "rope_score_bound: inconsistent vector lengths");
  }
  const double u = format_info(row.arith).unit_roundoff;
  const double ua = format_info(row.angle_fmt).unit_roundoff;
  const std::size_t h = d / 2;
  // Per pair: |q'_a| + |q'_b| <= sqrt(2) |q_pair|_2 <= 1.5 Pq, and each rotated element of q
  // is off by at most Pq * eps_m (PREC-ROPE-5), so the pair's part of the score moves by at most
  // Pq Pk (1.5 (eps_m + eps_n) + eps_m eps_n); the dot product of d computed terms adds
  // gamma_d <= (d + 1) u times the sum of their magnitudes.
  double total = 0;
  for (std::size_t i = 0; i < h; ++i) {
    const double pq = std::fabs(q[i]) + std::fabs(q[i + h]);
    const double pk = std::fabs(k[i]) + std::fabs(k[i + h]);
    // The per-pair angle coefficient of the row (c_kangle, c_logb: pair index and |ln f_i|).
    const double ca = row.c_angle + row.c_kangle * static_cast<double>(i) +
                      row.c_logb * (log_freq.empty() ? 0.0 : std::fabs(log_freq[i]));
    const double em = row.c_const * u + ca * ua * std::fabs(theta_m[i]);
    const double en = row.c_const * u + ca * ua * std::fabs(theta_n[i]);
    total += pq * pk * (1.5 * (em + en) + em * en);
    total += static_cast<double>(d + 1) * u * 1.5 * pq * pk * (1 + em) * (1 + en);
  }
  return total;
}

}  // namespace pecheck::oracle
