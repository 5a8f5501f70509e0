// pecheck prove: SMT proofs of the spec's claims and of the kernels' shared arithmetic
// (proofs/, Z3 + cvc5). Prints each claim, its spec clause, what it should give, what it gave
// and each solver's answer and time; counterexamples go into a verify-format report.
// Exit status: 0 when every claim gave what it should, 1 otherwise (src/core/verdict.hpp).
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/verdict.hpp"
#include "proofs/render.hpp"
#include "report/write.hpp"

namespace pecheck::cli {
namespace {

struct ProveOptions {
  std::string format = "table";
  std::string report_dir;
  std::vector<std::string> only;
  bool list = false;
  int jobs = 2;
};

bool selected(const proofs::Claim& c, const std::vector<std::string>& only) {
  if (only.empty()) return true;
  for (auto& o : only) {
    if (c.name == o || (c.name.size() > o.size() && c.name.compare(0, o.size(), o) == 0 &&
                        c.name[o.size()] == '.')) {
      return true;
    }
  }
  return false;
}

int run_prove(const ProveOptions& o) {
  std::vector<proofs::Claim> claims;
  for (auto& c : proofs::all_claims()) if (selected(c, o.only)) claims.push_back(c);
  if (claims.empty()) throw UsageError("--only matches no claim (see pecheck prove --list)");
  if (o.list) {
    for (auto& c : claims) {
      std::printf("%-40s %-22s expected %s\n", c.name.c_str(), c.clause.c_str(),
                  std::string(proofs::to_string(c.expected)).c_str());
    }
    return exit_code::ok;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<proofs::ClaimResult> results(claims.size());
  std::atomic<std::size_t> next{0}, done{0};
  const bool progress = isatty(STDERR_FILENO) != 0;
  auto worker = [&] {
    for (std::size_t i = next++; i < claims.size(); i = next++) {
      results[i] = proofs::run_claim(claims[i]);
      const std::size_t d = ++done;
      if (progress) {
        std::fprintf(stderr, "\r[%zu/%zu] %-40s", d, claims.size(), claims[i].name.c_str());
      }
    }
  };
  const int jobs = std::max(1, std::min<int>(o.jobs, static_cast<int>(claims.size())));
  std::vector<std::thread> pool;
  for (int j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (progress) std::fprintf(stderr, "\r%60s\r", "");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!o.report_dir.empty()) {
    report::write_report_dir(o.report_dir, proofs::to_verify_result(results, seconds));
  }
  if (o.format == "json") {
    std::printf("%s\n", proofs::to_json(results, seconds).dump(2).c_str());
  } else {
    std::fputs(proofs::render_table(results, seconds).c_str(), stdout);
  }
  return proofs::all_as_expected(results) ? exit_code::ok : exit_code::counterexample;
}

}  // namespace

void register_prove(CLI::App& app, Runner& run) {
  auto* sub = app.add_subcommand(
      "prove",
      "Do the spec's claims hold for every input, not just the ones tested? Proves them with two SMT solvers "
      "(Z3 and cvc5): RoPE's relative-position identity and scalings, pairing maps, ALiBi and T5 shift "
      "invariance, index maps, and pecheck's own kernels' shared float32 arithmetic; claims meant to fail "
      "must give a replayed counterexample. Exit 0 when every claim gives what it should.");
  auto o = std::make_shared<ProveOptions>();
  sub->add_option("--format", o->format, "table (default) or json")
      ->check(CLI::IsMember({"table", "json"}));
  sub->add_option("--report", o->report_dir,
                  "write report.json, report.md and report.html (verify format) to DIR");
  sub->add_option("--only", o->only,
                  "run only the named claim or claim family (e.g. rope.shift); repeatable");
  sub->add_flag("--list", o->list, "list the claims with their clauses and exit");
  sub->add_option("--jobs", o->jobs, "claims proved in parallel (default 2)")
      ->check(CLI::Range(1, 64));
  sub->callback([o, &run] { run = [o] { return run_prove(*o); }; });
}

}  // namespace pecheck::cli
