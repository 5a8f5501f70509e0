// High-precision oracles for the positional encodings (issue 3, spec/contracts.md).
//
// Inputs (positions, scales, float/double values) are taken as EXACT real numbers; every result
// is the exact real value given to >= 100 bits (a double-double with a stated error bound) and
// correctly rounded (nearest-even) to binary64, binary32, bfloat16 and binary16.
//
// How (PREC-ORACLE-1..3): the angle p*s*f is formed exactly (or with f to >= 160 bits), reduced
// and passed through sin/cos by MPFR at 160 bits (MPFR reduces huge arguments exactly), giving
// double-double cos/sin with |error| <= 2^-104. Per output element the result is formed in
// double-double with a proved error bound and rounded to the target only if the whole error
// interval rounds to one value; otherwise (Ziv) the element is recomputed in MPFR at 256, 512,
// ... bits. Exact cases (angle 0, zero inputs) are handled exactly, so the escalation ends.
//
// No multiprecision type appears here: Boost.Multiprecision/MPFR live in the .cpp files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "oracle/format.hpp"
#include "pecheck_kernel.h"

namespace pecheck::reference {
struct RopeConfig;  // src/reference/rope.hpp
// src/reference/rope_family.hpp
struct AttnFactorConfig;
struct LongRopeConfig;
struct Llama4Config;
struct MropeConfig;
struct MropePosition;
struct MlaConfig;
}

namespace pecheck::oracle {

// An unevaluated sum hi + lo (|lo| <= ulp(hi)/2). Every oracle value states its error bound.
struct DoubleDouble {
  double hi = 0;
  double lo = 0;
};

// One real value correctly rounded (nearest-even) to every target format. bf16/f16 values are
// stored widened (exactly) in a float. Overflow gives +-inf as IEEE does; NaN stays NaN.
struct Rounded {
  double f64 = 0;
  float f32 = 0;
  float bf16 = 0;
  float f16 = 0;
  double in(Format f) const;
};

// ---------------------------------------------------------------------------------------------
// RoPE

// The inverse frequency f of one rotary pair.
struct RopeFrequency {
  enum class Kind : int {
    Given,  // f = `given`, a float or double input taken exactly (the ABI's inv_freq table)
    Power,  // f = base^(-2*index/rotary_dim) exactly in real arithmetic (ROPE-FREQ-1)
    Scaled, // f_index of a scaled RoPE (ROPE-SCALE-*): the reference formulas of
            // src/reference/rope.hpp in MPFR (PREC-ORACLE-7); `config` must outlive the call
  };
  Kind kind = Kind::Power;
  double given = 0;
  double base = 10000.0;
  std::int64_t index = 0;
  std::int64_t rotary_dim = 2;
  const reference::RopeConfig* config = nullptr;  // Scaled
  std::int64_t seq_len = 0;                       // Scaled: dynamic NTK's sequence length

