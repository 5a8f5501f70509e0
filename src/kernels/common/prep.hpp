// Host-side preparation shared by pecheck_simd and pecheck_cuda: validation of the ABI
// domain clauses (spec/abi.md), frequencies in double-double, T5 thresholds, ALiBi slopes.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/plans.hpp"
#include "pecheck_kernel.h"

namespace pecheck::kernels {

// Domain checks (ABI-ROPE-1, ABI-ALIBI-1, ABI-T5-1, ABI-SIN-1, ABI-LEARN-1, ABI-GEN-3).
// True when the call is valid; nothing is written by them.
// The 16-bit variants (ABI-STORE-2) have the same domains: the pointers are only tested for NULL.
bool valid_rope(const pec_rope_args* a, const void* x, const void* y);
bool valid_alibi(const pec_alibi_args* a, const void* scores);
bool valid_t5(const pec_t5_args* a, const void* bias);
bool valid_t5(const pec_t5_args16* a, const void* bias);
bool valid_sinusoidal(const pec_sinusoidal_args* a, const void* out);
bool valid_learned(const pec_learned_args* a, const void* out);
bool valid_learned(const pec_learned_args16* a, const void* out);

// Version 2 (ABI-QK-1, ABI-CACHE-1, ABI-CACHE-3, ABI-VIEW-1): domain, strided views (token-
// or head-major, a stride the shape does not use only >= 0), in place only as out == in with
// equal strides, and no output element shared with an input (other than its own in-place
// input), with the other output or with the cache. elem: bytes per element of the storage type.
bool valid_rope_qk(const pec_rope_qk_args* a, const void* q, const void* k, const void* q_out,
                   const void* k_out, int64_t elem);
// M-RoPE (ABI-MROPE-1): as valid_rope_qk, plus mrope_layout, the sections and the
// [3][n_tokens] positions.
bool valid_mrope(const pec_mrope_args* a, const void* q, const void* k, const void* q_out,
                 const void* k_out, int64_t elem);
bool valid_rope_cached(const pec_rope_cached_args* a, const void* q, const void* k,
                       const void* q_out, const void* k_out, int64_t elem);
bool valid_rope_cache(const pec_rope_cache_args* a, const void* cache);

// Bytes per element of a pec_dtype (0 when it is not one).
int64_t dtype_bytes(int32_t dtype);

// f_i = base^(-2i/dim) for i < dim/2 (or the float table when given), as double-double
// hi + lo, padded with zeros to `pad` entries. Computed in quad precision (libquadmath),
// cached per thread for the last (base, dim).
struct FreqTable {
  std::vector<double> hi, lo;
  double absmax = 0.0;
};
void freq_table(double base, int64_t dim, const float* inv_freq, int64_t pad, FreqTable& out);

// The cos/sin rows of a RoPE call whose angles exceed the double-double domain of
// shared/rope_angle.hpp (|position*scale*f| >= kMaxFastAngle/2), computed on the host in quad
// precision: host_rows[t] = 1 and c/s[t*half + i] filled for those tokens, 0 elsewhere.
// Used by the CUDA wrapper and its host emulation (the SIMD path does the same per token).
void rope_host_rows(const pec_rope_args& a, const FreqTable& freq, std::vector<uint8_t>& host_rows,
                    std::vector<float>& c, std::vector<float>& s);

// Integer thresholds of the logarithmic T5 buckets (shared/t5_arith.hpp).
std::vector<int64_t> t5_thresholds(int64_t half_buckets, int64_t max_exact, int64_t max_distance);

// ALiBi slope of head h: 2^(num/den) from shared/alibi_arith.hpp, in double.
double alibi_slope(int64_t n_heads, int64_t h);

inline int64_t round_up(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

}  // namespace pecheck::kernels
