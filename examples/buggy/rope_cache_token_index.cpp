// BUGGY (on purpose): the vLLM-style cached rotation (examples/field/vllm_rope.c) with the
// cos/sin row picked by the token's index in the batch instead of its position: row t, not row
// positions[t]. It is right exactly when the positions are 0, 1, ..., n_tokens-1 — one prefill
// from the start of a sequence, the case a first test usually runs — and wrong for every decode
// step, every continued prefill and every batch of several sequences (and for n_tokens above
// cache_positions it reads past the cache). pecheck fills the cache rows that are not a
// position of the call with NaN, so the smallest counterexample is one token at position >= 1.
// Violates ABI-CACHE-2.
#include "../common_v2.hpp"

using namespace example::v2;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_cached_bf16(const pec_rope_cached_args* a, const std::uint16_t* q, const std::uint16_t* k,
                         std::uint16_t* q_out, std::uint16_t* k_out) {
  if (!cached_args_ok(a, q, k, q_out, k_out)) return 1;
  const std::int64_t half = a->rotary_dim / 2;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    const std::int64_t row = t * a->rotary_dim;  // the bug: t, not a->positions[t]
    for (std::int64_t i = 0; i < half; ++i) {
      const float c = load(a->cos_sin_cache, a->cache_dtype, row + i);
      const float s = load(a->cos_sin_cache, a->cache_dtype, row + half + i);
      const Pair p = pair_of(a->layout, i, a->rotary_dim);
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) rotate(PEC_DTYPE_BF16, q, at(a->q, t, h, 0), q_out, at(a->q_out, t, h, 0), p, c, s);
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h) rotate(PEC_DTYPE_BF16, k, at(a->k, t, h, 0), k_out, at(a->k_out, t, h, 0), p, c, s);
    }
    for (std::int64_t l = a->rotary_dim; l < a->head_dim; ++l) {
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) copy_bits(q_out, q, PEC_DTYPE_BF16, at(a->q_out, t, h, l), at(a->q, t, h, l));
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h) copy_bits(k_out, k, PEC_DTYPE_BF16, at(a->k_out, t, h, l), at(a->k, t, h, l));
    }
  }
  return 0;
}
