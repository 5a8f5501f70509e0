/* A plug-in whose constructor crashes while it is being loaded: pecheck must survive (it loads
 * libraries in a worker process) and exit 2 with a one-line reason. */
#include <signal.h>

#include "pecheck_kernel.h"

__attribute__((constructor)) static void explode(void) { raise(SIGSEGV); }

int pec_abi_version(void) { return PEC_ABI_VERSION; }
