// `pecheck classify --kernel` on pec_attention_{f32,bf16,f16} (spec/README.md CLASSIFY-9,
// spec/abi.md ABI-ATTN-4): the score is read from the attention output of one query at m over a
// key at n (value e0) and a reference key at m (value e1), S = log(out0/out1) = s(m,n) - s(m,m).
// pecheck_simd's online-softmax kernels are relative for every encoding inside (within their
// accuracy class, so rounding is never read as a position), and the field's decode bug that
// rotates the query at its index in the call (flashinfer PR #847) is `positions` with a shrunk
// witness. Case counts are small (--cases 120): each subject costs well under a second.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e.hpp"

namespace pecheck::e2e {
namespace {

constexpr const char* kCases = "120";

struct Classified {
  ProcessResult proc;
  nlohmann::json json;
};

Classified classify(const std::string& lib, const std::string& only) {
  std::vector<std::string> argv{pecheck_bin(), "classify", "--kernel", lib,
                                "--format",    "json",     "--cases",  kCases};
  if (!only.empty()) argv.insert(argv.end(), {"--only", only});
  Classified c;
  c.proc = run_process(argv, kRunTimeoutSeconds);
  if (c.proc.exit_code == 0 || c.proc.exit_code == 1) c.json = nlohmann::json::parse(c.proc.out);
  return c;
}

// The one classification of a run with --only.
nlohmann::json only_encoding(const Classified& c, const std::string& name) {
  if (!c.json.is_object() || c.json.at("encodings").size() != 1) {
    ADD_FAILURE() << name << ": " << c.proc.out << c.proc.err;
    return nlohmann::json::object();
  }
  const auto e = c.json.at("encodings")[0];
  EXPECT_EQ(e.at("name"), name);
  return e;
}

nlohmann::json evidence(const nlohmann::json& e, const std::string& property) {
  for (const auto& p : e.at("evidence"))
    if (p.at("property") == property) return p;
  return nullptr;
}

double gap(const nlohmann::json& w) {
  return std::fabs(w.at("first").at("score").get<double>() -
                   w.at("second").at("score").get<double>());
}

struct Expected {
  const char* encoding;
  const char* applied_at;
  const char* depends_on;
  const char* function_of;
};

// Clause: CLASSIFY-9 ABI-ATTN-4 PREC-ATTN-3 PREC-ATTN-4
TEST(ClassifyAttention, SimdKernelsAreRelativeForEveryEncodingInside) {
  const Expected rows[] = {
      {"rope", "qk-rotation", "offset", "n - m"},
      {"alibi-symmetric", "logits", "abs-offset", "|n - m|"},
      {"alibi-signed", "logits", "offset", "n - m"},
      // The key-only form's logits are slope * k_pos (not a function of the offset), but the
      // output is: the reference key removes the per-row constant slope * q_pos.
      {"alibi-key-only", "logits", "offset", "n - m"},
      {"t5-bidirectional", "logits", "offset", "n - m"},
      {"t5-unidirectional", "logits", "offset", "n - m"},
      {"none", "none", "none", "neither position"},
  };
  for (const char* st : {"f32", "bf16", "f16"}) {
    for (const Expected& x : rows) {
      const std::string name = std::string("kernel:pec_attention_") + st + ":" + x.encoding;
      const auto c = classify(PECHECK_SIMD_LIB, name);
      ASSERT_EQ(c.proc.exit_code, 0) << name << c.proc.err << c.proc.out;
      // Every exported attention function is measured: none is listed as not measured.
      for (const auto& nm : c.json.at("not_measured"))
        EXPECT_EQ(nm.get<std::string>().find("pec_attention"), std::string::npos) << nm;
      const auto e = only_encoding(c, name);
      EXPECT_EQ(e.at("applied_at"), x.applied_at) << name << e.dump();
      EXPECT_EQ(e.at("depends_on"), x.depends_on) << name << e.dump();
      EXPECT_EQ(e.at("function_of"), x.function_of) << name << e.dump();
      EXPECT_TRUE(e.at("witness").is_null()) << name << e.dump();
      EXPECT_TRUE(e.at("softmax_row_invariant").get<bool>()) << name;
      if (std::string(x.depends_on) != "none") {
        // The shift property held on cases that were measured: the position-free run found two
        // pairs whose scores differ beyond their tolerance, so the scores carry information.
        const auto p = evidence(e, "position-free");
        ASSERT_TRUE(p.is_object() && p.at("counterexample").is_object()) << name << e.dump();
        EXPECT_GT(gap(p.at("counterexample")), p.at("counterexample").at("tolerance").get<double>())
            << name;
        EXPECT_LT(p.at("counterexample").at("tolerance").get<double>(), 1.0) << name;
        const auto s = evidence(e, "shift");
        ASSERT_TRUE(s.is_object()) << name;
        EXPECT_TRUE(s.at("counterexample").is_null()) << name;
      }
    }
  }
}

// flashinfer PR #847: the decode kernel rotates the query at its index in the call (0), not at its
// position. The output then depends on the absolute key positions: `positions`, with a witness
// of one offset and two scores beyond the tolerance. The correct decode kernel of the same source
// is relative.
// Clause: CLASSIFY-9 ABI-ATTN-4
TEST(ClassifyAttention, DecodeKernelRotatingTheQueryAtItsIndexIsPositionDependent) {
  const std::string name = "kernel:pec_attention_f32:rope";
  const auto bad = classify(example_lib("attn_rope_q_offset"), name);
  ASSERT_EQ(bad.proc.exit_code, 0) << bad.proc.err << bad.proc.out;
  const auto e = only_encoding(bad, name);
  EXPECT_EQ(e.at("depends_on"), "positions") << e.dump();
  EXPECT_EQ(e.at("function_of"), "m and n") << e.dump();
  ASSERT_TRUE(e.at("witness").is_object()) << e.dump();
  const auto& w = e.at("witness");
  EXPECT_EQ(w.at("property"), "shift");
  EXPECT_EQ(
      w.at("first").at("n").get<std::int64_t>() - w.at("first").at("m").get<std::int64_t>(),
      w.at("second").at("n").get<std::int64_t>() - w.at("second").at("m").get<std::int64_t>());
  EXPECT_NE(w.at("first").at("m"), w.at("second").at("m"));
  EXPECT_GT(gap(w), w.at("tolerance").get<double>()) << w.dump();
  EXPECT_GT(w.at("shrink_steps").get<int>(), 0);
  // The declared domain (attention.encoding rope) is honoured: the one subject of the function.
  EXPECT_NE(bad.proc.out.find("kernel:pec_attention_f32:rope"), std::string::npos);

  const auto good = classify(example_lib("attn_decode_rope"), name);
  ASSERT_EQ(good.proc.exit_code, 0) << good.proc.err << good.proc.out;
  const auto g = only_encoding(good, name);
  EXPECT_EQ(g.at("depends_on"), "offset") << g.dump();
  EXPECT_TRUE(g.at("witness").is_null()) << g.dump();
}

// flash-attention #907: the ALiBi query position taken from the query's index in the call (0 for
// a query alone). In exact arithmetic the logits -slope * k_pos give the output of the signed
// form, but the kernel forms them in float32 at the magnitude slope * k_pos, where the symmetric
// form it declares has only slope * |q_pos - k_pos|: at large positions their rounding moves the
// output beyond the symmetric form's budget. `positions`, with a witness at large positions.
// Clause: CLASSIFY-9 ABI-ATTN-2 PREC-ATTN-1
TEST(ClassifyAttention, AlibiQueryIndexBugIsPositionDependentAtLargePositions) {
  const std::string name = "kernel:pec_attention_f32:alibi-symmetric";
  const auto c = classify(example_lib("attn_alibi_q_index"), name);
  ASSERT_EQ(c.proc.exit_code, 0) << c.proc.err << c.proc.out;
  const auto e = only_encoding(c, name);
  EXPECT_EQ(e.at("depends_on"), "positions") << e.dump();
  ASSERT_TRUE(e.at("witness").is_object()) << e.dump();
  const auto& w = e.at("witness");
  EXPECT_EQ(
      w.at("first").at("n").get<std::int64_t>() - w.at("first").at("m").get<std::int64_t>(),
      w.at("second").at("n").get<std::int64_t>() - w.at("second").at("m").get<std::int64_t>());
  EXPECT_GT(w.at("first").at("m").get<std::int64_t>(), 1000) << w.dump();
  EXPECT_GT(gap(w), w.at("tolerance").get<double>()) << w.dump();
}

// TensorRT-LLM #1343: the generation-phase T5 kernel (one query) takes the relative position the
// other way round. Unidirectional buckets then see only keys ahead of the query: over the keys at
// or before it (CLASSIFY-7's pairs) the output is a function of neither position, where the
// correct kernel of the same source is a function of n - m.
// Clause: CLASSIFY-9 CLASSIFY-7 ABI-ATTN-2
TEST(ClassifyAttention, T5DecodeSignBugLosesTheOffsetOfEarlierKeys) {
  const std::string name = "kernel:pec_attention_f32:t5-unidirectional";
  const auto bad = only_encoding(classify(example_lib("attn_t5_decode"), name), name);
  EXPECT_EQ(bad.at("depends_on"), "none") << bad.dump();
  const auto good = only_encoding(classify(example_lib("attn_t5"), name), name);
  EXPECT_EQ(good.at("depends_on"), "offset") << good.dump();
  EXPECT_EQ(good.at("function_of"), "n - m") << good.dump();
}

// A kernel whose positions come from the lengths (FlashAttention-2's bottom-right alignment,
// declared) has no positions to shift: its functions are named as not measured, and a library
// with nothing else to measure is a usage error that says why.
// Clause: CLASSIFY-9 ABI-DOM-4
TEST(ClassifyAttention, KernelWithPositionsFromTheLengthsIsNotMeasured) {
  const auto p = run_process({pecheck_bin(), "classify", "--kernel", example_lib("attn_fa2")},
                             kRunTimeoutSeconds);
  EXPECT_EQ(p.exit_code, 2) << p.out << p.err;
  EXPECT_NE(p.err.find("pec_attention_f32 (declares attention.positions bottom-right"),
            std::string::npos)
      << p.err;
  EXPECT_EQ(std::count(p.err.begin(), p.err.end(), '\n'), 1) << p.err;
}

}  // namespace
}  // namespace pecheck::e2e
