// Correct kernels for every function of the pecheck plug-in ABI, in C++ (the same arithmetic
// as example_c_kernels.c, written with the helpers of common.hpp that the buggy examples
// reuse). `pecheck verify --kernel libexample_kernels.so` passes.
#include "common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const pec_rope_args* a, const float* x, float* y) {
  if (!rope_args_ok(a, x, y)) return 1;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t h = 0; h < a->n_heads; ++h) {
      const float* xr = x + (t * a->n_heads + h) * a->head_dim;
      float* yr = y + (t * a->n_heads + h) * a->head_dim;
      for (std::int64_t i = 0; i < a->rotary_dim / 2; ++i) {
        const double angle = double(a->positions[t]) * a->position_scale * rope_freq(a, i);
        rotate(xr, yr, rope_pair(a->layout, i, a->rotary_dim), angle);
      }
      for (std::int64_t c = a->rotary_dim; c < a->head_dim; ++c) yr[c] = xr[c];
    }
  }
  return 0;
}

int pec_alibi_bias_f32(const pec_alibi_args* a, float* scores) {
  if (!alibi_args_ok(a, scores)) return 1;
  for (std::int64_t h = 0; h < a->n_heads; ++h) {
    const double slope = alibi_slope(h, a->n_heads);
    for (std::int64_t i = 0; i < a->n_q; ++i) {
      float* row = scores + (h * a->n_q + i) * a->n_k;
      for (std::int64_t j = 0; j < a->n_k; ++j) {
        const std::int64_t d = a->q_pos[i] - a->k_pos[j];
        if (a->mode == PEC_ALIBI_CAUSAL && d < 0) {
          row[j] = -INFINITY;
        } else {
          row[j] = float(double(row[j]) - slope * double(d < 0 ? -d : d));
        }
      }
    }
  }
  return 0;
}

int pec_t5_bias_f32(const pec_t5_args* a, float* bias) {
  if (!t5_args_ok(a, bias)) return 1;
  for (std::int64_t i = 0; i < a->n_q; ++i) {
    for (std::int64_t j = 0; j < a->n_k; ++j) {
      const auto b = t5_bucket(a->k_pos[j] - a->q_pos[i], a->bidirectional, a->num_buckets, a->max_distance);
      for (std::int64_t h = 0; h < a->n_heads; ++h) bias[(h * a->n_q + i) * a->n_k + j] = a->table[b * a->n_heads + h];
    }
  }
  return 0;
}

int pec_sinusoidal_f32(const pec_sinusoidal_args* a, float* out) {
  if (!sinusoidal_args_ok(a, out)) return 1;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t i = 0; i < a->d_model / 2; ++i) {
      const double angle = sinusoidal_angle(a, t, i);
      out[t * a->d_model + 2 * i] = float(std::sin(angle));
      out[t * a->d_model + 2 * i + 1] = float(std::cos(angle));
    }
  }
  return 0;
}

int pec_learned_f32(const pec_learned_args* a, float* out) {
  if (!learned_args_ok(a, out)) return 1;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t c = 0; c < a->d_model; ++c) out[t * a->d_model + c] = a->table[a->positions[t] * a->d_model + c];
  }
  return 0;
}
