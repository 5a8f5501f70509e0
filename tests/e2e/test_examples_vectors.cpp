// The correct example kernels (pure C and C++) against the independent MPFR vectors of
// tests/vectors, called directly through dlopen — evidence, independent of `pecheck verify`
// and of pecheck's own oracles, that the "correct" examples are correct. Tolerances come from
// spec/budgets.tsv (the "accurate" rows: angles in double) or comparisons are exact.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "oracle/budget.hpp"
#include "pecheck_kernel.h"

namespace {

using Row = std::vector<std::string>;

std::vector<Row> read_tsv(const std::string& name) {
  const std::string path = std::string(PECHECK_SOURCE_DIR) + "/tests/vectors/" + name;
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << "independent vectors missing: " << path;
  std::vector<Row> rows;
  std::string line;
  bool header = true;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
      continue;
    }
    Row r;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) r.push_back(cell);
    rows.push_back(r);
  }
  return rows;
}

struct Kernels {
  void* handle = nullptr;
  decltype(&pec_rope_f32) rope = nullptr;
  decltype(&pec_alibi_bias_f32) alibi = nullptr;
  decltype(&pec_t5_bias_f32) t5 = nullptr;
  decltype(&pec_sinusoidal_f32) sinusoidal = nullptr;
  explicit Kernels(const std::string& lib) {
    handle = dlopen((std::string(PECHECK_EXAMPLES_DIR) + "/libexample_" + lib + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) return;
    rope = reinterpret_cast<decltype(rope)>(dlsym(handle, "pec_rope_f32"));
    alibi = reinterpret_cast<decltype(alibi)>(dlsym(handle, "pec_alibi_bias_f32"));
    t5 = reinterpret_cast<decltype(t5)>(dlsym(handle, "pec_t5_bias_f32"));
    sinusoidal = reinterpret_cast<decltype(sinusoidal)>(dlsym(handle, "pec_sinusoidal_f32"));
  }
  ~Kernels() {
    if (handle) dlclose(handle);
  }
};

class ExampleVectors : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    k_ = std::make_unique<Kernels>(GetParam());
    ASSERT_NE(k_->handle, nullptr) << dlerror();
    ASSERT_TRUE(k_->rope && k_->alibi && k_->t5 && k_->sinusoidal);
  }
  std::unique_ptr<Kernels> k_;
};

// Clause: ABI-ROPE-2 — a unit vector rotated by the vector's angle gives (cos, sin).
TEST_P(ExampleVectors, RopeRotatesUnitVectorsToTheMpfrCosAndSin) {
  const auto rows = read_tsv("rope_angles.tsv");
  ASSERT_GT(rows.size(), 100u);
  const auto& budget = pecheck::oracle::budget("rope", "f32", "accurate");
  for (const auto& r : rows) {
    const std::int64_t pos = std::stoll(r[0]);
    const double scale = std::stod(r[1]), base = std::stod(r[2]);
    const std::int64_t rd = std::stoll(r[3]), i = std::stoll(r[4]);
    const double theta = std::stod(r[5]), c = std::stod(r[6]), s = std::stod(r[7]);
    for (int layout : {PEC_ROPE_NEOX, PEC_ROPE_GPTJ}) {
      const std::int64_t a = layout == PEC_ROPE_NEOX ? i : 2 * i, b = layout == PEC_ROPE_NEOX ? i + rd / 2 : 2 * i + 1;
      std::vector<float> x(rd, 0.0f), y(rd, 0.0f);
      x[a] = 1.0f;
      pec_rope_args args{1, 1, rd, rd, layout, base, scale, &pos, nullptr};
      ASSERT_EQ(k_->rope(&args, x.data(), y.data()), 0);
      const double tol = budget.bound({1.0, std::abs(theta)});
      EXPECT_LE(std::abs(y[a] - c), tol) << "pos " << pos << " base " << base << " rd " << rd << " i " << i;
      EXPECT_LE(std::abs(y[b] - s), tol) << "pos " << pos << " base " << base << " rd " << rd << " i " << i;
    }
  }
}

