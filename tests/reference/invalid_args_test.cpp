// Invalid parameters raise pecheck::InvalidArgument naming the violated clause, never undefined
// behaviour (spec/*.md, the *-ARG-* clauses).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "reference/alibi.hpp"
#include "reference/learned.hpp"
#include "reference/rope.hpp"
#include "reference/sinusoidal.hpp"
#include "reference/t5.hpp"

namespace {

using namespace pecheck;
using namespace pecheck::reference;

template <class F>
void expect_clause(F&& f, const std::string& clause) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected " << clause;
  } catch (const InvalidArgument& e) {
    EXPECT_EQ(e.clause(), clause) << e.what();
    EXPECT_NE(std::string(e.what()).find(clause), std::string::npos) << e.what();
  }
}

RopeConfig rope(std::int64_t hd, std::int64_t rd) {
  RopeConfig c;
  c.head_dim = hd;
  c.rotary_dim = rd;
  return c;
}

// Clause: ROPE-ARG-1, ROPE-ARG-2, ROPE-ARG-3, ROPE-ARG-4, ROPE-ARG-5
TEST(InvalidArguments, RopeDimensionsBasePositions) {
  expect_clause([] { validate(rope(1, 2)); }, "ROPE-ARG-1");
  expect_clause([] { validate(rope(0, 0)); }, "ROPE-ARG-1");
  expect_clause([] { validate(rope(8, 7)); }, "ROPE-ARG-2");   // odd rotary_dim
  expect_clause([] { validate(rope(8, 10)); }, "ROPE-ARG-2");  // rotary_dim > head_dim
  expect_clause([] { validate(rope(8, 0)); }, "ROPE-ARG-2");
  for (double b : {1.0, 0.5, 0.0, -10.0, std::nan(""), HUGE_VAL}) {
    RopeConfig c = rope(8, 8);
    c.base = b;
    expect_clause([&] { validate(c); }, "ROPE-ARG-3");
  }
  for (double s : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    RopeConfig c = rope(8, 8);
    c.position_scale = s;
    expect_clause([&] { validate(c); }, "ROPE-ARG-4");
  }
  const RopeConfig c = rope(4, 4);
  const std::vector<double> x(4, 1.0);
  for (std::int64_t p :
       {std::int64_t{-1}, kRopeMaxPosition, std::numeric_limits<std::int64_t>::min()}) {
    expect_clause([&] { rope_rotate<double>(c, p, std::span<const double>(x)); }, "ROPE-ARG-5");
  }
  const std::vector<double> short_x(3, 1.0);
  expect_clause([&] { rope_rotate<double>(c, 0, std::span<const double>(short_x)); }, "ROPE-ARG-1");
}

// Clause: ROPE-ARG-6, ROPE-ARG-7, ROPE-ARG-8, ROPE-ARG-9
TEST(InvalidArguments, RopeScalings) {
  RopeConfig c = rope(8, 8);
  c.scaling.kind = RopeScaling::Linear;
  c.scaling.factor = 0.5;
  expect_clause([&] { validate(c); }, "ROPE-ARG-6");
  c.scaling.factor = std::nan("");
  expect_clause([&] { validate(c); }, "ROPE-ARG-6");
  RopeConfig n = rope(2, 2);
  n.scaling.kind = RopeScaling::Ntk;
  n.scaling.factor = 2;
  expect_clause([&] { validate(n); }, "ROPE-ARG-6");  // d/(d-2) undefined
  for (auto kind : {RopeScaling::DynamicNtk, RopeScaling::Yarn, RopeScaling::Llama3}) {
    RopeConfig d = rope(8, 8);
    d.scaling.kind = kind;
    d.scaling.factor = 4;
    d.scaling.original_max_positions = 0;
    expect_clause([&] { validate(d); }, "ROPE-ARG-7");
  }
  RopeConfig y = rope(8, 8);
  y.scaling.kind = RopeScaling::Yarn;
  y.scaling.factor = 4;
  y.scaling.original_max_positions = 4096;
  y.scaling.beta_fast = 1;
  y.scaling.beta_slow = 32;
  expect_clause([&] { validate(y); }, "ROPE-ARG-8");
  y.scaling.beta_fast = 32;
  y.scaling.beta_slow = 1;
  y.scaling.attention_factor = -1;
  expect_clause([&] { validate(y); }, "ROPE-ARG-8");
  RopeConfig l = rope(8, 8);
  l.scaling.kind = RopeScaling::Llama3;
  l.scaling.factor = 8;
  l.scaling.original_max_positions = 8192;
  l.scaling.low_freq_factor = 4;
  l.scaling.high_freq_factor = 1;
  expect_clause([&] { validate(l); }, "ROPE-ARG-9");
}

