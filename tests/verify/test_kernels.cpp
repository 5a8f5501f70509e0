#include "test_kernels.hpp"

#include <csignal>
#include <unistd.h>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>

namespace testk {

Bug g_bug = Bug::None;

namespace {

constexpr std::int64_t kPosLimit = std::int64_t{1} << 31;

bool positions_ok(const std::int64_t* p, std::int64_t n, std::int64_t limit = kPosLimit) {
  if (n > 0 && !p) return false;
  for (std::int64_t i = 0; i < n; ++i)
    if (p[i] < 0 || p[i] >= limit) return false;
  return true;
}

double bf16(double v) {  // round to bfloat16 (nearest-even on the float bits)
  float f = static_cast<float>(v);
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  b = (b + 0x7fff + ((b >> 16) & 1)) & 0xffff0000u;
  std::memcpy(&f, &b, 4);
  return f;
}

int g_calls = 0;

}  // namespace

int abi_version() { return PEC_ABI_VERSION; }

int rope(const pec_rope_args* a, const float* x, float* y) {
  const bool valid = a && a->n_tokens >= 0 && a->n_heads >= 1 && a->head_dim >= 2 && a->rotary_dim >= 2 &&
                     a->rotary_dim <= a->head_dim && a->rotary_dim % 2 == 0 && (a->layout == 0 || a->layout == 1) &&
                     std::isfinite(a->theta_base) && a->theta_base > 1 && std::isfinite(a->position_scale) &&
                     a->position_scale > 0 && positions_ok(a->positions, a->n_tokens) &&
                     (a->n_tokens == 0 || (x && y));
  if (g_bug == Bug::WriteThenReject && !valid && y && a->n_tokens > 0 && a->n_heads > 0 && a->head_dim > 0) y[0] = 0;
  // TrustsRotaryRange: every rule checked but rotary_dim <= head_dim (still >= 2 and even).
  const bool trusted = g_bug == Bug::TrustsRotaryRange && a && a->n_tokens >= 0 && a->n_heads >= 1 &&
                       a->head_dim >= 1 && a->rotary_dim >= 2 && a->rotary_dim % 2 == 0 && a->rotary_dim <= 4096 &&
                       (a->layout == 0 || a->layout == 1) && std::isfinite(a->theta_base) && a->theta_base > 1 &&
                       std::isfinite(a->position_scale) && a->position_scale > 0 &&
                       positions_ok(a->positions, a->n_tokens) && (a->n_tokens == 0 || (x && y));
  if (!valid && g_bug != Bug::NoValidation && !trusted) return 1;
  if (g_bug == Bug::ReturnsOne && a->n_tokens == 0) return 1;
  if (g_bug == Bug::PrintsToStdout) {
    std::fputs("kernel-noise\n", stdout);
    std::fflush(stdout);
  }
  if (g_bug == Bug::CrashFrom3Tokens && a->n_tokens >= 3) std::raise(SIGSEGV);  // as a wild store would
  if (g_bug == Bug::AbortFrom2Heads && a->n_heads >= 2) std::abort();
  if (g_bug == Bug::HangFrom2Heads && a->n_heads >= 2)
    for (;;) asm volatile("" ::: "memory");  // spins without being optimised away
  if (g_bug == Bug::SlowThenHang && a->n_heads >= 3)
    for (;;) asm volatile("" ::: "memory");
  if (g_bug == Bug::SlowThenHang && a->n_heads == 2) usleep(400000);
  if (g_bug == Bug::NoValidation && !valid) return 0;  // accepts, writes nothing
  const std::int64_t D = a->head_dim, R = a->rotary_dim, H = a->n_heads;
  const std::int64_t n = a->n_tokens * H * D;
  const float last_before = n > 0 ? y[n - 1] : 0.0f;  // SkipLastElement: put back what was there
  // BaseCacheKept: the base of the "cache" is that of the call that last needed more positions.
  static double cache_base = 0;
  static std::int64_t cache_len = 0;
  double base = a->theta_base;
  if (g_bug == Bug::BaseCacheKept) {
    std::int64_t need = 0;
    for (std::int64_t t = 0; t < a->n_tokens; ++t) need = std::max(need, a->positions[t] + 1);
    if (need > cache_len || cache_base == 0) cache_len = std::max(need, cache_len), cache_base = a->theta_base;
    base = cache_base;
  }
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    double pos = static_cast<double>(a->positions[t]);
    if (g_bug == Bug::Bf16Position) pos = bf16(pos);
    for (std::int64_t h = 0; h < H; ++h) {
      const bool gated = g_bug == Bug::SizeGatedHeads && a->n_tokens * H >= 10240;
      const float* xv = x + (t * H + (gated ? h - h % 4 : h)) * D;
      float* yv = y + (t * H + h) * D;
      double in[4096];
      for (std::int64_t l = 0; l < std::max(D, R) && l < 4096; ++l) in[l] = xv[l];  // R > D: TrustsRotaryRange
      for (std::int64_t i = 0; i < R / 2; ++i) {
        const double f = a->inv_freq ? a->inv_freq[i] : std::pow(base, -2.0 * i / static_cast<double>(R));
        const double ang = pos * a->position_scale * f;
        const double c = std::cos(ang), s = std::sin(ang);
        const std::int64_t ia = a->layout == 0 ? i : 2 * i, ib = a->layout == 0 ? i + R / 2 : 2 * i + 1;
        if (g_bug == Bug::InPlaceAlias) {
          yv[ia] = static_cast<float>(xv[ia] * c - xv[ib] * s);
          yv[ib] = static_cast<float>(xv[ib] * c + xv[ia] * s);  // reads the new y[a] when y == x
          continue;
        }
        if (g_bug == Bug::IdentityFrom1000 && a->positions[t] >= 1000) {
          yv[ia] = xv[ia], yv[ib] = xv[ib];
          continue;
        }
        yv[ia] = static_cast<float>(in[ia] * c - in[ib] * s);
        yv[ib] = static_cast<float>(in[ib] * c + in[ia] * s);
      }
      if (g_bug == Bug::OverReadPairCopy) {
        for (std::int64_t l = R; l < D; l += 2) {
          const float p0 = xv[l], p1 = *static_cast<const volatile float*>(xv + l + 1);  // one past when D - R is odd
          yv[l] = p0;
          if (l + 1 < D) yv[l + 1] = p1;
        }
        continue;
      }
      for (std::int64_t l = R; l < D; ++l) yv[l] = xv[l];
    }
  }
  if (g_bug == Bug::SkipLastElement && n > 0) y[n - 1] = last_before;
  if (g_bug == Bug::WritePastEnd && a->n_tokens >= 2) y[n] = 0;
  if (g_bug == Bug::Nondeterministic && n > 0 && ++g_calls % 2 == 0) {
    std::uint32_t b;
    std::memcpy(&b, &y[0], 4);
    b ^= 1;
    std::memcpy(&y[0], &b, 4);
  }
  if (g_bug == Bug::WriteInput && a->n_tokens > 0) const_cast<std::int64_t*>(a->positions)[0] ^= 1;
  return 0;
}

