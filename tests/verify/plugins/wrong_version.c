/* Exports a pec_* function but reports ABI version 2. */
#include "pecheck_kernel.h"

int pec_abi_version(void) { return 2; }
int pec_learned_f32(const struct pec_learned_args* a, float* out) { (void)a; (void)out; return 1; }
