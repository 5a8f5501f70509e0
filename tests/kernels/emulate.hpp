// Host emulation of the CUDA launch grid: runs the per-thread bodies of
// src/kernels/shared/grid.hpp for every block and thread index, exactly as kernels.cu
// launches them (block size 256, 1-D grid, 32-bit indices), in the order the kernels run.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/prep.hpp"
#include "kernels/shared/grid.hpp"

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

}  // namespace pecheck::kernels::test
