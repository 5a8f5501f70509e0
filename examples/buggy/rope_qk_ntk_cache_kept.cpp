// BUGGY (on purpose): transformers #25306 in its own shape, a query+key rotary module. Hugging
// Face's dynamic-NTK rotary embedding grows its frequency table when a request is longer than any
// before, computing it from that request's (scaled) base, and keeps it for later, shorter
// requests. Written as pec_rope_qk_f32 (float32 math as the field writes it): the inverse
// frequencies are cached across calls, keyed on the longest position seen and the rotary width,
// not on theta_base. Every call made first in a fresh process is right; only a sequence shows
// the bug. Violates ABI-GEN-6; `rope_qk.stateless` fails it by default (and an ordinary check
// whose cases run one after another in a worker is reported as history-dependent, ABI-GEN-6).
#include <vector>

#include "../common_v2.hpp"

using namespace example::v2;

namespace {

struct FreqCache {
  std::int64_t length = 0, rotary_dim = 0;
  std::vector<float> inv_freq;
};
FreqCache g_cache;  // the bug: state kept between calls, keyed on length and width, not the base

const std::vector<float>& frequencies(const pec_rope_qk_args* a) {
  std::int64_t need = 0;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) need = std::max(need, a->positions[t] + 1);
  if (g_cache.rotary_dim != a->rotary_dim || need > g_cache.length) {
    g_cache.rotary_dim = a->rotary_dim;
    g_cache.length = std::max(g_cache.length, need);
    g_cache.inv_freq.resize(static_cast<std::size_t>(a->rotary_dim / 2));
    for (std::int64_t i = 0; i < a->rotary_dim / 2; ++i) {
      g_cache.inv_freq[static_cast<std::size_t>(i)] = powf_inv_freq(a->inv_freq, a->theta_base, i, a->rotary_dim);
    }
  }
  return g_cache.inv_freq;
}

}  // namespace

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_qk_f32(const pec_rope_qk_args* a, const float* q, const float* k, float* q_out, float* k_out) {
  if (!qk_args_ok(a, q, k, q_out, k_out)) return 1;
  const std::vector<float>& f = frequencies(a);
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t i = 0; i < a->rotary_dim / 2; ++i) {
      const float freq = a->inv_freq ? a->inv_freq[i] : f[static_cast<std::size_t>(i)];
      const float angle = static_cast<float>(a->positions[t]) * static_cast<float>(a->position_scale) * freq;
      const float c = std::cos(angle) * static_cast<float>(a->attn_factor);
      const float s = std::sin(angle) * static_cast<float>(a->attn_factor);
      const Pair p = pair_of(a->layout, i, a->rotary_dim);
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) rotate(PEC_DTYPE_F32, q, at(a->q, t, h, 0), q_out, at(a->q_out, t, h, 0), p, c, s);
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h) rotate(PEC_DTYPE_F32, k, at(a->k, t, h, 0), k_out, at(a->k_out, t, h, 0), p, c, s);
    }
    for (std::int64_t l = a->rotary_dim; l < a->head_dim; ++l) {
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) copy_bits(q_out, q, PEC_DTYPE_F32, at(a->q_out, t, h, l), at(a->q, t, h, l));
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h) copy_bits(k_out, k, PEC_DTYPE_F32, at(a->k_out, t, h, l), at(a->k, t, h, l));
    }
  }
  return 0;
}
