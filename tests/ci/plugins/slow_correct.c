/* A correct but slow kernel for the CI gate's bad-input tests: the correct pure-C example
 * kernels (examples/example_c_kernels.c, included under other names), exporting only
 * pec_sinusoidal_f32 and pec_learned_f32, each sleeping a few milliseconds per call — well
 * under pecheck's per-call timeout (1 s), so pecheck verify must pass it (exit 0). */
#define _POSIX_C_SOURCE 199309L
#include <time.h>

#define pec_rope_f32 slow_inner_rope_f32
#define pec_alibi_bias_f32 slow_inner_alibi_bias_f32
#define pec_t5_bias_f32 slow_inner_t5_bias_f32
#define pec_sinusoidal_f32 slow_inner_sinusoidal_f32
#define pec_learned_f32 slow_inner_learned_f32
#include "example_c_kernels.c"
#undef pec_rope_f32
#undef pec_alibi_bias_f32
#undef pec_t5_bias_f32
#undef pec_sinusoidal_f32
#undef pec_learned_f32

static void pause_a_little(void) {
  struct timespec ts = {0, 4 * 1000 * 1000}; /* 4 ms */
  nanosleep(&ts, NULL);
}

int pec_sinusoidal_f32(const struct pec_sinusoidal_args* a, float* out) {
  pause_a_little();
  return slow_inner_sinusoidal_f32(a, out);
}

int pec_learned_f32(const struct pec_learned_args* a, float* out) {
  pause_a_little();
  return slow_inner_learned_f32(a, out);
}
