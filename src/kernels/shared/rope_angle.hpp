// RoPE / sinusoidal angle and its cosine and sine, in double and double-double arithmetic:
// the single source for the SIMD kernels (double and vectors of double), the CUDA kernels
// (double on the device) and the host emulation of the CUDA grid.
//
// Spec: spec/rope.md, spec/abi.md (ABI-ROPE-2: angle = position * position_scale * f_i, the
// exact real product), spec/contracts.md (float32 RoPE contract).
//
// Why double-double: positions reach 2^31 - 1, so the angle reaches ~2^31 rad. A float32
// cos/sin needs the reduced angle to ~2^-30 absolute, i.e. ~2^-61 relative to the angle,
// more than double's 53 bits. So the angle is formed as an unevaluated sum hi + lo:
//   1. (p, e)  = two_prod(position, scale)            exact: p + e = position*scale
//   2. (h, l0) = two_prod(p, f_hi)                     exact
//      l       = l0 + (p*f_lo + e*f_hi)               f = f_hi + f_lo to ~2^-106 (host, quad)
//      (a_hi, a_lo) = fast_two_sum(h, l)              |error| <~ 2^-100 |angle|
//   3. k = nearest integer to a_hi * 2/pi (magic-constant rounding, exact for |k| < 2^51)
//      r = (a_hi - k*P1) + (a_lo - k*P1_lo - k*P2 - k*P3), with pi/2 = P1 + P2 + P3 to
//      ~2^-160 and k*P1, k*P2 formed exactly by two_prod; a_hi - k*P1_hi is exact (Sterbenz:
//      both lie within a factor 2 of each other when k != 0). Absolute error of r: ~2^-74 at
//      |angle| ~ 2^31 and ~2^-55 at 2^45, the limit of this path (kMaxFastAngle); larger
//      angles take the host quad-precision path of src/kernels/common.
//   4. sin and cos of r (|r| <= pi/4 + 2^-40) by their Taylor polynomials to degree 13 / 14
//      (truncation < 2^-45 absolute), Horner form, plain double mul/add;
//   5. quadrant q = k mod 4 selects (+-sin r, +-cos r). q is read from the encoding of the
//      rounding sum t = a_hi*2/pi + 1.5*2^52 = 1.5*2^52 + k (exact: ulp(t) = 1 for |k| < 2^51):
//      the low two bits of t's encoding are those of k, because 1.5*2^52's end in 0b00, so
//      (bits(t) & 3) = k mod 4 for negative k too (dbits: the encoding as a 64-bit integer).
// Every step is IEEE double add/mul/fma with round-to-nearest and no contraction, so the
// portable path, the AVX2 and AVX-512 paths and the CUDA device give the same bits; the
// result is rounded once more to float by the caller. Total error of the double results:
// < 2^-50 absolute, far inside float32's half-ulp, so the float cos/sin are the correctly
// rounded values except within ~2^-26 ulp of a rounding tie.
//
// Operations per (position, frequency), in the order written below: 4 exact products
// (mul + ffma each), then plain double mul/add/sub, the integer and/add/compare of the
// quadrant bits and 4 selects; no other fused operation.
#pragma once

#include "kernels/shared/hd.hpp"

