// pecheck_simd: pec_attention_f32, _bf16 and _f16 (spec/abi.md ABI-ATTN-*), the online
// softmax of FlashAttention-2 on the CPU, scalar on every path: keys in blocks of 16, a running
// maximum, exp2 with log2(e) folded into the scores, the accumulator rescaled when the maximum
// grows; RoPE, ALiBi (every form) and T5 applied inside from the explicit positions. The bf16
// variant rounds the probabilities to bf16 before P.V (the 16-bit class, PREC-ATTN-4), as the
// tensor-core kernels do; the row sum stays float32.
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/shared/f16_conv.hpp"
#include "pecheck_kernel.h"

namespace {

constexpr int kBlock = 16;
constexpr float kLog2e = 1.4426950408889634f;

bool view_ok(const pec_strides& s, int64_t T, int64_t H, int64_t D) {
  if (s.token < 0 || s.head < 0) return false;
  if (T <= 1 && H <= 1) return true;
  if (H <= 1) return s.token >= D;
  if (T <= 1) return s.head >= D;
  return (s.head >= D && s.token >= H * s.head) || (s.token >= D && s.head >= T * s.token);
}

// ABI-ATTN-1, every rule (tier A and tier B): 0 when valid.
int validate(const pec_attention_args* a, const void* q, const void* k, const void* v, const void* out) {
  if (!a || a->n_seqs < 0 || !a->q_start || !a->k_start) return 1;
  if (a->q_start[0] != 0 || a->k_start[0] != 0) return 1;
  for (int64_t s = 0; s < a->n_seqs; ++s)
    if (a->q_start[s + 1] < a->q_start[s] || a->k_start[s + 1] < a->k_start[s]) return 1;
  const int64_t Tq = a->q_start[a->n_seqs], Tk = a->k_start[a->n_seqs];
  if (a->n_q_heads < 1 || a->n_kv_heads < 1 || a->n_q_heads % a->n_kv_heads) return 1;
  if (a->head_dim < 1 || a->head_dim_v < 1) return 1;
  if (!std::isfinite(a->scale) || !std::isfinite(a->softcap) || a->softcap < 0) return 1;
  if (a->causal != 0 && a->causal != 1) return 1;
  if (a->window_left < -1 || a->window_right < -1) return 1;
  if ((Tq > 0 && (!q || !out || !a->q_pos)) || (Tk > 0 && (!k || !v || !a->k_pos))) return 1;
  for (int64_t i = 0; i < Tq; ++i)
    if (a->q_pos[i] < 0 || a->q_pos[i] >= (int64_t{1} << 31)) return 1;
  for (int64_t j = 0; j < Tk; ++j)
    if (a->k_pos[j] < 0 || a->k_pos[j] >= (int64_t{1} << 31)) return 1;
  if (!view_ok(a->q, Tq, a->n_q_heads, a->head_dim) || !view_ok(a->k, Tk, a->n_kv_heads, a->head_dim) ||
      !view_ok(a->v, Tk, a->n_kv_heads, a->head_dim_v) || !view_ok(a->out, Tq, a->n_q_heads, a->head_dim_v))
    return 1;
  switch (a->encoding) {
    case PEC_ATTN_NONE: break;
    case PEC_ATTN_ROPE:
      if (a->rotary_dim < 2 || a->rotary_dim > a->head_dim || a->rotary_dim % 2) return 1;
      if (a->rope_layout != PEC_ROPE_NEOX && a->rope_layout != PEC_ROPE_GPTJ) return 1;
      if (!(a->theta_base > 1) || !std::isfinite(a->theta_base) || !(a->position_scale > 0) ||
          !std::isfinite(a->position_scale) || !(a->attn_factor > 0) || !std::isfinite(a->attn_factor))
        return 1;
      break;
    case PEC_ATTN_ALIBI:
      if (a->alibi_form < 0 || a->alibi_form > 2 || !a->alibi_slopes) return 1;
      for (int64_t h = 0; h < a->n_q_heads; ++h)
        if (!std::isfinite(a->alibi_slopes[h])) return 1;
      break;
    case PEC_ATTN_T5: {
      const int64_t nb = a->t5_num_buckets, exact = a->t5_bidirectional ? nb / 4 : nb / 2;
      if (a->t5_bidirectional != 0 && a->t5_bidirectional != 1) return 1;
      if (nb > 1024 || nb < (a->t5_bidirectional ? 4 : 2) || a->t5_max_distance <= exact ||
          a->t5_max_distance > (int64_t{1} << 31) || !a->t5_table)
        return 1;
      break;
    }
    default: return 1;
  }
  return 0;
}

int64_t t5_bucket(int64_t rel, int64_t nb, int64_t maxd, bool bidir) {
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
  const double lg = std::log(static_cast<double>(n) / static_cast<double>(exact)) /
                    std::log(static_cast<double>(maxd) / static_cast<double>(exact)) * static_cast<double>(nb - exact);
  const int64_t b = exact + static_cast<int64_t>(lg);
  return off + (b < nb - 1 ? b : nb - 1);
}

// Loads a head into float, rotated at `pos` when the encoding is RoPE (angles in double).
template <class T, class Load>
void load_head(const pec_attention_args* a, const T* base, int64_t pos, float* dst, Load load) {
  const int64_t D = a->head_dim;
  for (int64_t l = 0; l < D; ++l) dst[l] = load(base[l]);
  if (a->encoding != PEC_ATTN_ROPE) return;
  const int64_t half = a->rotary_dim / 2;
  for (int64_t i = 0; i < half; ++i) {
    const double f = a->inv_freq ? static_cast<double>(a->inv_freq[i])
                                 : std::pow(a->theta_base, -2.0 * static_cast<double>(i) / static_cast<double>(a->rotary_dim));
    const double th = static_cast<double>(pos) * a->position_scale * f;
    const float c = static_cast<float>(std::cos(th) * a->attn_factor), s = static_cast<float>(std::sin(th) * a->attn_factor);
    const int64_t ia = a->rope_layout == PEC_ROPE_NEOX ? i : 2 * i, ib = a->rope_layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
    const float xa = load(base[ia]), xb = load(base[ib]);
    dst[ia] = xa * c - xb * s;
    dst[ib] = xb * c + xa * s;
  }
}

bool visible(const pec_attention_args* a, int64_t qp, int64_t kp) {
  if (a->causal && kp > qp) return false;
  if (a->window_left >= 0 && qp - kp > a->window_left) return false;
  if (a->window_right >= 0 && kp - qp > a->window_right) return false;
  return true;
}

float bias(const pec_attention_args* a, int64_t h, int64_t qp, int64_t kp) {
  if (a->encoding == PEC_ATTN_ALIBI) {
    const double s = a->alibi_slopes[h];
    const double d = static_cast<double>(qp - kp);
    const double b = a->alibi_form == PEC_ATTN_ALIBI_SYMMETRIC ? -s * std::fabs(d)
                     : a->alibi_form == PEC_ATTN_ALIBI_KEY_ONLY ? s * static_cast<double>(kp)
                                                                : -s * d;
    return static_cast<float>(b);
  }
  if (a->encoding == PEC_ATTN_T5)
    return a->t5_table[t5_bucket(kp - qp, a->t5_num_buckets, a->t5_max_distance, a->t5_bidirectional != 0) * a->n_q_heads + h];
  return 0.0f;
}

template <class T, class Load, class Store, class RoundP>
int attention(const pec_attention_args* a, const T* q, const T* k, const T* v, T* out, float* lse, Load load, Store store,
              RoundP round_p) {
  if (validate(a, q, k, v, out)) return 1;
  const int64_t Hq = a->n_q_heads, Hkv = a->n_kv_heads, G = Hq / Hkv, D = a->head_dim, Dv = a->head_dim_v;
  std::vector<float> kr, qr(static_cast<size_t>(D)), acc(static_cast<size_t>(Dv));
  float x[kBlock];
  for (int64_t s = 0; s < a->n_seqs; ++s) {
    const int64_t k0 = a->k_start[s], k1 = a->k_start[s + 1];
    kr.assign(static_cast<size_t>((k1 - k0) * Hkv * D), 0.0f);  // rotated keys of the sequence
    for (int64_t j = k0; j < k1; ++j)
      for (int64_t g = 0; g < Hkv; ++g)
        load_head(a, k + j * a->k.token + g * a->k.head, a->k_pos[j], &kr[static_cast<size_t>(((j - k0) * Hkv + g) * D)], load);
    for (int64_t i = a->q_start[s]; i < a->q_start[s + 1]; ++i) {
      const int64_t qp = a->q_pos[i];
      for (int64_t h = 0; h < Hq; ++h) {
        const int64_t g = h / G;
        load_head(a, q + i * a->q.token + h * a->q.head, qp, qr.data(), load);
        float m = -INFINITY, l = 0.0f;
        for (auto& e : acc) e = 0.0f;
        for (int64_t b0 = k0; b0 < k1; b0 += kBlock) {
          const int64_t b1 = b0 + kBlock < k1 ? b0 + kBlock : k1;
          float mb = -INFINITY;
          for (int64_t j = b0; j < b1; ++j) {
            float sc = -INFINITY;
            if (visible(a, qp, a->k_pos[j])) {
              const float* kv = &kr[static_cast<size_t>(((j - k0) * Hkv + g) * D)];
              float dot = 0.0f;
              for (int64_t l2 = 0; l2 < D; ++l2) dot += qr[static_cast<size_t>(l2)] * kv[l2];
              sc = dot * static_cast<float>(a->scale);
              if (a->softcap > 0) sc = static_cast<float>(a->softcap) * std::tanh(sc / static_cast<float>(a->softcap));
              sc += bias(a, h, qp, a->k_pos[j]);
              sc *= kLog2e;  // exp2 domain
            }
            x[j - b0] = sc;
            mb = sc > mb ? sc : mb;
          }
          const float mn = mb > m ? mb : m;
          if (mn == -INFINITY) continue;  // nothing visible yet
          const float alpha = m == -INFINITY ? 0.0f : std::exp2(m - mn);
          l *= alpha;
          for (auto& e : acc) e *= alpha;
          for (int64_t j = b0; j < b1; ++j) {
            if (x[j - b0] == -INFINITY) continue;
            const float p = std::exp2(x[j - b0] - mn);
            l += p;
            const float pv = round_p(p);
            const T* vv = v + j * a->v.token + g * a->v.head;
            for (int64_t l2 = 0; l2 < Dv; ++l2) acc[static_cast<size_t>(l2)] += pv * load(vv[l2]);
          }
          m = mn;
        }
        T* o = out + i * a->out.token + h * a->out.head;
        for (int64_t l2 = 0; l2 < Dv; ++l2) o[l2] = store(l > 0 ? acc[static_cast<size_t>(l2)] / l : 0.0f);
        if (lse) lse[i * Hq + h] = l > 0 ? m / kLog2e + std::log(l) : -INFINITY;
      }
    }
  }
  return 0;
}

}  // namespace

extern "C" {

int pec_attention_f32(const struct pec_attention_args* args, const float* q, const float* k, const float* v, float* out,
                      float* lse) {
  return attention(args, q, k, v, out, lse, [](float x) { return x; }, [](float x) { return x; }, [](float p) { return p; });
}

int pec_attention_bf16(const struct pec_attention_args* args, const uint16_t* q, const uint16_t* k, const uint16_t* v,
                       uint16_t* out, float* lse) {
  using namespace pecheck::kernels;
  return attention(args, q, k, v, out, lse, [](uint16_t x) { return bf16_to_f32(x); }, [](float x) { return f32_to_bf16(x); },
                   [](float p) { return bf16_to_f32(f32_to_bf16(p)); });
}

}  // extern "C"

extern "C" int pec_attention_f16(const struct pec_attention_args* args, const uint16_t* q, const uint16_t* k,
                                 const uint16_t* v, uint16_t* out, float* lse) {
  // IEEE binary16 storage; P stays float32 before P.V (binary16 would flush the smallest weights).
  using namespace pecheck::kernels;
  return attention(args, q, k, v, out, lse, [](uint16_t x) { return f16_to_f32(x); }, [](float x) { return f32_to_f16(x); },
                   [](float p) { return p; });
}
