/* spec/pecheck_plugin.h against the definitions of spec/abi.md, in pure C99 (plus the compiler's
 * _Float16 as the independent fp16 reference, the way examples/field/vllm_rope.c converts):
 * exhaustive 16-bit widening, rounding at and around every halfway point, the views of
 * ABI-VIEW-1, the pairings of ABI-ROPE-2 and the domain of ABI-QK-1. Exits 1 with a line per
 * mismatch (at most 20 printed). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pecheck_plugin.h"

#include "../../examples/fp16_compat.h"

static int failures = 0;
static void fail(const char* what, double a, unsigned got, unsigned want) {
  if (failures++ < 20) printf("FAIL %s: input %a gave 0x%04x, want 0x%04x\n", what, a, got, want);
}

static float ref_f16_to_f32(uint16_t h) {
  example_half v;
  memcpy(&v, &h, sizeof v);
  return (float)v;
}
static uint16_t ref_f32_to_f16(float f) {
  const example_half v = (example_half)f;
  uint16_t h;
  memcpy(&h, &v, sizeof h);
  return h;
}
/* Nearest bf16 by brute force: the two candidates around f, compared in double (exact). */
static uint16_t ref_f32_to_bf16(float f) {
  const uint32_t u = pec_f32_to_bits(f);
  const uint16_t lo = (uint16_t)(u >> 16), hi = (uint16_t)(lo + 1);
  const double dl = fabs((double)f - (double)pec_bf16_to_f32(lo));
  const double dh = fabs((double)pec_bf16_to_f32(hi) - (double)f);
  if ((u & 0xffffu) == 0) return lo;
  if (dl < dh) return lo;
  if (dh < dl) return hi;
  return (lo & 1u) ? hi : lo; /* tie: even */
}
static int same_f16(uint16_t a, uint16_t b) {
  const int a_nan = (a & 0x7c00u) == 0x7c00u && (a & 0x3ffu), b_nan = (b & 0x7c00u) == 0x7c00u && (b & 0x3ffu);
  return a_nan || b_nan ? a_nan && b_nan : a == b;
}
static void check_f32_to_f16(float f) {
  const uint16_t got = pec_f32_to_f16(f), want = ref_f32_to_f16(f);
  if (!same_f16(got, want)) fail("f32_to_f16", f, got, want);
}
static void check_f32_to_bf16(float f) {
  const uint16_t got = pec_f32_to_bf16(f);
  if (isnan(f)) {
    if (!isnan(pec_bf16_to_f32(got))) fail("f32_to_bf16 NaN", f, got, 0x7fc0);
    return;
  }
  if (isinf(f) || fabsf(f) >= 3.3895313892515355e38f) { /* at or past the largest bf16: RNE to inf */
    const uint16_t want = ref_f32_to_bf16(f);
    if (got != want && !(isinf(pec_bf16_to_f32(got)) && pec_f32_to_bits(f) >= 0x7f7f8000u)) fail("f32_to_bf16 big", f, got, want);
    return;
  }
  if (got != ref_f32_to_bf16(f)) fail("f32_to_bf16", f, got, ref_f32_to_bf16(f));
}

