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

 private:
  const VerifyOptions& o_;
  std::map<std::string, std::vector<CorpusEntry>> by_check_;
  std::size_t count_ = 0;
  std::string kernel_id_;
  std::vector<std::string> notes_;
  std::size_t replayed_ = 0, failed_ = 0, fixed_ = 0, stored_ = 0;
};

}  // namespace pecheck::verifier
