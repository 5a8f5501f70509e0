#include "verify/isolation/guard.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

namespace pecheck::verifier {

namespace {

// While guard spans are armed: records the fault address (and, on x86-64, whether the access
// was a write) in the shared arena and returns; SA_RESETHAND has restored the default
// disposition, so the faulting access runs again and the worker dies by SIGSEGV as it would
// have, now with the address known to pecheck.
volatile std::uint64_t* g_fault_slot = nullptr;

void on_guard_fault(int, siginfo_t* info, void* uc) {
  volatile std::uint64_t* slot = g_fault_slot;
  if (slot == nullptr) return;
  std::uint64_t write = 0;
#if defined(__x86_64__)
  write = (static_cast<ucontext_t*>(uc)->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;
#else
  (void)uc;
#endif
  slot[1] = write;
  slot[0] = reinterpret_cast<std::uint64_t>(info->si_addr);
}

void protect(const GuardSpans& g, int prot) {
  for (std::uint32_t i = 0; i < g.n && i < kMaxGuardSpans; ++i) {
    mprotect(reinterpret_cast<void*>(g.lo[i]), g.hi[i] - g.lo[i], prot);
  }
}

}  // namespace

GuardSpans guard_spans_of(const Arena& arena) {
  GuardSpans g;
  const auto& guarded = arena.guarded_inputs();
  if (guarded.empty()) return g;
  g.fault_slot = reinterpret_cast<std::uint64_t>(arena.fault_slot());
  arena.fault_slot()[0] = arena.fault_slot()[1] = 0;
  for (const auto& in : guarded) {
    if (g.n >= kMaxGuardSpans) break;
    g.lo[g.n] = in.span.lo;
    g.hi[g.n] = in.span.hi;
    ++g.n;
  }
  return g;
}

void arm_guards(const GuardSpans& g) {
  if (g.n == 0 || g.fault_slot == 0) return;
  g_fault_slot = reinterpret_cast<volatile std::uint64_t*>(g.fault_slot);
  struct sigaction sa {};
  sa.sa_sigaction = on_guard_fault;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, nullptr);
  protect(g, PROT_NONE);
}

void disarm_guards(const GuardSpans& g) {
  if (g.n == 0 || g.fault_slot == 0) return;
  protect(g, PROT_READ | PROT_WRITE);
  signal(SIGSEGV, SIG_DFL);
  g_fault_slot = nullptr;
}

}  // namespace pecheck::verifier
