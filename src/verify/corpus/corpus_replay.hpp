// Replay of the failure corpus and the shipped regressions inside a verification run.
//
// For each check the engine runs, CorpusReplay::run() first replays the entries stored for that
// check (shipped regressions, then --corpus DIR, each in file-name order). The first entry that
// fails again ends the check with that counterexample (a regression is caught without any
// random search); entries that pass are reported as fixed. When every entry passes, the check's
// random search runs as usual, and a counterexample it finds is stored in DIR.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "verify/checks/check.hpp"
#include "verify/corpus/corpus.hpp"

namespace pecheck::verifier {

class CorpusReplay {
 public:
  // Loads the entries (throws UsageError on a malformed file).
  explicit CorpusReplay(const VerifyOptions& o);

  report::CheckResult run(const AnyCheck& c, Ctx& ctx);

  // Run-level notes: what was replayed, what failed again, what is fixed, what was stored.
  void finish(report::VerifyResult& res) const;

  std::size_t size() const { return count_; }

  // What this replay did, for a run split into parallel lanes (verify/engine.cpp): each lane
  // replays its own checks in a copy of the object and the parent adds the lanes' tallies in
  // catalogue order, so finish() says what one sequential run would have said.
  struct Tally {
    std::size_t replayed = 0, failed = 0, fixed = 0, stored = 0;
    std::vector<std::string> notes;
  };
  Tally tally() const { return {replayed_, failed_, fixed_, stored_, notes_}; }
  void absorb(const Tally& t);
  void clear_tally() { replayed_ = failed_ = fixed_ = stored_ = 0, notes_.clear(); }

 private:
  const VerifyOptions& o_;
  std::map<std::string, std::vector<CorpusEntry>> by_check_;
  std::size_t count_ = 0;
  std::string kernel_id_;
  std::vector<std::string> notes_;
  std::size_t replayed_ = 0, failed_ = 0, fixed_ = 0, stored_ = 0;
};

}  // namespace pecheck::verifier
