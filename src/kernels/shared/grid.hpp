// The CUDA kernels' bodies: one thread's work for a given (blockIdx, blockDim, threadIdx),
// as __host__ __device__ functions. The __global__ kernels in src/kernels/cuda/kernels.cu
// are one-line wrappers around them, and tests/kernels/ runs them on the CPU for every block
// and thread index of small grids (the host emulation of the launch grid).
//
// Launch shapes (1-D grids, one element of work per thread, no shared memory, no
// synchronisation, so any execution order of threads gives the same result):
//   rope_table_thread   one thread per (token, frequency): cos/sin table [n_tokens][half]
//   rope_rotate_thread  one thread per (token, head, pair): reads the table, writes y[a], y[b]
//   rope_pass_thread    one thread per pass-through lane (rotary_dim..head_dim-1), x != y
//   rope_rotate4_thread one thread per 4 pairs or 4 pass-through lanes (fused), with 16-byte
//                       loads and stores on the device: used when rotary_dim % 8 == 0,
//                       head_dim % 4 == 0 and x, y are 16-byte aligned (the common shapes);
//                       the three kernels above are the general fallback
//   alibi_thread        one thread per score element [h][q][k]
//   t5_thread           one thread per bias element [h][q][k]
// The index type I is a template parameter: the CUDA host (kernels.cu) launches with uint32_t
// (faster division on the device) and only when every index fits (fits32, n < 2^31 - 256),
// and the host emulation (tests/kernels) does the same. The ALiBi/T5 index map is proved for
// uint32_t, int32_t and int64_t (hqk_split below, PROOF-IDX-1); the launch's global index and
// T5's table index are proved too (global_index, t5_table_index, PROOF-IDX-2).
#pragma once

#include <stdint.h>

#include "kernels/shared/alibi_arith.hpp"
#include "kernels/shared/hd.hpp"
#include "kernels/shared/rope_angle.hpp"
#include "kernels/shared/rope_arith.hpp"
#include "kernels/shared/t5_arith.hpp"

namespace pecheck::kernels::grid {

// A thread's coordinates in a 1-D launch. The number type U is a template parameter so that the
// proofs can instantiate global_index symbolically (PROOF-IDX-2); the kernels use Dim (uint64_t).
template <class U>
struct DimOf {
  U block, block_dim, thread;
};
using Dim = DimOf<uint64_t>;

// block*block_dim + thread, computed in U and converted to the index type I. Proved for the
// host's launch (kernels.cu: kBlock = 256 threads, ceil(n/256) blocks, fits32(n)) with I =
// uint32_t: no overflow, the conversion is exact (g < 2^31), and every g in [0, n) is reached by
// exactly one (block, thread) (claim grid.launch.uint32, PROOF-IDX-2).
template <class I, class U>
PEC_HD_FN I global_index(const DimOf<U>& d) {
  return static_cast<I>(d.block * d.block_dim + d.thread);
}

struct RopeDev {
  int64_t n_tokens, n_heads, head_dim, rotary_dim, half;
  int32_t layout;
  double scale;
  const int64_t* positions;
  const double* f_hi;
  const double* f_lo;
  float* cos_table;  // [n_tokens][half]
  float* sin_table;
};

// One (token, frequency): the double-double angle and its cos/sin (rope_angle.hpp), rounded
// once to float. Angles beyond kMaxFastAngle are handled on the host before the launch
// (the wrapper fills those table rows with the quad path and skips them here).
template <class I>
PEC_HD_FN void rope_table_thread(const Dim& d, const RopeDev& p, const uint8_t* host_rows) {
  const I g = global_index<I>(d);
  const I total = static_cast<I>(p.n_tokens) * static_cast<I>(p.half);
  if (g >= total) return;
  const I half = static_cast<I>(p.half);
  const I t = g / half;
  const I i = g - t * half;
  if (host_rows != nullptr && host_rows[t]) return;
  double c, s;
  rope_sincos(static_cast<double>(p.positions[t]), p.scale, p.f_hi[i], p.f_lo[i], c, s);
  p.cos_table[g] = static_cast<float>(c);
  p.sin_table[g] = static_cast<float>(s);
}

// One (token, head, pair): y[a], y[b] by rope_rotate (rope_arith.hpp) with the pairing of
// rope_pair. x and y may be the same buffer (each thread reads its pair before writing it).
template <class I>
PEC_HD_FN void rope_rotate_thread(const Dim& d, const RopeDev& p, const float* x, float* y) {
  const I g = global_index<I>(d);
  const I half = static_cast<I>(p.half);
  const I n_heads = static_cast<I>(p.n_heads);
  const I total = static_cast<I>(p.n_tokens) * n_heads * half;
  if (g >= total) return;
  const I row = g / half;
  const I i = g - row * half;
  const I t = row / n_heads;
  const LanePairT<I> lanes = rope_pair<I>(p.layout, static_cast<I>(p.rotary_dim), i);
  const I base = row * static_cast<I>(p.head_dim);
  const float c = p.cos_table[t * half + i];
  const float s = p.sin_table[t * half + i];
  float ya, yb;
  rope_rotate(x[base + lanes.a], x[base + lanes.b], c, s, ya, yb);
  y[base + lanes.a] = ya;
  y[base + lanes.b] = yb;
}

// One pass-through lane (ABI-ROPE-3), copied bit-exactly.
template <class I>
PEC_HD_FN void rope_pass_thread(const Dim& d, const RopeDev& p, const float* x, float* y) {
  const I g = global_index<I>(d);
  const I pass = static_cast<I>(p.head_dim - p.rotary_dim);
  const I total = static_cast<I>(p.n_tokens) * static_cast<I>(p.n_heads) * pass;
  if (g >= total) return;
  const I row = g / pass;
  const I lane = static_cast<I>(p.rotary_dim) + (g - row * pass);
  const I idx = row * static_cast<I>(p.head_dim) + lane;
  y[idx] = x[idx];
}

// Four consecutive floats: one 16-byte access on the device, four scalar ones on the host
// (the emulation); the values and the per-element arithmetic are the same.
struct F4 {
  float v[4];
};
PEC_HD_FN F4 load4(const float* p) {
#if defined(__CUDA_ARCH__)
  const float4 q = *reinterpret_cast<const float4*>(p);
  return F4{{q.x, q.y, q.z, q.w}};
#else
  return F4{{p[0], p[1], p[2], p[3]}};
#endif
}
PEC_HD_FN void store4(float* p, const F4& f) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<float4*>(p) = make_float4(f.v[0], f.v[1], f.v[2], f.v[3]);
#else
  for (int k = 0; k < 4; ++k) p[k] = f.v[k];
#endif
}

