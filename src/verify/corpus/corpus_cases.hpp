// A corpus entry (verify/corpus.hpp) back into the case it describes, for replay. Throws
// pecheck::UsageError with one line when a field is missing, of the wrong type, out of the range
// pecheck replays, or inconsistent with the check it names.
#pragma once

#include "verify/v1/cases.hpp"
#include "verify/corpus/corpus.hpp"

namespace pecheck::verifier {

void case_from_entry(const CorpusEntry& e, RopeCase& c);
void case_from_entry(const CorpusEntry& e, AlibiCase& c);
void case_from_entry(const CorpusEntry& e, T5Case& c);
void case_from_entry(const CorpusEntry& e, SinusoidalCase& c);
void case_from_entry(const CorpusEntry& e, LearnedCase& c);

}  // namespace pecheck::verifier

namespace pecheck::verifier {

// Checks, before a run starts, that `e` converts into the case type of its check's scheme
// (rope.*, alibi.*, t5.*, sinusoidal.*, learned.*) and names that scheme's ABI function.
void validate_entry(const CorpusEntry& e);

// The check an entry replays under today: e.check, except that a pre-split "<scheme>.reject"
// entry maps to the requirement check of the rule its case breaks ("learned.reject.null").
std::string current_check_name(const CorpusEntry& e);

}  // namespace pecheck::verifier
