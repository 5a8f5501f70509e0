/* pecheck plug-in ABI, version 2 (a superset of version 1).
 *
 * A kernel library exports any subset of the pec_* functions below with C linkage.
 * Normative semantics: spec/abi.md (clauses ABI-*). Every function returns 0 on success
 * and non-zero when it rejects its arguments; it must not write outside its output.
 * Version 1 functions keep their signatures and semantics: a version 1 library verifies
 * unchanged (its pec_abi_version, if exported, may return 1 or 2).
 * This header compiles as C99 and as C++.
 */
#ifndef PECHECK_KERNEL_H
#define PECHECK_KERNEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PEC_ABI_VERSION 2
int pec_abi_version(void);                 /* returns 1 or 2 (PEC_ABI_VERSION); optional */

/* Optional: the subset of the domain the library supports (spec/abi.md ABI-DOM-1..3), as text:
 * "pecheck-domain 1" then one rule per line, e.g. "rope.layout neox\nrope.head_dim 64,128\n".
 * The string must stay valid for the life of the library (a string literal). */
const char* pec_domain(void);

/* ---- Storage types (ABI-STORE-1) -------------------------------------------------------------
 * _f32 functions store IEEE binary32 (float). _bf16 and _f16 functions store bfloat16 and IEEE
 * binary16 as uint16_t bit patterns: every tensor of the call that the suffix names (inputs,
 * outputs, tables) holds that format; a rounded result is rounded to nearest, ties to even.
 * inv_freq tables stay float32 in every variant (as models keep them). */
enum pec_dtype { PEC_DTYPE_F32 = 0, PEC_DTYPE_BF16 = 1, PEC_DTYPE_F16 = 2 };

/* ---- RoPE on one tensor (version 1) ------------------------------------------------------------ */
enum pec_rope_layout { PEC_ROPE_NEOX = 0, PEC_ROPE_GPTJ = 1 };
struct pec_rope_args {
  int64_t n_tokens, n_heads, head_dim, rotary_dim;
  int32_t layout;                           /* enum pec_rope_layout */
  double theta_base, position_scale;
  const int64_t* positions;                 /* n_tokens entries */
  const float* inv_freq;                    /* NULL or rotary_dim/2 entries */
};
int pec_rope_f32(const struct pec_rope_args* args, const float* x, float* y);
int pec_rope_bf16(const struct pec_rope_args* args, const uint16_t* x, uint16_t* y);
int pec_rope_f16(const struct pec_rope_args* args, const uint16_t* x, uint16_t* y);

/* ---- ALiBi (version 1) ------------------------------------------------------------------------- */
enum pec_alibi_mode { PEC_ALIBI_SYMMETRIC = 0, PEC_ALIBI_CAUSAL = 1 };
struct pec_alibi_args {
  int64_t n_heads, n_q, n_k;
  int32_t mode;                             /* enum pec_alibi_mode */
  const int64_t* q_pos; const int64_t* k_pos;
};
int pec_alibi_bias_f32(const struct pec_alibi_args* args, float* scores);
int pec_alibi_bias_bf16(const struct pec_alibi_args* args, uint16_t* scores);
int pec_alibi_bias_f16(const struct pec_alibi_args* args, uint16_t* scores);

/* ---- T5 relative bias (version 1) -------------------------------------------------------------- */
struct pec_t5_args {
  int64_t n_heads, n_q, n_k, num_buckets, max_distance;
  int32_t bidirectional;
  const int64_t* q_pos; const int64_t* k_pos;
  const float* table;                       /* [num_buckets][n_heads] */
};
int pec_t5_bias_f32(const struct pec_t5_args* args, float* bias);
/* 16-bit variants: the same fields with the table in the storage format. */
struct pec_t5_args16 {
  int64_t n_heads, n_q, n_k, num_buckets, max_distance;
  int32_t bidirectional;
  const int64_t* q_pos; const int64_t* k_pos;
  const uint16_t* table;                    /* [num_buckets][n_heads] */
};
int pec_t5_bias_bf16(const struct pec_t5_args16* args, uint16_t* bias);
int pec_t5_bias_f16(const struct pec_t5_args16* args, uint16_t* bias);

