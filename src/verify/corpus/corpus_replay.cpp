#include "verify/corpus/corpus_replay.hpp"

#include <algorithm>
#include <variant>

#include "core/error.hpp"
#include "verify/corpus/corpus_cases.hpp"

namespace pecheck::verifier {

namespace {

std::string origin_of(const CorpusEntry& e) {
  std::string s = "first found";
  if (e.case_index >= 0) s += " by --seed " + std::to_string(e.seed) + " case " + std::to_string(e.case_index);
  // "-" is how a corpus file says "not recorded": say nothing rather than "on - (-)".
  const auto known = [](const std::string& v) { return !v.empty() && v != "-"; };
  if (known(e.kernel)) s += " on " + e.kernel;
  if (known(e.kernel_id)) s += " (" + e.kernel_id + ")";
  if (s == "first found") s += " (no provenance recorded in the file)";
  return s;
}

std::string reproduce_line(const VerifyOptions& o, const CorpusEntry& e) {
  std::string s = o.program + " verify " + o.kernel_flag + " " + (o.kernel_label.empty() ? std::string("LIB.so") : o.kernel_label);
  if (e.source.starts_with("regressions/")) {
    s += " --only " + e.check + "   # shipped regression " + e.source;
  } else {
    s += " --corpus " + o.corpus_dir + " --only " + e.check;
  }
  return s;
}

// The largest position a stored case calls with (its position arrays, plus a shift check's
// shift), or -1 when it has none: a case beyond the run's --max-position is outside the run's
// options and is not replayed (issue 20, finding 8), so that the random search still runs. Only
// a --max-position the user gave bounds them: the default bounds the generators, and the shipped
// vectors at 2^31 - 1 are replayed in a default run.
std::int64_t largest_position(const CorpusEntry& e) {
  std::int64_t m = -1, shift = 0;
  for (const auto& a : e.args) {
    const bool position = a.name == "positions" || a.name.ends_with("_pos") || a.name.ends_with("_positions");
    if (position) {
      if (const auto* v = std::get_if<std::vector<std::int64_t>>(&a.value)) {
        for (auto p : *v) m = std::max(m, p);
      } else if (const auto* x = std::get_if<std::int64_t>(&a.value)) {
        m = std::max(m, *x);
      }
    }
    if (a.name == "shift") {
      if (const auto* x = std::get_if<std::int64_t>(&a.value)) shift = std::max<std::int64_t>(0, *x);
    }
  }
  return m < 0 ? m : m + shift;
}

}  // namespace

CorpusReplay::CorpusReplay(const VerifyOptions& o) : o_(o) {
  std::vector<CorpusEntry> all;
  if (o.regressions) all = builtin_regressions();
  if (!o.corpus_dir.empty()) {
    auto mine = load_corpus_dir(o.corpus_dir);
    all.insert(all.end(), std::make_move_iterator(mine.begin()), std::make_move_iterator(mine.end()));
    kernel_id_ = kernel_identity(o.kernel_label);
  }
  const auto names = check_names();
  for (auto& e : all) {
    if (e.check.ends_with(".reject")) {
      validate_entry(e);
      e.check = current_check_name(e);
    }
    if (std::find(names.begin(), names.end(), e.check) == names.end()) {
      throw UsageError("corpus file " + e.source + ": unknown check '" + e.check + "'");
    }
    validate_entry(e);
    ++count_;
    by_check_[e.check].push_back(std::move(e));
  }
}

report::CheckResult CorpusReplay::run(const AnyCheck& c, Ctx& ctx) {
  auto it = by_check_.find(c.name);
  if (it != by_check_.end() && c.replay) {
    const double t0 = now_seconds();
    std::int64_t replayed = 0;
    for (const CorpusEntry& e : it->second) {
      const std::int64_t largest = largest_position(e);
      const bool bounded = o_.max_position_given || o_.max_position != VerifyOptions{}.max_position;
      if (bounded && largest > o_.max_position && c.name.find(".reject") == std::string::npos) {
        notes_.push_back("corpus: " + e.source + " calls position " + std::to_string(largest) + ", beyond --max-position " +
                         std::to_string(o_.max_position) + ": not replayed (outside this run's options)");
        continue;
      }
      const bool was = ctx.record;
      ctx.record = false;
      std::optional<Failure> f = c.replay(ctx, e);
      ctx.record = was;
      if (f && f->kind == "cut") {  // the run's time cap stopped the replay: not a finding
        report::CheckResult r;
        r.name = c.name, r.scheme = std::string(scheme(c.fn)), r.function = std::string(symbol(c.fn));
        r.clause = c.clause, r.description = c.description;
        r.status = report::CheckStatus::Incomplete;
        r.planned = c.planned ? c.planned(o_) : 0;
        r.reason = "the run's time cap was reached after 0 of " + std::to_string(r.planned) +
                   " cases, while stored cases were replayed (" + std::to_string(replayed) + " of " +
                   std::to_string(it->second.size()) + ")";
        r.seconds = now_seconds() - t0;
        return r;
      }
      ++replayed, ++replayed_;
      if (!f) {
        // A shipped regression that passes is just a passing directed vector; a user's stored
        // counterexample that passes is a fixed bug, worth a line.
        if (e.source.starts_with("regressions/")) continue;
        ++fixed_;
        notes_.push_back("corpus: " + e.source + " passes now (fixed; " + origin_of(e) + ")");
        continue;
      }
      ++failed_;
      notes_.push_back("corpus: " + e.source + " fails again (" + origin_of(e) + ")");
      report::CheckResult r;
      r.name = c.name;
      r.scheme = std::string(scheme(c.fn));
      r.function = std::string(symbol(c.fn));
      r.clause = c.clause;
      r.description = c.description;
      r.status = report::CheckStatus::Fail;
      r.cases = replayed;
      r.reason = "a stored counterexample fails again; random search skipped";
      report::Counterexample cx;
      cx.clause = f->clause;
      cx.kind = f->kind;
      cx.message = f->message;
      cx.function = r.function;
      cx.args = e.args;
      cx.args.push_back({"corpus_file", e.source});
      cx.inputs = e.inputs;
      cx.worst = f->worst;
      cx.return_code = f->return_code;
      cx.signal = f->signal;
      cx.notes = f->notes;
      cx.notes.push_back("regression: replayed from " + e.source + ", " + origin_of(e));
      cx.reproduce = reproduce_line(o_, e);
      r.counterexample = std::move(cx);
      r.seconds = now_seconds() - t0;
      return r;
    }
  }
  report::CheckResult r = c.run(ctx);
  if (r.status == report::CheckStatus::Fail && r.counterexample && !o_.corpus_dir.empty()) {
    report::RunOptions ro;
    ro.seed = o_.seed;
    ro.contract = o_.contract;
    ro.max_position = o_.max_position;
    CorpusEntry e = corpus_entry_from(r, ro, o_.kernel_label, kernel_id_);
    e.check = c.name;
    const auto path = store_corpus_entry(o_.corpus_dir, e);
    ++stored_;
    notes_.push_back("corpus: stored " + path.string());
  }
  return r;
}

void CorpusReplay::absorb(const Tally& t) {
  replayed_ += t.replayed, failed_ += t.failed, fixed_ += t.fixed, stored_ += t.stored;
  notes_.insert(notes_.end(), t.notes.begin(), t.notes.end());
}

void CorpusReplay::finish(report::VerifyResult& res) const {
  if (count_ == 0 && o_.corpus_dir.empty()) return;
  if (o_.corpus_dir.empty()) {  // only the shipped regressions: say so plainly, and only when some replayed
    if (replayed_ > 0) {
      res.notes.push_back("corpus: replayed " + std::to_string(replayed_) + " shipped regression vector(s) of the exported "
                          "functions first (" + std::to_string(failed_) + " failed again; --no-regressions skips them)");
    }
    for (const auto& n : notes_) res.notes.push_back(n);
    return;
  }
  res.notes.push_back("corpus: replayed " + std::to_string(replayed_) + " of " + std::to_string(count_) +
                      " stored cases first (" + std::to_string(failed_) + " failed again, " + std::to_string(fixed_) +
                      " fixed), stored " + std::to_string(stored_) + " new");
  for (const auto& n : notes_) res.notes.push_back(n);
}

}  // namespace pecheck::verifier
