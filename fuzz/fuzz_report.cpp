// libFuzzer target: report writing of arbitrary values (src/report/): NaN, infinities, huge,
// tiny and negative reals, extreme integers, and text of arbitrary bytes (invalid UTF-8, NUL,
// control characters, markup) in every field the writers print.
//
// Properties: no writer crashes; report.json parses back (verify_result_from_text) to the same
// verdict, checks and reals (bit-exact for finite values, same class for NaN / inf); the
// JUnit XML and HTML contain no raw control character other than tab, CR and LF.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bytes.hpp"
#include "report/json.hpp"
#include "report/write.hpp"

namespace {

using namespace pecheck::report;
using pecheck::fuzz::Bytes;

double real(Bytes& b) {
  static const double kSpecial[] = {0.0, -0.0, 1.0, -1.0, NAN, -NAN, INFINITY, -INFINITY, 1e308, -1e308,
                                    5e-324, -5e-324, 2.2250738585072014e-308, 3.4028234663852886e38, 1e-45};
  return b.flag() ? b.pick(kSpecial) : b.any_double();
}

std::int64_t integer(Bytes& b) {
  static const std::int64_t kSpecial[] = {0, -1, 1, INT64_MIN, INT64_MAX, 1ll << 31, -(1ll << 31)};
  return b.flag() ? b.pick(kSpecial) : static_cast<std::int64_t>(b.u64());
}

ArgValue arg_value(Bytes& b) {
  switch (b.u8() % 6) {
    case 0: return std::monostate{};
    case 1: return integer(b);
    case 2: return real(b);
    case 3: return b.text(24);
    case 4: {
      std::vector<std::int64_t> v(b.u8() % 6);
      for (auto& x : v) x = integer(b);
      return v;
    }
    default: {
      std::vector<double> v(b.u8() % 6);
      for (auto& x : v) x = real(b);
      return v;
    }
  }
}

Counterexample counterexample(Bytes& b) {
  Counterexample cx;
  cx.clause = b.text(16);
  cx.kind = b.text(12);
  cx.message = b.text(64);
  cx.function = b.text(16);
  for (int i = b.u8() % 5; i > 0; --i) cx.args.push_back({b.text(12), arg_value(b)});
  for (int i = b.u8() % 3; i > 0; --i) {
    Tensor t;
    t.name = b.text(8);
    for (int k = b.u8() % 4; k > 0; --k) t.shape.push_back(integer(b));
    for (int k = b.u8() % 8; k > 0; --k) t.values.push_back(b.flag() ? static_cast<float>(real(b)) : b.any_float());
    cx.inputs.push_back(std::move(t));
  }
  if (b.flag()) {
    WorstElement w;
    w.output = b.text(8);
    for (int k = b.u8() % 4; k > 0; --k) w.index.push_back(integer(b));
    for (int k = b.u8() % 4; k > 0; --k) w.index_names.push_back(b.text(8));
    w.flat_index = integer(b);
    if (b.flag()) w.position = integer(b);
    w.expected = real(b), w.actual = real(b), w.abs_error = real(b), w.ulps = real(b), w.contract_units = real(b);
    cx.worst = w;
  }
  if (b.flag()) cx.return_code = static_cast<int>(b.u32());
  if (b.flag()) cx.signal = static_cast<int>(b.u8());
  cx.reproduce = b.text(40);
  for (int i = b.u8() % 3; i > 0; --i) cx.notes.push_back(b.text(30));
  cx.shrink_steps = integer(b);
  return cx;
}

VerifyResult result(Bytes& b) {
  static const CheckStatus kStatus[] = {CheckStatus::Pass, CheckStatus::Fail, CheckStatus::Skipped,
                                        CheckStatus::Unknown, CheckStatus::Timeout, CheckStatus::Error};
  VerifyResult r;
  r.tool_version = b.text(8);
  r.kernel = b.text(32);
  if (b.flag()) r.abi_version = static_cast<int>(b.u32());
  r.options.seed = b.u64();
  r.options.budget_seconds = real(b);
  r.options.max_position = integer(b);
  r.options.contract = b.text(8);
  r.options.shard = b.text(6);
  for (int i = b.u8() % 3; i > 0; --i) r.exported.push_back(b.text(12));
  for (int i = b.u8() % 6; i > 0 && !b.empty(); --i) {
    CheckResult c;
    c.name = b.text(16);
    c.scheme = b.text(8);
    c.function = b.text(12);
    c.clause = b.text(12);
    c.description = b.text(40);
    c.status = b.pick(kStatus);
    c.reason = b.text(30);
    c.cases = integer(b);
    c.elements = integer(b);
    c.seconds = real(b);
    if (b.flag()) c.max_ulps = real(b);
    if (c.status == CheckStatus::Fail) c.counterexample = counterexample(b);
    if (b.flag()) {
      ErrorSeries s;
      s.label = b.text(12);
      s.unit = b.flag() ? "ulp" : "contract";
      if (b.flag()) s.budget = real(b);
      for (int k = b.u8() % 12; k > 0; --k) s.points.push_back({real(b), real(b)});
      c.series.push_back(std::move(s));
    }
    r.checks.push_back(std::move(c));
  }
  r.seconds = real(b);
  for (int i = b.u8() % 3; i > 0; --i) r.notes.push_back(b.text(30));
  return r;
}

bool same_real(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "report property violated: %s\n", what);
  std::abort();
}

void no_raw_controls(const std::string& s, const char* what) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') fail(what);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes b(data, size);
  const VerifyResult r = result(b);
  const std::string json = render_json(r);
  (void)render_markdown(r);
  (void)render_text(r);
  no_raw_controls(render_junit(r), "raw control character in JUnit XML");
  no_raw_controls(render_html(r), "raw control character in HTML");
  const VerifyResult back = verify_result_from_text(json);
  if (back.verdict() != r.verdict()) fail("verdict changed through report.json");
  if (back.checks.size() != r.checks.size()) fail("check count changed through report.json");
  for (std::size_t i = 0; i < r.checks.size(); ++i) {
    const auto& x = r.checks[i];
    const auto& y = back.checks[i];
    if (x.status != y.status || x.cases != y.cases || x.elements != y.elements) fail("check fields changed");
    if (!same_real(x.seconds, y.seconds)) fail("a real changed through report.json");
    if (x.counterexample.has_value() != y.counterexample.has_value()) fail("counterexample lost");
    if (x.counterexample && x.counterexample->worst && y.counterexample->worst &&
        !same_real(x.counterexample->worst->actual, y.counterexample->worst->actual)) {
      fail("worst.actual changed through report.json");
    }
  }
  if (!same_real(back.seconds, r.seconds)) fail("run seconds changed through report.json");
  return 0;
}
