// What the cases of every family have in common (each family's cases, e.g. v1/cases.hpp,
// rope_v2/cases.hpp, attention/cases.hpp, derive from CaseCommon): the storage format, the shift,
// the NULL field and note of a case, where its output sits in the arena; the generator settings;
// the rejection requirements of a domain.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "verify/gen/rng.hpp"
#include "verify/isolation/storage.hpp"

namespace pecheck::verifier {

// What every case has besides its ABI arguments.
struct CaseCommon {
  // The storage format of the function the case is for (its tensors x, k, scores, table hold
  // values of this format, spec/abi.md ABI-STORE-1); set by the check from its function.
  Storage storage = Storage::F32;
  std::int64_t shift = 0;   // common position shift used by the relative-property checks
  std::string null_field;   // rejection cases: the array argument passed as NULL ("" = none)
  std::string note;         // how the generator built it (e.g. "inv_freq: llama3 factor 8")
  // Where the output sits in the call arena (v1/run.cpp and the like): bit 0 set = below the inputs
  // (allocated first), else above them; bit 1 set = adjacent (no alignment gap between x, or
  // the last input, and the output's guard zone). Bit 2 / bit 3: every input array lies flush
  // against an inaccessible guard page after its last / before its first element (a read past
  // it is a fault reported with the element, ABI-GEN-4); set by the check framework from the
  // case index (check_impl.hpp), not drawn by the generators.
  std::int32_t placement = 0;
};

// "output placed below its input, adjacent" etc., for counterexample notes ("" for 0).
std::string placement_note(std::int32_t placement);

// Generator settings shared by every check.
// Elements at most in one production-size case (the .large checks: output elements, or q + k
// for the query+key forms); at least 2^15 where the case is not shaped by a head count.
inline constexpr std::int64_t kLargeElements = std::int64_t{1} << 16;

struct GenParams {
  std::int64_t max_position = 131072;  // largest position generated (inclusive)
  Storage storage = Storage::F32;      // the function's storage format (fit_storage after generation)
  std::int64_t case_index = 0;         // the case's index in its check (the .large generators alternate kinds)
};

// One rejection requirement of a function's domain, judged by its own check
// `<scheme>.reject.<id>` (so that one failing requirement cannot mask another). Tier A
// (`safety`): an argument that, trusted, makes the kernel read or write memory it must not —
// always checked. Tier B: caller-precondition hygiene — checked under --strict only
// (spec/abi.md ABI-GEN-8).
struct RejectRequirement {
  RejectRequirement(std::string i, std::vector<int> b, bool s, std::string r, std::string c = "")
      : id(std::move(i)), branches(std::move(b)), safety(s), rule(std::move(r)), clause(std::move(c)) {}
  std::string id;
  std::vector<int> branches;  // generator branches that break this rule
  bool safety = false;
  std::string rule;           // the rule in words
  std::string clause;         // the clause that holds the rule, when not the function's domain clause
};

}  // namespace pecheck::verifier
