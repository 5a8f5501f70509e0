// Attention kernels written the way the field writes them, from their documented conventions
// (docs/attention.md, spec/abi.md ABI-ATTN-3), one source with a variant per build (CMake DEFINES):
//
//   FIELD_FA2          FlashAttention-2 style: online softmax (running max, exp2 with log2 e folded
//                      in, rescaling), positions derived from the lengths with bottom-right alignment,
//                      ALiBi in FA2's causal form (key-only: slope*k_pos; its lse is that form's);
//                      declares attention.positions bottom-right and alibi_form key-only (ABI-DOM-4).
//   FIELD_SDPA         PyTorch SDPA style: eager three passes in float32 (scores, softmax, P.V),
//                      top-left positions (q_pos = i, k_pos = j in each sequence); declares
//                      attention.positions top-left. Run with --domain attention.positions=bottom-right
//                      it fails ABI-ATTN-2 at the first query whose position the lengths do not give.
//   FIELD_DECODE_ROPE  A decode kernel (one query per sequence) with RoPE inside, HF's float32
//                      formulas (powf inv_freq, float angle), explicit positions.
//   FIELD_T5           An eager kernel with T5's relative bias (HF's float log bucket), explicit
//                      positions.
//
// Buggy variants (one field thread each; the clause they fail in tests/e2e/test_e2e_attention.cpp):
//   BUG_ALIBI_PLUS_ONE    vLLM PR #945: "+1" in the ALiBi distance. A constant per row: the exact
//                         softmax is unchanged, so it PASSES (by design: the property settles the debate).
//   BUG_ALIBI_Q_INDEX     flash-attention #907: the ALiBi query position taken from the index in the
//                         call (top-left), not the query's position: ABI-ATTN-2.
//   BUG_TOPLEFT_CACHE     pytorch #108108: top-left causal mask with a KV cache: ABI-ATTN-2.
//   BUG_ALIBI_SIGN        attention-gym PR #86: ALiBi with the sign flipped: ABI-ATTN-7 (decay).
//   BUG_ROPE_Q_OFFSET     flashinfer PR #847: the decode kernel rotates the query at its index in
//                         the call, ignoring its position offset: ABI-ATTN-2 and ABI-ATTN-4.
//   BUG_SOFTCAP_AFTER_MASK flashinfer PR #350: soft cap applied after the mask (masked keys get -cap,
//                         not -inf): ABI-ATTN-5.
//   BUG_WINDOW_OFF_BY_ONE transformers #39408: the window excludes the key at distance window_left
//                         (HF's count, q - k < W, against FA's inclusive bound): ABI-ATTN-2.
//   BUG_T5_DECODE         TensorRT-LLM #1343: the generation-phase kernel (one query) takes the
//                         relative position with the wrong sign: ABI-ATTN-2.
#include <cmath>
#include <cstdint>
#include <vector>

#include "pecheck_kernel.h"

