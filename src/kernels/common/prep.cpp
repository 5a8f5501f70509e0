// Host-side preparation shared by pecheck_simd and pecheck_cuda. See prep.hpp.
#include "kernels/common/prep.hpp"

#include <quadmath.h>

#include <cmath>
#include <limits>

#include "kernels/shared/alibi_arith.hpp"
#include "kernels/shared/rope_angle.hpp"

namespace pecheck::kernels {
namespace {

constexpr int64_t kMaxPosition = int64_t{1} << 31;  // positions lie in [0, 2^31)
// Largest element count we accept: far beyond any memory, small enough that byte counts
// (elements * 4) never overflow int64.
constexpr int64_t kMaxElements = int64_t{1} << 60;

bool positions_ok(const int64_t* p, int64_t n, int64_t limit) {
  if (n == 0) return true;
  if (p == nullptr) return false;
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] < 0 || p[i] >= limit) return false;
  }
  return true;
}

// a*b*c without overflow beyond kMaxElements (all >= 0).
bool product_ok(int64_t a, int64_t b, int64_t c, int64_t& out) {
  __int128 p = static_cast<__int128>(a) * b;
  if (p > kMaxElements) return false;
  p *= c;
  if (p > kMaxElements) return false;
  out = static_cast<int64_t>(p);
  return true;
}

}  // namespace

bool valid_rope(const pec_rope_args* a, const float* x, const float* y) {
  if (a == nullptr) return false;
  if (a->n_tokens < 0 || a->n_heads < 1 || a->head_dim < 2) return false;
  if (a->rotary_dim < 2 || a->rotary_dim > a->head_dim || a->rotary_dim % 2 != 0) return false;
  if (a->layout != PEC_ROPE_NEOX && a->layout != PEC_ROPE_GPTJ) return false;
  if (!std::isfinite(a->theta_base) || !(a->theta_base > 1.0)) return false;
  if (!std::isfinite(a->position_scale) || !(a->position_scale > 0.0)) return false;
  int64_t n = 0;
  if (!product_ok(a->n_tokens, a->n_heads, a->head_dim, n)) return false;
  if (n > 0 && (x == nullptr || y == nullptr)) return false;
  return positions_ok(a->positions, a->n_tokens, kMaxPosition);
}

bool valid_alibi(const pec_alibi_args* a, const float* scores) {
  if (a == nullptr) return false;
  if (a->n_heads < 1 || a->n_q < 0 || a->n_k < 0) return false;
  if (a->mode != PEC_ALIBI_SYMMETRIC && a->mode != PEC_ALIBI_CAUSAL) return false;
  int64_t n = 0;
  if (!product_ok(a->n_heads, a->n_q, a->n_k, n)) return false;
  if (n > 0 && scores == nullptr) return false;
  return positions_ok(a->q_pos, a->n_q, kMaxPosition) &&
         positions_ok(a->k_pos, a->n_k, kMaxPosition);
}

bool valid_t5(const pec_t5_args* a, const float* bias) {
  if (a == nullptr) return false;
  if (a->n_heads < 1 || a->n_q < 0 || a->n_k < 0) return false;
  if (a->bidirectional != 0 && a->bidirectional != 1) return false;
  const int64_t min_buckets = a->bidirectional ? 4 : 2;
  if (a->num_buckets < min_buckets || a->num_buckets > 1024) return false;
  const int64_t max_exact = a->bidirectional ? a->num_buckets / 4 : a->num_buckets / 2;
  if (a->max_distance <= max_exact || a->max_distance > kMaxPosition) return false;
  int64_t n = 0, t = 0;
  if (!product_ok(a->n_heads, a->n_q, a->n_k, n)) return false;
  if (!product_ok(a->num_buckets, a->n_heads, 1, t)) return false;
  if (a->table == nullptr) return false;
  if (n > 0 && bias == nullptr) return false;
  return positions_ok(a->q_pos, a->n_q, kMaxPosition) &&
         positions_ok(a->k_pos, a->n_k, kMaxPosition);
}

bool valid_sinusoidal(const pec_sinusoidal_args* a, const float* out) {
  if (a == nullptr) return false;
  if (a->n_tokens < 0 || a->d_model < 2 || a->d_model % 2 != 0) return false;
  if (!std::isfinite(a->base) || !(a->base > 1.0)) return false;
  int64_t n = 0;
  if (!product_ok(a->n_tokens, a->d_model, 1, n)) return false;
  if (n > 0 && out == nullptr) return false;
  return positions_ok(a->positions, a->n_tokens, kMaxPosition);
}

bool valid_learned(const pec_learned_args* a, const float* out) {
  if (a == nullptr) return false;
  if (a->n_tokens < 0 || a->d_model < 1 || a->max_positions < 1) return false;
  int64_t n = 0, t = 0;
  if (!product_ok(a->n_tokens, a->d_model, 1, n)) return false;
  if (!product_ok(a->max_positions, a->d_model, 1, t)) return false;
  if (a->table == nullptr) return false;
  if (n > 0 && out == nullptr) return false;
  return positions_ok(a->positions, a->n_tokens, a->max_positions);
}

