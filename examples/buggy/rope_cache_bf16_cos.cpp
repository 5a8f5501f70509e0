// BUGGY (on purpose): the vLLM-style cached rotation (examples/field/vllm_rope.c) that rounds
// each cos/sin entry to bfloat16 before the multiply although the cache it was given is
// float32 — a kernel written for bf16 models that stages the cache row in the model's dtype
// (half the registers / shared memory), or the `cache.to(query.dtype)` of a Python wrapper put
// in front of a kernel that could read float32. The rotation then carries a cos/sin error of
// up to 2^-9, that of a 16-bit cache, while the call promised a float32 one; spec/abi.md
// ABI-CACHE-2 allows per-operation 16-bit rounding only when the cache itself is 16-bit.
// Exported for float32 and bf16 storage: in float32 storage the error is some 2^15 times the
// float32 class; in bf16 storage it adds up to half a bf16 unit to the one rounding of the
// result. A 16-bit cache is used as given (no degradation there).
// Violates ABI-CACHE-2.
#include "../common_v2.hpp"

using namespace example::v2;

namespace {

int rope_cached(const pec_rope_cached_args* a, std::int32_t dt, const void* q, const void* k, void* q_out, void* k_out) {
  if (!cached_args_ok(a, q, k, q_out, k_out)) return 1;
  const std::int64_t half = a->rotary_dim / 2;
  // The bug: a float32 cache entry goes through bf16 on its way to the multiply.
  const auto entry = [a](std::int64_t i) {
    const float v = load(a->cos_sin_cache, a->cache_dtype, i);
    return a->cache_dtype == PEC_DTYPE_F32 ? bf16_to_float(float_to_bf16(v)) : v;
  };
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    const std::int64_t row = a->positions[t] * a->rotary_dim;
    for (std::int64_t i = 0; i < half; ++i) {
      const float c = entry(row + i), s = entry(row + half + i);
      const Pair p = pair_of(a->layout, i, a->rotary_dim);
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) rotate(dt, q, at(a->q, t, h, 0), q_out, at(a->q_out, t, h, 0), p, c, s);
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h) rotate(dt, k, at(a->k, t, h, 0), k_out, at(a->k_out, t, h, 0), p, c, s);
    }
    for (std::int64_t l = a->rotary_dim; l < a->head_dim; ++l) {
      for (std::int64_t h = 0; h < a->n_q_heads; ++h) copy_bits(q_out, q, dt, at(a->q_out, t, h, l), at(a->q, t, h, l));
      for (std::int64_t h = 0; h < a->n_kv_heads; ++h) copy_bits(k_out, k, dt, at(a->k_out, t, h, l), at(a->k, t, h, l));
    }
  }
  return 0;
}

}  // namespace

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_cached_f32(const pec_rope_cached_args* a, const float* q, const float* k, float* q_out, float* k_out) {
  return rope_cached(a, PEC_DTYPE_F32, q, k, q_out, k_out);
}
int pec_rope_cached_bf16(const pec_rope_cached_args* a, const std::uint16_t* q, const std::uint16_t* k,
                         std::uint16_t* q_out, std::uint16_t* k_out) {
  return rope_cached(a, PEC_DTYPE_BF16, q, k, q_out, k_out);
}
