// The M-RoPE and MLA example plug-ins end to end (examples/field/vllm_mrope.c,
// examples/field/deepseek_mla_rope.c, examples/buggy/mrope_*.cpp, examples/buggy/mla_rope_reslice.cpp):
//   - `pecheck verify` on each: the field kernels pass by default with exit 0; each buggy kernel
//     exits 1 with a shrunk counterexample of its named check and clause, and a reproduce line
//     that fails the same clause again;
//   - the same libraries called directly (dlopen) on the shapes of the models they are written
//     for — Qwen2-VL / Qwen3-VL position ids of an image between text runs, DeepSeek's q_pe view
//     (head stride 192) with a shared k_pe — against a double-precision reference written here
//     from spec/rope.md: evidence that does not go through the verifier's generators (which draw
//     head gaps of a few lanes, not MLA's 128-lane q_nope).
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "e2e.hpp"
#include "pecheck_kernel.h"

namespace pecheck::e2e {
namespace {

using ojson = nlohmann::ordered_json;

const ojson* check_named(const ojson& report, const std::string& name) {
  for (const auto& c : report.at("checks"))
    if (c.at("name") == name) return &c;
  return nullptr;
}

std::string failing_summary(const ojson& report) {
  std::string s;
  for (const auto& c : report.at("checks")) {
    if (c.at("status") == "pass" || c.at("status") == "skipped") continue;
    s.append(c.at("name").get<std::string>()).append("=").append(c.at("status").get<std::string>()).append(" ");
  }
  return s;
}

bool exported(const ojson& report, const std::string& fn) {
  const auto& ex = report.at("exported");
  return std::find(ex.begin(), ex.end(), fn) != ex.end();
}

// ---- verify: the field kernels pass ------------------------------------------------------------

struct Field {
  const char* lib;
  std::vector<const char*> functions;  // exported and checked
  std::vector<const char*> checks;     // each must pass with cases
};
void PrintTo(const Field& f, std::ostream* os) { *os << f.lib; }

const Field kField[] = {
    // Clause: ABI-MROPE-2 ABI-MROPE-3 ABI-QK-4 ABI-VIEW-2 ABI-GEN-4 ABI-GEN-5 ABI-MROPE-1 — vLLM /
    // Qwen2-VL M-RoPE: three cos/sin rows merged by axis, sectioned and interleaved, f32/bf16/f16.
    {"vllm_mrope",
     {"pec_mrope_f32", "pec_mrope_bf16", "pec_mrope_f16"},
     {"mrope.oracle", "mrope.passthrough", "mrope.inplace", "mrope.shift", "mrope.gaps", "mrope.bounds",
      "mrope.written", "mrope.determinism", "mrope.bf16.oracle", "mrope.f16.oracle", "mrope.bf16.shift",
      "mrope.f16.gaps"}},
    // Clause: ABI-QK-2 ABI-QK-3 ABI-VIEW-2 ABI-GEN-4 ABI-DOM-1 — DeepSeek MLA decoupled RoPE: GPT-J,
    // YaRN table, mscale on cos and sin, q_pe as a view, inside its pec_domain declaration.
    {"deepseek_mla_rope",
     {"pec_rope_qk_f32", "pec_rope_qk_bf16"},
     {"rope_qk.oracle", "rope_qk.shift", "rope_qk.gaps", "rope_qk.bounds", "rope_qk.written", "rope_qk.inplace",
      "rope_qk.bf16.oracle", "rope_qk.bf16.gaps"}},
};

class FieldPosKernel : public ::testing::TestWithParam<Field> {};

TEST_P(FieldPosKernel, PassesTheDefaultRunWithExitZero) {
  const Field& f = GetParam();
  TempDir tmp;
  auto r = run_verify(example_lib(f.lib), tmp, {"--seed", "1", "--budget-seconds", "0"});
  EXPECT_FALSE(r.proc.timed_out);
  EXPECT_EQ(r.proc.exit_code, 0) << r.proc.out << r.proc.err;
  expect_reports_well_formed(r, "pass");
  if (r.report.is_null()) return;
  for (const char* fn : f.functions) EXPECT_TRUE(exported(r.report, fn)) << fn;
  for (const auto& c : r.report.at("checks")) {
    EXPECT_TRUE(c.at("status") == "pass" || c.at("status") == "skipped") << c.dump();
  }
  for (const char* name : f.checks) {
    const ojson* c = check_named(r.report, name);
    ASSERT_NE(c, nullptr) << f.lib << ": no check " << name;
    EXPECT_EQ(c->at("status"), "pass") << name;
    EXPECT_GT(c->at("cases").get<long long>(), 0) << name;
  }
  for (const char* fn : f.functions) std::printf("[ %s ] %s checked\n", f.lib, fn);
  std::printf("[ %s ] verdict %s\n", f.lib, r.report.at("verdict").get<std::string>().c_str());
}

INSTANTIATE_TEST_SUITE_P(Examples, FieldPosKernel, ::testing::ValuesIn(kField),
                         [](const ::testing::TestParamInfo<Field>& i) { return std::string(i.param.lib); });

// ---- verify: the buggy kernels fail their check ----------------------------------------------

// The three position rows of an M-RoPE witness ("positions[t]", "positions[h]", "positions[w]").
bool mrope_rows(const ojson& a, std::vector<long long> rows[3]) {
  const char* names[3] = {"positions[t]", "positions[h]", "positions[w]"};
  for (int r = 0; r < 3; ++r) {
    if (!a.contains(names[r]) || !a.at(names[r]).is_array()) return false;
    rows[r] = a.at(names[r]).get<std::vector<long long>>();
    if (rows[r].size() != rows[0].size()) return false;
  }
  return true;
}
// Some token whose row `r` differs from another row `o`.
bool rows_differ(const ojson& a, int r, int o) {
  std::vector<long long> rows[3];
  if (!mrope_rows(a, rows)) return false;
  for (std::size_t t = 0; t < rows[0].size(); ++t)
    if (rows[r][t] != rows[o][t]) return true;
  return false;
}
std::vector<long long> sections(const ojson& a) {
  const char* key = "mrope_section [t, h, w]";
  return a.contains(key) ? a.at(key).get<std::vector<long long>>() : std::vector<long long>{};
}
bool interleaved(const ojson& a) {
  if (!a.contains("mrope_layout")) return false;
  return a.at("mrope_layout") == "interleaved";
}

struct Bug {
  const char* lib;
  const char* check;   // the check that must fail
  const char* clause;  // with a counterexample for this clause
  std::vector<const char*> passing;  // checks the bug cannot fail (they must pass, with cases)
  std::vector<const char*> message;  // the counterexample's message names one of these
  void (*expect)(const ojson& args);  // what the shrunk witness must show
};
void PrintTo(const Bug& b, std::ostream* os) { *os << b.lib; }

const Bug kBugs[] = {
    // Clause: ABI-MROPE-2 — the h/w boundary at s_h instead of s_t + s_h: an h pair rotated by
    // the w row. The witness is sectioned, has t and h pairs, and a token whose h and w differ.
    {"mrope_section_offset", "mrope.oracle", "ABI-MROPE-2", {"mrope.shift"}, {"which axis h rotates"},
     [](const ojson& a) {
       EXPECT_FALSE(interleaved(a)) << a.dump();
       const auto s = sections(a);
       ASSERT_EQ(s.size(), 3u) << a.dump();
       EXPECT_GT(s[0], 0) << a.dump();
       EXPECT_GT(s[1], 0) << a.dump();
       EXPECT_TRUE(rows_differ(a, 1, 2)) << a.dump();
     }},
    // Clause: ABI-MROPE-2 — every pair by row t. The witness has a token off the text diagonal
    // (h or w differs from t): an image token. ABI-MROPE-3 cannot see it: a rotation by row t
    // alone is a function of the offsets, so mrope.shift passes.
    {"mrope_text_positions", "mrope.oracle", "ABI-MROPE-2", {"mrope.shift"},
     {"which axis h rotates", "which axis w rotates"},
     [](const ojson& a) { EXPECT_TRUE(rows_differ(a, 1, 0) || rows_differ(a, 2, 0)) << a.dump(); }},
    // Clause: ABI-MROPE-2 — Qwen3-VL's interleaved layout treated as sectioned: only an
    // interleaved call can show it.
    {"mrope_interleaved_as_sectioned", "mrope.oracle", "ABI-MROPE-2", {"mrope.shift"}, {"frequency pair"},
     [](const ojson& a) { EXPECT_TRUE(interleaved(a)) << a.dump(); }},
    // Clause: ABI-VIEW-2 — the MLA rope slice sliced again from the end of the head stride: the
    // rotation lands on the lanes after the view's head (the next head's q_nope). The witness has
    // a view whose head stride exceeds head_dim.
    {"mla_rope_reslice", "rope_qk.gaps", "ABI-VIEW-2", {}, {"wrote into the gap"},
     [](const ojson& a) {
       bool gap = false;
       const long long d = a.at("head_dim").get<long long>();
       for (const char* v : {"q_strides [token, head]", "k_strides [token, head]", "q_out_strides [token, head]",
                             "k_out_strides [token, head]"}) {
         gap = gap || (a.contains(v) && a.at(v).at(1).get<long long>() > d);
       }
       EXPECT_TRUE(gap) << a.dump();
     }},
};

class BuggyPosKernel : public ::testing::TestWithParam<Bug> {};

TEST_P(BuggyPosKernel, FailsItsCheckWithASmallCounterexample) {
  const Bug& bug = GetParam();
  TempDir tmp;
  auto r = run_verify(example_lib(bug.lib), tmp, {"--seed", "7", "--no-regressions", "--budget-seconds", "0"});
  EXPECT_FALSE(r.proc.timed_out);
  EXPECT_EQ(r.proc.exit_code, 1) << r.proc.out << r.proc.err;
  expect_reports_well_formed(r, "fail");
  if (r.report.is_null()) return;
  const ojson* check = check_named(r.report, bug.check);
  ASSERT_NE(check, nullptr) << bug.lib << ": no check " << bug.check << "; non-passing: " << failing_summary(r.report);
  ASSERT_EQ(check->at("status"), "fail") << bug.lib << ": " << failing_summary(r.report);
  const auto& cx = check->at("counterexample");
  EXPECT_EQ(cx.at("clause"), bug.clause) << cx.dump();
  const std::string message = cx.at("message");
  EXPECT_TRUE(std::any_of(bug.message.begin(), bug.message.end(),
                          [&](const char* m) { return message.find(m) != std::string::npos; }))
      << message;
  const ojson& args = cx.at("args");
  ASSERT_TRUE(args.is_object());
  // Shrunk: a token or two, a few heads.
  EXPECT_LE(args.at("n_tokens").get<long long>(), 2) << args.dump();
  EXPECT_LE(args.at("n_q_heads").get<long long>(), 4) << args.dump();
  if (bug.expect) bug.expect(args);
  for (const char* name : bug.passing) {
    const ojson* c = check_named(r.report, name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_EQ(c->at("status"), "pass") << bug.lib << ": " << name << " " << c->dump();
    EXPECT_GT(c->at("cases").get<long long>(), 0) << name;
  }
  std::printf("[ %s ] %s %s: %s\n", bug.lib, bug.check, bug.clause, message.c_str());
  std::printf("[ %s ] args: %s\n", bug.lib, args.dump().c_str());

  // The printed reproduce line, run as printed, fails the same check and clause again.
  const std::string repro = check->at("reproduce");
  EXPECT_NE(repro.find("--only"), std::string::npos) << repro;
  auto argv = split_command(repro);
  ASSERT_GE(argv.size(), 2u);
  argv[0] = pecheck_bin();
  TempDir tmp2;
  argv.insert(argv.end(), {"--report", tmp2.path + "/r"});
  auto p = run_process(argv, kRunTimeoutSeconds);
  EXPECT_EQ(p.exit_code, 1) << repro << "\n" << p.err;
  ASSERT_TRUE(std::filesystem::exists(tmp2.path + "/r/report.json")) << repro << "\n" << p.err;
  const ojson rep = ojson::parse(slurp(tmp2.path + "/r/report.json"));
  const ojson* again = check_named(rep, bug.check);
  ASSERT_NE(again, nullptr) << repro;
  EXPECT_EQ(again->at("status"), "fail") << repro;
  if (again->contains("counterexample")) {
    EXPECT_EQ(again->at("counterexample").at("clause"), bug.clause);
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, BuggyPosKernel, ::testing::ValuesIn(kBugs),
                         [](const ::testing::TestParamInfo<Bug>& i) { return std::string(i.param.lib); });

// ---- direct calls: the models' own shapes ------------------------------------------------------

struct Lib {
  void* handle = nullptr;
  explicit Lib(const std::string& name) {
    handle = dlopen(example_lib(name).c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  ~Lib() {
    if (handle) dlclose(handle);
  }
  template <class F>
  F* fn(const char* sym) const {
    return handle ? reinterpret_cast<F*>(dlsym(handle, sym)) : nullptr;
  }
};

using MropeFn = int(const pec_mrope_args*, const float*, const float*, float*, float*);
using QkFn = int(const pec_rope_qk_args*, const float*, const float*, float*, float*);

// Deterministic values in [-1, 1).
std::vector<float> values(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  unsigned s = seed * 2654435761u + 1;
  for (auto& e : v) {
    s = s * 1664525u + 1013904223u;
    e = static_cast<float>(static_cast<int>(s >> 8) - (1 << 23)) / static_cast<float>(1 << 23);
  }
  return v;
}

// Rotation of one pair (double): x_a cos - x_b sin, x_b cos + x_a sin, times the factor.
void ref_pair(double xa, double xb, double angle, double factor, double& ya, double& yb) {
  ya = factor * (xa * std::cos(angle) - xb * std::sin(angle));
  yb = factor * (xb * std::cos(angle) + xa * std::sin(angle));
}

// ROPE-MROPE-2 / -3: the axis of pair i.
int ref_axis(int32_t mrope_layout, const int64_t s[3], int64_t i) {
  if (mrope_layout == PEC_MROPE_INTERLEAVED) return i % 3 == 1 && i < 3 * s[1] ? 1 : i % 3 == 2 && i < 3 * s[2] ? 2 : 0;
  return i < s[0] ? 0 : i < s[0] + s[1] ? 1 : 2;
}

// Position ids as Qwen2-VL's get_rope_index gives them (ROPE-MROPE-5): text 0, 1; an image of
// 1 x 2 x 3 merged patches at s = 2; text from the image's largest position + 1.
std::vector<int64_t> qwen_positions(int64_t& n_tokens) {
  std::vector<int64_t> t, h, w;
  for (int64_t p : {0, 1}) t.push_back(p), h.push_back(p), w.push_back(p);
  for (int64_t y = 0; y < 2; ++y)
    for (int64_t x = 0; x < 3; ++x) t.push_back(2), h.push_back(2 + y), w.push_back(2 + x);
  for (int64_t p : {5, 6}) t.push_back(p), h.push_back(p), w.push_back(p);
  n_tokens = static_cast<int64_t>(t.size());
  std::vector<int64_t> rows(t);
  rows.insert(rows.end(), h.begin(), h.end());
  rows.insert(rows.end(), w.begin(), w.end());
  return rows;
}

struct MropeModel {
  const char* name;
  int32_t mrope_layout, layout;
  int64_t section[3];
  double base;
};
// Qwen2-VL / Qwen2.5-VL: [16, 24, 24] sectioned, base 1e6; Qwen3-VL: [24, 20, 20] interleaved,
// base 5e6 (spec/rope.md defaults); NeoX pairing as the models, GPT-J for the other pairing.
const MropeModel kQwen2 = {"qwen2_vl", PEC_MROPE_SECTIONED, PEC_ROPE_NEOX, {16, 24, 24}, 1.0e6};
const MropeModel kQwen3 = {"qwen3_vl", PEC_MROPE_INTERLEAVED, PEC_ROPE_NEOX, {24, 20, 20}, 5.0e6};
const MropeModel kQwen2Gptj = {"qwen2_vl_gptj", PEC_MROPE_SECTIONED, PEC_ROPE_GPTJ, {16, 24, 24}, 1.0e6};

// Runs `lib` on the model's call (4 query heads, 2 key heads, head_dim 130 with 2 pass-through
// lanes, fused-QKV token strides, out of place) and returns, per token, the largest deviation
// from the double reference; pass-through lanes must be bit-exact.
std::vector<double> mrope_deviation(const char* lib, const MropeModel& m) {
  Lib l(lib);
  auto* f = l.fn<MropeFn>("pec_mrope_f32");
  EXPECT_NE(f, nullptr) << lib;
  if (f == nullptr) return {};
  const int64_t H = 4, G = 2, D = 130, R = 128, half = R / 2, row = (H + 2 * G) * D;
  pec_mrope_args a{};
  const std::vector<int64_t> pos = qwen_positions(a.n_tokens);
  const int64_t T = a.n_tokens;
  a.n_q_heads = H, a.n_kv_heads = G, a.head_dim = D, a.rotary_dim = R, a.layout = m.layout;
  a.mrope_layout = m.mrope_layout;
  std::copy(m.section, m.section + 3, a.mrope_section);
  a.theta_base = m.base, a.position_scale = 1.0, a.attn_factor = 1.0, a.positions = pos.data();
  a.q = a.q_out = {row, D};
  a.k = a.k_out = {row, D};
  const std::vector<float> qkv = values(static_cast<std::size_t>(T * row), 3);
  std::vector<float> out(qkv.size(), 0.0f);
  EXPECT_EQ(f(&a, qkv.data(), qkv.data() + H * D, out.data(), out.data() + H * D), 0) << lib;
  std::vector<double> dev(static_cast<std::size_t>(T), 0.0);
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t h = 0; h < H + G; ++h) {  // query heads, then key heads (at H * D in the row)
      const int64_t o = t * row + h * D;
      for (int64_t i = 0; i < half; ++i) {
        const int64_t la = m.layout == PEC_ROPE_NEOX ? i : 2 * i, lb = m.layout == PEC_ROPE_NEOX ? i + half : 2 * i + 1;
        const double f_i = std::pow(m.base, -2.0 * static_cast<double>(i) / static_cast<double>(R));
        const double angle = static_cast<double>(pos[static_cast<std::size_t>(ref_axis(m.mrope_layout, m.section, i) * T + t)]) * f_i;
        double ya, yb;
        ref_pair(qkv[o + la], qkv[o + lb], angle, 1.0, ya, yb);
        dev[t] = std::max({dev[t], std::fabs(out[o + la] - ya), std::fabs(out[o + lb] - yb)});
      }
      for (int64_t lane = R; lane < D; ++lane) EXPECT_EQ(std::memcmp(&out[o + lane], &qkv[o + lane], 4), 0) << lib;
    }
  }
  return dev;
}

constexpr double kTol = 1e-5;  // float32 arithmetic at positions <= 6

// Clause: ABI-MROPE-2 — the field kernel on Qwen2-VL (sectioned), Qwen3-VL (interleaved) and
// GPT-J pairing agrees with the reference at every token, text and image alike.
TEST(MropeDirect, FieldKernelMatchesTheReferenceOnQwenPositionIds) {
  for (const MropeModel* m : {&kQwen2, &kQwen3, &kQwen2Gptj}) {
    const auto dev = mrope_deviation("vllm_mrope", *m);
    ASSERT_EQ(dev.size(), 10u);
    for (std::size_t t = 0; t < dev.size(); ++t) EXPECT_LT(dev[t], kTol) << m->name << " token " << t;
  }
}

// Clause: ABI-MROPE-2 ROPE-MROPE-4 — each buggy kernel is right on the text tokens (t = h = w)
// and wrong on the image tokens its bug reaches; tokens 2..7 are the image.
TEST(MropeDirect, BuggyKernelsAreRightOnTextAndWrongOnTheImage) {
  struct Expect {
    const char* lib;
    const MropeModel* model;
    bool image_wrong;
  };
  const Expect cases[] = {
      {"mrope_section_offset", &kQwen2, true},            // h pairs 24..39 by the w row
      {"mrope_section_offset", &kQwen3, false},           // interleaved: right
      {"mrope_text_positions", &kQwen2, true},            // h, w pairs by the t row
      {"mrope_text_positions", &kQwen3, true},
      {"mrope_interleaved_as_sectioned", &kQwen3, true},  // Qwen3-VL's layout ignored
      {"mrope_interleaved_as_sectioned", &kQwen2, false}, // sectioned: right
  };
  for (const Expect& e : cases) {
    const auto dev = mrope_deviation(e.lib, *e.model);
    ASSERT_EQ(dev.size(), 10u);
    double image = 0.0;
    for (std::size_t t = 0; t < dev.size(); ++t) {
      if (t < 2 || t > 7) EXPECT_LT(dev[t], kTol) << e.lib << " " << e.model->name << " text token " << t;
      else image = std::max(image, dev[t]);
    }
    // 100 x kTol: Qwen2-VL's h pairs turn slowly (f_24 ~ 0.006 rad per position).
    if (e.image_wrong) EXPECT_GT(image, 1e-3) << e.lib << " " << e.model->name;
    else EXPECT_LT(image, kTol) << e.lib << " " << e.model->name;
  }
}

// DeepSeek-V3's YaRN table (factor 40 over 4096 positions, beta_fast 32, beta_slow 1, base 1e4,
// qk_rope_head_dim 64): interpolated and extrapolated frequencies blended along the ramp.
std::vector<float> deepseek_yarn_inv_freq() {
  const double dim = 64, base = 10000, factor = 40, orig = 4096, pi = 3.14159265358979323846;
  const auto corr = [&](double rot) { return dim * std::log(orig / (rot * 2 * pi)) / (2 * std::log(base)); };
  const double low = std::max(0.0, std::floor(corr(32))), high = std::min(dim - 1, std::ceil(corr(1)));
  std::vector<float> inv(32);
  for (int i = 0; i < 32; ++i) {
    const double extra = std::pow(base, -2.0 * i / dim), inter = extra / factor;
    const double ramp = std::clamp((i - low) / (high - low), 0.0, 1.0), mask = 1.0 - ramp;
    inv[static_cast<std::size_t>(i)] = static_cast<float>(inter * (1 - mask) + extra * mask);
  }
  return inv;
}

struct MlaRun {
  bool nope_moved = false;     // some q_nope lane or the kv latent changed
  double max_dev = 0.0;        // q_pe and k_pe against the reference
};

// The call of vLLM's DeepSeek attention, in place: q is [T][H][192] ([q_nope 128 | q_pe 64]) and
// the kernel gets the q_pe view (offset 128, head stride 192, head_dim 64); k_pe is the tail of
// the kv projection's row [kv_latent 512 | k_pe 64], n_kv_heads 1. ROPE-MLA-1..2.
MlaRun mla_call(const char* lib) {
  MlaRun r;
  Lib l(lib);
  auto* f = l.fn<QkFn>("pec_rope_qk_f32");
  EXPECT_NE(f, nullptr) << lib;
  if (f == nullptr) return r;
  const int64_t T = 3, H = 8, QD = 192, NOPE = 128, RD = 64, KV = 512 + RD, pad = QD;
  const std::vector<int64_t> pos = {0, 7, 4095};
  const std::vector<float> inv = deepseek_yarn_inv_freq();
  const double mscale = 0.1 * std::log(40.0) + 1.0;  // mscale(40, 1) / mscale(40, 0): mscale_all_dim 0
  const std::vector<float> q0 = values(static_cast<std::size_t>(T * H * QD + pad), 5);
  const std::vector<float> kv0 = values(static_cast<std::size_t>(T * KV + pad), 6);
  std::vector<float> q = q0, kv = kv0;
  pec_rope_qk_args a{};
  a.n_tokens = T, a.n_q_heads = H, a.n_kv_heads = 1, a.head_dim = RD, a.rotary_dim = RD, a.layout = PEC_ROPE_GPTJ;
  a.theta_base = 10000, a.position_scale = 1, a.attn_factor = mscale, a.positions = pos.data(), a.inv_freq = inv.data();
  a.q = a.q_out = {H * QD, QD};
  a.k = a.k_out = {KV, RD};
  EXPECT_EQ(f(&a, q.data() + NOPE, kv.data() + 512, q.data() + NOPE, kv.data() + 512), 0) << lib;
  const auto dev_of = [&](const std::vector<float>& in, const std::vector<float>& out, int64_t o, int64_t t) {
    for (int64_t i = 0; i < RD / 2; ++i) {
      double ya, yb;
      ref_pair(in[o + 2 * i], in[o + 2 * i + 1], static_cast<double>(pos[t]) * inv[i], mscale, ya, yb);
      r.max_dev = std::max({r.max_dev, std::fabs(out[o + 2 * i] - ya), std::fabs(out[o + 2 * i + 1] - yb)});
    }
  };
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t h = 0; h < H; ++h) {
      const int64_t o = (t * H + h) * QD;
      r.nope_moved = r.nope_moved || std::memcmp(&q[o], &q0[o], NOPE * 4) != 0;
      dev_of(q0, q, o + NOPE, t);
    }
    r.nope_moved = r.nope_moved || std::memcmp(&kv[t * KV], &kv0[t * KV], 512 * 4) != 0;
    dev_of(kv0, kv, t * KV + 512, t);
  }
  return r;
}

// Clause: ABI-VIEW-2 ABI-QK-2 ROPE-MLA-1 ROPE-MLA-2 — at DeepSeek's own strides the field kernel
// rotates q_pe and the shared k_pe with the YaRN table and mscale, and no q_nope lane (nor the
// kv latent) moves by a single bit.
TEST(MlaDirect, FieldKernelRotatesQpeAndNeverMovesTheNopeSlice) {
  const MlaRun r = mla_call("deepseek_mla_rope");
  EXPECT_FALSE(r.nope_moved);
  EXPECT_LT(r.max_dev, 2e-3);  // float angle at position 4095 (error ~ 4095 * 2^-24 rad), |x| < 1
}

// Clause: ABI-VIEW-2 — the re-slicing kernel, at the same strides, rotates the next head's q_nope
// and leaves q_pe unrotated: both visible, the first the property "the nope slice never moves".
TEST(MlaDirect, ResliceKernelMovesTheNopeSlice) {
  const MlaRun r = mla_call("mla_rope_reslice");
  EXPECT_TRUE(r.nope_moved);
  EXPECT_GT(r.max_dev, 1e-2);
}

// Clause: ABI-DOM-1 ABI-GEN-2 — a valid call outside the MLA declaration (NeoX pairing) is
// refused as unsupported, and writes nothing.
TEST(MlaDirect, FieldKernelRefusesNeoxOutsideItsDeclaration) {
  Lib l("deepseek_mla_rope");
  auto* f = l.fn<QkFn>("pec_rope_qk_f32");
  ASSERT_NE(f, nullptr);
  const int64_t pos[1] = {3};
  std::vector<float> q = values(64, 1), k = values(64, 2), qo(64, 0.5f), ko(64, 0.5f);
  pec_rope_qk_args a{};
  a.n_tokens = 1, a.n_q_heads = 1, a.n_kv_heads = 1, a.head_dim = 64, a.rotary_dim = 64, a.layout = PEC_ROPE_NEOX;
  a.theta_base = 10000, a.position_scale = 1, a.attn_factor = 1, a.positions = pos;
  a.q = a.k = a.q_out = a.k_out = {64, 64};
  EXPECT_NE(f(&a, q.data(), k.data(), qo.data(), ko.data()), 0);
  EXPECT_TRUE(std::all_of(qo.begin(), qo.end(), [](float v) { return v == 0.5f; }));
  a.layout = PEC_ROPE_GPTJ;
  EXPECT_EQ(f(&a, q.data(), k.data(), qo.data(), ko.data()), 0);
}

}  // namespace
}  // namespace pecheck::e2e
