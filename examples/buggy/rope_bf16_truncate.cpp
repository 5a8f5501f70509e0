// BUGGY (on purpose): bf16 RoPE (pec_rope_bf16, ABI version 2 storage) that converts its float
// result to bfloat16 by dropping the low 16 bits — truncation toward zero, the shortcut of
// early bf16 code (`bits >> 16`) — instead of rounding to nearest even as spec/abi.md
// ABI-STORE-1 requires. The arithmetic before the store is the accurate one of the correct
// examples (angle and rotation in double). Truncation costs up to one whole bf16 unit (2^-7
// relative) and always toward zero; a rounded result is within half a unit. Where the result's
// magnitude is close to the pair's |x_a| + |x_b| (small angles, one lane near zero) that exceeds
// the bf16 class, which allows one rounding: the counterexample is such a pair.
// Violates ABI-ROPE-2 (the values of the bf16 variant, ABI-STORE-2).
#include <cstring>

#include "../common.hpp"
#include "../common_v2.hpp"

namespace {

std::uint16_t truncate_to_bf16(float f) {  // the bug: no rounding
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return std::uint16_t(u >> 16);
}

}  // namespace

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_bf16(const pec_rope_args* a, const std::uint16_t* x, std::uint16_t* y) {
  // The null checks of rope_args_ok only look at the pointers.
  if (!example::rope_args_ok(a, reinterpret_cast<const float*>(x), reinterpret_cast<const float*>(y))) return 1;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t h = 0; h < a->n_heads; ++h) {
      const std::uint16_t* xr = x + (t * a->n_heads + h) * a->head_dim;
      std::uint16_t* yr = y + (t * a->n_heads + h) * a->head_dim;
      for (std::int64_t i = 0; i < a->rotary_dim / 2; ++i) {
        const double angle = double(a->positions[t]) * a->position_scale * example::rope_freq(a, i);
        const example::Pair p = example::rope_pair(a->layout, i, a->rotary_dim);
        const double cs = std::cos(angle), sn = std::sin(angle);
        const double xa = example::v2::bf16_to_float(xr[p.a]), xb = example::v2::bf16_to_float(xr[p.b]);
        yr[p.a] = truncate_to_bf16(float(xa * cs - xb * sn));
        yr[p.b] = truncate_to_bf16(float(xb * cs + xa * sn));
      }
      for (std::int64_t c = a->rotary_dim; c < a->head_dim; ++c) yr[c] = xr[c];
    }
  }
  return 0;
}
