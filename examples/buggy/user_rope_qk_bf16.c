/* The README's first kernel (pec_rope_qk_bf16), with one of five bugs a new user plants, chosen
 * at build time (issue 22's walk-through; each gets its own library, libexample_user_<bug>.so):
 *   USER_BUG_GPTJ        GPT-J pairing where the call asks for NeoX (the layout test inverted)
 *   USER_BUG_KV_HEADS    the key loop runs over n_q_heads (GQA: writes past the key)
 *   USER_BUG_BF16_POS    positions rounded to bf16 before the angle (wrong from position 257)
 *   USER_BUG_HEAD_STRIDE the head stride ignored (heads taken as dense): strided views break
 *   USER_BUG_ATTN_KEY    attn_factor applied to the key only
 *   USER_BUG_LAST_TOKEN  the last token of a batch of several never rotated nor written (an off-by-one)
 *   USER_SLOW            correct, but 5 ms per call (a slow runtime: the progress line's test)
 * pecheck must fail each (tests/e2e/test_e2e_console.cpp) and, where the cause is recognisable,
 * print the hint that names it. Without a USER_BUG_* define this is the README's kernel. */
#ifdef USER_SLOW
#define _POSIX_C_SOURCE 199309L
#include <time.h>
#endif
#include <math.h>

#include "pecheck_plugin.h"

static int64_t at(const struct pec_strides* s, int64_t t, int64_t h, int64_t l, int64_t head_dim) {
#ifdef USER_BUG_HEAD_STRIDE
  return t * s->token + h * head_dim + l;
#else
  (void)head_dim;
  return pec_view_at(s, t, h, l);
#endif
}

int pec_rope_qk_bf16(const struct pec_rope_qk_args* a, const uint16_t* q, const uint16_t* k, uint16_t* q_out,
                     uint16_t* k_out) {
  if (!pec_rope_qk_args_ok(a, q, k, q_out, k_out)) return 1;
#ifdef USER_SLOW
  {
    const struct timespec ms5 = {0, 5000000L};
    nanosleep(&ms5, NULL);
  }
#endif
#ifdef USER_BUG_LAST_TOKEN
  for (int64_t t = 0; t < (a->n_tokens > 1 ? a->n_tokens - 1 : a->n_tokens); ++t) {
#else
  for (int64_t t = 0; t < a->n_tokens; ++t) {
#endif
    double pos = (double)a->positions[t];
#ifdef USER_BUG_BF16_POS
    pos = (double)pec_bf16_to_f32(pec_f32_to_bf16((float)pos));
#endif
    for (int64_t i = 0; i < a->rotary_dim / 2; ++i) {
      const double f = pec_rope_inv_freq(a->inv_freq, a->theta_base, a->rotary_dim, i);
      const double angle = pos * a->position_scale * f;
      int64_t la, lb;
#ifdef USER_BUG_GPTJ
      pec_rope_pair(a->layout == PEC_ROPE_NEOX ? PEC_ROPE_GPTJ : PEC_ROPE_NEOX, a->rotary_dim, i, &la, &lb);
#else
      pec_rope_pair(a->layout, a->rotary_dim, i, &la, &lb);
#endif
      for (int tensor = 0; tensor < 2; ++tensor) {
#ifdef USER_BUG_KV_HEADS
        const int64_t heads = a->n_q_heads;
#else
        const int64_t heads = tensor ? a->n_kv_heads : a->n_q_heads;
#endif
#ifdef USER_BUG_ATTN_KEY
        const double m = tensor ? a->attn_factor : 1.0;
#else
        const double m = a->attn_factor;
#endif
        const float c = (float)(cos(angle) * m), s = (float)(sin(angle) * m);
        const struct pec_strides* in = tensor ? &a->k : &a->q;
        const struct pec_strides* out = tensor ? &a->k_out : &a->q_out;
        const uint16_t* x = tensor ? k : q;
        uint16_t* y = tensor ? k_out : q_out;
        for (int64_t h = 0; h < heads; ++h) {
          const float xa = pec_bf16_to_f32(x[at(in, t, h, la, a->head_dim)]);
          const float xb = pec_bf16_to_f32(x[at(in, t, h, lb, a->head_dim)]);
          y[at(out, t, h, la, a->head_dim)] = pec_f32_to_bf16(xa * c - xb * s);
          y[at(out, t, h, lb, a->head_dim)] = pec_f32_to_bf16(xb * c + xa * s);
        }
      }
    }
    for (int tensor = 0; tensor < 2; ++tensor) {
      const int64_t heads = tensor ? a->n_kv_heads : a->n_q_heads;
      const struct pec_strides* in = tensor ? &a->k : &a->q;
      const struct pec_strides* out = tensor ? &a->k_out : &a->q_out;
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t l = a->rotary_dim; l < a->head_dim; ++l)
          (tensor ? k_out : q_out)[at(out, t, h, l, a->head_dim)] = (tensor ? k : q)[at(in, t, h, l, a->head_dim)];
    }
  }
  return 0;
}
