// BUGGY (on purpose): a stand-in for transformers #25306. Dynamic-NTK RoPE grows its frequency
// table when a request is longer than any before, building it from that request's (scaled)
// base, and keeps it: later, shorter requests reuse the long request's frequencies instead of
// their own. Written here as a kernel: the inverse frequencies are cached across calls, keyed on
// the longest position seen and the rotary width -- not on theta_base, which the caller scales
// with the length. Every call made in a fresh process is exact; only a sequence shows the bug
// (short call, long call with another base, the short call again).
// Violates ABI-GEN-6 (the same call gives the same bits whatever calls came before it);
// pecheck's `rope.stateless` check runs such a sequence in one worker and fails it.
#include <vector>

#include "../common.hpp"

using namespace example;

namespace {

struct FreqCache {
  std::int64_t length = 0;  // positions covered (the longest request so far)
  std::int64_t rotary_dim = 0;
  std::vector<double> inv_freq;
};
FreqCache g_cache;  // the bug: state kept between calls, keyed on length but not on the base

const std::vector<double>& frequencies(const pec_rope_args* a) {
  std::int64_t need = 0;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) need = std::max(need, a->positions[t] + 1);
  if (g_cache.rotary_dim != a->rotary_dim || need > g_cache.length) {  // grow: rebuild with this call's base
    g_cache.rotary_dim = a->rotary_dim;
    g_cache.length = std::max(g_cache.length, need);
    g_cache.inv_freq.resize(static_cast<std::size_t>(a->rotary_dim / 2));
    for (std::int64_t i = 0; i < a->rotary_dim / 2; ++i) g_cache.inv_freq[static_cast<std::size_t>(i)] = rope_freq(a, i);
  }
  return g_cache.inv_freq;
}

}  // namespace

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const pec_rope_args* a, const float* x, float* y) {
  if (!rope_args_ok(a, x, y)) return 1;
  const std::vector<double>& f = frequencies(a);
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t h = 0; h < a->n_heads; ++h) {
      const float* xr = x + (t * a->n_heads + h) * a->head_dim;
      float* yr = y + (t * a->n_heads + h) * a->head_dim;
      for (std::int64_t i = 0; i < a->rotary_dim / 2; ++i) {
        const double freq = a->inv_freq ? double{a->inv_freq[i]} : f[static_cast<std::size_t>(i)];
        rotate(xr, yr, rope_pair(a->layout, i, a->rotary_dim), double(a->positions[t]) * a->position_scale * freq);
      }
      for (std::int64_t c = a->rotary_dim; c < a->head_dim; ++c) yr[c] = xr[c];
    }
  }
  return 0;
}