// Items per row of rope_rotate4_thread: rotary_dim/8 groups of 4 pairs, then (when copying)
// (head_dim - rotary_dim)/4 groups of 4 pass-through lanes.
PEC_HD_FN int64_t rope4_items_per_row(const RopeDev& p, bool copy_pass) {
  return p.rotary_dim / 8 + (copy_pass ? (p.head_dim - p.rotary_dim) / 4 : 0);
}

// Four pairs (NEOX: lanes i..i+3 with i+half..i+half+3; GPTJ: lanes 2i..2i+7) or four
// pass-through lanes, by rope_rotate on each pair: the same values as rope_rotate_thread.
template <class I>
PEC_HD_FN void rope_rotate4_thread(const Dim& d, const RopeDev& p, const float* x, float* y,
                                   bool copy_pass) {
  const I g = global_index<I>(d);
  const I items = static_cast<I>(rope4_items_per_row(p, copy_pass));
  const I n_heads = static_cast<I>(p.n_heads);
  const I total = static_cast<I>(p.n_tokens) * n_heads * items;
  if (g >= total) return;
  const I row = g / items;
  const I item = g - row * items;
  const I t = row / n_heads;
  const I base = row * static_cast<I>(p.head_dim);
  const I groups = static_cast<I>(p.rotary_dim / 8);
  if (item >= groups) {  // four pass-through lanes (ABI-ROPE-3)
    const I lane = static_cast<I>(p.rotary_dim) + (item - groups) * 4;
    store4(y + base + lane, load4(x + base + lane));
    return;
  }
  const I half = static_cast<I>(p.half);
  const I i = item * 4;
  const F4 c = load4(p.cos_table + t * half + i);
  const F4 s = load4(p.sin_table + t * half + i);
  if (p.layout == 0) {
    const F4 xa = load4(x + base + i);
    const F4 xb = load4(x + base + half + i);
    F4 ya, yb;
    for (int k = 0; k < 4; ++k) rope_rotate(xa.v[k], xb.v[k], c.v[k], s.v[k], ya.v[k], yb.v[k]);
    store4(y + base + i, ya);
    store4(y + base + half + i, yb);
  } else {
    const F4 x0 = load4(x + base + 2 * i);
    const F4 x1 = load4(x + base + 2 * i + 4);
    F4 y0, y1;
    rope_rotate(x0.v[0], x0.v[1], c.v[0], s.v[0], y0.v[0], y0.v[1]);
    rope_rotate(x0.v[2], x0.v[3], c.v[1], s.v[1], y0.v[2], y0.v[3]);
    rope_rotate(x1.v[0], x1.v[1], c.v[2], s.v[2], y1.v[0], y1.v[1]);
    rope_rotate(x1.v[2], x1.v[3], c.v[3], s.v[3], y1.v[2], y1.v[3]);
    store4(y + base + 2 * i, y0);
    store4(y + base + 2 * i + 4, y1);
  }
}

