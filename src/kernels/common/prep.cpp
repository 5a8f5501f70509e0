// Host-side preparation shared by pecheck_simd and pecheck_cuda. See prep.hpp.
#include "kernels/common/prep.hpp"

#include <quadmath.h>

#include <cmath>
#include <limits>

#include "kernels/shared/alibi_arith.hpp"
#include "kernels/shared/f16_conv.hpp"
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

bool valid_rope(const pec_rope_args* a, const void* x, const void* y) {
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

bool valid_alibi(const pec_alibi_args* a, const void* scores) {
  if (a == nullptr) return false;
  if (a->n_heads < 1 || a->n_q < 0 || a->n_k < 0) return false;
  if (a->mode != PEC_ALIBI_SYMMETRIC && a->mode != PEC_ALIBI_CAUSAL) return false;
  int64_t n = 0;
  if (!product_ok(a->n_heads, a->n_q, a->n_k, n)) return false;
  if (n > 0 && scores == nullptr) return false;
  return positions_ok(a->q_pos, a->n_q, kMaxPosition) &&
         positions_ok(a->k_pos, a->n_k, kMaxPosition);
}

template <class A>
bool valid_t5_impl(const A* a, const void* bias) {
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

bool valid_t5(const pec_t5_args* a, const void* bias) { return valid_t5_impl(a, bias); }
bool valid_t5(const pec_t5_args16* a, const void* bias) { return valid_t5_impl(a, bias); }

bool valid_sinusoidal(const pec_sinusoidal_args* a, const void* out) {
  if (a == nullptr) return false;
  if (a->n_tokens < 0 || a->d_model < 2 || a->d_model % 2 != 0) return false;
  if (!std::isfinite(a->base) || !(a->base > 1.0)) return false;
  int64_t n = 0;
  if (!product_ok(a->n_tokens, a->d_model, 1, n)) return false;
  if (n > 0 && out == nullptr) return false;
  return positions_ok(a->positions, a->n_tokens, kMaxPosition);
}

template <class A>
bool valid_learned_impl(const A* a, const void* out) {
  if (a == nullptr) return false;
  if (a->n_tokens < 0 || a->d_model < 1 || a->max_positions < 1) return false;
  int64_t n = 0, t = 0;
  if (!product_ok(a->n_tokens, a->d_model, 1, n)) return false;
  if (!product_ok(a->max_positions, a->d_model, 1, t)) return false;
  if (a->table == nullptr) return false;
  if (n > 0 && out == nullptr) return false;
  return positions_ok(a->positions, a->n_tokens, a->max_positions);
}

bool valid_learned(const pec_learned_args* a, const void* out) { return valid_learned_impl(a, out); }
bool valid_learned(const pec_learned_args16* a, const void* out) { return valid_learned_impl(a, out); }

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
                     int64_t n, float* c, float* s, double attn, bool odd) {
  const __float128 ps = static_cast<__float128>(position) * static_cast<__float128>(scale);
  const __float128 m = static_cast<__float128>(attn);  // attn = 1 leaves the bits unchanged
  for (int64_t i = 0; i < n; ++i) {
    const __float128 f = static_cast<__float128>(f_hi[i]) + static_cast<__float128>(f_lo[i]);
    const __float128 a = ps * f;
    __float128 sq, cq;
    sincosq(a, &sq, &cq);
    const double cd = static_cast<double>(cq * m), sd = static_cast<double>(sq * m);
    c[i] = odd ? f32_round_odd(cd) : static_cast<float>(cd);
    s[i] = odd ? f32_round_odd(sd) : static_cast<float>(sd);
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

// ---- Version 2: strided views, query + key, the cos/sin cache (ABI-QK-1, ABI-VIEW-1,
// ABI-CACHE-1, ABI-CACHE-3) ----------------------------------------------------------------------
namespace {

// A tensor [n_tokens][n_heads][head_dim] at `base` with strides in elements of `elem` bytes.
struct View {
  uintptr_t base;
  int64_t n_tokens, n_heads, head_dim, elem;
  pec_strides s;
  bool head_outer = false;  // rows in address order are (h, t) instead of (t, h)
  int64_t extent = 0;       // elements from base to one past the last element
};

// ABI-VIEW-1: token-major (s.head >= head_dim, s.token >= n_heads*s.head) or head-major
// (s.token >= head_dim, s.head >= n_tokens*s.token); a stride the shape does not use (one
// token, one head) only has to be >= 0. Either form makes the rows disjoint and, visited in
// the form's order, increasing in address (the overlap sweep below relies on it).
bool view_ok(View& v) {
  const int64_t T = v.n_tokens, H = v.n_heads, D = v.head_dim;
  const pec_strides s = v.s;
  if (s.token < 0 || s.head < 0) return false;
  if (T == 0) return true;
  const bool need_t = T > 1, need_h = H > 1;
  const __int128 st = s.token, sh = s.head;
  if (need_t && need_h) {
    const bool token_major = sh >= D && st >= H * sh;
    const bool head_major = st >= D && sh >= T * st;
    if (!token_major && !head_major) return false;
    v.head_outer = !token_major;
  } else if (need_t) {
    if (st < D) return false;
  } else if (need_h) {
    if (sh < D) return false;
    v.head_outer = true;
  }
  const __int128 ext = (need_t ? (T - 1) * st : 0) + (need_h ? (H - 1) * sh : 0) + D;
  if (ext > kMaxElements) return false;
  v.extent = static_cast<int64_t>(ext);
  return true;
}

// Byte interval [lo, hi) of row r of a view, rows numbered in address order.
struct Rows {
  const View& v;
  int64_t n() const { return v.n_tokens * v.n_heads; }
  void row(int64_t r, uintptr_t& lo, uintptr_t& hi) const {
    int64_t t, h;
    if (v.head_outer) {
      h = r / v.n_tokens;
      t = r % v.n_tokens;
    } else {
      t = r / v.n_heads;
      h = r % v.n_heads;
    }
    lo = v.base + static_cast<uintptr_t>((t * v.s.token + h * v.s.head) * v.elem);
    hi = lo + static_cast<uintptr_t>(v.head_dim * v.elem);
  }
};

// Whether two valid views share a byte: disjoint spans first (the common case, O(1)), else a
// merge of the two row lists in address order (O(rows)), so that views interleaved in one
// fused buffer (q and k heads of a QKV row) are told apart from overlapping ones.
bool overlap(const View& a, const View& b) {
  if (a.n_tokens == 0 || b.n_tokens == 0) return false;
  const uintptr_t a_end = a.base + static_cast<uintptr_t>(a.extent * a.elem);
  const uintptr_t b_end = b.base + static_cast<uintptr_t>(b.extent * b.elem);
  if (a_end <= b.base || b_end <= a.base) return false;
  const Rows ra{a}, rb{b};
  int64_t i = 0, j = 0;
  uintptr_t alo, ahi, blo, bhi;
  ra.row(0, alo, ahi);
  rb.row(0, blo, bhi);
  while (true) {
    if (alo < bhi && blo < ahi) return true;
    if (ahi <= bhi) {
      if (++i == ra.n()) return false;
      ra.row(i, alo, ahi);
    } else {
      if (++j == rb.n()) return false;
      rb.row(j, blo, bhi);
    }
  }
}

View make_view(const void* p, int64_t T, int64_t H, int64_t D, int64_t elem, pec_strides s) {
  View v{reinterpret_cast<uintptr_t>(p), T, H, D, elem, s};
  return v;
}

// out == in with equal strides, a stride the shape does not use (one token, one head) aside.
bool same_view(const void* in, pec_strides si, const void* out, pec_strides so, int64_t T, int64_t H) {
  return in == out && (T <= 1 || si.token == so.token) && (H <= 1 || si.head == so.head);
}

// The four tensors of a qk or cached call (plus the cache as a one-row view when given).
bool views_ok(int64_t T, int64_t Hq, int64_t Hk, int64_t D, const void* q, const void* k,
              const void* qo, const void* ko, int64_t elem, pec_strides sq, pec_strides sk,
              pec_strides sqo, pec_strides sko, const View* cache) {
  if (T > 0 && (q == nullptr || k == nullptr || qo == nullptr || ko == nullptr)) return false;
  View vq = make_view(q, T, Hq, D, elem, sq), vk = make_view(k, T, Hk, D, elem, sk);
  View vqo = make_view(qo, T, Hq, D, elem, sqo), vko = make_view(ko, T, Hk, D, elem, sko);
  if (!view_ok(vq) || !view_ok(vk) || !view_ok(vqo) || !view_ok(vko)) return false;
  if (T == 0) return true;
  // In place is out == in with equal strides (ABI-QK-4); the same pointer otherwise is an
  // overlap, rejected below.
  const bool q_in_place = same_view(q, sq, qo, sqo, T, Hq), k_in_place = same_view(k, sk, ko, sko, T, Hk);
  if (!q_in_place && overlap(vqo, vq)) return false;
  if (!k_in_place && overlap(vko, vk)) return false;
  if (overlap(vqo, vk) || overlap(vko, vq) || overlap(vqo, vko)) return false;
  if (cache != nullptr && (overlap(vqo, *cache) || overlap(vko, *cache))) return false;
  return true;
}

bool rope_common_ok(int64_t T, int64_t Hq, int64_t Hk, int64_t D, int64_t rot, int32_t layout) {
  if (T < 0 || Hq < 1 || Hk < 1 || Hq % Hk != 0 || D < 2) return false;
  if (rot < 2 || rot > D || rot % 2 != 0) return false;
  return layout == PEC_ROPE_NEOX || layout == PEC_ROPE_GPTJ;
}

bool positive_finite(double v) { return std::isfinite(v) && v > 0.0; }

}  // namespace

int64_t dtype_bytes(int32_t dtype) {
  switch (dtype) {
    case PEC_DTYPE_F32: return 4;
    case PEC_DTYPE_BF16:
    case PEC_DTYPE_F16: return 2;
    default: return 0;
  }
}

bool valid_rope_qk(const pec_rope_qk_args* a, const void* q, const void* k, const void* q_out,
                   const void* k_out, int64_t elem) {
  if (a == nullptr) return false;
  if (!rope_common_ok(a->n_tokens, a->n_q_heads, a->n_kv_heads, a->head_dim, a->rotary_dim,
                      a->layout)) {
    return false;
  }
  if (!std::isfinite(a->theta_base) || !(a->theta_base > 1.0)) return false;
  if (!positive_finite(a->position_scale) || !positive_finite(a->attn_factor)) return false;
  if (!positions_ok(a->positions, a->n_tokens, kMaxPosition)) return false;
  return views_ok(a->n_tokens, a->n_q_heads, a->n_kv_heads, a->head_dim, q, k, q_out, k_out, elem,
                  a->q, a->k, a->q_out, a->k_out, nullptr);
}

bool valid_mrope(const pec_mrope_args* a, const void* q, const void* k, const void* q_out,
                 const void* k_out, int64_t elem) {
  if (a == nullptr) return false;
  if (!rope_common_ok(a->n_tokens, a->n_q_heads, a->n_kv_heads, a->head_dim, a->rotary_dim,
                      a->layout)) {
    return false;
  }
  if (!std::isfinite(a->theta_base) || !(a->theta_base > 1.0)) return false;
  if (!positive_finite(a->position_scale) || !positive_finite(a->attn_factor)) return false;
  // ABI-MROPE-1: the layout, sections >= 0 summing to rotary_dim/2 (each checked before the
  // sum, so the sum cannot overflow), the interleaved limits, and [3][n_tokens] positions.
  if (a->mrope_layout != PEC_MROPE_SECTIONED && a->mrope_layout != PEC_MROPE_INTERLEAVED) {
    return false;
  }
  const int64_t half = a->rotary_dim / 2;
  const int64_t st = a->mrope_section[0], sh = a->mrope_section[1], sw = a->mrope_section[2];
  if (st < 0 || sh < 0 || sw < 0 || st > half || sh > half || sw > half) return false;
  if (st + sh + sw != half) return false;
  if (a->mrope_layout == PEC_MROPE_INTERLEAVED) {
    if (sh > 0 && !(3 * sh - 2 < half)) return false;
    if (sw > 0 && !(3 * sw - 1 < half)) return false;
  }
  if (a->n_tokens > kMaxElements / 3) return false;
  if (a->n_tokens > 0 && a->positions == nullptr) return false;
  if (!positions_ok(a->positions, 3 * a->n_tokens, kMaxPosition)) return false;
  return views_ok(a->n_tokens, a->n_q_heads, a->n_kv_heads, a->head_dim, q, k, q_out, k_out, elem,
                  a->q, a->k, a->q_out, a->k_out, nullptr);
}

bool valid_rope_cached(const pec_rope_cached_args* a, const void* q, const void* k,
                       const void* q_out, const void* k_out, int64_t elem) {
  if (a == nullptr) return false;
  if (!rope_common_ok(a->n_tokens, a->n_q_heads, a->n_kv_heads, a->head_dim, a->rotary_dim,
                      a->layout)) {
    return false;
  }
  const int64_t ce = dtype_bytes(a->cache_dtype);
  if (ce == 0 || a->cache_positions < 1) return false;
  int64_t cache_n = 0;
  if (!product_ok(a->cache_positions, a->rotary_dim, 1, cache_n)) return false;
  // Positions index the cache (tier A) and stay in [0, 2^31) like every RoPE position.
  const int64_t limit = a->cache_positions < kMaxPosition ? a->cache_positions : kMaxPosition;
  if (!positions_ok(a->positions, a->n_tokens, limit)) return false;
  if (a->n_tokens > 0 && a->cos_sin_cache == nullptr) return false;
  View cache = make_view(a->cos_sin_cache, 1, 1, cache_n, ce, pec_strides{0, 0});
  cache.extent = cache_n;
  return views_ok(a->n_tokens, a->n_q_heads, a->n_kv_heads, a->head_dim, q, k, q_out, k_out, elem,
                  a->q, a->k, a->q_out, a->k_out, &cache);
}

bool valid_rope_cache(const pec_rope_cache_args* a, const void* cache) {
  if (a == nullptr) return false;
  if (a->cache_positions < 1 || a->cache_positions > kMaxPosition) return false;
  if (a->rotary_dim < 2 || a->rotary_dim % 2 != 0) return false;
  if (!std::isfinite(a->theta_base) || !(a->theta_base > 1.0)) return false;
  if (!positive_finite(a->position_scale) || !positive_finite(a->attn_factor)) return false;
  int64_t n = 0;
  if (!product_ok(a->cache_positions, a->rotary_dim, 1, n)) return false;
  return cache != nullptr;
}

}  // namespace pecheck::kernels
