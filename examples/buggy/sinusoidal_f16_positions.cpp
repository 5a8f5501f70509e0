// BUGGY (on purpose): fp16 sinusoidal encoding (pec_sinusoidal_f16, ABI version 2 storage)
// that does its arithmetic in the storage type: the positions are made in the model's dtype
// (`arange(n, dtype=float16)`, or a position tensor cast with the activations) before the
// angle is formed. fp16 holds every integer only up to 2048; position 2049 becomes 2048, and
// past 65504 every position is infinite (sin/cos of inf: NaN). The rest is accurate (angle
// and sin/cos in double, one rounding to fp16), so the first failing position is 2049.
// Violates ABI-SIN-2 (the values of the fp16 variant, ABI-STORE-2).
#include "../common.hpp"
#include "../common_v2.hpp"

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_sinusoidal_f16(const pec_sinusoidal_args* a, std::uint16_t* out) {
  if (!example::sinusoidal_args_ok(a, reinterpret_cast<const float*>(out))) return 1;
  using example::v2::f16_to_float;
  using example::v2::float_to_f16;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    const double pos = f16_to_float(float_to_f16(float(a->positions[t])));  // the bug
    for (std::int64_t i = 0; i < a->d_model / 2; ++i) {
      const double angle = pos * std::pow(a->base, -2.0 * double(i) / double(a->d_model));
      out[t * a->d_model + 2 * i] = float_to_f16(float(std::sin(angle)));
      out[t * a->d_model + 2 * i + 1] = float_to_f16(float(std::cos(angle)));
    }
  }
  return 0;
}
