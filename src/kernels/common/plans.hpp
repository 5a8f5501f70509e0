// Plain-data call plans shared by the SIMD library's per-instruction-set translation units
// and the CUDA host wrapper. No standard-library types here: the per-ISA units compile this
// with AVX2 / AVX-512 flags and must not instantiate shared templates (see shared/hd.hpp).
#pragma once

#include <stdint.h>

namespace pecheck::kernels {

// Return codes of the pec_* functions of pecheck_simd and pecheck_cuda (0 = success).
enum Status : int {
  kOk = 0,
  kInvalidArgument = 1,   // the call violates its ABI domain clause (spec/abi.md)
  kPathUnavailable = 2,   // PECHECK_SIMD names a path this CPU lacks, or an unknown path
  kOutOfMemory = 3,       // scratch or device memory could not be allocated
  kNoDevice = 4,          // pecheck_cuda: no CUDA device, or a CUDA call failed
};

struct RopePlan {
  int64_t n_tokens, n_heads, head_dim, rotary_dim, half;
  int64_t half_pad;        // half rounded up to a multiple of 16 (the widest vector)
  int32_t layout;          // 0 NEOX, 1 GPTJ
  double scale;            // position_scale
  const int64_t* positions;
  const double* f_hi;      // f_i = f_hi[i] + f_lo[i] (double-double), half_pad entries,
  const double* f_lo;      //   zero beyond half
  double f_absmax;         // max_i |f_hi[i]|
  bool stream;             // use streaming (non-temporal) stores for y
};

struct AlibiPlan {
  int64_t n_heads, n_q, n_k;
  bool causal;
  const double* slopes;    // n_heads
  const int64_t* q_pos;
  const double* k_pos_d;   // k_pos converted to double (exact), n_k entries
};

struct T5Plan {
  int64_t n_heads, n_q, n_k;
  bool bidirectional;
  int64_t half_buckets, max_exact, n_thresholds;
  const int64_t* thresholds;  // n_thresholds increasing integers (shared/t5_arith.hpp)
  const float* table_t;       // transposed table: [n_heads][num_buckets]
  int64_t num_buckets;
  const int64_t* q_pos;
  const int64_t* k_pos;
};

struct SinusoidalPlan {
  int64_t n_tokens, d_model, half, half_pad;
  const int64_t* positions;
  const double* f_hi;
  const double* f_lo;
  double f_absmax;
};

// Storage format of a version 2 call (enum pec_dtype): 0 float32, 1 bfloat16, 2 binary16.
enum StoreFormat : int32_t { kF32 = 0, kBF16 = 1, kF16 = 2 };

// One tensor of a version 2 RoPE call: element (t, h, l) of the input at
// in[t*in_token + h*in_head + l], of the output at out[t*out_token + h*out_head + l]
// (elements of the storage type; ABI-VIEW-1). in == out is in place (equal strides).
struct RopeView {
  const void* in;
  void* out;
  int64_t n_heads;
  int64_t in_token, in_head, out_token, out_head;
};

// pec_rope_qk_* (angles computed, times attn), pec_rope_cached_* (cos/sin from a cache) and the
// version 2 single-tensor pec_rope_bf16/_f16 (a qk call without key heads: k.n_heads = 0).
struct RopeV2Plan {
  int64_t n_tokens, head_dim, rotary_dim, half, half_pad;
  int32_t layout;          // 0 NEOX, 1 GPTJ
  int32_t format;          // StoreFormat of q, k and the outputs
  const int64_t* positions;
  // Computed angles (qk): as RopePlan, and cos/sin multiplied by attn in double.
  double scale, attn;
  const double* f_hi;
  const double* f_lo;
  double f_absmax;
  // Cached (cache != nullptr): row p = rotary_dim/2 cosines then rotary_dim/2 sines.
  const void* cache;
  int32_t cache_format;    // StoreFormat of the cache
  RopeView q, k;
  bool stream;             // streaming stores for both outputs (float32, aligned, out of place)
  // M-RoPE (pec_mrope_*, axis != nullptr): positions is [3][n_tokens] (rows t, h, w) and
  // frequency pair i (i < half_pad; padding 0) is rotated by the position of axis[i] (0 t, 1 h,
  // 2 w). Computed angles only.
  const uint8_t* axis;
};

// pec_rope_cache_*: rows [0, cache_positions) of attn*cos / attn*sin.
struct RopeCachePlan {
  int64_t cache_positions, rotary_dim, half, half_pad;
  int32_t format;
  double scale, attn;
  const double* f_hi;
  const double* f_lo;
  double f_absmax;
};

// Host quad-precision cos/sin of position*scale*(f_hi[i]+f_lo[i]) for i < n, times attn, rounded
// to float (odd = false: nearest-even; odd = true: double rounded to odd, for a later rounding
// to a 16-bit format, shared/f16_conv.hpp): the path for angles beyond
// rope_const::kMaxFastAngle (src/kernels/common/prep.cpp).
void sincos_quad_row(double position, double scale, const double* f_hi, const double* f_lo,
                     int64_t n, float* c, float* s, double attn = 1.0, bool odd = false);

}  // namespace pecheck::kernels