// Clause: ABI-ALIBI-2 — one query one step after its key: the bias is -slope.
TEST_P(ExampleVectors, AlibiSlopesMatchTheMpfrSlopesForEveryHeadCount) {
  std::map<std::int64_t, std::map<std::int64_t, double>> slopes;
  for (const auto& r : read_tsv("alibi_slopes.tsv")) slopes[std::stoll(r[0])][std::stoll(r[1])] = std::stod(r[2]);
  ASSERT_GE(slopes.size(), 64u);
  const auto& budget = pecheck::oracle::budget("alibi", "f32");
  for (const auto& [n, per_head] : slopes) {
    const std::int64_t q = 1, k = 0;
    std::vector<float> scores(n, 0.0f);
    pec_alibi_args args{n, 1, 1, PEC_ALIBI_SYMMETRIC, &q, &k};
    ASSERT_EQ(k_->alibi(&args, scores.data()), 0);
    for (const auto& [h, slope] : per_head) {
      EXPECT_LE(std::abs(scores[h] + slope), budget.bound({slope})) << n << " heads, head " << h;
    }
    // Causal: a key after the query is masked with -inf.
    std::vector<float> masked(n, 0.0f);
    pec_alibi_args causal{n, 1, 1, PEC_ALIBI_CAUSAL, &k, &q};
    ASSERT_EQ(k_->alibi(&causal, masked.data()), 0);
    for (float v : masked) EXPECT_EQ(v, -INFINITY);
  }
}

// Clause: ABI-T5-2 — a table holding each bucket's own index reads back the bucket, exactly
// (or the bucket below at the offsets the vectors mark ambiguous).
TEST_P(ExampleVectors, T5BucketsMatchTheIndependentBuckets) {
  const auto rows = read_tsv("t5_buckets.tsv");
  ASSERT_GT(rows.size(), 100u);
  for (const auto& r : rows) {
    const std::int64_t nb = std::stoll(r[0]), md = std::stoll(r[1]);
    const std::int32_t bidir = std::stoi(r[2]);
    const std::int64_t rel = std::stoll(r[3]), bucket = std::stoll(r[4]);
    const bool ambiguous = r[5] == "1";
    std::vector<float> table(nb);
    for (std::int64_t b = 0; b < nb; ++b) table[b] = float(b);
    const std::int64_t q = std::int64_t{1} << 30, k = q + rel;
    float bias = -1.0f;
    pec_t5_args args{1, 1, 1, nb, md, bidir, &q, &k, table.data()};
    ASSERT_EQ(k_->t5(&args, &bias), 0);
    if (ambiguous) {
      EXPECT_TRUE(bias == float(bucket) || bias == float(bucket - 1)) << nb << " " << md << " " << rel;
    } else {
      EXPECT_EQ(bias, float(bucket)) << "num_buckets " << nb << " max_distance " << md << " bidir " << bidir
                                     << " relative " << rel;
    }
  }
}

// Clause: ABI-SIN-2
TEST_P(ExampleVectors, SinusoidalMatchesTheMpfrValues) {
  const auto rows = read_tsv("sinusoidal.tsv");
  ASSERT_GT(rows.size(), 50u);
  const auto& budget = pecheck::oracle::budget("sinusoidal", "f32", "accurate");
  for (const auto& r : rows) {
    const std::int64_t pos = std::stoll(r[0]), d = std::stoll(r[1]);
    const double base = std::stod(r[2]);
    const std::int64_t lane = std::stoll(r[3]);
    const double value = std::stod(r[4]);
    std::vector<float> out(d);
    pec_sinusoidal_args args{1, d, base, &pos};
    ASSERT_EQ(k_->sinusoidal(&args, out.data()), 0);
    const double angle = double(pos) * std::pow(base, -2.0 * double(lane / 2) / double(d));
    EXPECT_LE(std::abs(out[lane] - value), budget.bound({1.0, std::abs(angle)}))
        << "pos " << pos << " d_model " << d << " lane " << lane;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleVectors, ::testing::Values("c_kernels", "kernels"));

}  // namespace
