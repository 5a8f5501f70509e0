// The CUDA kernels' bodies for ABI version 2 (16-bit storage, query + key, the cos/sin cache):
// one thread's work for a (blockIdx, blockDim, threadIdx), as __host__ __device__ functions,
// wrapped one line each by src/kernels/cuda/kernels.cu and run for every block and thread by
// the host emulation (tests/kernels/emulate.hpp). Same conventions as grid.hpp: 1-D grids of
// kBlock threads, one item per thread, no shared memory, 32-bit indices when they fit.
//
// Every tensor here is dense [n_tokens][n_heads][head_dim] in device memory: the host wrapper
// packs strided views into dense buffers before the launch and scatters the results into the
// output views after it (kernels/common/v2_host.hpp), so no gap of a view is ever written.
//   table_attn_thread  one thread per (token, frequency): attn*cos, attn*sin of the
//                      double-double angle, rounded to float nearest-even, or to odd for a
//                      later 16-bit rounding (cache builder); quad-path rows come from the host
//   rotate_thread      one thread per (token, head, pair) of one tensor, in place on the device
//                      copy: widen, rope_rotate in float, one rounding to the storage format
//                      (the pass-through lanes are never touched, so they stay bit-exact)
//   cache_row_thread   one thread per (position, frequency): the builder's two entries
//   alibi16_thread     one thread per 16-bit score: widen, alibi_apply in double, one rounding
//   t5_16_thread       one thread per bias element: the 16-bit table entry copied
//   sinusoidal16_thread one thread per (token, frequency): sin and cos, one rounding each
//   learned16_thread   one thread per output element: the table row copied
// The storage conversions are shared/f16_conv.hpp's (the SIMD library's bits).
#pragma once

#include <stdint.h>

#include "kernels/shared/f16_conv.hpp"
#include "kernels/shared/grid.hpp"