/* ---- Sinusoidal (version 1) -------------------------------------------------------------------- */
struct pec_sinusoidal_args { int64_t n_tokens, d_model; double base; const int64_t* positions; };
int pec_sinusoidal_f32(const struct pec_sinusoidal_args* args, float* out);
int pec_sinusoidal_bf16(const struct pec_sinusoidal_args* args, uint16_t* out);
int pec_sinusoidal_f16(const struct pec_sinusoidal_args* args, uint16_t* out);

/* ---- Learned absolute table (version 1) -------------------------------------------------------- */
struct pec_learned_args { int64_t n_tokens, d_model, max_positions; const int64_t* positions; const float* table; };
int pec_learned_f32(const struct pec_learned_args* args, float* out);
struct pec_learned_args16 { int64_t n_tokens, d_model, max_positions; const int64_t* positions; const uint16_t* table; };
int pec_learned_bf16(const struct pec_learned_args16* args, uint16_t* out);
int pec_learned_f16(const struct pec_learned_args16* args, uint16_t* out);

/* ---- Version 2: query and key together (ABI-QK-*) ----------------------------------------------
 * query [n_tokens][n_q_heads][head_dim] and key [n_tokens][n_kv_heads][head_dim] as strided views:
 * element (t, h, l) of a tensor with strides s lives at index t*s.token + h*s.head + l (in
 * elements of the storage type). n_q_heads is a multiple of n_kv_heads (GQA; MQA: n_kv_heads 1).
 * In place: q_out == q (with q_out strides equal to q's), and likewise for k. */
struct pec_strides { int64_t token, head; };

/* Angles computed by the kernel (as pec_rope_f32), times attn_factor (ABI-QK-2). */
struct pec_rope_qk_args {
  int64_t n_tokens, n_q_heads, n_kv_heads, head_dim, rotary_dim;
  int32_t layout;                           /* enum pec_rope_layout */
  double theta_base, position_scale;
  double attn_factor;                       /* multiplies cos and sin (YaRN mscale); 1 = none */
  const int64_t* positions;                 /* n_tokens entries */
  const float* inv_freq;                    /* NULL or rotary_dim/2 entries */
  struct pec_strides q, k, q_out, k_out;
};
int pec_rope_qk_f32(const struct pec_rope_qk_args* args, const float* q, const float* k, float* q_out, float* k_out);
int pec_rope_qk_bf16(const struct pec_rope_qk_args* args, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                     uint16_t* k_out);
int pec_rope_qk_f16(const struct pec_rope_qk_args* args, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                    uint16_t* k_out);

/* cos/sin taken from a cache indexed by position (vLLM's cos_sin_cache, ABI-CACHE-*): row p holds
 * rotary_dim/2 cosines then rotary_dim/2 sines, already multiplied by the attention factor, in
 * cache_dtype (enum pec_dtype, independent of the suffix's storage type). */
struct pec_rope_cached_args {
  int64_t n_tokens, n_q_heads, n_kv_heads, head_dim, rotary_dim;
  int32_t layout;                           /* enum pec_rope_layout */
  int32_t cache_dtype;                      /* enum pec_dtype */
  int64_t cache_positions;                  /* rows of the cache; every position is below it */
  const void* cos_sin_cache;                /* [cache_positions][rotary_dim] */
  const int64_t* positions;                 /* n_tokens entries */
  struct pec_strides q, k, q_out, k_out;
};
int pec_rope_cached_f32(const struct pec_rope_cached_args* args, const float* q, const float* k, float* q_out,
                        float* k_out);
int pec_rope_cached_bf16(const struct pec_rope_cached_args* args, const uint16_t* q, const uint16_t* k,
                         uint16_t* q_out, uint16_t* k_out);
