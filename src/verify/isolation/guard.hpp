#pragma once
// Guard pages around one call's inputs (issue 20 finding 4): the spans Arena::allocate_input
// leaves beside an input are made PROT_NONE in the worker for the duration of one call, and a
// SIGSEGV handler records the fault address in the shared arena, so a read (or write) past
// either end of an input becomes a reported failure naming the input and the element.
#include <cstdint>

#include "verify/isolation/arena.hpp"

namespace pecheck::verifier {

// Carried in the worker's request (plain data: it crosses the fork server's socket).
struct GuardSpans {
  std::uint64_t fault_slot = 0;  // the arena words the handler writes (0: nothing guarded)
  std::uint32_t n = 0;
  std::uint64_t lo[kMaxGuardSpans] = {}, hi[kMaxGuardSpans] = {};
};

// The spans of the arena's guarded inputs for the next call; clears the fault slot.
GuardSpans guard_spans_of(const Arena& arena);

// In the worker, around one kernel call: arm makes the spans inaccessible and installs the
// one-shot SIGSEGV handler; disarm restores both. No-ops when nothing is guarded.
void arm_guards(const GuardSpans& g);
void disarm_guards(const GuardSpans& g);

}  // namespace pecheck::verifier
