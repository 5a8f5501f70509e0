// BUGGY (on purpose): bf16 ALiBi (pec_alibi_bias_bf16, ABI version 2 storage) that forms the
// query-key distance from positions converted to the score dtype: `q_pos.to(scores.dtype) -
// k_pos.to(scores.dtype)`, the bias built from position tensors made in the model's dtype.
// bfloat16 holds every integer only up to 256; above it neighbouring positions collapse
// (257 -> 256, 259 -> 260), so the distance of nearby tokens is 0 or 2 instead of 1 — an
// error of a whole slope, far beyond the bf16 budget, exactly where the bias matters (nearby
// keys at long context). The slope, the product and the one rounding of the sum into the bf16
// score are right, and the causal mask is taken from the integer positions.
// Violates ABI-ALIBI-2 (the values of the bf16 variant, ABI-STORE-2).
#include <cmath>

#include "../common.hpp"
#include "../common_v2.hpp"

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_alibi_bias_bf16(const pec_alibi_args* a, std::uint16_t* scores) {
  if (!example::alibi_args_ok(a, reinterpret_cast<const float*>(scores))) return 1;
  using example::v2::bf16_to_float;
  using example::v2::float_to_bf16;
  const auto to_bf16 = [](std::int64_t p) { return double(bf16_to_float(float_to_bf16(float(p)))); };
  for (std::int64_t h = 0; h < a->n_heads; ++h) {
    const double slope = example::alibi_slope(h, a->n_heads);
    for (std::int64_t i = 0; i < a->n_q; ++i) {
      for (std::int64_t j = 0; j < a->n_k; ++j) {
        std::uint16_t& s = scores[(h * a->n_q + i) * a->n_k + j];
        if (a->mode == PEC_ALIBI_CAUSAL && a->k_pos[j] > a->q_pos[i]) {
          s = 0xff80u;  // -inf
          continue;
        }
        const double d = std::fabs(to_bf16(a->q_pos[i]) - to_bf16(a->k_pos[j]));  // the bug
        s = float_to_bf16(float(double(bf16_to_float(s)) - slope * d));
      }
    }
  }
  return 0;
}