int pec_rope_cached_f16(const struct pec_rope_cached_args* args, const uint16_t* q, const uint16_t* k,
                        uint16_t* q_out, uint16_t* k_out);

/* The cache builder (ABI-CACHE-3): writes the [cache_positions][rotary_dim] cache for positions
 * 0 .. cache_positions-1 in the suffix's storage type. */
struct pec_rope_cache_args {
  int64_t cache_positions, rotary_dim;
  double theta_base, position_scale, attn_factor;
  const float* inv_freq;                    /* NULL or rotary_dim/2 entries */
};
int pec_rope_cache_f32(const struct pec_rope_cache_args* args, float* cache);
int pec_rope_cache_bf16(const struct pec_rope_cache_args* args, uint16_t* cache);
int pec_rope_cache_f16(const struct pec_rope_cache_args* args, uint16_t* cache);

/* ---- Version 2: M-RoPE, positions as (t, h, w) triples (ABI-MROPE-*) ----------------------------
 * Multimodal RoPE of Qwen2-VL / Qwen2.5-VL (sectioned) and Qwen3-VL (interleaved) on query and key
 * together: views, GQA, in place and attn_factor as pec_rope_qk (ABI-QK-*, ABI-VIEW-*), except
 * that frequency pair i is rotated by the position of its own axis a(i) in {t, h, w}
 * (spec/rope.md ROPE-MROPE-1..3). positions is [3][n_tokens] (vLLM's positions of shape
 * [3, num_tokens]): row 0 temporal, row 1 height, row 2 width; a text token has all three equal.
 * mrope_section[a] is the number of frequency pairs of axis a; the three sum to rotary_dim/2. */
enum pec_mrope_layout { PEC_MROPE_SECTIONED = 0, PEC_MROPE_INTERLEAVED = 1 };
struct pec_mrope_args {
  int64_t n_tokens, n_q_heads, n_kv_heads, head_dim, rotary_dim;
  int32_t layout;                           /* enum pec_rope_layout: the pairing of the lanes */
  int32_t mrope_layout;                     /* enum pec_mrope_layout: which pairs each axis gets */
  int64_t mrope_section[3];                 /* frequency pairs of t, h, w (Qwen2-VL: 16, 24, 24) */
  double theta_base, position_scale;
  double attn_factor;                       /* multiplies cos and sin; 1 = none */
  const int64_t* positions;                 /* [3][n_tokens]: t row, h row, w row */
  const float* inv_freq;                    /* NULL or rotary_dim/2 entries */
  struct pec_strides q, k, q_out, k_out;
};
int pec_mrope_f32(const struct pec_mrope_args* args, const float* q, const float* k, float* q_out, float* k_out);
int pec_mrope_bf16(const struct pec_mrope_args* args, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                   uint16_t* k_out);
int pec_mrope_f16(const struct pec_mrope_args* args, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                  uint16_t* k_out);

