/* Correct reference kernels for every function of the pecheck plug-in ABI, in pure C99.
 *
 * Build:   cc -std=c99 -O2 -fPIC -shared -I spec example_c_kernels.c -o libexample_c_kernels.so -lm
 * Verify:  pecheck verify --kernel libexample_c_kernels.so
 *
 * Numerics: every real-valued quantity (frequencies, angles, slopes, products) is formed in
 * double and rounded to float once at the end. The RoPE angle is (double)position *
 * position_scale * f_i: for positions up to 2^31-1 its absolute error is about 2^31 * 2^-53,
 * far below the float32 contract of spec/contracts.md (which allows an angle error of order
 * |angle| * 2^-24), and glibc's sin/cos reduce large arguments correctly. This is the simple,
 * honest way to meet the contract at every valid position; optimized kernels (src/kernels/)
 * do the same in less time.
 *
 * Argument checks follow spec/abi.md: a call outside the domain returns non-zero and writes
 * nothing (ABI-GEN-3).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "pecheck_kernel.h"

#define POS_LIMIT ((int64_t)1 << 31)

int pec_abi_version(void) { return PEC_ABI_VERSION; }

static int positions_ok(const int64_t* pos, int64_t n, int64_t limit) {
  int64_t i;
  if (n > 0 && pos == NULL) return 0;
  for (i = 0; i < n; ++i) {
    if (pos[i] < 0 || pos[i] >= limit) return 0;
  }
  return 1;
}

/* ---- RoPE (ABI-ROPE-1..4) ---- */
int pec_rope_f32(const struct pec_rope_args* a, const float* x, float* y) {
  int64_t t, h, i, c, half;
  if (a == NULL) return 1;
  if (a->n_tokens < 0 || a->n_heads < 1 || a->head_dim < 2) return 1;
  if (a->rotary_dim < 2 || a->rotary_dim > a->head_dim || a->rotary_dim % 2 != 0) return 1;
  if (a->layout != PEC_ROPE_NEOX && a->layout != PEC_ROPE_GPTJ) return 1;
  if (!(a->theta_base > 1.0) || !isfinite(a->theta_base)) return 1;
  if (!(a->position_scale > 0.0) || !isfinite(a->position_scale)) return 1;
  if (!positions_ok(a->positions, a->n_tokens, POS_LIMIT)) return 1;
  if (a->n_tokens > 0 && (x == NULL || y == NULL)) return 1;
  half = a->rotary_dim / 2;
  for (t = 0; t < a->n_tokens; ++t) {
    for (h = 0; h < a->n_heads; ++h) {
      const float* xr = x + (t * a->n_heads + h) * a->head_dim;
      float* yr = y + (t * a->n_heads + h) * a->head_dim;
      for (i = 0; i < half; ++i) {
        const double f = a->inv_freq ? (double)a->inv_freq[i]
                                     : pow(a->theta_base, -2.0 * (double)i / (double)a->rotary_dim);
        const double angle = (double)a->positions[t] * a->position_scale * f;
        const double cs = cos(angle), sn = sin(angle);
        const int64_t ia = a->layout == PEC_ROPE_NEOX ? i : 2 * i;
        const int64_t ib = a->layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
        /* Read both lanes before writing: y may alias x (ABI-ROPE-4). */
        const double xa = xr[ia], xb = xr[ib];
        yr[ia] = (float)(xa * cs - xb * sn);
        yr[ib] = (float)(xb * cs + xa * sn);
      }
      for (c = a->rotary_dim; c < a->head_dim; ++c) yr[c] = xr[c]; /* ABI-ROPE-3 */
    }
  }
  return 0;
}

/* ---- ALiBi (ABI-ALIBI-1..2) ---- */
static double alibi_slope(int64_t h, int64_t n_heads) {
  int64_t p = 1;
  while (p * 2 <= n_heads) p *= 2; /* largest power of two <= n_heads */
  if (h < p) return exp2(-8.0 * (double)(h + 1) / (double)p);
  return exp2(-4.0 * (double)(2 * (h - p) + 1) / (double)p);
}

