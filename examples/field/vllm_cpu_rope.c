/* CORRECT when declared: the cached rotation of vLLM's and SGLang's CPU RoPE, whose Python callers
 * cast the cos/sin cache to the query's dtype before the call, so the kernel takes a cache in its
 * own storage type only (bf16 for pec_rope_cached_bf16, binary16 for pec_rope_cached_f16). The
 * arithmetic is that of field/vllm_rope.c (included below); a call with a cache of another dtype
 * is rejected (non-zero return, nothing written).
 *
 * It declares what it takes (spec/abi.md ABI-DOM-5): `rope_cached.cache_dtype own`, so pecheck
 * generates only own-dtype caches and the kernel passes. Built with NO_DECLARATION (the example
 * vllm_cpu_rope_undeclared) it claims the ABI's whole contract, a float32 cache included, and
 * fails: a valid call with a float32 cache is rejected (ABI-GEN-2). */
#define pec_rope_cached_f32 vllm_cpu_unused_cached_f32
#define pec_rope_cached_bf16 vllm_cpu_inner_cached_bf16
#define pec_rope_cached_f16 vllm_cpu_inner_cached_f16
#define pec_rope_cache_f32 vllm_cpu_unused_cache_f32
#include "vllm_rope.c"
#undef pec_rope_cached_f32
#undef pec_rope_cached_bf16
#undef pec_rope_cached_f16
#undef pec_rope_cache_f32

int pec_rope_cached_bf16(const struct pec_rope_cached_args* a, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                         uint16_t* k_out);
int pec_rope_cached_f16(const struct pec_rope_cached_args* a, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                        uint16_t* k_out);

int pec_rope_cached_bf16(const struct pec_rope_cached_args* a, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                         uint16_t* k_out) {
  if (a != NULL && a->cache_dtype != PEC_DTYPE_BF16) return 1; /* the caller casts the cache first */
  return vllm_cpu_inner_cached_bf16(a, q, k, q_out, k_out);
}
int pec_rope_cached_f16(const struct pec_rope_cached_args* a, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                        uint16_t* k_out) {
  if (a != NULL && a->cache_dtype != PEC_DTYPE_F16) return 1;
  return vllm_cpu_inner_cached_f16(a, q, k, q_out, k_out);
}

#ifndef NO_DECLARATION
const char* pec_domain(void);
const char* pec_domain(void) { return "pecheck-domain 1\nrope_cached.cache_dtype own\n"; }
#endif