int main(void) {
  uint32_t i;
  /* Widening: every 16-bit pattern. */
  for (i = 0; i < 65536u; ++i) {
    const float a = pec_f16_to_f32((uint16_t)i), b = ref_f16_to_f32((uint16_t)i);
    if (!(isnan(a) && isnan(b)) && pec_f32_to_bits(a) != pec_f32_to_bits(b)) fail("f16_to_f32", (double)i, (unsigned)i, 0);
    if (pec_f32_to_bits(pec_bf16_to_f32((uint16_t)i)) != (i << 16)) fail("bf16_to_f32", (double)i, (unsigned)i, 0);
  }
  /* Rounding: every f16 / bf16 value, the halfway points around it and their neighbours. */
  for (i = 0; i < 65536u; ++i) {
    const float v = pec_f16_to_f32((uint16_t)i), next = pec_f16_to_f32((uint16_t)(i + 1));
    int d;
    if (isnan(v)) continue;
    check_f32_to_f16(v);
    if (!isnan(next) && !isinf(v) && (i & 0x7fffu) != 0x7fffu) {
      const float mid = (float)(((double)v + (double)next) / 2);
      uint32_t m = pec_f32_to_bits(mid);
      for (d = -2; d <= 2; ++d) check_f32_to_f16(pec_bits_to_f32(m + (uint32_t)d));
    }
    {
      const uint32_t b = i << 16;
      for (d = -2; d <= 2; ++d) {
        check_f32_to_bf16(pec_bits_to_f32(b + (uint32_t)d));
        check_f32_to_bf16(pec_bits_to_f32(b + 0x8000u + (uint32_t)d));
      }
    }
  }
  /* A sweep over all floats with a stride coprime to 2^32 (about 4M values). */
  for (i = 0; i < (1u << 22); ++i) {
    const float f = pec_bits_to_f32(i * 1021u);
    check_f32_to_f16(f);
    check_f32_to_bf16(f);
  }
  /* Named values a reader can check by hand. */
  if (pec_f32_to_bf16(1.0f) != 0x3f80u || pec_f32_to_bf16(257.0f) != 0x4380u /* 257 -> 256, tie to even */ ||
      pec_f32_to_f16(65504.0f) != 0x7bffu || pec_f32_to_f16(65520.0f) != 0x7c00u || pec_f32_to_f16(2049.0f) != 0x6800u) {
    fail("named values", 0, 0, 0);
  }

  /* ABI-VIEW-1. */
  {
    struct pec_strides dense = {3 * 8, 8}, head_major = {8, 5 * 8}, gaps = {3 * 10, 10}, bad = {8, 8}, neg = {-24, 8};
    struct pec_strides one_head = {8, 0};
    if (!pec_view_ok(&dense, 5, 3, 8) || !pec_view_ok(&head_major, 5, 3, 8) || !pec_view_ok(&gaps, 5, 3, 8)) fail("view valid", 0, 0, 1);
    if (pec_view_ok(&bad, 5, 3, 8) || pec_view_ok(&neg, 5, 3, 8)) fail("view overlapping/negative accepted", 0, 1, 0);
    if (!pec_view_ok(&one_head, 5, 1, 8) || pec_view_ok(&one_head, 5, 2, 8)) fail("view one head", 0, 0, 0);
    if (pec_view_at(&gaps, 2, 1, 3) != 2 * 30 + 10 + 3) fail("view_at", 0, 0, 0);
  }
  /* ABI-ROPE-2 pairing. */
  {
    int64_t a, b;
    pec_rope_pair(PEC_ROPE_NEOX, 8, 1, &a, &b);
    if (a != 1 || b != 5) fail("neox pair", 0, (unsigned)a, 1);
    pec_rope_pair(PEC_ROPE_GPTJ, 8, 1, &a, &b);
    if (a != 2 || b != 3) fail("gptj pair", 0, (unsigned)a, 2);
    if (fabs(pec_rope_inv_freq(NULL, 10000.0, 8, 2) - 0.01) > 1e-15) fail("inv_freq", 0, 0, 0);
  }
  /* ABI-QK-1. */
  {
    int64_t pos[2] = {0, 7};
    float q[64], k[64], qo[64], ko[64];
    struct pec_rope_qk_args a;
    memset(&a, 0, sizeof a);
    a.n_tokens = 2, a.n_q_heads = 4, a.n_kv_heads = 2, a.head_dim = 8, a.rotary_dim = 8;
    a.layout = PEC_ROPE_NEOX, a.theta_base = 10000, a.position_scale = 1, a.attn_factor = 1, a.positions = pos;
    a.q.token = a.q_out.token = 32, a.q.head = a.q_out.head = 8, a.k.token = a.k_out.token = 16, a.k.head = a.k_out.head = 8;
    if (!pec_rope_qk_args_ok(&a, q, k, qo, ko)) fail("qk valid", 0, 0, 1);
    a.n_kv_heads = 3;
    if (pec_rope_qk_args_ok(&a, q, k, qo, ko)) fail("qk gqa", 0, 1, 0);
    a.n_kv_heads = 2, a.rotary_dim = 10;
    if (pec_rope_qk_args_ok(&a, q, k, qo, ko)) fail("qk rotary range", 0, 1, 0);
    a.rotary_dim = 8, a.attn_factor = 0;
    if (pec_rope_qk_args_ok(&a, q, k, qo, ko)) fail("qk attn_factor", 0, 1, 0);
    a.attn_factor = 1, pos[1] = (int64_t)1 << 31;
    if (pec_rope_qk_args_ok(&a, q, k, qo, ko)) fail("qk position", 0, 1, 0);
    pos[1] = 7, a.q_out.head = 4;
    if (pec_rope_qk_args_ok(&a, q, k, qo, ko)) fail("qk overlapping q_out", 0, 1, 0);
  }
  if (failures) {
    printf("%d mismatches\n", failures);
    return 1;
  }
  printf("pecheck_plugin.h: conversions, views, pairing and the ABI-QK-1 domain agree\n");
  return 0;
}
