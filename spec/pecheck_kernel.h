/* pecheck plug-in ABI, version 1.
 *
 * A kernel library exports any subset of the pec_* functions below with C linkage.
 * Normative semantics: spec/abi.md (clauses ABI-*). Every function returns 0 on success
 * and non-zero when it rejects its arguments; it must not write outside its output.
 * This header compiles as C99 and as C++.
 */
#ifndef PECHECK_KERNEL_H
#define PECHECK_KERNEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PEC_ABI_VERSION 1
int pec_abi_version(void);                 /* returns PEC_ABI_VERSION; optional */

/* Optional: the subset of the domain the library supports (spec/abi.md ABI-DOM-1..3), as text:
 * "pecheck-domain 1" then one rule per line, e.g. "rope.layout neox\nrope.head_dim 64,128\n".
 * The string must stay valid for the life of the library (a string literal). */
const char* pec_domain(void);

enum pec_rope_layout { PEC_ROPE_NEOX = 0, PEC_ROPE_GPTJ = 1 };
struct pec_rope_args {
  int64_t n_tokens, n_heads, head_dim, rotary_dim;
  int32_t layout;                           /* enum pec_rope_layout */
  double theta_base, position_scale;
  const int64_t* positions;                 /* n_tokens entries */
  const float* inv_freq;                    /* NULL or rotary_dim/2 entries */
};
int pec_rope_f32(const struct pec_rope_args* args, const float* x, float* y);

enum pec_alibi_mode { PEC_ALIBI_SYMMETRIC = 0, PEC_ALIBI_CAUSAL = 1 };
struct pec_alibi_args {
  int64_t n_heads, n_q, n_k;
  int32_t mode;                             /* enum pec_alibi_mode */
  const int64_t* q_pos; const int64_t* k_pos;
};
int pec_alibi_bias_f32(const struct pec_alibi_args* args, float* scores);

struct pec_t5_args {
  int64_t n_heads, n_q, n_k, num_buckets, max_distance;
  int32_t bidirectional;
  const int64_t* q_pos; const int64_t* k_pos;
  const float* table;                       /* [num_buckets][n_heads] */
};
int pec_t5_bias_f32(const struct pec_t5_args* args, float* bias);

struct pec_sinusoidal_args { int64_t n_tokens, d_model; double base; const int64_t* positions; };
int pec_sinusoidal_f32(const struct pec_sinusoidal_args* args, float* out);

struct pec_learned_args { int64_t n_tokens, d_model, max_positions; const int64_t* positions; const float* table; };
int pec_learned_f32(const struct pec_learned_args* args, float* out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PECHECK_KERNEL_H */
