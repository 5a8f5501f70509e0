#include "verify/shard.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include "core/error.hpp"

namespace pecheck::verifier {

namespace {

using report::CheckResult;
using report::CheckStatus;
using report::VerifyResult;

bool parse_int(std::string_view s, std::int64_t& v) {
  if (s.empty() || s.size() > 12) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc{} && r.ptr == s.data() + s.size();
}

// Order in which a non-failing, non-passing status wins a merge: an error is the most
// serious statement about a shard, then a timeout, then "could not decide", then a shard the
// time cap cut short (incomplete).
int undecided_rank(CheckStatus s) {
  switch (s) {
    case CheckStatus::Error: return 4;
    case CheckStatus::Timeout: return 3;
    case CheckStatus::Unknown: return 2;
    case CheckStatus::Incomplete: return 1;
    default: return 0;
  }
}

void merge_series(CheckResult& into, const CheckResult& from) {
  for (const auto& s : from.series) {
    auto it = std::find_if(into.series.begin(), into.series.end(),
                           [&](const report::ErrorSeries& e) { return e.label == s.label && e.unit == s.unit; });
    if (it == into.series.end()) {
      into.series.push_back(s);
      continue;
    }
    std::map<double, double> pts;
    for (const auto& p : it->points) pts[p.position] = p.error;
    for (const auto& p : s.points) {
      auto [q, fresh] = pts.emplace(p.position, p.error);
      if (!fresh) q->second = std::max(q->second, p.error);
    }
    it->points.clear();
    for (const auto& [pos, err] : pts) it->points.push_back({pos, err});
  }
}

// Accuracy over shards: grades, the worst case and the profile merge exactly (maxima, sums);
// "class held up to" and "resolved up to" need every position and are left out of a merge.
void merge_accuracy(CheckResult& into, const CheckResult& from) {
  if (!from.accuracy) return;
  if (!into.accuracy) {
    into.accuracy = from.accuracy;
    into.accuracy->class_held_up_to.clear();
    into.accuracy->resolved_up_to.reset();
    return;
  }
  auto& a = *into.accuracy;
  const auto& b = *from.accuracy;
  for (std::size_t i = 0; i < a.grades.size() && i < b.grades.size(); ++i) {
    a.grades[i].max_units = std::max(a.grades[i].max_units, b.grades[i].max_units);
  }
  a.pin.clear();
  for (const auto& g : a.grades) {
    if (g.met()) {
      a.pin = "--accuracy " + into.scheme + "=" + g.name;
      break;
    }
  }
  if (b.worst && (!a.worst || b.worst->element.contract_units > a.worst->element.contract_units)) a.worst = b.worst;
  std::map<std::int64_t, report::OctaveRow> rows;
  for (const auto& r : a.profile) rows[r.octave] = r;
  for (const auto& r : b.profile) {
    auto [it, fresh] = rows.emplace(r.octave, r);
    if (fresh) continue;
    auto& o = it->second;
    o.max_units = std::max(o.max_units, r.max_units);
    o.max_ulps = std::max(o.max_ulps, r.max_ulps);
    if (r.position_error) o.position_error = std::max(o.position_error.value_or(0.0), *r.position_error);
    o.elements += r.elements;
  }
  a.profile.clear();
  for (const auto& [k, r] : rows) a.profile.push_back(r);
  if (b.largest_position) a.largest_position = std::max(a.largest_position.value_or(0), *b.largest_position);
}

CheckResult merge_check(const std::vector<const CheckResult*>& parts) {
  CheckResult out = *parts.front();
  out.cases = 0;
  out.planned = 0;
  out.elements = 0;
  out.seconds = 0;
  out.max_ulps.reset();
  out.series.clear();
  out.counterexample.reset();
  out.accuracy.reset();
  out.reason.clear();
  const CheckResult* fail = nullptr;
  const CheckResult* undecided = nullptr;
  bool any_ran = false;
  for (const CheckResult* p : parts) {
    out.cases += p->cases;
    out.planned += p->planned;
    out.elements += p->elements;
    out.seconds += p->seconds;
    if (p->max_ulps) out.max_ulps = std::max(out.max_ulps.value_or(*p->max_ulps), *p->max_ulps);
    merge_series(out, *p);
    merge_accuracy(out, *p);
    if (p->status != CheckStatus::Skipped) any_ran = true;
    if (p->status == CheckStatus::Fail && p->counterexample) {
      const std::int64_t i = case_index_of(*p->counterexample);
      if (fail == nullptr || (i >= 0 && (case_index_of(*fail->counterexample) < 0 || i < case_index_of(*fail->counterexample)))) {
        fail = p;
      }
    }
    if (undecided_rank(p->status) > 0 && (undecided == nullptr || undecided_rank(p->status) > undecided_rank(undecided->status))) {
      undecided = p;
    }
    if (out.reason.empty() && !p->reason.empty()) out.reason = p->reason;
  }
  if (fail != nullptr) {
    out.status = CheckStatus::Fail;
    out.counterexample = fail->counterexample;
    out.reason.clear();
    // The unsharded run stops at the first failing index i and has run indices 0..i, except
    // an oracle check after a wrong value: it grades every case (verify/check_impl.hpp).
    const bool graded = out.accuracy && (out.counterexample->kind == "mismatch" || out.counterexample->kind == "nan");
    if (const std::int64_t i = case_index_of(*out.counterexample); i >= 0 && !graded) out.cases = i + 1;
  } else if (undecided != nullptr) {
    out.status = undecided->status;
    out.reason = undecided->reason;
  } else {
    out.status = any_ran ? CheckStatus::Pass : CheckStatus::Skipped;
  }
  return out;
}

}  // namespace

Shard parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  Shard s;
  if (slash == std::string_view::npos || !parse_int(text.substr(0, slash), s.index) ||
      !parse_int(text.substr(slash + 1), s.count)) {
    throw UsageError("--shard expects I/N with decimal integers (e.g. 0/4), not '" + std::string(text.substr(0, 40)) + "'");
  }
  if (s.count < 1 || s.count > kMaxShards || s.index >= s.count) {
    throw UsageError("--shard " + std::string(text) + ": need 0 <= I < N <= " + std::to_string(kMaxShards));
  }
  return s;
}

