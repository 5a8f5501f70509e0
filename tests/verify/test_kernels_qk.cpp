#include "test_kernels_qk.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include "verify/isolation/storage.hpp"

namespace testk {

QkBug g_qk_bug = QkBug::None;

namespace {

using pecheck::verifier::from_storage;
using pecheck::verifier::Storage;
using pecheck::verifier::to_storage;

constexpr std::int64_t kPosLimit = std::int64_t{1} << 31;

template <class T, Storage S>
double load(const T* p, std::int64_t i) {
  if constexpr (S == Storage::F32)
    return p[i];
  else
    return from_storage(p[i], S);
}

template <class T, Storage S>
void store(T* p, std::int64_t i, double v) {
  if constexpr (S == Storage::F32)
    p[i] = static_cast<float>(v);
  else
    p[i] = static_cast<std::uint16_t>(to_storage(v, S));  // one rounding, nearest-even
}

double round_in(double v, Storage s) { return from_storage(to_storage(v, s), s); }

// ABI-VIEW-1.
bool view_ok(const pec_strides& s, std::int64_t T, std::int64_t H, std::int64_t D) {
  if (T <= 0) return true;
  if (s.token < 0 || s.head < 0) return false;
  if (T == 1 && H == 1) return true;
  if (H == 1) return s.token >= D;
  if (T == 1) return s.head >= D;
  return (s.head >= D && s.token >= H * s.head) || (s.token >= D && s.head >= T * s.token);
}

template <class A>
bool shape_ok(const A* a) {
  return a->n_tokens >= 0 && a->n_q_heads >= 1 && a->n_kv_heads >= 1 && a->head_dim >= 2 &&
         a->rotary_dim >= 2 && a->rotary_dim <= a->head_dim && a->rotary_dim % 2 == 0 &&
         a->n_q_heads % a->n_kv_heads == 0 && (a->layout == 0 || a->layout == 1) &&
         view_ok(a->q, a->n_tokens, a->n_q_heads, a->head_dim) &&
         view_ok(a->q_out, a->n_tokens, a->n_q_heads, a->head_dim) &&
         view_ok(a->k, a->n_tokens, a->n_kv_heads, a->head_dim) &&
         view_ok(a->k_out, a->n_tokens, a->n_kv_heads, a->head_dim);
}

std::int64_t lane_a(std::int32_t layout, std::int64_t R, std::int64_t i) {
  return layout == 0 ? i : 2 * i;
  (void)R;
}
std::int64_t lane_b(std::int32_t layout, std::int64_t R, std::int64_t i) {
  return layout == 0 ? i + R / 2 : 2 * i + 1;
}

struct Dims {
  std::int64_t T, H, D, R;
  std::int32_t layout;
};

// Rotates one tensor: cs(t, i, &c, &s) gives the factors of token t, pair i; `op` combines
// (xa, xb, c, s) into (ya, yb) doubles before the store's one rounding.
template <class T, Storage S, class CosSin>
void rotate(const Dims& d, const T* x, pec_strides sx, T* y, pec_strides sy, CosSin cs,
            bool per_op) {
  if (g_qk_bug == QkBug::IgnoreStrides) sx = sy = {d.H * d.D, d.D};
  std::vector<double> in(static_cast<std::size_t>(d.D));
  for (std::int64_t t = 0; t < d.T; ++t) {
    for (std::int64_t h = 0; h < d.H; ++h) {
      const std::int64_t bx = t * sx.token + h * sx.head, by = t * sy.token + h * sy.head;
      for (std::int64_t l = 0; l < d.D; ++l)
        in[static_cast<std::size_t>(l)] = load<T, S>(x, bx + l);
      for (std::int64_t l = d.R; l < d.D; ++l)
        store<T, S>(y, by + l, in[static_cast<std::size_t>(l)]);
      for (std::int64_t i = 0; i < d.R / 2; ++i) {
        const std::int64_t ia = lane_a(d.layout, d.R, i), ib = lane_b(d.layout, d.R, i);
        double c = 0, s = 0;
        cs(t, i, &c, &s);
        const double xa = in[static_cast<std::size_t>(ia)], xb = in[static_cast<std::size_t>(ib)];
        double ya = xa * c - xb * s, yb = xb * c + xa * s;
        if (g_qk_bug == QkBug::FloatField) {  // float products and sums
          const float fa = static_cast<float>(xa), fb = static_cast<float>(xb);
          const float fc = static_cast<float>(c), fs = static_cast<float>(s);
          const float pa = fa * fc, pb = fb * fs, pc = fb * fc, pd = fa * fs;
          ya = pa - pb;
          yb = pc + pd;
        }
        if (per_op) {
          ya = round_in(round_in(xa * c, S) - round_in(xb * s, S), S);
          yb = round_in(round_in(xb * c, S) + round_in(xa * s, S), S);
        }
        if (g_qk_bug == QkBug::BatchDependent && d.T % 2 == 1 && t == d.T - 1 &&
            S == Storage::F32) {
          ya = std::nextafter(static_cast<float>(ya),
                              INFINITY);  // one ulp: within budget, not batch-invariant
        }
        store<T, S>(y, by + ia, ya);
        if (g_qk_bug == QkBug::InPlaceAlias) {
          const double xa2 = load<T, S>(x, bx + ia);  // the new y[a] when y == x
          yb = xb * c + xa2 * s;
        }
        store<T, S>(y, by + ib, yb);
      }
    }
  }
}

double inv_freq(const float* table, double base, std::int64_t i, std::int64_t R) {
  return table ? static_cast<double>(table[i])
               : std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(R));
}

// Hugging Face's float32 frequency: 1 / powf(base, 2i / d).
float float_inv_freq(const float* table, double base, std::int64_t i, std::int64_t R) {
  if (table) return table[i];
  return 1.0f /
         std::pow(static_cast<float>(base), static_cast<float>(2 * i) / static_cast<float>(R));
}

double bf16_round(double v) { return round_in(v, Storage::BF16); }

template <class T, Storage S>
int rope_qk(const pec_rope_qk_args* a, const T* q, const T* k, T* qo, T* ko) {
  bool valid = a && shape_ok(a) && std::isfinite(a->theta_base) && a->theta_base > 1 &&
               std::isfinite(a->position_scale) && a->position_scale > 0 &&
               std::isfinite(a->attn_factor) && a->attn_factor > 0 &&
               (a->n_tokens == 0 || (a->positions && q && k && qo && ko));
  for (std::int64_t t = 0; valid && t < a->n_tokens; ++t)
    valid = a->positions[t] >= 0 && a->positions[t] < kPosLimit;
  if (!valid && g_qk_bug != QkBug::NoValidation) return 1;
  if (g_qk_bug == QkBug::NeoxOnly && (a->layout != 0 || (a->head_dim != 64 && a->head_dim != 128)))
    return 2;
  double af = a->attn_factor, as = a->attn_factor;
  if (g_qk_bug == QkBug::AttnTwice) af = as = a->attn_factor * a->attn_factor;
  if (g_qk_bug == QkBug::AttnCosOnly) as = 1.0;
  const auto cs = [&](std::int64_t t, std::int64_t i, double* c, double* s) {
    double pos = static_cast<double>(a->positions[t]);
    if (g_qk_bug == QkBug::Bf16Position) pos = bf16_round(pos);
    const double ang =
        pos * a->position_scale * inv_freq(a->inv_freq, a->theta_base, i, a->rotary_dim);
    *c = af * std::cos(ang);
    *s = as * std::sin(ang);
    if (g_qk_bug == QkBug::FloatField) {
      const float fang = static_cast<float>(a->positions[t]) *
                         static_cast<float>(a->position_scale) *
                         float_inv_freq(a->inv_freq, a->theta_base, i, a->rotary_dim);
      *c = static_cast<float>(af) * std::cos(fang);
      *s = static_cast<float>(as) * std::sin(fang);
    }
  };
  const Dims dq{a->n_tokens, a->n_q_heads, a->head_dim, a->rotary_dim, a->layout};
  Dims dk{a->n_tokens, a->n_kv_heads, a->head_dim, a->rotary_dim, a->layout};
  if (g_qk_bug == QkBug::KeyWithQueryHeads) dk.H = a->n_q_heads;
  rotate<T, S>(dq, q, a->q, qo, a->q_out, cs, false);
  rotate<T, S>(dk, k, a->k, ko, a->k_out, cs, false);
  return 0;
}

template <class T, Storage S>
int rope_cached(const pec_rope_cached_args* a, const T* q, const T* k, T* qo, T* ko) {
  bool valid = a && shape_ok(a) && a->cache_dtype >= 0 && a->cache_dtype <= 2 &&
               a->cache_positions >= 1 && a->cos_sin_cache &&
               (a->n_tokens == 0 || (a->positions && q && k && qo && ko));
  for (std::int64_t t = 0; valid && t < a->n_tokens; ++t)
    valid = a->positions[t] >= 0 && a->positions[t] < a->cache_positions;
  if (!valid && g_qk_bug != QkBug::NoValidation) return 1;
  if (g_qk_bug == QkBug::NeoxOnly && (a->layout != 0 || (a->head_dim != 64 && a->head_dim != 128)))
    return 2;
  const std::int64_t R = a->rotary_dim;
  const Storage cd = a->cache_dtype == PEC_DTYPE_BF16  ? Storage::BF16
                     : a->cache_dtype == PEC_DTYPE_F16 ? Storage::F16
                                                       : Storage::F32;
  const auto entry = [&](std::int64_t row, std::int64_t l) -> double {
    const std::int64_t i = row * R + l;
    if (cd == Storage::F32) {
      const double v = static_cast<const float*>(a->cos_sin_cache)[i];
      return g_qk_bug == QkBug::DegradeF32Cache ? bf16_round(v) : v;
    }
    return from_storage(static_cast<const std::uint16_t*>(a->cos_sin_cache)[i], cd);
  };
  const auto cs = [&](std::int64_t t, std::int64_t i, double* c, double* s) {
    const std::int64_t row = g_qk_bug == QkBug::CacheByTokenIndex ? t : a->positions[t];
    *c = entry(row, i);
    *s = entry(row, R / 2 + i);
  };
  const bool per_op = g_qk_bug == QkBug::PerOpStorage && S != Storage::F32;
  const Dims dq{a->n_tokens, a->n_q_heads, a->head_dim, R, a->layout};
  Dims dk{a->n_tokens, a->n_kv_heads, a->head_dim, R, a->layout};
  if (g_qk_bug == QkBug::KeyWithQueryHeads) dk.H = a->n_q_heads;
  rotate<T, S>(dq, q, a->q, qo, a->q_out, cs, per_op);
  rotate<T, S>(dk, k, a->k, ko, a->k_out, cs, per_op);
  return 0;
}

template <class T, Storage S>
int rope_cache(const pec_rope_cache_args* a, T* cache) {
  const bool valid = a && a->cache_positions >= 1 && a->cache_positions <= kPosLimit &&
                     a->rotary_dim >= 2 && a->rotary_dim % 2 == 0 && std::isfinite(a->theta_base) &&
                     a->theta_base > 1 && std::isfinite(a->position_scale) &&
                     a->position_scale > 0 && std::isfinite(a->attn_factor) && a->attn_factor > 0 &&
                     cache;
  if (!valid && g_qk_bug != QkBug::NoValidation) return 1;
  const std::int64_t R = a->rotary_dim, half = R / 2;
  double af = a->attn_factor, as = a->attn_factor;
  if (g_qk_bug == QkBug::AttnTwice) af = as = a->attn_factor * a->attn_factor;
  if (g_qk_bug == QkBug::AttnCosOnly) as = 1.0;
  std::vector<double> f(static_cast<std::size_t>(half));
  for (std::int64_t i = 0; i < half; ++i)
    f[static_cast<std::size_t>(i)] = inv_freq(a->inv_freq, a->theta_base, i, R);
  for (std::int64_t p = 0; p < a->cache_positions; ++p) {
    for (std::int64_t i = 0; i < half; ++i) {
      const double ang =
          static_cast<double>(p) * a->position_scale * f[static_cast<std::size_t>(i)];
      if (g_qk_bug == QkBug::FloatField) {
        const float fang = static_cast<float>(p) * static_cast<float>(a->position_scale) *
                           float_inv_freq(a->inv_freq, a->theta_base, i, R);
        store<T, S>(cache, p * R + i, static_cast<float>(af) * std::cos(fang));
        store<T, S>(cache, p * R + half + i, static_cast<float>(as) * std::sin(fang));
        continue;
      }
      store<T, S>(cache, p * R + i, af * std::cos(ang));
      store<T, S>(cache, p * R + half + i, as * std::sin(ang));
    }
  }
  return 0;
}

// M-RoPE (ABI-MROPE-1, -2): pair i at the position of its axis, sectioned or interleaved.
int mrope_axis(const pec_mrope_args* a, std::int64_t i) {
  const std::int64_t st = a->mrope_section[0], sh = a->mrope_section[1], sw = a->mrope_section[2];
  int ax = 0;
  if (a->mrope_layout == PEC_MROPE_INTERLEAVED && g_qk_bug != QkBug::MropeInterleavedAsSectioned)
    ax = (i % 3 == 1 && i < 3 * sh) ? 1 : (i % 3 == 2 && i < 3 * sw) ? 2 : 0;
  else
    ax = i < st ? 0 : i < st + sh ? 1 : 2;
  if (g_qk_bug == QkBug::MropeWrongAxis && ax > 0) ax = 3 - ax;
  if (g_qk_bug == QkBug::MropeTextPositions) ax = 0;
  return ax;
}

template <class T, Storage S>
int mrope(const pec_mrope_args* a, const T* q, const T* k, T* qo, T* ko) {
  bool valid = a && shape_ok(a) && std::isfinite(a->theta_base) && a->theta_base > 1 &&
               std::isfinite(a->position_scale) && a->position_scale > 0 &&
               std::isfinite(a->attn_factor) && a->attn_factor > 0 &&
               (a->n_tokens == 0 || (a->positions && q && k && qo && ko));
  if (valid) {
    const std::int64_t half = a->rotary_dim / 2, *s = a->mrope_section;
    valid = (a->mrope_layout == 0 || a->mrope_layout == 1) && s[0] >= 0 && s[1] >= 0 &&
            s[2] >= 0 && s[0] + s[1] + s[2] == half &&
            !(a->mrope_layout == 1 &&
              ((s[1] > 0 && 3 * s[1] - 2 >= half) || (s[2] > 0 && 3 * s[2] - 1 >= half)));
  }
  for (std::int64_t t = 0; valid && t < 3 * a->n_tokens; ++t)
    valid = a->positions[t] >= 0 && a->positions[t] < kPosLimit;
  if (!valid && g_qk_bug != QkBug::NoValidation) return 1;
  const std::int64_t NT = a->n_tokens;
  const auto cs = [&](std::int64_t t, std::int64_t i, double* c, double* s) {
    const double pos = static_cast<double>(a->positions[mrope_axis(a, i) * NT + t]);
    const double ang = pos * a->position_scale * inv_freq(a->inv_freq, a->theta_base, i, a->rotary_dim);
    *c = a->attn_factor * std::cos(ang);
    *s = a->attn_factor * std::sin(ang);
  };
  const Dims dq{NT, a->n_q_heads, a->head_dim, a->rotary_dim, a->layout};
  const Dims dk{NT, a->n_kv_heads, a->head_dim, a->rotary_dim, a->layout};
  if (g_qk_bug == QkBug::MropeAbsoluteScale) {  // q scaled by its own t position
    const auto scaled = [&](std::int64_t t, std::int64_t i, double* c, double* s) {
      cs(t, i, c, s);
      const double g = 1.0 + static_cast<double>(a->positions[t]) / 1048576.0;
      *c *= g, *s *= g;
    };
    rotate<T, S>(dq, q, a->q, qo, a->q_out, scaled, false);
  } else {
    rotate<T, S>(dq, q, a->q, qo, a->q_out, cs, false);
  }
  rotate<T, S>(dk, k, a->k, ko, a->k_out, cs, false);
  return 0;
}

int abi_version_v2() { return PEC_ABI_VERSION; }

}  // namespace

pecheck::KernelTable qk_all() {
  pecheck::KernelTable t;
  t.abi_version = abi_version_v2;
  t.rope_qk_f32 = rope_qk<float, Storage::F32>;
  t.rope_qk_bf16 = rope_qk<std::uint16_t, Storage::BF16>;
  t.rope_qk_f16 = rope_qk<std::uint16_t, Storage::F16>;
  t.rope_cached_f32 = rope_cached<float, Storage::F32>;
  t.rope_cached_bf16 = rope_cached<std::uint16_t, Storage::BF16>;
  t.rope_cached_f16 = rope_cached<std::uint16_t, Storage::F16>;
  t.rope_cache_f32 = rope_cache<float, Storage::F32>;
  t.rope_cache_bf16 = rope_cache<std::uint16_t, Storage::BF16>;
  t.rope_cache_f16 = rope_cache<std::uint16_t, Storage::F16>;
  t.mrope_f32 = mrope<float, Storage::F32>;
  t.mrope_bf16 = mrope<std::uint16_t, Storage::BF16>;
  t.mrope_f16 = mrope<std::uint16_t, Storage::F16>;
  return t;
}

}  // namespace testk
