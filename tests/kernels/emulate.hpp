// Host emulation of the CUDA launch grid: runs the per-thread bodies of
// src/kernels/shared/grid.hpp for every block and thread index, exactly as kernels.cu
// launches them (block size 256, 1-D grid, 32-bit indices), in the order the kernels run.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/prep.hpp"
#include "kernels/common/v2_host.hpp"
#include "kernels/shared/grid.hpp"
#include "kernels/shared/grid_v2.hpp"

namespace pecheck::kernels::test {

inline constexpr std::uint64_t kEmuBlock = 256;  // kernels.cu's kBlock

template <class F>
void for_grid(std::int64_t n, F&& thread) {
  const std::uint64_t blocks = (static_cast<std::uint64_t>(n) + kEmuBlock - 1) / kEmuBlock;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    for (std::uint64_t t = 0; t < kEmuBlock; ++t) thread(grid::Dim{b, kEmuBlock, t});
  }
}

// pec_rope_f32 as pecheck_cuda computes it, with host memory standing in for device memory.
// allow4: take the 4-pairs-per-thread kernel where kernels.cu would (rope4_applies).
inline int emulate_rope(const pec_rope_args& a, const float* x, float* y, bool allow4 = true) {
  if (!valid_rope(&a, x, y)) return kInvalidArgument;
  const std::int64_t half = a.rotary_dim / 2;
  FreqTable freq;
  freq_table(a.theta_base, a.rotary_dim, a.inv_freq, half, freq);
  std::vector<std::uint8_t> host_rows;
  std::vector<float> c, s;
  rope_host_rows(a, freq, host_rows, c, s);
  const grid::RopeDev p{a.n_tokens, a.n_heads, a.head_dim, a.rotary_dim, half, a.layout,
                        a.position_scale, a.positions, freq.hi.data(), freq.lo.data(), c.data(), s.data()};
  for_grid(a.n_tokens * half, [&](const grid::Dim& d) { grid::rope_table_thread<std::uint32_t>(d, p, host_rows.data()); });
  if (allow4 && grid::rope4_applies(p, x, y)) {
    const bool copy_pass = x != y;
    for_grid(a.n_tokens * a.n_heads * grid::rope4_items_per_row(p, copy_pass), [&](const grid::Dim& d) {
      grid::rope_rotate4_thread<std::uint32_t>(d, p, x, y, copy_pass);
    });
    return kOk;
  }
  for_grid(a.n_tokens * a.n_heads * half, [&](const grid::Dim& d) { grid::rope_rotate_thread<std::uint32_t>(d, p, x, y); });
  if (x != y) {
    for_grid(a.n_tokens * a.n_heads * (a.head_dim - a.rotary_dim),
             [&](const grid::Dim& d) { grid::rope_pass_thread<std::uint32_t>(d, p, x, y); });
  }
  return kOk;
}

inline int emulate_alibi(const pec_alibi_args& a, float* scores) {
  if (!valid_alibi(&a, scores)) return kInvalidArgument;
  std::vector<double> slopes(static_cast<std::size_t>(a.n_heads));
  for (std::int64_t h = 0; h < a.n_heads; ++h) slopes[static_cast<std::size_t>(h)] = alibi_slope(a.n_heads, h);
  const grid::AlibiDev p{a.n_heads, a.n_q, a.n_k, a.mode == PEC_ALIBI_CAUSAL, slopes.data(), a.q_pos,
                         a.k_pos, -HUGE_VAL};
  for_grid(a.n_heads * a.n_q * a.n_k, [&](const grid::Dim& d) { grid::alibi_thread<std::uint32_t>(d, p, scores); });
  return kOk;
}

inline int emulate_t5(const pec_t5_args& a, float* bias) {
  if (!valid_t5(&a, bias)) return kInvalidArgument;
  const T5Shape shape = t5_shape<std::int64_t>(a.num_buckets, a.bidirectional != 0);
  const std::vector<std::int64_t> thr = t5_thresholds(shape.half_buckets, shape.max_exact, a.max_distance);
  const grid::T5Dev p{a.n_heads, a.n_q, a.n_k, a.bidirectional, shape, thr.data(), a.table, a.q_pos, a.k_pos};
  for_grid(a.n_heads * a.n_q * a.n_k, [&](const grid::Dim& d) { grid::t5_thread<std::uint32_t>(d, p, bias); });
  return kOk;
}

