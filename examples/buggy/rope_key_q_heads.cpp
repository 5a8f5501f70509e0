// BUGGY (on purpose): the vLLM-style cached rotation (examples/field/vllm_rope.c) with the key
// loop bounded by the query's head count: the kernel was written for multi-head attention,
// where query and key have the same number of heads, and reused for GQA. It rotates key heads
// n_kv_heads .. n_q_heads-1 that do not exist: past the end of the key (past its buffer at the
// last token, into the next token's heads before that) or, in a fused QKV buffer, into the V
// part that belongs to someone else. With n_q_heads == n_kv_heads it is correct, so the
// smallest counterexample has n_kv_heads < n_q_heads.
// Violates ABI-GEN-4 (writes outside the output: past its buffer, caught in the guard zones;
// further out, in unmapped memory, the call dies of SIGSEGV: ABI-GEN-7) and ABI-VIEW-2 (into the
// gaps of a view), whichever layout pecheck's check uses.
#include "../common_v2.hpp"

using namespace example::v2;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_cached_bf16(const pec_rope_cached_args* a, const std::uint16_t* q, const std::uint16_t* k,
                         std::uint16_t* q_out, std::uint16_t* k_out) {
  if (!cached_args_ok(a, q, k, q_out, k_out)) return 1;
  const std::int64_t half = a->rotary_dim / 2;
  const std::int64_t n_k_heads = a->n_q_heads;  // the bug: should be a->n_kv_heads
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    const std::int64_t row = a->positions[t] * a->rotary_dim;
    for (std::int64_t i = 0; i < half; ++i) {
      const float c = load(a->cos_sin_cache, a->cache_dtype, row + i);
      const float s = load(a->cos_sin_cache, a->cache_dtype, row + half + i);
      const Pair p = pair_of(a->layout, i, a->rotary_dim);
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) rotate(PEC_DTYPE_BF16, q, at(a->q, t, h, 0), q_out, at(a->q_out, t, h, 0), p, c, s);
      for (std::int64_t h = 0; h < n_k_heads; ++h) rotate(PEC_DTYPE_BF16, k, at(a->k, t, h, 0), k_out, at(a->k_out, t, h, 0), p, c, s);
    }
    for (std::int64_t l = a->rotary_dim; l < a->head_dim; ++l) {
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) copy_bits(q_out, q, PEC_DTYPE_BF16, at(a->q_out, t, h, l), at(a->q, t, h, l));
      for (std::int64_t h = 0; h < n_k_heads; ++h) copy_bits(k_out, k, PEC_DTYPE_BF16, at(a->k_out, t, h, l), at(a->k, t, h, l));
    }
  }
  return 0;
}