// True when rope_rotate4_thread applies (see the header comment).
PEC_HD_FN bool rope4_applies(const RopeDev& p, const void* x, const void* y) {
  const auto ax = reinterpret_cast<uintptr_t>(x), ay = reinterpret_cast<uintptr_t>(y);
  return p.rotary_dim % 8 == 0 && p.head_dim % 4 == 0 && ax % 16 == 0 && ay % 16 == 0;
}

// The [n_heads][n_q][n_k] index map of alibi_thread and t5_thread: the element count, and the
// split of a global index g < total into (h, i, j) with g == (h*nq + i)*nk + j. Proved for
// every size the host accepts, in each index type the kernels use (claims grid.hqk-index.*,
// PROOF-IDX-1): 0 <= h < n_heads, 0 <= i < nq, 0 <= j < nk, and no intermediate overflows.
// The count is nh * (nq * nk): with nk == 0 the product nh * nq is never formed, so it cannot
// wrap (nq * nk <= the count when nh >= 1).
template <class I>
struct HQK {
  I h, i, j;
};

template <class I>
PEC_HD_FN I hqk_total(I nh, I nq, I nk) {
  return nh * (nq * nk);
}

template <class I>
PEC_HD_FN HQK<I> hqk_split(I g, I nq, I nk) {
  const I row = g / nk;
  const I j = g - row * nk;
  const I h = row / nq;
  const I i = row - h * nq;
  return HQK<I>{h, i, j};
}

struct AlibiDev {
  int64_t n_heads, n_q, n_k;
  int32_t causal;
  const double* slopes;
  const int64_t* q_pos;
  const int64_t* k_pos;
  double minus_inf;  // -infinity, set by the host
};

// One element scores[h][i][j] += bias (alibi_apply, in double, rounded once to float).
template <class I>
PEC_HD_FN void alibi_thread(const Dim& d, const AlibiDev& p, float* scores) {
  const I g = global_index<I>(d);
  const I nk = static_cast<I>(p.n_k);
  const I nq = static_cast<I>(p.n_q);
  const I total = hqk_total<I>(static_cast<I>(p.n_heads), nq, nk);
  if (g >= total) return;
  const HQK<I> e = hqk_split<I>(g, nq, nk);
  const I h = e.h, i = e.i, j = e.j;
  const double dist = static_cast<double>(p.q_pos[i]) - static_cast<double>(p.k_pos[j]);
  const bool masked = p.causal != 0 && dist < 0.0;
  const double out =
      alibi_apply(static_cast<double>(scores[g]), p.slopes[h], dist, masked, p.minus_inf);
  scores[g] = static_cast<float>(out);
}

struct T5Dev {
  int64_t n_heads, n_q, n_k;
  int32_t bidirectional;
  T5Shape shape;
  const int64_t* thresholds;
  const float* table;  // [num_buckets][n_heads]
  const int64_t* q_pos;
  const int64_t* k_pos;
};

// The element (b, h) of T5's [num_buckets][n_heads] table: b*n_heads + h (in int64_t). Used by
// t5_thread and by the SIMD path's transposition (src/kernels/simd/dispatch.cpp, which also
// calls it as t5_table_index(h, b, num_buckets) for the [n_heads][num_buckets] copy). Proved
// (claim grid.t5-table-index.int64, PROOF-IDX-2): for 0 <= b < num_buckets, 0 <= h < n_heads
// and every num_buckets, n_heads valid_t5 accepts, the index lies in [0, num_buckets*n_heads)
// without overflow (in both argument orders).
template <class I>
PEC_HD_FN I t5_table_index(I b, I h, I n_heads) {
  return b * n_heads + h;
}

// One element bias[h][i][j] = table[bucket][h] (t5_bucket, integer thresholds).
template <class I>
PEC_HD_FN void t5_thread(const Dim& d, const T5Dev& p, float* bias) {
  const I g = global_index<I>(d);
  const I nk = static_cast<I>(p.n_k);
  const I nq = static_cast<I>(p.n_q);
  const I total = hqk_total<I>(static_cast<I>(p.n_heads), nq, nk);
  if (g >= total) return;
  const HQK<I> e = hqk_split<I>(g, nq, nk);
  const I h = e.h, i = e.i, j = e.j;
  const int64_t b = t5_bucket<int64_t>(p.k_pos[j] - p.q_pos[i], p.bidirectional != 0, p.shape,
                                       p.thresholds);
  bias[g] = p.table[t5_table_index<int64_t>(b, static_cast<int64_t>(h), p.n_heads)];
}

}  // namespace pecheck::kernels::grid
