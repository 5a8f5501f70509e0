/* A seed-sensitive kernel for the flakiness sweep's power test (tests/ci/test_ci_flaky.cpp):
 * the correct pure-C example kernels (examples/example_c_kernels.c, included under other
 * names), except that pec_learned_f32 has a "large table" path for tables of 590 to 600 rows
 * that returns the row before the last one for the last position. Its default verdict depends
 * on whether a seed's cases draw such a table (a minority of seeds do): exactly the kind of
 * verdict the sweep must flag. It reads and writes only what the call allows. */
#define pec_learned_f32 seed_inner_learned_f32
#include "example_c_kernels.c"
#undef pec_learned_f32

int pec_learned_f32(const struct pec_learned_args* a, float* out) {
  int64_t t, c;
  const int rc = seed_inner_learned_f32(a, out);
  if (rc != 0 || a->max_positions < 590 || a->max_positions > 600) return rc;
  for (t = 0; t < a->n_tokens; ++t) {
    if (a->positions[t] != a->max_positions - 1) continue;
    for (c = 0; c < a->d_model; ++c) out[t * a->d_model + c] = a->table[(a->positions[t] - 1) * a->d_model + c];
  }
  return 0;
}
