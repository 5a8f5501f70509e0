// Precision budgets: the one table of spec/budgets.tsv (mirrored in spec/contracts.md),
// compiled into the library at configure time so binaries do not depend on where the file is.
//
// A row gives, for (scheme, dtype, variant), the absolute error bound an honest implementation
// may have against the exact value (derivations: spec/contracts.md, PREC-*):
//
//   bound = M * ((c_const + c_kconst k) u(arith) + (c_angle + c_kangle k + c_logb L) |theta| u(angle)
//                + c_out u(dtype)) + c_result u(dtype) |y| + c_floor * min_subnormal(dtype)
//
// with u(F) = 2^-precision(F) the unit roundoff and the inputs
//   M      magnitude: RoPE |xa| + |xb|; ALiBi |exact bias|; sinusoidal 1;
//          T5 the condition number of the bucket formula (see t5_magnitude)
//   theta  |angle| in radians (RoPE, sinusoidal), 0 otherwise.
//   k      RoPE/sinusoidal: the pair index i (a running product's error grows with it);
//          ALiBi: the power k of the slope's base (repeated-powf slopes); 0 elsewhere.
//   L      |ln f_i| of the pair's frequency (the exponent rounding of powf-style formulas).
//   |y|    the exact result's magnitude (`result`): the one rounding of a result into the storage
//          type, relative to the result rather than to M (rope_cached, PREC-CACHE-1). The column
//          c_result is optional in the file (a row without it has c_result = 0).
// A row with c_kconst = c_kangle = c_logb = 0 ignores k and L: callers that do not know them
// get the tightest reading of such rows (never a looser one).
// Tests and the command line read budgets only through this accessor: no tolerance literals.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "oracle/format.hpp"

namespace pecheck::oracle {

struct BudgetInputs {
  double magnitude = 1.0;
  double angle = 0.0;
  double index = 0.0;     // k: RoPE/sinusoidal pair index i; ALiBi slope power (PREC-ALIBI-3)
  double log_freq = 0.0;  // L = |ln f_i| of the pair's frequency (ln(base) 2i/d), RoPE/sinusoidal
  double result = 0.0;    // |y|: the exact result's magnitude (rows with c_result, PREC-CACHE-1)
};

struct Budget {
  std::string scheme;   // rope, alibi, t5, sinusoidal
  std::string dtype;    // f64, f32, bf16, f16: storage (input and output) format
  std::string variant;  // reference, fma, powf, ggml, accurate, ...
  Format storage = Format::F32;
  Format arith = Format::F32;  // format of the arithmetic
  Format angle_fmt = Format::F32;  // format the angle is formed in
  double c_const = 0, c_angle = 0, c_out = 0, c_floor = 0;
  double c_kconst = 0, c_kangle = 0, c_logb = 0;  // per k and per L terms (see the top)
  double c_result = 0;             // per |y| term (see the top); 0 when the row has no such column
  bool has_result_column = false;  // the row gives c_result (16 columns)
  std::int64_t max_position = 0;  // domain: positions in [0, max_position]
  std::string clause;             // contract clause in spec/contracts.md
  std::string note;

  // Absolute error bound for the given inputs (a non-negative double; +inf for inf inputs).
  double bound(const BudgetInputs& in) const;
  // |error| in units of the bound: 0 when error == 0; +inf when the bound is 0 and the error is
  // not, or when the error is NaN.
  double units(double abs_error, const BudgetInputs& in) const;
};

// All rows, in file order.
const std::vector<Budget>& budgets();
// The row for (scheme, dtype, variant); throws pecheck::InvalidArgument (clause PREC-BUDGET-1)
// naming the missing key.
const Budget& budget(std::string_view scheme, Format dtype, std::string_view variant = "reference");
const Budget& budget(std::string_view scheme, std::string_view dtype,
                     std::string_view variant = "reference");

// The raw text of spec/budgets.tsv as compiled in (the spec/contracts.md mirror test uses it).
std::string_view budgets_tsv_text();

// Condition number M of T5's log bucket formula v = K ln(d/e)/ln(D/e) (PREC-T5-1):
//   |fl(v) - v| <= u * (K/ln(D/e) + v (6 + 1/ln(D/e)))  for a float evaluation; returns the
// bracket, so that budget("t5", ...).bound({M}) is the ambiguity half-width around integers.
double t5_magnitude(std::int64_t dist, std::int64_t exact, std::int64_t nb,
                    std::int64_t max_distance);

// Score contract (PREC-SCORE-1): bound on |s_hat(m, n) - s(m, n)| for s = <R(m)q, R(n)k> with a
// RoPE that meets `row` and a dot product of head_dim terms in row.arith (NEOX pairs i, i+d/2):
//   sum_i Pq_i Pk_i (1.5 (eps_m,i + eps_n,i) + eps_m,i eps_n,i + 1.5 (d+1) u (1+eps_m,i)(1+eps_n,i))
//   eps_p,i = c_const u + c_angle u_angle |theta_p,i|,   Pq_i = |q_a| + |q_b| of pair i.
// theta_m/theta_n: the exact angles of each pair at m and n. A shift by delta moves the float
// score by at most bound(m, n) + bound(m + delta, n + delta).
// log_freq: |ln f_i| per pair (empty = 0), for rows with c_logb; the pair index is i.
double rope_score_bound(const Budget& row, std::span<const double> q, std::span<const double> k,
                        std::span<const double> theta_m, std::span<const double> theta_n,
                        std::span<const double> log_freq = {});

}  // namespace pecheck::oracle
