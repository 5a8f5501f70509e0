/* Exports a pec_* function but reports ABI version 3 (this pecheck speaks 1 and 2). */
#include "pecheck_kernel.h"

int pec_abi_version(void) { return 3; }
int pec_learned_f32(const struct pec_learned_args* a, float* out) { (void)a; (void)out; return 1; }
