// BUGGY (on purpose): a stand-in for vllm#51049. vLLM's rotary kernel picks a second code path
// by size: from 10,240 token-heads on, one warp handles several heads of a token at once. The
// faulty multi-head path read every head of a group of four from the group's first head (a
// shared-memory index that dropped the head offset), so every head after the first in a group
// was corrupted -- on production batches only: a call below the threshold takes the one-head
// path and is exact, which is why small test shapes never saw it.
// Written here as the vLLM-style cached rotation (examples/field/vllm_rope.c: float32 math on
// the cache's cos/sin, any strides) with that size switch. Violates ABI-CACHE-2 (q_out of heads
// 1..3 of each group of four is another head's rotation); pecheck's `rope_cached.large` check
// calls it with 10,240+ query token-heads and fails it; every smaller check passes.
#include "../common_v2.hpp"

using namespace example::v2;

namespace {

constexpr std::int64_t kMultiHeadFrom = 10240;  // token-heads: vLLM's switch to the multi-head path
constexpr std::int64_t kGroup = 4;              // heads per warp on that path

template <std::int32_t DT, class T>
int rope_cached(const pec_rope_cached_args* a, const T* q, const T* k, T* q_out, T* k_out) {
  if (!cached_args_ok(a, q, k, q_out, k_out)) return 1;
  const std::int64_t half = a->rotary_dim / 2;
  const bool multi_head = a->n_tokens * a->n_q_heads >= kMultiHeadFrom;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    const std::int64_t row = a->positions[t] * a->rotary_dim;
    for (std::int64_t i = 0; i < half; ++i) {
      const float c = load(a->cos_sin_cache, a->cache_dtype, row + i);
      const float s = load(a->cos_sin_cache, a->cache_dtype, row + half + i);
      const Pair p = pair_of(a->layout, i, a->rotary_dim);
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) {
        const std::int64_t src = multi_head ? h - h % kGroup : h;  // the bug: the group's first head
        rotate(DT, q, at(a->q, t, src, 0), q_out, at(a->q_out, t, h, 0), p, c, s);
      }
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h) rotate(DT, k, at(a->k, t, h, 0), k_out, at(a->k_out, t, h, 0), p, c, s);
    }
    for (std::int64_t l = a->rotary_dim; l < a->head_dim; ++l) {
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) copy_bits(q_out, q, DT, at(a->q_out, t, h, l), at(a->q, t, h, l));
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h) copy_bits(k_out, k, DT, at(a->k_out, t, h, l), at(a->k, t, h, l));
    }
  }
  return 0;
}

}  // namespace

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_cached_f32(const pec_rope_cached_args* a, const float* q, const float* k, float* q_out, float* k_out) {
  return rope_cached<PEC_DTYPE_F32>(a, q, k, q_out, k_out);
}