namespace {
double slope(std::int64_t n_heads, std::int64_t h) {
  std::int64_t p = 1;
  while (p * 2 <= n_heads) p *= 2;
  return h < p ? std::exp2(-8.0 * (h + 1) / p) : std::exp2(-4.0 * (2 * (h - p) + 1) / p);
}
}  // namespace

int alibi(const pec_alibi_args* a, float* scores) {
  if (!a || a->n_heads < 1 || a->n_q < 0 || a->n_k < 0 || (a->mode != 0 && a->mode != 1)) return 1;
  if (!positions_ok(a->q_pos, a->n_q) || !positions_ok(a->k_pos, a->n_k)) return 1;
  if (a->n_heads * a->n_q * a->n_k > 0 && !scores) return 1;
  const bool tiled = g_bug == Bug::AlibiTiledSlopes && a->n_heads * a->n_q * a->n_k >= 32768;
  for (std::int64_t h = 0; h < a->n_heads; ++h) {
    const double m = slope(a->n_heads, tiled ? h % 8 : h);
    for (std::int64_t i = 0; i < a->n_q; ++i) {
      for (std::int64_t j = 0; j < a->n_k; ++j) {
        float& s = scores[(h * a->n_q + i) * a->n_k + j];
        const std::int64_t q = a->q_pos[i], k = a->k_pos[j];
        if (a->mode == 1 && k > q) {
          s = g_bug == Bug::AlibiFinfoMinMask ? -std::numeric_limits<float>::max() : -INFINITY;
          continue;
        }
        const double d = static_cast<double>(q > k ? q - k : k - q);
        const double bias = g_bug == Bug::AlibiKeyOnly && a->mode == 1 ? m * static_cast<double>(k) : -m * d;
        s = static_cast<float>(static_cast<double>(s) + bias);
      }
    }
  }
  return 0;
}