// Clause: ALIBI-ARG-1, ALIBI-ARG-2, ALIBI-ARG-3
TEST(InvalidArguments, Alibi) {
  expect_clause([] { alibi_slopes<double>(0); }, "ALIBI-ARG-1");
  expect_clause([] { alibi_slope<double>(8, 8); }, "ALIBI-ARG-1");
  expect_clause([] { alibi_slope<double>(8, -1); }, "ALIBI-ARG-1");
  expect_clause([] { alibi_bias<double>(AlibiMode::Causal, 0.5, -1, 0); }, "ALIBI-ARG-2");
  expect_clause([] { alibi_bias<double>(AlibiMode::Causal, 0.5, 0, kAlibiMaxPosition); },
                "ALIBI-ARG-2");
  expect_clause([] { alibi_bias<double>(static_cast<AlibiMode>(9), 0.5, 0, 0); }, "ALIBI-ARG-3");
}

// Clause: T5-ARG-1, T5-ARG-2, T5-ARG-3, T5-ARG-4
TEST(InvalidArguments, T5) {
  T5Config c;
  c.num_buckets = 2;  // bidirectional: nb = 1, max_exact = 0
  expect_clause([&] { validate(c); }, "T5-ARG-1");
  c.num_buckets = 2000;
  expect_clause([&] { validate(c); }, "T5-ARG-1");
  c = T5Config{};
  c.max_distance = 8;  // max_exact = 8 for 32 bidirectional buckets
  expect_clause([&] { validate(c); }, "T5-ARG-2");
  c = T5Config{};
  c.n_heads = 0;
  expect_clause([&] { validate(c); }, "T5-ARG-3");
  c = T5Config{};
  const std::vector<double> table(32);
  expect_clause([&] { t5_bias<double>(c, std::span<const double>(table), 1, 0, 0); }, "T5-ARG-3");
  const std::vector<double> small(31);
  expect_clause([&] { t5_bias<double>(c, std::span<const double>(small), 0, 0, 0); }, "T5-ARG-3");
  expect_clause([&] { t5_bias<double>(c, std::span<const double>(table), 0, -1, 0); }, "T5-ARG-4");
  expect_clause([&] { t5_bucket(c, kT5MaxPosition); }, "T5-ARG-4");
}

// Clause: SIN-ARG-1, SIN-ARG-2, SIN-ARG-3
TEST(InvalidArguments, Sinusoidal) {
  SinusoidalConfig c;
  c.d_model = 7;
  expect_clause([&] { sinusoidal_encode<double>(c, 0); }, "SIN-ARG-1");
  c.d_model = 8;
  c.base = 1.0;
  expect_clause([&] { sinusoidal_encode<double>(c, 0); }, "SIN-ARG-2");
  c.base = 10000;
  expect_clause([&] { sinusoidal_encode<double>(c, -5); }, "SIN-ARG-3");
}

// Clause: LEARNED-ARG-1, LEARNED-ARG-2
TEST(InvalidArguments, Learned) {
  LearnedConfig c;
  c.max_positions = 4;
  c.d_model = 2;
  const std::vector<float> table(8, 1.0f), wrong(7, 1.0f);
  expect_clause([&] { learned_encode<float>(c, std::span<const float>(wrong), 0); },
                "LEARNED-ARG-1");
  expect_clause([&] { learned_encode<float>(c, std::span<const float>(table), 4); },
                "LEARNED-ARG-2");
  expect_clause([&] { learned_encode<float>(c, std::span<const float>(table), -1); },
                "LEARNED-ARG-2");
  c.d_model = 0;
  expect_clause([&] { validate(c); }, "LEARNED-ARG-1");
}

}  // namespace
