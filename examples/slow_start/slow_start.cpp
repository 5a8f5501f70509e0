// The correct example kernels (example_kernels.cpp) behind a library constructor that takes
// 0.5 s, like a plug-in that links a heavy runtime (libtorch). With PECHECK_TEST_CTOR_LOG set,
// each run of the constructor appends one line to that file, so a test can count how often the
// library was started (README "Verifying a kernel": once per run, in the fork server).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "../example_kernels.cpp"

__attribute__((constructor)) static void slow_start() {
  usleep(500000);
  if (const char* log = std::getenv("PECHECK_TEST_CTOR_LOG")) {
    if (FILE* f = std::fopen(log, "a")) {
      std::fprintf(f, "constructor ran in pid %d\n", static_cast<int>(getpid()));
      std::fclose(f);
    }
  }
}