int t5(const pec_t5_args* a, float* bias) {
  if (!a || a->n_heads < 1 || a->n_q < 0 || a->n_k < 0 || (a->bidirectional != 0 && a->bidirectional != 1)) return 1;
  if (a->num_buckets < (a->bidirectional ? 4 : 2) || a->num_buckets > 1024) return 1;
  const std::int64_t nb = a->bidirectional ? a->num_buckets / 2 : a->num_buckets, me = nb / 2;
  if (a->max_distance <= me || a->max_distance > kPosLimit) return 1;
  if (!positions_ok(a->q_pos, a->n_q) || !positions_ok(a->k_pos, a->n_k) || !a->table) return 1;
  if (a->n_q * a->n_k > 0 && !bias) return 1;
  for (std::int64_t i = 0; i < a->n_q; ++i) {
    for (std::int64_t j = 0; j < a->n_k; ++j) {
      std::int64_t rel = a->k_pos[j] - a->q_pos[i];
      if (g_bug == Bug::T5NegatedOffset) rel = -rel;
      std::int64_t ret = 0, n;
      if (a->bidirectional) {
        if (rel > 0) ret = nb;
        n = rel < 0 ? -rel : rel;
      } else {
        n = rel < 0 ? -rel : 0;
      }
      std::int64_t b;
      if (n < me) {
        b = n;
      } else if (n >= a->max_distance) {
        b = nb - 1;
      } else {
        double v = std::log(static_cast<double>(n) / me) / std::log(static_cast<double>(a->max_distance) / me) *
                   static_cast<double>(nb - me);
        // What a float evaluation may do on an exact boundary: land just below the integer.
        if (g_bug == Bug::T5LowerOnTies) v -= std::ldexp(v, -30);
        b = me + static_cast<std::int64_t>(v);
        if (b > nb - 1) b = nb - 1;
      }
      for (std::int64_t h = 0; h < a->n_heads; ++h) bias[(h * a->n_q + i) * a->n_k + j] = a->table[(ret + b) * a->n_heads + h];
      if (g_bug == Bug::WriteBeforeStart && a->n_q >= 2) bias[-3] = 0;
    }
  }
  return 0;
}

int sinusoidal(const pec_sinusoidal_args* a, float* out) {
  if (!a || a->n_tokens < 0 || a->d_model < 2 || a->d_model % 2 || !std::isfinite(a->base) || !(a->base > 1)) return 1;
  if (!positions_ok(a->positions, a->n_tokens) || (a->n_tokens > 0 && !out)) return 1;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t i = 0; i < a->d_model / 2; ++i) {
      const double ang = static_cast<double>(a->positions[t]) * std::pow(a->base, -2.0 * i / static_cast<double>(a->d_model));
      const bool swap = g_bug == Bug::SinCosSwapped;
      out[t * a->d_model + 2 * i] = static_cast<float>(swap ? std::cos(ang) : std::sin(ang));
      out[t * a->d_model + 2 * i + 1] = static_cast<float>(swap ? std::sin(ang) : std::cos(ang));
    }
  }
  return 0;
}

