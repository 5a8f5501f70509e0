// Sinusoidal (Vaswani et al.) lane map: the single source for the SIMD and CUDA kernels.
// Spec: spec/sinusoidal.md, spec/abi.md (ABI-SIN-1..2).
//   out[t][2i] = sin(pos * base^(-2i/d_model)), out[t][2i+1] = cos(same)
// The angle and its cos/sin are rope_sincos (rope_angle.hpp) with position_scale = 1 and the
// frequency f_i = base^(-2i/d_model) as a double-double from the host; each value is the
// double result rounded once to float.
#pragma once

#include <stdint.h>

#include "kernels/shared/hd.hpp"

namespace pecheck::kernels {

// Frequency index of output lane c and whether it holds the sine (even lane) or cosine.
template <class I>
PEC_HD_FN I sinusoidal_lane_freq(I lane, bool& is_sin) {
  is_sin = (lane % 2) == 0;
  return lane / 2;
}

}  // namespace pecheck::kernels
