// The failure corpus of `pecheck verify --corpus DIR` and the shipped regression vectors.
//
// Every counterexample a run finds is stored as one small text file in DIR, and every later run
// replays DIR's files first, before any random search: a regression that came back fails in
// milliseconds (the check stops there, its random search is not needed), and a case that now
// passes is reported as fixed. The vectors under regressions/ (bugs the field keeps
// reintroducing) use the same format; they are compiled into pecheck and replayed on every run
// unless --no-regressions is given.
//
// File format (version 1), one `key value` line each, `#` comments and blank lines ignored,
// and a final `end` line so that a truncated file is rejected:
//
//   pecheck-corpus 1
//   check rope.oracle               the check that failed (--only name)
//   function pec_rope_f32
//   clause ABI-ROPE-2               the spec clause violated
//   kind mismatch
//   message ...                     one line, as reported
//   seed 7                          the run's --seed; case-index: the generated case it came from
//   case-index 12
//   kernel path/to/lib.so           identity of the kernel it failed on (path, FNV-1a, size)
//   kernel-id fnv1a64=0123456789abcdef bytes=16384
//   pecheck-version 0.1.0
//   contract logits
//   max-position 131072
//   arg NAME TYPE VALUE             ABI field names; TYPE: null, int, real, text, ints, reals
//   tensor NAME D0,D1,.. V V V ...  float inputs, bit-exact hex floats
//   end
//
// Reals are C99 hex floats (%a), so a file replays bit-exact on any machine; infinities are
// `inf` / `-inf` and NaNs `nan(0xBITS)` with their bit pattern. Integers are decimal. The parser
// accepts exactly this and nothing it cannot check: every problem is a pecheck::UsageError with
// one line naming the file, the line and the rule (exit status 2).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "report/result.hpp"

namespace pecheck::verifier {

inline constexpr int kCorpusFormat = 1;
inline constexpr std::size_t kCorpusMaxElements = std::size_t{1} << 22;  // per array, and per output
inline constexpr std::size_t kCorpusMaxFileBytes = std::size_t{64} << 20;

struct CorpusEntry {
  std::string check;     // e.g. "rope.oracle"
  std::string function;  // e.g. "pec_rope_f32"
  std::string clause;
  std::string kind;
  std::string message;
  std::uint64_t seed = 0;
  std::int64_t case_index = -1;  // -1: not from a generated case (hand-written vector)
  std::string kernel;
  std::string kernel_id;
  std::string pecheck_version;
  std::string contract = "logits";
  std::int64_t max_position = 0;
  std::vector<report::Arg> args;       // ABI field names (no case_index)
  std::vector<report::Tensor> inputs;
  std::string source;                  // where it was read from (not part of the file)

  // Stable file name: "<check>-<16 hex digits of the FNV-1a of check, args and inputs>.case".
  std::string file_name() const;
};

// The text of one corpus file.
std::string render_corpus_entry(const CorpusEntry& e);

// Parses one corpus file. `origin` names it in messages. Throws UsageError.
CorpusEntry parse_corpus_entry(std::string_view text, const std::string& origin = "<corpus>");

// A corpus entry for a counterexample found by check `check` of a run.
CorpusEntry corpus_entry_from(const report::CheckResult& check, const report::RunOptions& options,
                              const std::string& kernel, const std::string& kernel_id);

// "fnv1a64=... bytes=..." of a file, or "" when it cannot be read.
std::string kernel_identity(const std::string& path);

// Every "*.case" file of `dir`, sorted by file name. A missing folder is an empty corpus; an
// unreadable folder or file, or a malformed file, throws UsageError.
std::vector<CorpusEntry> load_corpus_dir(const std::filesystem::path& dir);

// Writes `e` to dir/e.file_name() atomically (temporary file + rename) unless a file of that
// name exists. Creates `dir` when missing. Returns the path. Throws IoError.
std::filesystem::path store_corpus_entry(const std::filesystem::path& dir, const CorpusEntry& e);

// The regression vectors compiled into pecheck (regressions/*.case), parsed.
std::vector<CorpusEntry> builtin_regressions();

}  // namespace pecheck::verifier