  static RopeFrequency exact(double f) { return {Kind::Given, f, 0, 0, 2, nullptr, 0}; }
  static RopeFrequency power(double base, std::int64_t index, std::int64_t rotary_dim) {
    return {Kind::Power, 0, base, index, rotary_dim, nullptr, 0};
  }
  static RopeFrequency scaled(const reference::RopeConfig& c, std::int64_t index,
                              std::int64_t seq_len = 0);
};

// One (position, frequency) angle theta = position * position_scale * f.
// Defined for any |position| <= 2^53 (negative positions give the mathematical negative
// angle); finite position_scale. A NaN/inf scale or given f throws InvalidArgument
// (PREC-BAD-1).
struct AngleQuery {
  std::int64_t position = 0;
  double position_scale = 1.0;
  RopeFrequency freq{};
};

struct RopeAngle {
  DoubleDouble angle;  // theta, relative error <= 2^-100
  DoubleDouble cos;    // cos(theta), absolute error <= 2^-104
  DoubleDouble sin;    // sin(theta), absolute error <= 2^-104
  Rounded angle_rounded, cos_rounded, sin_rounded;  // correctly rounded
  DoubleDouble freq;   // f, relative error <= 2^-104
};
RopeAngle rope_angle(const AngleQuery& q);

// The inverse frequencies of a (scaled) RoPE config, exact to 2^-104 relative and correctly
// rounded (PREC-ORACLE-7). YaRN's attention factor is not applied (it scales cos/sin, not f).
struct InvFreq {
  DoubleDouble exact;
  Rounded rounded;
};
std::vector<InvFreq> rope_inv_freq_exact(const reference::RopeConfig& c, std::int64_t seq_len = 0);

// The rotated pair for exact inputs xa, xb (any float or double value):
//   ya = xa cos(theta) - xb sin(theta),  yb = xb cos(theta) + xa sin(theta)   (ROPE-ROT-1)
// Non-finite inputs (PREC-BAD-2): NaN in -> NaN out; at theta == 0 the rotation is the
// identity (y = x, specials included); otherwise the IEEE double evaluation of the formula on
// the exact cos/sin decides inf/NaN. Overflow of a target format gives +-inf (PREC-BAD-3).
struct RopePairResult {
  RopeAngle angle;
  DoubleDouble ya, yb;        // exact, absolute error <= 2^-100 * (|xa| + |xb|)
  Rounded ya_rounded, yb_rounded;
  int escalations = 0;        // elements decided by the MPFR fallback (Ziv)
};
RopePairResult rope_pair(const AngleQuery& q, double xa, double xb);

// A whole block with the ABI's semantics (spec/pecheck_kernel.h, ROPE-*): x and the outputs are
// [n_tokens][n_heads][head_dim]; each (token, frequency) angle is computed once and reused for
// every head. Outputs may be null. `rounded` receives the exact result correctly rounded to
// `target` (widened to float; for F64 use `exact_f64`), `exact_f64` the exact result correctly
// rounded to binary64. Lanes beyond rotary_dim are copied. Throws InvalidArgument on arguments
// the ABI rejects (including positions outside [0, 2^31)).
struct BlockStats {
  std::int64_t elements = 0;
  std::int64_t angles = 0;
  std::int64_t escalations = 0;
};
BlockStats rope_block(const pec_rope_args& args, const float* x, Format target, float* rounded,
                      double* exact_f64);

// The exact results only, without rounding decisions (the fastest form, for error
// measurement): y[k] within 2^-100 (|xa| + |xb|) of the exact value (non-finite inputs as in
// PREC-BAD-2); theta (nullable, [n_tokens][rotary_dim/2]) receives each exact angle.
BlockStats rope_block_exact(const pec_rope_args& args, const float* x, DoubleDouble* y,
                            DoubleDouble* theta);

// Cos/sin of every (token, frequency) of a block, [n_tokens][rotary_dim/2], once each.
std::vector<RopeAngle> rope_block_angles(const pec_rope_args& args);

// Decimal string of an exact angle / cos / sin with `digits` significant digits, computed
// directly in MPFR (for reports and for checking against independent vectors).
struct AngleDecimal {
  std::string angle, cos, sin;
};
AngleDecimal rope_angle_decimal(const AngleQuery& q, int digits);

// ---------------------------------------------------------------------------------------------
// The RoPE family (spec/rope.md, "The RoPE family"; ROPE-ORACLE-1). Each value is the
// reference formula (src/reference/rope_family.hpp) evaluated in MPFR: `exact` within 2^-104
// relative, `rounded` correctly rounded to every format (values that are exactly a double --
// 1, a given attention_factor -- are rounded exactly).

struct ExactScalar {
  DoubleDouble exact;
  Rounded rounded;
};

// ROPE-ATTN-1: the attention factor of a rope_scaling config.
ExactScalar rope_attn_factor_exact(const reference::AttnFactorConfig& c);
// ROPE-LONG-1: LongRoPE's f_i = base^(-2i/d) / lambda_i for the table of seq_len.
std::vector<InvFreq> longrope_inv_freq_exact(const reference::LongRopeConfig& c,
                                             std::int64_t seq_len);
// ROPE-L4-3: Llama 4's temperature tau(p) = ln(floor((p+1)/floor_scale) + 1) attn_scale + 1.
ExactScalar llama4_attn_temperature_exact(const reference::Llama4Config& c, std::int64_t p);
// ROPE-MLA-3: DeepSeek's softmax scale qk_head_dim^-1/2 mscale(s, mscale_all_dim)^2.
ExactScalar mla_softmax_scale_exact(const reference::MlaConfig& c);
// ROPE-MROPE-1: the rotated pair i of an M-RoPE head at (t, h, w): the RoPE pair oracle at the
// position of the pair's axis, f_i = base^(-2i/rotary_dim) exactly.
RopePairResult mrope_pair(const reference::MropeConfig& c, const reference::MropePosition& p,
                          std::int64_t i, double xa, double xb);

// ---------------------------------------------------------------------------------------------
// ALiBi (spec/alibi.md; ABI semantics of pec_alibi_bias_f32)

// slope(h) = 2^(-8(h+1)/p) for h < p, 2^(-4(2(h-p)+1)/p) for h >= p, p = largest power of two
// <= n_heads. Relative error of `exact` <= 2^-104.
struct AlibiSlope {
  DoubleDouble exact;
  Rounded rounded;
};
AlibiSlope alibi_slope(std::int64_t n_heads, std::int64_t head);

// bias = -slope * |q - k| (symmetric) or -slope * (q - k) for k <= q and -inf for k > q
// (causal, `masked`). Positions in [0, 2^31) (PREC-BAD-4: else InvalidArgument).
struct AlibiBias {
  DoubleDouble exact;
  Rounded rounded;
  bool masked = false;
};
AlibiBias alibi_bias(std::int64_t n_heads, std::int64_t head, std::int64_t q_pos,
                     std::int64_t k_pos, int mode);

// The bias alone for a whole [n_heads][n_q][n_k] block (what pec_alibi_bias_f32 adds).
BlockStats alibi_block(const pec_alibi_args& args, Format target, float* rounded,
                       double* exact_f64);

// ---------------------------------------------------------------------------------------------
// T5 relative bucket (spec/t5.md; relative = key - query)

struct T5Bucket {
  std::int64_t bucket = 0;       // exact bucket in real arithmetic (decided with integers)
  bool on_integer = false;       // the exact log formula value is an integer (T5-BUCKET-4)
  bool ambiguous = false;        // the value is within the f32 budget of an integer
  std::int64_t alternative = 0;  // the other bucket a float evaluation may give (== bucket
                                 // when not ambiguous)
  double log_value = 0;          // the real log-formula value (before floor/clamp), or -1
                                 // when the distance is below max_exact
};
T5Bucket t5_bucket(std::int64_t relative, std::int64_t num_buckets, std::int64_t max_distance,
                   bool bidirectional);

// ---------------------------------------------------------------------------------------------
// Sinusoidal (interleaved): lane 2i = sin(pos * base^(-2i/d_model)), lane 2i+1 = cos(same)

struct SinusoidalValue {
  DoubleDouble exact;  // absolute error <= 2^-104
  Rounded rounded;
};
SinusoidalValue sinusoidal(std::int64_t position, std::int64_t d_model, double base,
                           std::int64_t lane);
BlockStats sinusoidal_block(const pec_sinusoidal_args& args, Format target, float* rounded,
                            double* exact_f64);

}  // namespace pecheck::oracle