namespace pecheck::kernels::grid {

// Storage element of format F (0 float32, 1 bfloat16, 2 binary16; plans.hpp's StoreFormat).
template <int F>
struct StoreOf {
  using type = uint16_t;
};
template <>
struct StoreOf<0> {
  using type = float;
};
template <int F>
using StoreT = typename StoreOf<F>::type;

template <int F>
PEC_HD_FN float widen_elem(StoreT<F> v) {
  if constexpr (F == 0) {
    return v;
  } else if constexpr (F == 1) {
    return bf16_to_f32(v);
  } else {
    return f16_to_f32(v);
  }
}
template <int F>
PEC_HD_FN StoreT<F> narrow_elem(float v) {
  if constexpr (F == 0) {
    return v;
  } else if constexpr (F == 1) {
    return f32_to_bf16(v);
  } else {
    return f32_to_f16(v);
  }
}
// A double rounded once to the format (float: nearest-even; 16-bit: via round-to-odd float).
template <int F>
PEC_HD_FN StoreT<F> round_once(double v) {
  if constexpr (F == 0) {
    return static_cast<float>(v);
  } else {
    return narrow_elem<F>(f32_round_odd(v));
  }
}

struct TableDev {
  int64_t n_rows, half;  // rows: tokens (qk), positions 0..n_rows-1 (builder: positions null)
  double scale, attn;
  const int64_t* positions;
  const double* f_hi;
  const double* f_lo;
  float* cos_table;  // [n_rows][half]
  float* sin_table;
  int32_t odd;  // 1: round to odd (a 16-bit rounding follows)
};

template <class I>
PEC_HD_FN void table_attn_thread(const Dim& d, const TableDev& p, const uint8_t* host_rows) {
  const I g = global_index<I>(d);
  const I half = static_cast<I>(p.half);
  if (g >= static_cast<I>(p.n_rows) * half) return;
  const I t = g / half;
  const I i = g - t * half;
  if (host_rows != nullptr && host_rows[t]) return;
  const double pos =
      p.positions != nullptr ? static_cast<double>(p.positions[t]) : static_cast<double>(t);
  double c, s;
  rope_sincos(pos, p.scale, p.f_hi[i], p.f_lo[i], c, s);
  c = c * p.attn;  // exact for attn = 1
  s = s * p.attn;
  p.cos_table[g] = p.odd ? f32_round_odd(c) : static_cast<float>(c);
  p.sin_table[g] = p.odd ? f32_round_odd(s) : static_cast<float>(s);
}

struct RotDev {
  int64_t n_tokens, n_heads, head_dim, rotary_dim, half;
  int32_t layout;
  const float* cos_table;  // [n_tokens][half]
  const float* sin_table;
};

// One (token, head, pair) of a dense tensor: the rotation of ABI-QK-2 / ABI-CACHE-2 in float,
// one rounding to the storage format. x and y may be the same buffer.
template <int F, class I>
PEC_HD_FN void rotate_thread(const Dim& d, const RotDev& p, const StoreT<F>* x, StoreT<F>* y) {
  const I g = global_index<I>(d);
  const I half = static_cast<I>(p.half);
  const I n_heads = static_cast<I>(p.n_heads);
  if (g >= static_cast<I>(p.n_tokens) * n_heads * half) return;
  const I row = g / half;
  const I i = g - row * half;
  const I t = row / n_heads;
  const LanePairT<I> lanes = rope_pair<I>(p.layout, static_cast<I>(p.rotary_dim), i);
  const I base = row * static_cast<I>(p.head_dim);
  float ya, yb;
  rope_rotate(widen_elem<F>(x[base + lanes.a]), widen_elem<F>(x[base + lanes.b]),
              p.cos_table[t * half + i], p.sin_table[t * half + i], ya, yb);
  y[base + lanes.a] = narrow_elem<F>(ya);
  y[base + lanes.b] = narrow_elem<F>(yb);
}

// The builder's entries of (position, frequency) from the odd/nearest tables of
// table_attn_thread: cache[p][i] = cos, cache[p][half + i] = sin, in format F.
template <int F, class I>
PEC_HD_FN void cache_row_thread(const Dim& d, const TableDev& p, StoreT<F>* cache) {
  const I g = global_index<I>(d);
  const I half = static_cast<I>(p.half);
  if (g >= static_cast<I>(p.n_rows) * half) return;
  const I r = g / half;
  const I i = g - r * half;
  cache[r * 2 * half + i] = narrow_elem<F>(p.cos_table[g]);
  cache[r * 2 * half + half + i] = narrow_elem<F>(p.sin_table[g]);
}

// One 16-bit score: scores[h][i][j] += bias, in double, one rounding to the format.
template <int F, class I>
PEC_HD_FN void alibi16_thread(const Dim& d, const AlibiDev& p, uint16_t* scores) {
  const I g = global_index<I>(d);
  const I nk = static_cast<I>(p.n_k);
  const I nq = static_cast<I>(p.n_q);
  if (g >= hqk_total<I>(static_cast<I>(p.n_heads), nq, nk)) return;
  const HQK<I> e = hqk_split<I>(g, nq, nk);
  const double dist = static_cast<double>(p.q_pos[e.i]) - static_cast<double>(p.k_pos[e.j]);
  const bool masked = p.causal != 0 && dist < 0.0;
  const double out = alibi_apply(static_cast<double>(widen_elem<F>(scores[g])), p.slopes[e.h], dist,
                                 masked, p.minus_inf);
  scores[g] = round_once<F>(out);
}

struct T5Dev16 {
  int64_t n_heads, n_q, n_k;
  int32_t bidirectional;
  T5Shape shape;
  const int64_t* thresholds;
  const uint16_t* table;  // [num_buckets][n_heads]
  const int64_t* q_pos;
  const int64_t* k_pos;
};

template <class I>
PEC_HD_FN void t5_16_thread(const Dim& d, const T5Dev16& p, uint16_t* bias) {
  const I g = global_index<I>(d);
  const I nk = static_cast<I>(p.n_k);
  const I nq = static_cast<I>(p.n_q);
  if (g >= hqk_total<I>(static_cast<I>(p.n_heads), nq, nk)) return;
  const HQK<I> e = hqk_split<I>(g, nq, nk);
  const int64_t b =
      t5_bucket<int64_t>(p.k_pos[e.j] - p.q_pos[e.i], p.bidirectional != 0, p.shape, p.thresholds);
  bias[g] = p.table[t5_table_index<int64_t>(b, static_cast<int64_t>(e.h), p.n_heads)];
}

// Sinusoidal from the odd tables (table_attn_thread with attn 1, scale 1, odd 1):
// out[t][2i] = sin, out[t][2i+1] = cos, one rounding each to the format.
template <int F, class I>
PEC_HD_FN void sinusoidal16_thread(const Dim& d, const TableDev& p, uint16_t* out) {
  const I g = global_index<I>(d);
  const I half = static_cast<I>(p.half);
  if (g >= static_cast<I>(p.n_rows) * half) return;
  out[2 * g] = narrow_elem<F>(p.sin_table[g]);
  out[2 * g + 1] = narrow_elem<F>(p.cos_table[g]);
}

struct LearnedDev16 {
  int64_t n_tokens, d_model;
  const int64_t* positions;
  const uint16_t* table;  // [max_positions][d_model]
};

template <class I>
PEC_HD_FN void learned16_thread(const Dim& d, const LearnedDev16& p, uint16_t* out) {
  const I g = global_index<I>(d);
  const I dm = static_cast<I>(p.d_model);
  if (g >= static_cast<I>(p.n_tokens) * dm) return;
  const I t = g / dm;
  out[g] = p.table[p.positions[t] * p.d_model + static_cast<int64_t>(g - t * dm)];
}

}  // namespace pecheck::kernels::grid
