// ALiBi kernels that differ from the offset form -slope |q - k| by something per row, for the
// softmax contract (spec/contracts.md PREC-SOFTMAX-1, `pecheck verify --contract softmax`).
// Causal mode is where they differ; symmetric mode is the plain float offset form.
//
//   ALIBI_BLOOM         BLOOM's key-only bias, as HF build_alibi_tensor: bias = slope k_pos in
//                       float32 (slope and k_pos rounded to float, one product), then added to
//                       the score. Differs from -slope (q - k) by slope q per row: the softmax
//                       cannot see it while float32 can still carry the offsets under it (it
//                       passes at --max-position 4096), but slope k_pos = 2^24 leaves no bits
//                       for them (it fails at 2^24).
//   ALIBI_ROW_CONSTANT  the offset form plus a different small constant per (head, query) row:
//                       passes the softmax contract everywhere.
//   ALIBI_KEY_TERM      the offset form plus 0.01 (j mod 5) for key index j: a per-key term that
//                       changes the softmax; fails.
#include <cmath>

#include "../common.hpp"

using namespace example;

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_alibi_bias_f32(const pec_alibi_args* a, float* scores) {
  if (!alibi_args_ok(a, scores)) return 1;
  for (std::int64_t h = 0; h < a->n_heads; ++h) {
    const float slope = float(alibi_slope(h, a->n_heads));
    for (std::int64_t i = 0; i < a->n_q; ++i) {
      float* row = scores + (h * a->n_q + i) * a->n_k;
      for (std::int64_t j = 0; j < a->n_k; ++j) {
        const std::int64_t d = a->q_pos[i] - a->k_pos[j];
        if (a->mode != PEC_ALIBI_CAUSAL) {
          row[j] = row[j] + -slope * float(d < 0 ? -d : d);
          continue;
        }
        if (d < 0) {
          row[j] = -INFINITY;
          continue;
        }
#if defined(ALIBI_BLOOM)
        row[j] = row[j] + slope * float(a->k_pos[j]);
#elif defined(ALIBI_ROW_CONSTANT)
        row[j] = row[j] + (-slope * float(d) + 0.25f * float((h * a->n_q + i) % 7));
#elif defined(ALIBI_KEY_TERM)
        row[j] = row[j] + (-slope * float(d) + 0.01f * float(j % 5));
#else
#error "define ALIBI_BLOOM, ALIBI_ROW_CONSTANT or ALIBI_KEY_TERM"
#endif
      }
    }
  }
  return 0;
}
