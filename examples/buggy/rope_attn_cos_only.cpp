// BUGGY (on purpose): the vLLM-style cache builder (pec_rope_cache_f32 of
// examples/field/vllm_rope.c) that multiplies only the cosines by the attention factor: the
// YaRN mscale written into the cos half of the row and forgotten on the sin half (a refactor
// that split `cache = cat(cos, sin) * mscale` into two lines). With attn_factor = 1 — every
// model without YaRN — the cache is right; with mscale != 1 each rotation is no longer a
// scaled rotation (cos^2 + sin^2 != mscale^2) and the scores stop depending on the offset alone.
// Violates ABI-CACHE-3.
#include "../common_v2.hpp"

using namespace example::v2;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_cache_f32(const pec_rope_cache_args* a, float* cache) {
  if (!cache_args_ok(a, cache)) return 1;
  const std::int64_t d = a->rotary_dim, half = d / 2;
  const float scale = float(a->position_scale), mscale = float(a->attn_factor);
  for (std::int64_t p = 0; p < a->cache_positions; ++p) {
    const float tpos = float(p) * scale;
    for (std::int64_t i = 0; i < half; ++i) {
      const float ang = tpos * powf_inv_freq(a->inv_freq, a->theta_base, i, d);
      cache[p * d + i] = std::cos(ang) * mscale;
      cache[p * d + half + i] = std::sin(ang);  // the bug: no * mscale
    }
  }
  return 0;
}
