// Host-side steps of pecheck_cuda's version 2 calls, shared by the CUDA wrapper
// (src/kernels/cuda/wrapper.cpp) and the host emulation of its launch grid (tests/kernels):
// packing strided views into the dense device layout and scattering results back (only the
// view's elements are written: ABI-VIEW-2), the quad-path cos/sin rows (angles beyond the
// double-double domain, as the SIMD path does per token), and the float tables of a cos/sin
// cache's rows. No CUDA header: plain host code.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/prep.hpp"
#include "kernels/shared/f16_conv.hpp"
#include "kernels/shared/rope_angle.hpp"

namespace pecheck::kernels::v2host {

// View elements (t, h, l) at base[t*s.token + h*s.head + l], dense [t][h][l].
template <class S>
std::vector<S> pack(const S* base, int64_t T, int64_t H, int64_t D, pec_strides s) {
  std::vector<S> d(static_cast<size_t>(T * H * D));
  size_t k = 0;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t l = 0; l < D; ++l) d[k++] = base[t * s.token + h * s.head + l];
  return d;
}
template <class S>
void scatter(const std::vector<S>& d, S* base, int64_t T, int64_t H, int64_t D, pec_strides s) {
  size_t k = 0;
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t l = 0; l < D; ++l) base[t * s.token + h * s.head + l] = d[k++];
}

// Rows whose angles leave the double-double path (|position*scale*f| >= kMaxFastAngle/2, the
// SIMD path's test): host_rows[r] = 1 and c/s[r*half + i] = attn*cos/sin in quad precision
// (sincos_quad_row; odd: rounded to odd for a later 16-bit rounding). positions == nullptr:
// row r is position r (the cache builder).
inline void quad_rows(const int64_t* positions, int64_t n_rows, double scale, double attn, bool odd,
                      const FreqTable& f, int64_t half, std::vector<uint8_t>& host_rows,
                      std::vector<float>& c, std::vector<float>& s) {
  host_rows.assign(static_cast<size_t>(n_rows), 0);
  c.assign(static_cast<size_t>(n_rows * half), 0.0f);
  s.assign(c.size(), 0.0f);
  for (int64_t r = 0; r < n_rows; ++r) {
    const double pos =
        positions != nullptr ? static_cast<double>(positions[r]) : static_cast<double>(r);
    if (pos * scale * f.absmax >= 0.5 * rope_const::kMaxFastAngle) {
      host_rows[static_cast<size_t>(r)] = 1;
      sincos_quad_row(pos, scale, f.hi.data(), f.lo.data(), half, &c[static_cast<size_t>(r * half)],
                      &s[static_cast<size_t>(r * half)], attn, odd);
    }
  }
}

// The float tables [n_tokens][half] of a cached call: row positions[t] of the cache widened
// exactly (ABI-CACHE-2 takes the entries as exact numbers).
inline void cached_tables(const pec_rope_cached_args& a, std::vector<float>& c,
                          std::vector<float>& s) {
  const int64_t half = a.rotary_dim / 2;
  c.assign(static_cast<size_t>(a.n_tokens * half), 0.0f);
  s.assign(c.size(), 0.0f);
  for (int64_t t = 0; t < a.n_tokens; ++t) {
    const int64_t row = a.positions[t] * a.rotary_dim;
    for (int64_t i = 0; i < half; ++i) {
      float cv, sv;
      if (a.cache_dtype == PEC_DTYPE_F32) {
        cv = static_cast<const float*>(a.cos_sin_cache)[row + i];
        sv = static_cast<const float*>(a.cos_sin_cache)[row + half + i];
      } else {
        const uint16_t* u = static_cast<const uint16_t*>(a.cos_sin_cache);
        cv = a.cache_dtype == PEC_DTYPE_BF16 ? bf16_to_f32(u[row + i]) : f16_to_f32(u[row + i]);
        sv = a.cache_dtype == PEC_DTYPE_BF16 ? bf16_to_f32(u[row + half + i])
                                             : f16_to_f32(u[row + half + i]);
      }
      c[static_cast<size_t>(t * half + i)] = cv;
      s[static_cast<size_t>(t * half + i)] = sv;
    }
  }
}

}  // namespace pecheck::kernels::v2host