int pec_alibi_bias_f32(const struct pec_alibi_args* a, float* scores) {
  int64_t h, i, j;
  if (a == NULL) return 1;
  if (a->n_heads < 1 || a->n_q < 0 || a->n_k < 0) return 1;
  if (a->mode != PEC_ALIBI_SYMMETRIC && a->mode != PEC_ALIBI_CAUSAL) return 1;
  if (!positions_ok(a->q_pos, a->n_q, POS_LIMIT) || !positions_ok(a->k_pos, a->n_k, POS_LIMIT)) return 1;
  if (a->n_q > 0 && a->n_k > 0 && scores == NULL) return 1;
  for (h = 0; h < a->n_heads; ++h) {
    const double slope = alibi_slope(h, a->n_heads);
    for (i = 0; i < a->n_q; ++i) {
      float* row = scores + (h * a->n_q + i) * a->n_k;
      for (j = 0; j < a->n_k; ++j) {
        const int64_t d = a->q_pos[i] - a->k_pos[j]; /* exact: |d| < 2^31 */
        if (a->mode == PEC_ALIBI_CAUSAL && d < 0) {
          row[j] = -INFINITY;
        } else {
          const double dist = (double)(d < 0 ? -d : d);
          row[j] = (float)((double)row[j] - slope * dist);
        }
      }
    }
  }
  return 0;
}

/* ---- T5 (ABI-T5-1..2); relative = key - query (T5-REL-1) ---- */
static int64_t t5_bucket(int64_t rel, int bidirectional, int64_t num_buckets, int64_t max_distance) {
  int64_t nb = num_buckets, base = 0, d, e, v;
  if (bidirectional) {
    nb = num_buckets / 2;
    base = rel > 0 ? nb : 0;
    d = rel < 0 ? -rel : rel;
  } else {
    d = rel < 0 ? -rel : 0;
  }
  e = nb / 2;
  if (d < e) return base + d;
  if (d >= max_distance) return base + nb - 1;
  /* The logarithmic part, in double like T5's reference code (which uses float32): at the
   * offsets where the real value is an integer both neighbours are accepted (ABI-T5-2). */
  v = e + (int64_t)floor((double)(nb - e) * log((double)d / (double)e) / log((double)max_distance / (double)e));
  return base + (v < nb - 1 ? v : nb - 1);
}

int pec_t5_bias_f32(const struct pec_t5_args* a, float* bias) {
  int64_t h, i, j, e;
  if (a == NULL) return 1;
  if (a->n_heads < 1 || a->n_q < 0 || a->n_k < 0) return 1;
  if (a->bidirectional != 0 && a->bidirectional != 1) return 1;
  if (a->num_buckets > 1024 || a->num_buckets < (a->bidirectional ? 4 : 2)) return 1;
  e = a->bidirectional ? a->num_buckets / 4 : a->num_buckets / 2;
  if (!(e < a->max_distance && a->max_distance <= POS_LIMIT)) return 1;
  if (!positions_ok(a->q_pos, a->n_q, POS_LIMIT) || !positions_ok(a->k_pos, a->n_k, POS_LIMIT)) return 1;
  if (a->n_q > 0 && a->n_k > 0 && (a->table == NULL || bias == NULL)) return 1;
  for (i = 0; i < a->n_q; ++i) {
    for (j = 0; j < a->n_k; ++j) {
      const int64_t b = t5_bucket(a->k_pos[j] - a->q_pos[i], a->bidirectional, a->num_buckets, a->max_distance);
      for (h = 0; h < a->n_heads; ++h) bias[(h * a->n_q + i) * a->n_k + j] = a->table[b * a->n_heads + h];
    }
  }
  return 0;
}

/* ---- Sinusoidal (ABI-SIN-1..2) ---- */
int pec_sinusoidal_f32(const struct pec_sinusoidal_args* a, float* out) {
  int64_t t, i;
  if (a == NULL) return 1;
  if (a->n_tokens < 0 || a->d_model < 2 || a->d_model % 2 != 0) return 1;
  if (!(a->base > 1.0) || !isfinite(a->base)) return 1;
  if (!positions_ok(a->positions, a->n_tokens, POS_LIMIT)) return 1;
  if (a->n_tokens > 0 && out == NULL) return 1;
  for (t = 0; t < a->n_tokens; ++t) {
    for (i = 0; i < a->d_model / 2; ++i) {
      const double angle = (double)a->positions[t] * pow(a->base, -2.0 * (double)i / (double)a->d_model);
      out[t * a->d_model + 2 * i] = (float)sin(angle);
      out[t * a->d_model + 2 * i + 1] = (float)cos(angle);
    }
  }
  return 0;
}

/* ---- Learned (ABI-LEARN-1..2) ---- */
int pec_learned_f32(const struct pec_learned_args* a, float* out) {
  int64_t t, c;
  if (a == NULL) return 1;
  if (a->n_tokens < 0 || a->d_model < 1 || a->max_positions < 1) return 1;
  if (!positions_ok(a->positions, a->n_tokens, a->max_positions)) return 1; /* reject, write nothing */
  if (a->n_tokens > 0 && (a->table == NULL || out == NULL)) return 1;
  for (t = 0; t < a->n_tokens; ++t) {
    for (c = 0; c < a->d_model; ++c) out[t * a->d_model + c] = a->table[a->positions[t] * a->d_model + c];
  }
  return 0;
}
