#include "test_kernels.hpp"

#include <csignal>
#include <unistd.h>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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
  if (!valid && g_bug != Bug::NoValidation) return 1;
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
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    double pos = static_cast<double>(a->positions[t]);
    if (g_bug == Bug::Bf16Position) pos = bf16(pos);
    for (std::int64_t h = 0; h < H; ++h) {
      const float* xv = x + (t * H + h) * D;
      float* yv = y + (t * H + h) * D;
      double in[4096];
      for (std::int64_t l = 0; l < D && l < 4096; ++l) in[l] = xv[l];
      for (std::int64_t i = 0; i < R / 2; ++i) {
        const double f = a->inv_freq ? a->inv_freq[i] : std::pow(a->theta_base, -2.0 * i / static_cast<double>(R));
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
  for (std::int64_t h = 0; h < a->n_heads; ++h) {
    const double m = slope(a->n_heads, h);
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