int learned(const pec_learned_args* a, float* out) {
  if (!a || a->n_tokens < 0 || a->d_model < 1 || a->max_positions < 1 || !a->table) return 1;
  if (a->n_tokens > 0 && (!out || !a->positions)) return 1;
  if (g_bug != Bug::LearnedClamp && !positions_ok(a->positions, a->n_tokens, a->max_positions)) return 1;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    std::int64_t p = a->positions[t];
    if (p < 0 || p >= a->max_positions) {
      if (g_bug != Bug::LearnedClamp) return 1;
      p = p < 0 ? 0 : a->max_positions - 1;
    }
    std::memcpy(out + t * a->d_model, a->table + p * a->d_model, static_cast<std::size_t>(a->d_model) * 4);
  }
  return 0;
}

// ---- 16-bit kernels ----------------------------------------------------------------------------
// Their own encoder (independent of pecheck's storage.hpp): a double rounded to nearest even (or
// toward zero for Bug::Truncate) with `prec` significand bits and normal exponents >= emin.

namespace {

double round_fmt(double v, int prec, int emin, double max_finite, bool truncate = false) {
  if (v == 0 || !std::isfinite(v)) return v;
  const int e = std::max(std::ilogb(v), emin);
  const double scaled = std::ldexp(v, prec - 1 - e);
  const double r = std::ldexp(truncate ? std::trunc(scaled) : std::nearbyint(scaled), e - (prec - 1));
  if (std::fabs(r) > max_finite) return truncate ? std::copysign(max_finite, v) : std::copysign(INFINITY, v);
  return r;
}

template <bool Bf16>
double rnd(double v, bool truncate = false) {
  return Bf16 ? round_fmt(v, 8, -126, 3.3895313892515355e38, truncate) : round_fmt(v, 11, -14, 65504.0, truncate);
}

template <bool Bf16>
std::uint16_t enc(double v) {  // v: a value of the format
  if (Bf16) {
    const float f = static_cast<float>(v);
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    return static_cast<std::uint16_t>(b >> 16);
  }
  const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double m = std::fabs(v);
  if (std::isnan(v)) return 0x7e00;
  if (std::isinf(m)) return sign | 0x7c00;
  if (m < std::ldexp(1.0, -14)) return sign | static_cast<std::uint16_t>(std::ldexp(m, 24));
  const int e = std::ilogb(m);
  return sign | static_cast<std::uint16_t>((e + 15) << 10) |
         static_cast<std::uint16_t>(std::ldexp(m, 10 - e) - 1024.0);
}

template <bool Bf16>
double dec(std::uint16_t h) {
  if (Bf16) {
    const std::uint32_t b = static_cast<std::uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  const int e = (h >> 10) & 0x1f, f = h & 0x3ff;
  const double s = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 0x1f) return f ? NAN : s * INFINITY;
  if (e == 0) return s * std::ldexp(static_cast<double>(f), -24);
  return s * std::ldexp(1.0 + f / 1024.0, e - 15);
}

}  // namespace

