// BUGGY (on purpose): the vLLM-style cached rotation (examples/field/vllm_rope.c) that ignores
// the strides and treats each view as a dense [n_tokens][n_heads][head_dim] tensor: element
// (t, h, l) at (t * n_heads + h) * head_dim + l. That is right for a tensor that was made
// contiguous, and wrong for the views a serving engine passes: the query and key slices of a
// fused QKV buffer (token stride (n_q + 2 n_kv) * head_dim), padded heads, or head-major
// tensors. It reads the wrong elements and writes into the gaps between the view's rows — the
// K and V parts of the fused buffer, which belong to someone else.
// Violates ABI-VIEW-2 (and the values of ABI-CACHE-2).
#include "../common_v2.hpp"

using namespace example::v2;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_cached_bf16(const pec_rope_cached_args* a, const std::uint16_t* q, const std::uint16_t* k,
                         std::uint16_t* q_out, std::uint16_t* k_out) {
  if (!cached_args_ok(a, q, k, q_out, k_out)) return 1;
  const std::int64_t half = a->rotary_dim / 2;
  // The bug: dense strides instead of a->q, a->k, a->q_out, a->k_out.
  const pec_strides qd{a->n_q_heads * a->head_dim, a->head_dim}, kd{a->n_kv_heads * a->head_dim, a->head_dim};
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    const std::int64_t row = a->positions[t] * a->rotary_dim;
    for (std::int64_t i = 0; i < half; ++i) {
      const float c = load(a->cos_sin_cache, a->cache_dtype, row + i);
      const float s = load(a->cos_sin_cache, a->cache_dtype, row + half + i);
      const Pair p = pair_of(a->layout, i, a->rotary_dim);
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) rotate(PEC_DTYPE_BF16, q, at(qd, t, h, 0), q_out, at(qd, t, h, 0), p, c, s);
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h) rotate(PEC_DTYPE_BF16, k, at(kd, t, h, 0), k_out, at(kd, t, h, 0), p, c, s);
    }
    for (std::int64_t l = a->rotary_dim; l < a->head_dim; ++l) {
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) copy_bits(q_out, q, PEC_DTYPE_BF16, at(qd, t, h, l), at(qd, t, h, l));
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h) copy_bits(k_out, k, PEC_DTYPE_BF16, at(kd, t, h, l), at(kd, t, h, l));
    }
  }
  return 0;
}
