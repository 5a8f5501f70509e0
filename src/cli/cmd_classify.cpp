// pecheck classify: runs the property searches of src/classify on every encoding and variant
// and prints where the position enters, what the score depends on, the evidence and witnesses.
#include <cstdio>
#include <memory>
#include <string>

#include "classify/engine.hpp"
#include "classify/kernel_subjects.hpp"
#include "classify/report.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/verdict.hpp"

namespace pecheck::cli {

void register_classify(CLI::App& app, Runner& run) {
  auto* sub = app.add_subcommand(
      "classify",
      "What is the attention score a function of -- the offset n-m, |n-m|, the absolute positions, or "
      "neither -- and where does the position enter? Classifies every positional encoding (or, with "
      "--kernel, a library's own functions) by property runs: applied_at and depends_on, with shrunk "
      "witnesses. Not a correctness check: a kernel with wrong values that are still a function of the "
      "offset classifies like a correct one; `pecheck verify` checks the values.");
  auto format = std::make_shared<std::string>("table");
  auto seed = std::make_shared<std::uint64_t>(1);
  auto only = std::make_shared<std::string>();
  auto cases = std::make_shared<std::int64_t>(classify::EngineOptions{}.shift_cases);
  auto kernel = std::make_shared<std::string>();
  auto max_position = std::make_shared<std::int64_t>(classify::KernelSubjectOptions{}.max_position);
  auto rope_class = std::make_shared<std::string>("field");
  sub->add_option("--format", *format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  sub->add_option("--seed", *seed, "Seed of the property runs (same seed, same output)")
      ->check(seed_check())
      ->capture_default_str();
  sub->add_option("--only", *only,
                  "Classify only the encoding with this name (e.g. rope-neox-yarn)");
  sub->add_option("--cases", *cases,
                  "Shift-invariance cases per encoding (swap and softmax get half)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1000000}))
      ->capture_default_str();
  sub->add_option("--kernel", *kernel,
                  "Classify the functions a kernel library (spec/pecheck_kernel.h) exports instead of the "
                  "built-in encodings: scores formed from the library's own outputs");
  sub->add_option("--max-position", *max_position, "--kernel: largest position drawn")
      ->check(CLI::Range(std::int64_t{1}, (std::int64_t{1} << 31) - 1))
      ->capture_default_str();
  sub->add_option("--accuracy", *rope_class,
                  "--kernel: RoPE accuracy class behind the score tolerance (spec/budgets.tsv)")
      ->check(CLI::IsMember({"field", "powf", "ggml", "reference", "fma", "accurate"}))
      ->capture_default_str();
  sub->callback([&run, format, seed, only, cases, kernel, max_position, rope_class] {
    run = [format, seed, only, cases, kernel, max_position, rope_class]() -> int {
      classify::EngineOptions o;
      o.seed = *seed;
      o.shift_cases = *cases;
      o.swap_cases = (*cases + 1) / 2;
      o.softmax_cases = (*cases + 1) / 2;
      std::vector<classify::Classification> out;
      std::vector<std::string> errors, extra;
      std::string names;
      std::unique_ptr<classify::KernelSubjects> ks;
      std::vector<classify::Subject> subjects;
      if (!kernel->empty()) {
        // A kernel library's own functions (CLASSIFY-9), scored through isolated calls.
        classify::KernelSubjectOptions ko;
        ko.max_position = *max_position;
        ko.rope_class = *rope_class;
        ks = std::make_unique<classify::KernelSubjects>(*kernel, ko);
        subjects = ks->subjects();
        for (const auto& f : ks->not_measured()) extra.push_back(f + ": exported, not measured by classify");
      } else {
        subjects = classify::builtin_subjects();
      }
      for (const auto& s : subjects) {
        names += (names.empty() ? "" : ", ") + s.name;
        if (!only->empty() && s.name != *only) continue;
        try {
          out.push_back(classify::classify(s, o));
        } catch (const classify::KernelCallError& e) {
          errors.push_back(s.name + ": error: " + e.what());
        }
      }
      if (out.empty() && errors.empty()) throw UsageError("unknown encoding '" + *only + "' (known: " + names + ")");
      std::string text;
      if (*format == "json") {
        auto j = classify::to_json(out, o.seed);
        if (!kernel->empty()) j["kernel"] = *kernel;
        j["errors"] = errors;
        j["not_measured"] = extra;
        text = j.dump(2) + "\n";
      } else {
        text = classify::to_table(out, o.seed);
        if (!kernel->empty()) {
          text += "note: classify says what the scores are a function of, not whether they are right: a kernel "
                  "with the wrong pairing, positions or factor can classify exactly like a correct one. "
                  "Check the values with: " + program_name() + " verify --kernel " + *kernel + "\n";
        }
        for (const auto& e : errors) text += e + "\n";
        for (const auto& e : extra) text += e + "\n";
      }
      if (std::fputs(text.c_str(), stdout) < 0 || std::fflush(stdout) != 0) {
        throw IoError("classify: cannot write to standard output");
      }
      // A function whose classification could not be decided is not a pass (README exit status).
      return errors.empty() ? exit_code::ok : exit_code::counterexample;
    };
  });
}

}  // namespace pecheck::cli
