/* Reports an ABI version pecheck does not speak: `pecheck verify` refuses it (exit 2,
 * ABI-GEN-1) before calling anything else. Used by tests/e2e. */
#include <stdint.h>

#include "pecheck_kernel.h"

int pec_abi_version(void) { return 42; }

int pec_learned_f32(const struct pec_learned_args* a, float* out) {
  (void)a;
  (void)out;
  return 1;
}
