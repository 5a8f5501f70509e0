// BUGGY (on purpose): loops forever when n_heads > 4 (a head-tiling loop whose step is 0 past
// four heads); built with ROPE_HANG_ALWAYS, on every call with n_tokens > 0, and every other ABI
// function hangs on every call. Every RoPE check would meet the hang; pecheck reports it once,
// with its shrunk case, and says why the other checks of pec_rope_f32 were not run. Violates
// ABI-GEN-7.
#include "../common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const pec_rope_args* a, const float* x, float* y) {
  if (!rope_args_ok(a, x, y)) return 1;
#if defined(ROPE_HANG_ALWAYS)
  const std::int64_t step = 0;
#else
  const std::int64_t step = a->n_heads > 4 ? 0 : 1;  // the bug
#endif
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    for (std::int64_t h = 0; h < a->n_heads; h += step) {
      if (step == 0) {
        volatile std::int64_t spin = h;
        (void)spin;
        continue;
      }
      const float* xr = x + (t * a->n_heads + h) * a->head_dim;
      float* yr = y + (t * a->n_heads + h) * a->head_dim;
      for (std::int64_t i = 0; i < a->rotary_dim / 2; ++i) {
        const double angle = double(a->positions[t]) * a->position_scale * rope_freq(a, i);
        rotate(xr, yr, rope_pair(a->layout, i, a->rotary_dim), angle);
      }
      for (std::int64_t c = a->rotary_dim; c < a->head_dim; ++c) yr[c] = xr[c];
    }
  }
  return 0;
}

#if defined(ROPE_HANG_ALWAYS)
// Every other function hangs on every call too, so a run meets a hang in each of its first
// checks: the time cap, not the hang reuse, is what bounds it.
namespace {
[[noreturn]] void spin() {
  for (;;) __asm__ __volatile__("");  // an empty loop the compiler keeps
}
}  // namespace

int pec_alibi_bias_f32(const pec_alibi_args*, float*) { spin(); }
int pec_t5_bias_f32(const pec_t5_args*, float*) { spin(); }
int pec_sinusoidal_f32(const pec_sinusoidal_args*, float*) { spin(); }
int pec_learned_f32(const pec_learned_args*, float*) { spin(); }
#endif