std::string to_string(const Shard& s) { return std::to_string(s.index) + "/" + std::to_string(s.count); }

bool shard_owns(const Shard& s, std::int64_t case_index) {
  return s.count <= 1 || (case_index >= 0 && case_index % s.count == s.index);
}

std::int64_t case_index_of(const report::Counterexample& cx) {
  for (const auto& a : cx.args) {
    if (a.name == "case_index") {
      if (const auto* v = std::get_if<std::int64_t>(&a.value)) return *v;
    }
  }
  // The engine's note "found at case I of seed S, ..." (verify/check_impl.hpp).
  static constexpr std::string_view kPrefix = "found at case ";
  for (const auto& n : cx.notes) {
    if (!n.starts_with(kPrefix)) continue;
    std::int64_t v = -1;
    const char* b = n.data() + kPrefix.size();
    const auto r = std::from_chars(b, n.data() + n.size(), v);
    if (r.ec == std::errc{} && r.ptr != b) return v;
  }
  return -1;
}

VerifyResult merge_shards(const std::vector<VerifyResult>& parts) {
  if (parts.empty()) throw UsageError("merge_shards: no shard results");
  const VerifyResult& first = parts.front();
  for (const auto& p : parts) {
    if (p.kernel != first.kernel || p.options.seed != first.options.seed ||
        p.options.max_position != first.options.max_position || p.options.contract != first.options.contract ||
        p.checks.size() != first.checks.size()) {
      throw UsageError("merge_shards: the shard results come from different runs (kernel, seed, options or checks differ)");
    }
    for (std::size_t k = 0; k < p.checks.size(); ++k) {
      if (p.checks[k].name != first.checks[k].name) {
        throw UsageError("merge_shards: check lists differ at '" + p.checks[k].name + "'");
      }
    }
  }
  VerifyResult out = first;
  out.options.shard.clear();
  out.seconds = 0;
  out.notes.clear();
  out.checks.clear();
  for (std::size_t k = 0; k < first.checks.size(); ++k) {
    std::vector<const CheckResult*> col;
    for (const auto& p : parts) col.push_back(&p.checks[k]);
    out.checks.push_back(merge_check(col));
  }
  for (const auto& p : parts) {
    out.seconds = std::max(out.seconds, p.seconds);  // the runners run side by side
    for (const auto& n : p.notes) {
      if (std::find(out.notes.begin(), out.notes.end(), n) == out.notes.end()) out.notes.push_back(n);
    }
  }
  return out;
}

}  // namespace pecheck::verifier