template <bool Bf16>
int rope16(const pec_rope_args* a, const std::uint16_t* x, std::uint16_t* y) {
  const bool valid = a && a->n_tokens >= 0 && a->n_heads >= 1 && a->head_dim >= 2 && a->rotary_dim >= 2 &&
                     a->rotary_dim <= a->head_dim && a->rotary_dim % 2 == 0 && (a->layout == 0 || a->layout == 1) &&
                     std::isfinite(a->theta_base) && a->theta_base > 1 && std::isfinite(a->position_scale) &&
                     a->position_scale > 0 && positions_ok(a->positions, a->n_tokens) &&
                     (a->n_tokens == 0 || (x && y));
  if (!valid) return 1;
  const std::int64_t D = a->head_dim, R = a->rotary_dim, H = a->n_heads, n = a->n_tokens * H * D;
  const std::int64_t full_blocks = a->n_tokens / 8 * 8;
  std::vector<double> in(static_cast<std::size_t>(D));
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    const double pos = static_cast<double>(a->positions[t]);
    const bool f32_path = g_bug == Bug::BatchRemainderF32 && t >= full_blocks;
    for (std::int64_t h = 0; h < H; ++h) {
      const std::uint16_t* xv = x + (t * H + h) * D;
      std::uint16_t* yv = y + (t * H + h) * D;
      for (std::int64_t l = 0; l < D; ++l) in[l] = dec<Bf16>(xv[l]);
      for (std::int64_t i = 0; i < R / 2; ++i) {
        const std::int64_t ia = a->layout == 0 ? i : 2 * i, ib = a->layout == 0 ? i + R / 2 : 2 * i + 1;
        double ya, yb;
        if (g_bug == Bug::HfBf16Arith || f32_path) {
          const float f = a->inv_freq ? a->inv_freq[i]
                                      : 1.0f / std::pow(static_cast<float>(a->theta_base),
                                                        static_cast<float>(2 * i) / static_cast<float>(R));
          const float ang = static_cast<float>(pos) * static_cast<float>(a->position_scale) * f;
          const float c = std::cos(ang), s = std::sin(ang);
          if (f32_path) {
            ya = static_cast<float>(static_cast<float>(in[ia]) * c - static_cast<float>(in[ib]) * s);
            yb = static_cast<float>(static_cast<float>(in[ib]) * c + static_cast<float>(in[ia]) * s);
          } else {  // every tensor operation rounded to the format
            const double cb = rnd<Bf16>(c), sb = rnd<Bf16>(s);
            ya = rnd<Bf16>(rnd<Bf16>(in[ia] * cb) - rnd<Bf16>(in[ib] * sb));
            yb = rnd<Bf16>(rnd<Bf16>(in[ib] * cb) + rnd<Bf16>(in[ia] * sb));
          }
        } else {
          const double f = a->inv_freq ? a->inv_freq[i] : std::pow(a->theta_base, -2.0 * i / static_cast<double>(R));
          double ang = pos * a->position_scale * f;
          if (g_bug == Bug::AngleIn16Bit) ang = bf16(ang);
          const double c = std::cos(ang), s = std::sin(ang);
          ya = in[ia] * c - in[ib] * s;
          yb = in[ib] * c + in[ia] * s;
        }
        yv[ia] = enc<Bf16>(rnd<Bf16>(ya));
        yv[ib] = enc<Bf16>(rnd<Bf16>(yb));
      }
      for (std::int64_t l = R; l < D; ++l) yv[l] = xv[l];
    }
  }
  if (g_bug == Bug::WritePastEnd && a->n_tokens >= 2) y[n] = 0;
  return 0;
}

template <bool Bf16>
int alibi16(const pec_alibi_args* a, std::uint16_t* scores) {
  if (!a || a->n_heads < 1 || a->n_q < 0 || a->n_k < 0 || (a->mode != 0 && a->mode != 1)) return 1;
  if (!positions_ok(a->q_pos, a->n_q) || !positions_ok(a->k_pos, a->n_k)) return 1;
  if (a->n_heads * a->n_q * a->n_k > 0 && !scores) return 1;
  for (std::int64_t h = 0; h < a->n_heads; ++h) {
    const double m = slope(a->n_heads, h);
    for (std::int64_t i = 0; i < a->n_q; ++i) {
      for (std::int64_t j = 0; j < a->n_k; ++j) {
        std::uint16_t& s = scores[(h * a->n_q + i) * a->n_k + j];
        const std::int64_t q = a->q_pos[i], k = a->k_pos[j];
        if (a->mode == 1 && k > q) {
          s = enc<Bf16>(-INFINITY);
          continue;
        }
        const double d = static_cast<double>(q > k ? q - k : k - q);
        s = enc<Bf16>(rnd<Bf16>(dec<Bf16>(s) - m * d, g_bug == Bug::Truncate));
      }
    }
  }
  return 0;
}