/* ---- Attention with the positional encoding inside (ABI-ATTN-*) ---------------------------------
 * out = softmax(bias(softcap(scale * q.k)) + mask) . v for a batch of variable-length sequences
 * (spec/abi.md ABI-ATTN-1..9). Sequence s owns query tokens q_start[s] .. q_start[s+1]-1 and key
 * tokens k_start[s] .. k_start[s+1]-1 (FlashAttention's cu_seqlens_q / cu_seqlens_k). Every query
 * and key token carries an explicit int64 position (q_pos, k_pos: vLLM's and FlashInfer's
 * positions, FlexAttention's q_idx / kv_idx); a kernel that derives positions from the lengths
 * (bottom-right or top-left alignment) declares it (ABI-DOM-4). Score order, stated once:
 *   s = scale * <q', k'>          q', k' = q, k (none, ALiBi, T5) or rotated at their positions (RoPE)
 *   s = softcap * tanh(s/softcap) when softcap > 0
 *   s = s + bias(q_pos, k_pos)    ALiBi or T5
 *   s = -inf where masked         causal: k_pos > q_pos; window: q_pos - k_pos > window_left or
 *                                 k_pos - q_pos > window_right (both bounds inclusive, -1 = none)
 * q [total_q][n_q_heads][head_dim], k [total_k][n_kv_heads][head_dim], v [total_k][n_kv_heads]
 * [head_dim_v] and out [total_q][n_q_heads][head_dim_v] are strided views (ABI-VIEW-1), elements
 * of the suffix's storage type; query head h reads key/value head h / (n_q_heads / n_kv_heads).
 * lse (NULL = not wanted) is float32 [total_q][n_q_heads]: the natural log of the sum of exp(s)
 * over the visible keys; a query with no visible key gets out = 0 and lse = -inf.
 * Slopes, the T5 table and inv_freq are float32 in every variant. */
enum pec_attn_encoding { PEC_ATTN_NONE = 0, PEC_ATTN_ROPE = 1, PEC_ATTN_ALIBI = 2, PEC_ATTN_T5 = 3 };
enum pec_attn_alibi_form {
  PEC_ATTN_ALIBI_SYMMETRIC = 0,  /* bias = -slope * |q_pos - k_pos| */
  PEC_ATTN_ALIBI_KEY_ONLY = 1,   /* bias = slope * k_pos (FlashAttention's causal form, BLOOM) */
  PEC_ATTN_ALIBI_SIGNED = 2      /* bias = -slope * (q_pos - k_pos) (rewards keys ahead if unmasked) */
};
struct pec_attention_args {
  int64_t n_seqs;
  const int64_t* q_start;                   /* n_seqs + 1 entries, q_start[0] = 0, non-decreasing */
  const int64_t* k_start;                   /* n_seqs + 1 entries, k_start[0] = 0, non-decreasing */
  const int64_t* q_pos;                     /* q_start[n_seqs] entries */
  const int64_t* k_pos;                     /* k_start[n_seqs] entries */
  int64_t n_q_heads, n_kv_heads, head_dim, head_dim_v;
  struct pec_strides q, k, v, out;
  double scale;                             /* multiplies q.k (1/sqrt(head_dim) usually) */
  double softcap;                           /* 0 = none */
  int32_t causal;                           /* 0 or 1 */
  int64_t window_left, window_right;        /* -1 = unbounded */
  int32_t encoding;                         /* enum pec_attn_encoding */
  /* RoPE (encoding PEC_ATTN_ROPE): the parameters of pec_rope_qk (ABI-QK-2) on q and k. */
  int64_t rotary_dim;
  int32_t rope_layout;                      /* enum pec_rope_layout */
  double theta_base, position_scale, attn_factor;
  const float* inv_freq;                    /* NULL or rotary_dim/2 entries */
  /* ALiBi (encoding PEC_ATTN_ALIBI). */
  int32_t alibi_form;                       /* enum pec_attn_alibi_form */
  const float* alibi_slopes;                /* n_q_heads entries */
  /* T5 (encoding PEC_ATTN_T5): bucket of k_pos - q_pos as pec_t5_bias (ABI-T5-2). */
  int64_t t5_num_buckets, t5_max_distance;
  int32_t t5_bidirectional;
  const float* t5_table;                    /* [t5_num_buckets][n_q_heads] */
};
int pec_attention_f32(const struct pec_attention_args* args, const float* q, const float* k, const float* v,
                      float* out, float* lse);
int pec_attention_bf16(const struct pec_attention_args* args, const uint16_t* q, const uint16_t* k,
                       const uint16_t* v, uint16_t* out, float* lse);
int pec_attention_f16(const struct pec_attention_args* args, const uint16_t* q, const uint16_t* k,
                      const uint16_t* v, uint16_t* out, float* lse);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PECHECK_KERNEL_H */
