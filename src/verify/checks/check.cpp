#include "verify/checks/check.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "oracle/format.hpp"

namespace pecheck::verifier {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double scale_ulps(double actual, double exact, double scale, Storage s) {
  return std::fabs(actual - exact) / oracle::ulp_of(std::max(std::fabs(exact), scale), storage_format(s));
}

oracle::Format storage_format(Storage s) {
  return s == Storage::F32 ? oracle::Format::F32 : s == Storage::BF16 ? oracle::Format::BF16 : oracle::Format::F16;
}

std::string dtype_label(Storage s) { return s == Storage::F32 ? "float32" : std::string(storage_name(s)); }

void Ctx::observe(std::int64_t position, double ulps, double units) {
  if (!record) return;
  ++elements;
  if (std::isfinite(ulps)) max_ulps = std::max(max_ulps, ulps);
  if (!std::isfinite(units)) return;
  auto it = series.find(position);
  if (it != series.end()) {
    it->second = std::max(it->second, units);
  } else if (series.size() < 4000) {
    series.emplace(position, units);
  }
}

void Ctx::note(const std::string& s) {
  if (notes.size() < 8 && std::find(notes.begin(), notes.end(), s) == notes.end()) notes.push_back(s);
}

std::optional<Failure> call_failure(Fn fn, const RunResult& r) {
  const std::string sym(symbol(fn));
  Failure f;
  switch (r.outcome.kind) {
    case CallOutcome::Kind::Returned:
      if (r.outcome.rc == 0) return std::nullopt;
      f.clause = "ABI-GEN-2";
      f.kind = "nonzero-return";
      f.message = sym + " returned " + std::to_string(r.outcome.rc) + " for a valid call";
      f.return_code = r.outcome.rc;
      return f;
    case CallOutcome::Kind::Signal:
      f.clause = r.outcome.fault.empty() ? "ABI-GEN-7" : "ABI-GEN-4";  // a guard page: read past an input
      f.kind = r.outcome.fault.empty() ? "crash" : "out-of-bounds-read";
      f.signal = r.outcome.signo;
      break;
    case CallOutcome::Kind::Exited:
      f.clause = "ABI-GEN-7";
      f.kind = "exit";
      break;
    case CallOutcome::Kind::Timeout:
      f.clause = "ABI-GEN-7";
      f.kind = "hang";
      break;
    case CallOutcome::Kind::Lost:
      f.clause = "ABI-GEN-7";
      f.kind = "crash";
      break;
    case CallOutcome::Kind::Raised:  // a Python kernel's exception (src/python): a failed call
      f.clause = "ABI-GEN-7";
      f.kind = "exception";
      break;
    case CallOutcome::Kind::Cut:  // not a finding: the check is incomplete (check_impl.hpp)
      f.clause = "ABI-GEN-7";
      f.kind = "cut";
      break;
  }
  f.message = sym + " " + r.outcome.describe() + " on a valid call";
  return f;
}

std::optional<Failure> accepted_invalid(const VerifyOptions& o, bool nonempty, const std::string& harm,
                                        const std::string& sym, const std::string& why, const std::string& clause) {
  const bool harmed = nonempty && !harm.empty();
  if (!o.strict && !harmed) return std::nullopt;  // accepted, no harm seen: tier B (--strict)
  Failure f;
  f.clause = clause;
  f.kind = "accepted-invalid";
  f.message = sym + " returned 0 for an invalid call: " + why;
  if (harmed) {
    f.message += "; and " + harm;
  } else {
    f.notes.push_back("no memory outside the call's buffers was touched: argument hygiene (tier B, spec/abi.md "
                      "ABI-GEN-8), reported under --strict only");
  }
  f.return_code = 0;
  return f;
}

namespace {

report::WorstElement make(const char* out, std::vector<std::int64_t> dims, std::vector<std::string> names,
                          std::int64_t flat) {
  report::WorstElement w;
  w.output = out;
  w.flat_index = flat;
  w.index_names = std::move(names);
  w.index.assign(dims.size(), 0);
  std::int64_t rest = flat;
  for (std::size_t i = dims.size(); i-- > 0;) {
    const std::int64_t d = std::max<std::int64_t>(dims[i], 1);
    w.index[i] = rest % d;
    rest /= d;
  }
  return w;
}

std::optional<std::int64_t> at(const std::vector<std::int64_t>& v, std::int64_t i) {
  if (i < 0 || i >= static_cast<std::int64_t>(v.size())) return std::nullopt;
  return v[static_cast<std::size_t>(i)];
}

}  // namespace

report::WorstElement locate(const RopeCase& c, std::int64_t flat) {
  auto w = make("y", {c.n_tokens, c.n_heads, c.head_dim}, {"token", "head", "lane"}, flat);
  w.position = at(c.positions, w.index[0]);
  return w;
}
report::WorstElement locate(const AlibiCase& c, std::int64_t flat) {
  auto w = make("scores", {c.n_heads, c.n_q, c.n_k}, {"head", "q", "k"}, flat);
  w.position = at(c.q_pos, w.index[1]);
  return w;
}
report::WorstElement locate(const T5Case& c, std::int64_t flat) {
  auto w = make("bias", {c.n_heads, c.n_q, c.n_k}, {"head", "q", "k"}, flat);
  w.position = at(c.q_pos, w.index[1]);
  return w;
}
report::WorstElement locate(const SinusoidalCase& c, std::int64_t flat) {
  auto w = make("out", {c.n_tokens, c.d_model}, {"token", "lane"}, flat);
  w.position = at(c.positions, w.index[0]);
  return w;
}
report::WorstElement locate(const LearnedCase& c, std::int64_t flat) {
  auto w = make("out", {c.n_tokens, c.d_model}, {"token", "channel"}, flat);
  w.position = at(c.positions, w.index[0]);
  return w;
}

}  // namespace pecheck::verifier