template <bool Bf16>
int t5_16(const pec_t5_args16* a, std::uint16_t* bias) {
  // The bucket logic of the float32 kernel, on a float table of the same values (exact).
  if (!a || !a->table || a->num_buckets < 1 || a->num_buckets > 1024 || a->n_heads < 1) return 1;
  std::vector<float> table(static_cast<std::size_t>(a->num_buckets * a->n_heads));
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(dec<Bf16>(a->table[i]));
  const pec_t5_args f{a->n_heads, a->n_q, a->n_k, a->num_buckets, a->max_distance, a->bidirectional,
                      a->q_pos, a->k_pos, table.data()};
  const std::int64_t n = a->n_heads * std::max<std::int64_t>(a->n_q, 0) * std::max<std::int64_t>(a->n_k, 0);
  std::vector<float> out(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)));
  const int rc = t5(&f, bias ? out.data() : nullptr);
  if (rc != 0) return rc;
  for (std::int64_t i = 0; i < n; ++i) bias[i] = enc<Bf16>(out[static_cast<std::size_t>(i)]);
  return 0;
}

template <bool Bf16>
int sinusoidal16(const pec_sinusoidal_args* a, std::uint16_t* out) {
  if (!a || a->n_tokens < 0 || a->d_model < 2 || a->d_model % 2 || !std::isfinite(a->base) || !(a->base > 1)) return 1;
  if (!positions_ok(a->positions, a->n_tokens) || (a->n_tokens > 0 && !out)) return 1;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t i = 0; i < a->d_model / 2; ++i) {
      const double ang = static_cast<double>(a->positions[t]) * std::pow(a->base, -2.0 * i / static_cast<double>(a->d_model));
      out[t * a->d_model + 2 * i] = enc<Bf16>(rnd<Bf16>(std::sin(ang)));
      out[t * a->d_model + 2 * i + 1] = enc<Bf16>(rnd<Bf16>(std::cos(ang)));
    }
  }
  return 0;
}

template <bool Bf16>
int learned16(const pec_learned_args16* a, std::uint16_t* out) {
  if (!a || a->n_tokens < 0 || a->d_model < 1 || a->max_positions < 1 || !a->table) return 1;
  if (a->n_tokens > 0 && (!out || !a->positions)) return 1;
  if (!positions_ok(a->positions, a->n_tokens, a->max_positions)) return 1;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    std::memcpy(out + t * a->d_model, a->table + a->positions[t] * a->d_model, static_cast<std::size_t>(a->d_model) * 2);
  }
  return 0;
}

template int rope16<true>(const pec_rope_args*, const std::uint16_t*, std::uint16_t*);
template int rope16<false>(const pec_rope_args*, const std::uint16_t*, std::uint16_t*);
template int alibi16<true>(const pec_alibi_args*, std::uint16_t*);
template int alibi16<false>(const pec_alibi_args*, std::uint16_t*);
template int t5_16<true>(const pec_t5_args16*, std::uint16_t*);
template int t5_16<false>(const pec_t5_args16*, std::uint16_t*);
template int sinusoidal16<true>(const pec_sinusoidal_args*, std::uint16_t*);
template int sinusoidal16<false>(const pec_sinusoidal_args*, std::uint16_t*);
template int learned16<true>(const pec_learned_args16*, std::uint16_t*);
template int learned16<false>(const pec_learned_args16*, std::uint16_t*);

pecheck::KernelTable all16() {
  pecheck::KernelTable k;
  k.abi_version = &abi_version;
  k.rope_bf16 = &rope16<true>;
  k.rope_f16 = &rope16<false>;
  k.alibi_bias_bf16 = &alibi16<true>;
  k.alibi_bias_f16 = &alibi16<false>;
  k.t5_bias_bf16 = &t5_16<true>;
  k.t5_bias_f16 = &t5_16<false>;
  k.sinusoidal_bf16 = &sinusoidal16<true>;
  k.sinusoidal_f16 = &sinusoidal16<false>;
  k.learned_bf16 = &learned16<true>;
  k.learned_f16 = &learned16<false>;
  return k;
}

pecheck::KernelTable all() {
  pecheck::KernelTable k;
  k.abi_version = &abi_version;
  k.rope_f32 = &rope;
  k.alibi_bias_f32 = &alibi;
  k.t5_bias_f32 = &t5;
  k.sinusoidal_f32 = &sinusoidal;
  k.learned_f32 = &learned;
  return k;
}

}  // namespace testk