void freq_table(double base, int64_t dim, const float* inv_freq, int64_t pad, FreqTable& out) {
  const int64_t half = dim / 2;
  out.hi.assign(static_cast<size_t>(pad), 0.0);
  out.lo.assign(static_cast<size_t>(pad), 0.0);
  out.absmax = 0.0;
  if (inv_freq != nullptr) {
    for (int64_t i = 0; i < half; ++i) out.hi[static_cast<size_t>(i)] = inv_freq[i];
  } else {
    // The last (base, dim) table of this thread: powq costs ~1 us, and callers (verify,
    // benchmarks, inference) repeat the same configuration.
    thread_local double cached_base = 0.0;
    thread_local int64_t cached_dim = 0;
    thread_local std::vector<double> cached_hi, cached_lo;
    if (cached_base != base || cached_dim != dim) {
      cached_hi.assign(static_cast<size_t>(half), 0.0);
      cached_lo.assign(static_cast<size_t>(half), 0.0);
      const __float128 b = base;
      for (int64_t i = 0; i < half; ++i) {
        // f_i = base^(-2i/dim): the exponent rounded to quad (2^-113 relative), powq within
        // a few quad ulps: f_hi + f_lo carries ~2^-106 relative error.
        const __float128 e = -static_cast<__float128>(2 * i) / static_cast<__float128>(dim);
        const __float128 f = powq(b, e);
        const double h = static_cast<double>(f);
        cached_hi[static_cast<size_t>(i)] = h;
        cached_lo[static_cast<size_t>(i)] = static_cast<double>(f - static_cast<__float128>(h));
      }
      cached_base = base;
      cached_dim = dim;
    }
    for (int64_t i = 0; i < half; ++i) {
      out.hi[static_cast<size_t>(i)] = cached_hi[static_cast<size_t>(i)];
      out.lo[static_cast<size_t>(i)] = cached_lo[static_cast<size_t>(i)];
    }
  }
  for (int64_t i = 0; i < half; ++i) {
    const double v = std::fabs(out.hi[static_cast<size_t>(i)]);
    if (v > out.absmax) out.absmax = v;  // NaN entries skipped: they only make NaN outputs
  }
}

void sincos_quad_row(double position, double scale, const double* f_hi, const double* f_lo,
                     int64_t n, float* c, float* s) {
  const __float128 ps = static_cast<__float128>(position) * static_cast<__float128>(scale);
  for (int64_t i = 0; i < n; ++i) {
    const __float128 f = static_cast<__float128>(f_hi[i]) + static_cast<__float128>(f_lo[i]);
    const __float128 a = ps * f;
    __float128 sq, cq;
    sincosq(a, &sq, &cq);
    c[i] = static_cast<float>(static_cast<double>(cq));
    s[i] = static_cast<float>(static_cast<double>(sq));
  }
}

void rope_host_rows(const pec_rope_args& a, const FreqTable& freq, std::vector<uint8_t>& host_rows,
                    std::vector<float>& c, std::vector<float>& s) {
  const auto nt = static_cast<size_t>(a.n_tokens);
  const auto half = static_cast<size_t>(a.rotary_dim / 2);
  host_rows.assign(nt, 0);
  c.assign(nt * half, 0.0f);
  s.assign(nt * half, 0.0f);
  for (size_t t = 0; t < nt; ++t) {
    const double pos = static_cast<double>(a.positions[t]);
    if (pos * a.position_scale * freq.absmax >= 0.5 * rope_const::kMaxFastAngle) {
      host_rows[t] = 1;
      sincos_quad_row(pos, a.position_scale, freq.hi.data(), freq.lo.data(),
                      static_cast<int64_t>(half), &c[t * half], &s[t * half]);
    }
  }
}

std::vector<int64_t> t5_thresholds(int64_t half_buckets, int64_t max_exact, int64_t max_distance) {
  const int64_t span = half_buckets - max_exact;  // buckets of the logarithmic part
  std::vector<int64_t> thr;
  if (span <= 1) return thr;
  thr.reserve(static_cast<size_t>(span - 1));
  const __float128 me = static_cast<__float128>(max_exact);
  const __float128 ratio = static_cast<__float128>(max_distance) / me;
  for (int64_t v = 1; v < span; ++v) {
    // The smallest n with log(n/me)/log(md/me)*span >= v, i.e. n >= me*(md/me)^(v/span).
    const __float128 t = me * powq(ratio, static_cast<__float128>(v) / static_cast<__float128>(span));
    const __float128 nearest = roundq(t);
    // An exact integer threshold (md/me a perfect power) comes out within quad rounding of
    // it: take it as exact. The real formula there lies within rounding of an integer, where
    // ABI-T5-2 accepts both neighbouring buckets; elsewhere ceil gives the exact answer.
    const bool on_integer = fabsq(t - nearest) <= static_cast<__float128>(1e-24) * t;
    const __float128 n = on_integer ? nearest : ceilq(t);
    thr.push_back(n > static_cast<__float128>(max_distance) ? max_distance
                                                            : static_cast<int64_t>(n));
  }
  return thr;
}

double alibi_slope(int64_t n_heads, int64_t h) {
  int64_t num = 0, den = 1;
  alibi_slope_exponent<int64_t>(n_heads, h, num, den);
  // den is a power of two, so num/den is exact; exp2 is exact for integer exponents and
  // within an ulp otherwise.
  return std::exp2(static_cast<double>(num) / static_cast<double>(den));
}

}  // namespace pecheck::kernels