// ---- Version 2, as pecheck_cuda's wrapper runs it (src/kernels/cuda/wrapper.cpp): host steps
// from kernels/common/v2_host.hpp, device steps by the per-thread bodies of grid_v2.hpp.

// The tables of a computed-angle call: table_attn_thread for every (row, frequency), host
// quad-path rows kept.
inline void emulate_tables(const std::int64_t* positions, std::int64_t rows, std::int64_t rot, double base,
                           const float* inv_freq, double scale, double attn, bool odd, std::vector<float>& c,
                           std::vector<float>& s, FreqTable& freq) {
  const std::int64_t half = rot / 2;
  freq_table(base, rot, inv_freq, half, freq);
  std::vector<std::uint8_t> host_rows;
  v2host::quad_rows(positions, rows, scale, attn, odd, freq, half, host_rows, c, s);
  const grid::TableDev p{rows, half, scale, attn, positions, freq.hi.data(), freq.lo.data(), c.data(), s.data(), odd ? 1 : 0};
  for_grid(rows * half, [&](const grid::Dim& d) { grid::table_attn_thread<std::uint32_t>(d, p, host_rows.data()); });
}

struct EmuView {
  const void* in;
  void* out;
  std::int64_t n_heads;
  pec_strides s_in, s_out;
};

// Pack each view, rotate it in place (rotate_thread for every (token, head, pair)), scatter.
template <int F>
void emulate_views(std::int64_t T, std::int64_t D, std::int64_t rot, std::int32_t layout, const std::vector<float>& c,
                   const std::vector<float>& s, const EmuView* views, int n) {
  using S = grid::StoreT<F>;
  for (int v = 0; v < n; ++v) {
    if (views[v].n_heads == 0 || T == 0) continue;
    std::vector<S> dense = v2host::pack(static_cast<const S*>(views[v].in), T, views[v].n_heads, D, views[v].s_in);
    const grid::RotDev p{T, views[v].n_heads, D, rot, rot / 2, layout, c.data(), s.data()};
    for_grid(T * views[v].n_heads * (rot / 2),
             [&](const grid::Dim& d) { grid::rotate_thread<F, std::uint32_t>(d, p, dense.data(), dense.data()); });
    v2host::scatter(dense, static_cast<S*>(views[v].out), T, views[v].n_heads, D, views[v].s_out);
  }
}

template <int F>
int emulate_rope_qk(const pec_rope_qk_args& a, const void* q, const void* k, void* qo, void* ko) {
  if (!valid_rope_qk(&a, q, k, qo, ko, F == 0 ? 4 : 2)) return kInvalidArgument;
  std::vector<float> c, s;
  FreqTable freq;
  emulate_tables(a.positions, a.n_tokens, a.rotary_dim, a.theta_base, a.inv_freq, a.position_scale, a.attn_factor,
                 false, c, s, freq);
  const EmuView v[2] = {{q, qo, a.n_q_heads, a.q, a.q_out}, {k, ko, a.n_kv_heads, a.k, a.k_out}};
  emulate_views<F>(a.n_tokens, a.head_dim, a.rotary_dim, a.layout, c, s, v, 2);
  return kOk;
}

template <int F>
int emulate_rope16(const pec_rope_args& a, const std::uint16_t* x, std::uint16_t* y) {
  if (!valid_rope(&a, x, y)) return kInvalidArgument;
  std::vector<float> c, s;
  FreqTable freq;
  emulate_tables(a.positions, a.n_tokens, a.rotary_dim, a.theta_base, a.inv_freq, a.position_scale, 1.0, false, c, s,
                 freq);
  const pec_strides dense{a.n_heads * a.head_dim, a.head_dim};
  const EmuView v{x, y, a.n_heads, dense, dense};
  emulate_views<F>(a.n_tokens, a.head_dim, a.rotary_dim, a.layout, c, s, &v, 1);
  return kOk;
}

