// libFuzzer target: the failure-corpus parser (src/verify/corpus.hpp) and the conversion of an
// entry back into a kernel call (corpus_cases.hpp), on arbitrary bytes.
//
// Properties: no crash, leak or undefined behaviour on any input; a rejected file is a
// pecheck::UsageError (one line), nothing else; an accepted file renders back to text that
// parses to the same rendering (the writer and the parser agree, so stored files replay).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "verify/corpus/corpus.hpp"
#include "verify/corpus/corpus_cases.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pecheck::verifier;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  CorpusEntry e;
  try {
    e = parse_corpus_entry(text, "fuzz-input");
  } catch (const pecheck::UsageError&) {
    return 0;
  }
  const std::string once = render_corpus_entry(e);
  const std::string twice = render_corpus_entry(parse_corpus_entry(once, "fuzz-rendered"));
  if (once != twice) {
    std::fprintf(stderr, "corpus round trip differs:\n--- first\n%s--- second\n%s", once.c_str(), twice.c_str());
    std::abort();
  }
  (void)e.file_name();
  try {
    validate_entry(e);
  } catch (const pecheck::UsageError&) {
  }
  return 0;
}