namespace pecheck::kernels {

namespace rope_const {
// pi/2 = P1 + P2 + P3 (+ ~2^-161): P1 = double(pi/2), P2 = double(pi/2 - P1), P3 the next part.
inline constexpr double kPio2_1 = 0x1.921fb54442d18p+0;
inline constexpr double kPio2_2 = 0x1.1a62633145c07p-54;
inline constexpr double kPio2_3 = -0x1.f1976b7ed8fbcp-110;
inline constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
// 1.5 * 2^52: adding and subtracting it rounds a double with |x| < 2^51 to the nearest integer.
inline constexpr double kRoundMagic = 0x1.8p52;
// Largest |angle| the double-double path handles (see step 3).
inline constexpr double kMaxFastAngle = 0x1p45;
}  // namespace rope_const

// Exact product: a*b = p + e.
template <class V>
PEC_HD_FN void two_prod(const V& a, const V& b, V& p, V& e) {
  p = a * b;
  e = ffma(a, b, -p);
}

// Nearest integer (ties to even) of |x| < 2^51, as a double.
template <class V>
PEC_HD_FN V round_magic(const V& x) {
  const V t = x + rope_const::kRoundMagic;
  return t - rope_const::kRoundMagic;
}

// The angle position*scale*(f_hi + f_lo) as a_hi + a_lo (steps 1-2).
template <class V>
PEC_HD_FN void rope_angle_dd(const V& position, const V& scale, const V& f_hi, const V& f_lo,
                             V& a_hi, V& a_lo) {
  V p, e, h, l0;
  two_prod(position, scale, p, e);
  two_prod(p, f_hi, h, l0);
  const V pf = p * f_lo;
  const V ef = e * f_hi;
  const V small = pf + ef;
  const V l = l0 + small;
  a_hi = h + l;
  const V back = a_hi - h;
  a_lo = l - back;
}

// cos and sin of a_hi + a_lo, |a_hi| < kMaxFastAngle (steps 3-5).
template <class V>
PEC_HD_FN void sincos_dd(const V& a_hi, const V& a_lo, V& c_out, V& s_out) {
  using namespace rope_const;
  const V t = a_hi * kTwoOverPi + kRoundMagic;  // 1.5*2^52 + k exactly
  const V k = t - kRoundMagic;                  // = round_magic(a_hi * kTwoOverPi)
  V t_hi, t_lo, u_hi, u_lo;
  const V p1 = V{} + kPio2_1;  // broadcast (exact: 0 + x)
  const V p2 = V{} + kPio2_2;
  two_prod(k, p1, t_hi, t_lo);
  two_prod(k, p2, u_hi, u_lo);
  const V v = k * kPio2_3;
  const V r0 = a_hi - t_hi;  // exact
  const V w1 = a_lo - t_lo;
  const V w2 = w1 - u_hi;
  const V w3 = w2 - u_lo;
  const V w4 = w3 - v;
  const V r = r0 + w4;
  const V z = r * r;
  // sin r = r + r*z*(S1 + z*(S2 + ... )), Taylor coefficients 1/(2j+1)! with alternating signs.
  V ps = z * (1.0 / 6227020800.0);           // 1/13!
  ps = ps + (-1.0 / 39916800.0);             // -1/11!
  ps = ps * z;
  ps = ps + (1.0 / 362880.0);                // 1/9!
  ps = ps * z;
  ps = ps + (-1.0 / 5040.0);                 // -1/7!
  ps = ps * z;
  ps = ps + (1.0 / 120.0);                   // 1/5!
  ps = ps * z;
  ps = ps + (-1.0 / 6.0);                    // -1/3!
  const V rz = r * z;
  const V sin_tail = rz * ps;
  const V sin_r = r + sin_tail;
  // cos r = 1 - z/2 + z^2*(C2 + z*(C3 + ...)), Taylor coefficients 1/(2j)!.
  V pc = z * (1.0 / 87178291200.0);          // 1/14!
  pc = pc + (-1.0 / 479001600.0);            // -1/12!
  pc = pc * z;
  pc = pc + (1.0 / 3628800.0);               // 1/10!
  pc = pc * z;
  pc = pc + (-1.0 / 40320.0);                // -1/8!
  pc = pc * z;
  pc = pc + (1.0 / 720.0);                   // 1/6! (sign: cos = 1 - z/2 + z^2/24 - z^3/720 ...)
  pc = pc * z;
  pc = -pc + (1.0 / 24.0);                   // 1/4!
  // The alternating signs: with u = z, cos r = 1 - u/2 + u^2 (1/24 - u/720 + u^2/40320 - ...).
  // The Horner chain above built (1/720 - u/40320 + u^2/3628800 - ...) and negated it.
  const V zz = z * z;
  const V cos_tail = zz * pc;
  const V half_z = z * 0.5;
  const V one_minus = 1.0 - half_z;
  const V cos_r = one_minus + cos_tail;
  // Quadrant: q = k mod 4 = bits(t) & 3 (step 5); swap for q odd, -sin for q in {2, 3},
  // -cos for q in {1, 2}.
  const auto q = dbits(t) & 3;
  const auto swap = (q & 1) != 0;
  const auto neg_s = (q & 2) != 0;
  const auto neg_c = ((q + 1) & 2) != 0;
  const V s_abs = swap ? cos_r : sin_r;
  const V c_abs = swap ? sin_r : cos_r;
  s_out = neg_s ? -s_abs : s_abs;
  c_out = neg_c ? -c_abs : c_abs;
}

// cos and sin of position*scale*(f_hi + f_lo) for |angle| < kMaxFastAngle.
template <class V>
PEC_HD_FN void rope_sincos(const V& position, const V& scale, const V& f_hi, const V& f_lo,
                           V& c_out, V& s_out) {
  V a_hi, a_lo;
  rope_angle_dd(position, scale, f_hi, f_lo, a_hi, a_lo);
  sincos_dd(a_hi, a_lo, c_out, s_out);
}

}  // namespace pecheck::kernels
