// Every claim of `pecheck prove` gives what it should: a proof, or (for the claims meant to
// fail) a counterexample that replayed concretely. One GoogleTest per claim, so CTest lists
// each claim (and its spec clause, in the name) with its own time.
#include <gtest/gtest.h>

#include "proofs/claims.hpp"

namespace pecheck::proofs {
namespace {

class Claims : public ::testing::TestWithParam<Claim> {};

TEST_P(Claims, GivesWhatItShould) {
  const Claim& claim = GetParam();
  const ClaimResult r = run_claim(claim);
  for (const auto& q : r.queries) {
    for (const auto& run : q.runs) {
      std::printf("  %-50s %-5s %-15s %.2fs %s\n", q.name.c_str(),
                  std::string(to_string(run.backend)).c_str(),
                  run.ran ? std::string(to_string(run.answer)).c_str() : "skipped", run.seconds,
                  run.reason.c_str());
    }
  }
  EXPECT_EQ(to_string(r.verdict), to_string(claim.expected))
      << claim.name << " (" << claim.clause << "): " << r.reason;
  if (claim.expected == Answer::Counterexample && r.verdict == Answer::Counterexample) {
    ASSERT_TRUE(r.counterexample.has_value()) << "a counterexample must carry its replayed report";
    EXPECT_FALSE(r.counterexample->clause.empty());
    EXPECT_FALSE(r.counterexample->message.empty());
  }
}

std::string test_name(const ::testing::TestParamInfo<Claim>& info) {
  std::string s;
  for (char ch : info.param.name) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Proofs, Claims, ::testing::ValuesIn(all_claims()), test_name);

}  // namespace
}  // namespace pecheck::proofs