template <int F>
int emulate_rope_cached(const pec_rope_cached_args& a, const void* q, const void* k, void* qo, void* ko) {
  if (!valid_rope_cached(&a, q, k, qo, ko, F == 0 ? 4 : 2)) return kInvalidArgument;
  std::vector<float> c, s;
  if (a.n_tokens > 0) v2host::cached_tables(a, c, s);
  const EmuView v[2] = {{q, qo, a.n_q_heads, a.q, a.q_out}, {k, ko, a.n_kv_heads, a.k, a.k_out}};
  emulate_views<F>(a.n_tokens, a.head_dim, a.rotary_dim, a.layout, c, s, v, 2);
  return kOk;
}

template <int F>
int emulate_rope_cache(const pec_rope_cache_args& a, grid::StoreT<F>* cache) {
  if (!valid_rope_cache(&a, cache)) return kInvalidArgument;
  std::vector<float> c, s;
  FreqTable freq;
  emulate_tables(nullptr, a.cache_positions, a.rotary_dim, a.theta_base, a.inv_freq, a.position_scale, a.attn_factor,
                 F != 0, c, s, freq);
  const grid::TableDev p{a.cache_positions, a.rotary_dim / 2, a.position_scale, a.attn_factor, nullptr,
                         freq.hi.data(), freq.lo.data(), c.data(), s.data(), F != 0 ? 1 : 0};
  for_grid(a.cache_positions * (a.rotary_dim / 2),
           [&](const grid::Dim& d) { grid::cache_row_thread<F, std::uint32_t>(d, p, cache); });
  return kOk;
}

template <int F>
int emulate_alibi16(const pec_alibi_args& a, std::uint16_t* scores) {
  if (!valid_alibi(&a, scores)) return kInvalidArgument;
  std::vector<double> slopes(static_cast<std::size_t>(a.n_heads));
  for (std::int64_t h = 0; h < a.n_heads; ++h) slopes[static_cast<std::size_t>(h)] = alibi_slope(a.n_heads, h);
  const grid::AlibiDev p{a.n_heads, a.n_q, a.n_k, a.mode == PEC_ALIBI_CAUSAL, slopes.data(), a.q_pos, a.k_pos, -HUGE_VAL};
  for_grid(a.n_heads * a.n_q * a.n_k, [&](const grid::Dim& d) { grid::alibi16_thread<F, std::uint32_t>(d, p, scores); });
  return kOk;
}

inline int emulate_t5_16(const pec_t5_args16& a, std::uint16_t* bias) {
  if (!valid_t5(&a, bias)) return kInvalidArgument;
  const T5Shape shape = t5_shape<std::int64_t>(a.num_buckets, a.bidirectional != 0);
  const std::vector<std::int64_t> thr = t5_thresholds(shape.half_buckets, shape.max_exact, a.max_distance);
  const grid::T5Dev16 p{a.n_heads, a.n_q, a.n_k, a.bidirectional, shape, thr.data(), a.table, a.q_pos, a.k_pos};
  for_grid(a.n_heads * a.n_q * a.n_k, [&](const grid::Dim& d) { grid::t5_16_thread<std::uint32_t>(d, p, bias); });
  return kOk;
}

template <int F>
int emulate_sinusoidal16(const pec_sinusoidal_args& a, std::uint16_t* out) {
  if (!valid_sinusoidal(&a, out)) return kInvalidArgument;
  std::vector<float> c, s;
  FreqTable freq;
  emulate_tables(a.positions, a.n_tokens, a.d_model, a.base, nullptr, 1.0, 1.0, true, c, s, freq);
  const grid::TableDev p{a.n_tokens, a.d_model / 2, 1.0, 1.0, a.positions, freq.hi.data(), freq.lo.data(), c.data(),
                         s.data(), 1};
  for_grid(a.n_tokens * (a.d_model / 2), [&](const grid::Dim& d) { grid::sinusoidal16_thread<F, std::uint32_t>(d, p, out); });
  return kOk;
}

inline int emulate_learned16(const pec_learned_args16& a, std::uint16_t* out) {
  if (!valid_learned(&a, out)) return kInvalidArgument;
  const grid::LearnedDev16 p{a.n_tokens, a.d_model, a.positions, a.table};
  for_grid(a.n_tokens * a.d_model, [&](const grid::Dim& d) { grid::learned16_thread<std::uint32_t>(d, p, out); });
  return kOk;
}

}  // namespace pecheck::kernels::test
