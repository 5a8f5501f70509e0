// BUGGY (on purpose): accepts an invalid call. A position outside the table is clamped to the
// last row (as some frameworks silently do) instead of being rejected, so a model fed a
// sequence longer than max_positions runs on with wrong embeddings and no error.
// Violates ABI-LEARN-1 (a position outside [0, max_positions) must be rejected). The clamp keeps
// every read inside the table, so no harm is shown: the default run passes it and `--strict`
// fails it (spec/abi.md ABI-GEN-8, tier B).
#include "../common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_learned_f32(const pec_learned_args* a, float* out) {
  if (a == nullptr || a->n_tokens < 0 || a->d_model < 1 || a->max_positions < 1) return 1;
  if (a->n_tokens > 0 && (a->positions == nullptr || a->table == nullptr || out == nullptr)) return 1;
  for (std::int64_t t = 0; t < a->n_tokens; ++t) {
    std::int64_t p = a->positions[t];
    if (p < 0) p = 0;                                       // the bug: clamp ...
    if (p >= a->max_positions) p = a->max_positions - 1;   // ... instead of rejecting
    for (std::int64_t c = 0; c < a->d_model; ++c) out[t * a->d_model + c] = a->table[p * a->d_model + c];
  }
  return 0;
}
