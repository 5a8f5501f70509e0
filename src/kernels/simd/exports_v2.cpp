// pecheck_simd: the version 2 pec_* exports (16-bit storage of the version 1 functions, query
// and key together, the cos/sin cache and its builder, M-RoPE), each on the process-wide path
// (dispatch.cpp: PECHECK_SIMD or the best the CPU has).
#include <string>

#include "kernels/common/plans.hpp"
#include "kernels/simd/simd.hpp"

namespace {
using pecheck::kernels::simd::Path;

// The process-wide path; false when PECHECK_SIMD asks for one this CPU cannot run.
bool resolve(Path& p) {
  std::string reason;
  return pecheck::kernels::simd::active_path(p, reason);
}
}  // namespace

extern "C" {

#define PEC_EXPORT(call)                                        \
  Path p;                                                       \
  if (!resolve(p)) return pecheck::kernels::kPathUnavailable;   \
  return pecheck::kernels::simd::call

int pec_rope_bf16(const struct pec_rope_args* args, const uint16_t* x, uint16_t* y) {
  PEC_EXPORT(rope_16(p, PEC_DTYPE_BF16, args, x, y));
}
int pec_rope_f16(const struct pec_rope_args* args, const uint16_t* x, uint16_t* y) {
  PEC_EXPORT(rope_16(p, PEC_DTYPE_F16, args, x, y));
}
int pec_alibi_bias_bf16(const struct pec_alibi_args* args, uint16_t* scores) {
  PEC_EXPORT(alibi_bias_16(p, PEC_DTYPE_BF16, args, scores));
}
int pec_alibi_bias_f16(const struct pec_alibi_args* args, uint16_t* scores) {
  PEC_EXPORT(alibi_bias_16(p, PEC_DTYPE_F16, args, scores));
}
int pec_t5_bias_bf16(const struct pec_t5_args16* args, uint16_t* bias) {
  PEC_EXPORT(t5_bias_16(p, args, bias));
}
int pec_t5_bias_f16(const struct pec_t5_args16* args, uint16_t* bias) {
  PEC_EXPORT(t5_bias_16(p, args, bias));
}
int pec_sinusoidal_bf16(const struct pec_sinusoidal_args* args, uint16_t* out) {
  PEC_EXPORT(sinusoidal_16(p, PEC_DTYPE_BF16, args, out));
}
int pec_sinusoidal_f16(const struct pec_sinusoidal_args* args, uint16_t* out) {
  PEC_EXPORT(sinusoidal_16(p, PEC_DTYPE_F16, args, out));
}
int pec_learned_bf16(const struct pec_learned_args16* args, uint16_t* out) {
  PEC_EXPORT(learned_16(args, out));
}
int pec_learned_f16(const struct pec_learned_args16* args, uint16_t* out) {
  PEC_EXPORT(learned_16(args, out));
}

int pec_rope_qk_f32(const struct pec_rope_qk_args* args, const float* q, const float* k,
                    float* q_out, float* k_out) {
  PEC_EXPORT(rope_qk(p, PEC_DTYPE_F32, args, q, k, q_out, k_out));
}
int pec_rope_qk_bf16(const struct pec_rope_qk_args* args, const uint16_t* q, const uint16_t* k,
                     uint16_t* q_out, uint16_t* k_out) {
  PEC_EXPORT(rope_qk(p, PEC_DTYPE_BF16, args, q, k, q_out, k_out));
}
int pec_rope_qk_f16(const struct pec_rope_qk_args* args, const uint16_t* q, const uint16_t* k,
                    uint16_t* q_out, uint16_t* k_out) {
  PEC_EXPORT(rope_qk(p, PEC_DTYPE_F16, args, q, k, q_out, k_out));
}
int pec_rope_cached_f32(const struct pec_rope_cached_args* args, const float* q, const float* k,
                        float* q_out, float* k_out) {
  PEC_EXPORT(rope_cached(p, PEC_DTYPE_F32, args, q, k, q_out, k_out));
}
int pec_rope_cached_bf16(const struct pec_rope_cached_args* args, const uint16_t* q,
                         const uint16_t* k, uint16_t* q_out, uint16_t* k_out) {
  PEC_EXPORT(rope_cached(p, PEC_DTYPE_BF16, args, q, k, q_out, k_out));
}
int pec_rope_cached_f16(const struct pec_rope_cached_args* args, const uint16_t* q,
                        const uint16_t* k, uint16_t* q_out, uint16_t* k_out) {
  PEC_EXPORT(rope_cached(p, PEC_DTYPE_F16, args, q, k, q_out, k_out));
}
int pec_rope_cache_f32(const struct pec_rope_cache_args* args, float* cache) {
  PEC_EXPORT(rope_cache(p, PEC_DTYPE_F32, args, cache));
}
int pec_rope_cache_bf16(const struct pec_rope_cache_args* args, uint16_t* cache) {
  PEC_EXPORT(rope_cache(p, PEC_DTYPE_BF16, args, cache));
}
int pec_rope_cache_f16(const struct pec_rope_cache_args* args, uint16_t* cache) {
  PEC_EXPORT(rope_cache(p, PEC_DTYPE_F16, args, cache));
}

int pec_mrope_f32(const struct pec_mrope_args* args, const float* q, const float* k, float* q_out,
                  float* k_out) {
  PEC_EXPORT(mrope(p, PEC_DTYPE_F32, args, q, k, q_out, k_out));
}
int pec_mrope_bf16(const struct pec_mrope_args* args, const uint16_t* q, const uint16_t* k,
                   uint16_t* q_out, uint16_t* k_out) {
  PEC_EXPORT(mrope(p, PEC_DTYPE_BF16, args, q, k, q_out, k_out));
}
int pec_mrope_f16(const struct pec_mrope_args* args, const uint16_t* q, const uint16_t* k,
                  uint16_t* q_out, uint16_t* k_out) {
  PEC_EXPORT(mrope(p, PEC_DTYPE_F16, args, q, k, q_out, k_out));
}

}  // extern "C"