namespace {

#if defined(FIELD_FA2)
constexpr int kAlign = 1;
constexpr bool kOnline = true;
#elif defined(FIELD_SDPA)
constexpr int kAlign = 2;
constexpr bool kOnline = false;
#else
constexpr int kAlign = 0;
constexpr bool kOnline = false;
#endif

[[maybe_unused]] float load(float x) { return x; }
[[maybe_unused]] float load(uint16_t h) {
  uint32_t b = static_cast<uint32_t>(h) << 16;
  float f;
  __builtin_memcpy(&f, &b, 4);
  return f;
}
[[maybe_unused]] void store(float* p, float x) { *p = x; }
[[maybe_unused]] void store(uint16_t* p, float x) {
  uint32_t b;
  __builtin_memcpy(&b, &x, 4);
  if ((b & 0x7fffffffu) > 0x7f800000u) *p = static_cast<uint16_t>((b >> 16) | 0x40u);
  else *p = static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

int64_t t5_bucket(int64_t rel, int64_t nb, int64_t maxd, bool bidir) {  // HF, float log
  int64_t off = 0, n;
  if (bidir) {
    nb /= 2;
    off = rel > 0 ? nb : 0;
    n = rel < 0 ? -rel : rel;
  } else {
    n = rel < 0 ? -rel : 0;
  }
  const int64_t exact = nb / 2;
  if (n < exact) return off + n;
  const float v = std::log(static_cast<float>(n) / static_cast<float>(exact)) /
                  std::log(static_cast<float>(maxd) / static_cast<float>(exact)) * static_cast<float>(nb - exact);
  const int64_t b = exact + static_cast<int64_t>(v);
  return off + (b < nb - 1 ? b : nb - 1);
}

// A head loaded to float, rotated at `pos` with HF's float32 formulas when the encoding is RoPE.
template <class T>
void head(const pec_attention_args* a, const T* x, int64_t pos, float* dst) {
  for (int64_t l = 0; l < a->head_dim; ++l) dst[l] = load(x[l]);
  if (a->encoding != PEC_ATTN_ROPE) return;
  const int64_t R = a->rotary_dim, half = R / 2;
  for (int64_t i = 0; i < half; ++i) {
    const float f = a->inv_freq ? a->inv_freq[i] : 1.0f / std::pow(static_cast<float>(a->theta_base), static_cast<float>(2 * i) / static_cast<float>(R));
    const float th = static_cast<float>(pos) * static_cast<float>(a->position_scale) * f;
    const float c = std::cos(th) * static_cast<float>(a->attn_factor), s = std::sin(th) * static_cast<float>(a->attn_factor);
    const int64_t ia = a->rope_layout == PEC_ROPE_NEOX ? i : 2 * i, ib = a->rope_layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
    const float xa = dst[ia], xb = dst[ib];
    dst[ia] = xa * c - xb * s;
    dst[ib] = xb * c + xa * s;
  }
}

template <class T>
int attention(const pec_attention_args* a, const T* q, const T* k, const T* v, T* out, float* lse) {
  // The field's argument checks: what its wrappers assert before launching.
  if (!a || a->n_seqs < 0 || a->n_q_heads < 1 || a->n_kv_heads < 1 || a->n_q_heads % a->n_kv_heads) return 1;
  if (!a->q_start || !a->k_start || a->q_start[0] != 0 || a->k_start[0] != 0) return 1;
  for (int64_t s = 0; s < a->n_seqs; ++s)
    if (a->q_start[s + 1] < a->q_start[s] || a->k_start[s + 1] < a->k_start[s]) return 1;
  if (a->encoding == PEC_ATTN_ROPE && (a->rotary_dim < 2 || a->rotary_dim > a->head_dim || a->rotary_dim % 2)) return 1;
  if (a->encoding == PEC_ATTN_T5) {
    const int64_t nb = a->t5_num_buckets, ex = a->t5_bidirectional ? nb / 4 : nb / 2;
    if (nb > 1024 || nb < (a->t5_bidirectional ? 4 : 2) || a->t5_max_distance <= ex) return 1;
  }
  const int64_t Hq = a->n_q_heads, G = Hq / a->n_kv_heads, D = a->head_dim, Dv = a->head_dim_v;
  std::vector<float> qh(static_cast<size_t>(D)), kh(static_cast<size_t>(D)), x, acc(static_cast<size_t>(Dv));
  for (int64_t s = 0; s < a->n_seqs; ++s) {
    const int64_t q0 = a->q_start[s], q1 = a->q_start[s + 1], k0 = a->k_start[s], k1 = a->k_start[s + 1];
    for (int64_t i = q0; i < q1; ++i) {
      // Positions: explicit, or derived from the lengths (ABI-DOM-4).
      int64_t qp = kAlign == 0 ? a->q_pos[i] : kAlign == 1 ? (k1 - k0) - (q1 - q0) + (i - q0) : i - q0;
      for (int64_t h = 0; h < Hq; ++h) {
        const int64_t g = h / G;
        int64_t q_rot = qp;
#if defined(BUG_ROPE_Q_OFFSET)
        q_rot = i - q0;  // the query's index in the call, its offset ignored
#endif
        head(a, q + i * a->q.token + h * a->q.head, q_rot, qh.data());
        x.assign(static_cast<size_t>(k1 - k0), -INFINITY);
        for (int64_t j = k0; j < k1; ++j) {
          const int64_t kp = kAlign == 0 ? a->k_pos[j] : j - k0;
          bool vis = !(a->causal && kp > qp);
#if defined(BUG_TOPLEFT_CACHE)
          vis = !(a->causal && (j - k0) > (i - q0));  // SDPA is_causal: top-left, whatever the cache holds
#endif
#if defined(BUG_WINDOW_OFF_BY_ONE)
          if (a->window_left >= 0 && qp - kp >= a->window_left) vis = false;
#else
          if (a->window_left >= 0 && qp - kp > a->window_left) vis = false;
#endif
          if (a->window_right >= 0 && kp - qp > a->window_right) vis = false;
#if !defined(BUG_SOFTCAP_AFTER_MASK)
          if (!vis) continue;
#endif
          head(a, k + j * a->k.token + g * a->k.head, kp, kh.data());
          float sc = 0.0f;
          for (int64_t l = 0; l < D; ++l) sc += qh[static_cast<size_t>(l)] * kh[static_cast<size_t>(l)];
          sc *= static_cast<float>(a->scale);
#if defined(BUG_SOFTCAP_AFTER_MASK)
          if (!vis) sc = -INFINITY;  // masked first ...
#endif
          if (a->softcap > 0) sc = static_cast<float>(a->softcap) * std::tanh(sc / static_cast<float>(a->softcap));  // ... capped after
          if (a->encoding == PEC_ATTN_ALIBI) {
            const float slope = a->alibi_slopes[h];
            int64_t aq = qp;
#if defined(BUG_ALIBI_Q_INDEX)
            aq = i - q0;
#endif
            float d = static_cast<float>(aq > kp ? aq - kp : kp - aq);
#if defined(BUG_ALIBI_PLUS_ONE)
            d += 1.0f;
#endif
#if defined(BUG_ALIBI_SIGN)
            d = -d;
#endif
            if (kAlign == 1) sc += slope * static_cast<float>(kp);  // FA2's causal form: key-only
            else if (a->alibi_form == PEC_ATTN_ALIBI_SYMMETRIC) sc += -slope * d;
            else if (a->alibi_form == PEC_ATTN_ALIBI_KEY_ONLY) sc += slope * static_cast<float>(kp);
            else sc += -slope * static_cast<float>(aq - kp);
          } else if (a->encoding == PEC_ATTN_T5) {
            int64_t rel = kp - qp;
#if defined(BUG_T5_DECODE)
            if (q1 - q0 == 1) rel = qp - kp;  // the generation phase takes the offset the other way round
#endif
            sc += a->t5_table[t5_bucket(rel, a->t5_num_buckets, a->t5_max_distance, a->t5_bidirectional != 0) * Hq + h];
          }
          x[static_cast<size_t>(j - k0)] = sc;
        }
        float m = -INFINITY, l = 0.0f;
        for (auto& e : acc) e = 0.0f;
        if (kOnline) {  // FA2: blocks of 32 keys, exp2 domain, rescaling
          for (int64_t b0 = 0; b0 < k1 - k0; b0 += 32) {
            const int64_t b1 = b0 + 32 < k1 - k0 ? b0 + 32 : k1 - k0;
            float mb = m;
            for (int64_t j = b0; j < b1; ++j) mb = std::fmax(mb, x[static_cast<size_t>(j)] * 1.44269504f);
            if (mb == -INFINITY) continue;
            const float alpha = m == -INFINITY ? 0.0f : std::exp2(m - mb);
            l *= alpha;
            for (auto& e : acc) e *= alpha;
            for (int64_t j = b0; j < b1; ++j) {
              if (x[static_cast<size_t>(j)] == -INFINITY) continue;
              const float p = std::exp2(x[static_cast<size_t>(j)] * 1.44269504f - mb);
              l += p;
              const T* vv = v + (k0 + j) * a->v.token + g * a->v.head;
              for (int64_t c = 0; c < Dv; ++c) acc[static_cast<size_t>(c)] += p * load(vv[c]);
            }
            m = mb;
          }
          if (lse) lse[i * Hq + h] = l > 0 ? m / 1.44269504f + std::log(l) : -INFINITY;
        } else {  // eager: max, exp and sum, then P.V
          for (float e : x) m = std::fmax(m, e);
          if (m != -INFINITY) {
            for (auto& e : x) l += (e = std::exp(e - m));
            for (int64_t j = 0; j < k1 - k0; ++j) {
              const T* vv = v + (k0 + j) * a->v.token + g * a->v.head;
              for (int64_t c = 0; c < Dv; ++c) acc[static_cast<size_t>(c)] += x[static_cast<size_t>(j)] * load(vv[c]);
            }
          }
          if (lse) lse[i * Hq + h] = l > 0 ? m + std::log(l) : -INFINITY;
        }
        T* o = out + i * a->out.token + h * a->out.head;
        for (int64_t c = 0; c < Dv; ++c) store(o + c, l > 0 ? acc[static_cast<size_t>(c)] / l : 0.0f);
      }
    }
  }
  return 0;
}

}  // namespace

extern "C" {

int pec_attention_f32(const struct pec_attention_args* a, const float* q, const float* k, const float* v, float* out, float* lse) {
  return attention(a, q, k, v, out, lse);
}

#if defined(FIELD_FA2)
const char* pec_domain(void) { return "pecheck-domain 1\nattention.positions bottom-right\nattention.encoding none,alibi\nattention.alibi_form key-only\n"; }
int pec_attention_bf16(const struct pec_attention_args* a, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* out,
                       float* lse) {
  return attention(a, q, k, v, out, lse);
}
#elif defined(FIELD_SDPA)
const char* pec_domain(void) { return "pecheck-domain 1\nattention.positions top-left\n"; }
#elif defined(FIELD_DECODE_ROPE) || defined(BUG_ROPE_Q_OFFSET)
const char* pec_domain(void) { return "pecheck-domain 1\nattention.decode yes\nattention.encoding rope\n"; }
#elif defined(FIELD_T5) || defined(BUG_T5_DECODE)
const char* pec_domain(void) { return "pecheck-domain 1\nattention.encoding t5\n"; }
#elif defined(BUG_ALIBI_PLUS_ONE) || defined(BUG_ALIBI_Q_INDEX) || defined(BUG_ALIBI_SIGN)
const char* pec_domain(void) { return "pecheck-domain 1\nattention.encoding alibi\nattention.alibi_form symmetric\n"; }
#endif

}  // extern "C"
