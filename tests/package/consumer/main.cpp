// Uses an installed pecheck: verifies two in-process kernels with pecheck::verify and writes a
// report with pecheck::report. Exits 0 only when the correct kernel passes, the buggy one
// fails with an ABI-ALIBI-2 counterexample, and the report files were written.
#include <cstdio>
#include <filesystem>
#include <string>

#include "report/json.hpp"
#include "report/write.hpp"
#include "verify/verify.hpp"

extern "C" int my_learned(const pec_learned_args* a, float* out);
extern "C" int my_alibi_pow2_only(const pec_alibi_args* a, float* scores);

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer REPORT_DIR\n");
    return 2;
  }
  pecheck::VerifyOptions opt;
  opt.seed = 5;
  opt.budget_seconds = 20;

  pecheck::KernelTable good;
  good.learned_f32 = &my_learned;
  const pecheck::VerifyResult ok = pecheck::verify(good, opt);
  std::printf("learned kernel: %s, %lld checks ran\n", std::string(ok.verdict()).c_str(),
              static_cast<long long>(ok.ran()));

  pecheck::KernelTable bad;
  bad.alibi_bias_f32 = &my_alibi_pow2_only;
  const pecheck::VerifyResult ko = pecheck::verify(bad, opt);
  const pecheck::report::Counterexample* cx = nullptr;
  for (const auto& c : ko.checks) {
    if (c.counterexample && c.counterexample->clause == "ABI-ALIBI-2") cx = &*c.counterexample;
  }
  std::printf("alibi kernel: %s%s%s\n", std::string(ko.verdict()).c_str(), cx ? ": " : "",
              cx ? cx->message.c_str() : "");

  const auto paths = pecheck::report::write_report_dir(argv[1], ko);
  const bool files = std::filesystem::exists(paths.json) && std::filesystem::exists(paths.html) &&
                     std::filesystem::exists(paths.markdown);
  const auto back = pecheck::report::verify_result_from_text(pecheck::report::render_json(ko));

  const bool good_ok = ok.passed() && ok.ran() > 0;
  const bool bad_ok = !ko.passed() && cx != nullptr && back.verdict() == "fail";
  std::printf("consumer: correct kernel %s, buggy kernel %s, reports %s\n", good_ok ? "passed" : "DID NOT PASS",
              bad_ok ? "caught" : "NOT CAUGHT", files ? "written" : "MISSING");
  return good_ok && bad_ok && files ? 0 : 1;
}
