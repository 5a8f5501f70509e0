// Oracle throughput: evaluations per second for one RoPE pair (every format correctly
// rounded), a [tokens x heads x 128] block (each angle once, f32 + f64 correctly rounded, and
// exact-only), ALiBi and T5 rows. Run: build/bench/oracle/oracle_bench
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "oracle/oracle.hpp"

namespace po = pecheck::oracle;

namespace {

std::vector<std::int64_t> positions(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<std::int64_t> d(0, (std::int64_t{1} << 31) - 1);
  std::vector<std::int64_t> p(n);
  for (auto& x : p) x = d(g);
  return p;
}

std::vector<float> values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> d(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

void BM_RopePair(benchmark::State& st) {
  const auto pos = positions(1024, 1);
  const auto x = values(2048, 2);
  std::size_t k = 0;
  for (auto _ : st) {
    const auto r = po::rope_pair({pos[k % 1024], 1.0, po::RopeFrequency::power(10000.0, static_cast<std::int64_t>(k % 64), 128)},
                                 x[(2 * k) % 2048], x[(2 * k + 1) % 2048]);
    benchmark::DoNotOptimize(r.ya_rounded.f32);
    ++k;
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()));
}
BENCHMARK(BM_RopePair);

// Args: tokens, heads. Items = output elements.
void BM_RopeBlock(benchmark::State& st) {
  const std::int64_t t = st.range(0), h = st.range(1), d = 128;
  const auto pos = positions(static_cast<std::size_t>(t), 3);
  const auto x = values(static_cast<std::size_t>(t * h * d), 4);
  std::vector<float> y(x.size());
  std::vector<double> y64(x.size());
  const pec_rope_args a{t, h, d, d, PEC_ROPE_NEOX, 10000.0, 1.0, pos.data(), nullptr};
  for (auto _ : st) {
    const auto s = po::rope_block(a, x.data(), po::Format::F32, y.data(), y64.data());
    benchmark::DoNotOptimize(s.escalations);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) * t * h * d);
}
BENCHMARK(BM_RopeBlock)->Args({16, 32})->Args({64, 8})->Args({256, 1})->Unit(benchmark::kMillisecond);

void BM_RopeBlockExact(benchmark::State& st) {
  const std::int64_t t = st.range(0), h = st.range(1), d = 128;
  const auto pos = positions(static_cast<std::size_t>(t), 3);
  const auto x = values(static_cast<std::size_t>(t * h * d), 4);
  std::vector<po::DoubleDouble> y(x.size());
  const pec_rope_args a{t, h, d, d, PEC_ROPE_NEOX, 10000.0, 1.0, pos.data(), nullptr};
  for (auto _ : st) {
    const auto s = po::rope_block_exact(a, x.data(), y.data(), nullptr);
    benchmark::DoNotOptimize(s.angles);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) * t * h * d);
}
BENCHMARK(BM_RopeBlockExact)->Args({16, 32})->Unit(benchmark::kMillisecond);

// One ALiBi row per head: n_k keys for one query; 8 heads (power-of-two slopes: exact) or 12
// (irrational slopes: double-double product + Ziv). Items = bias elements.
void BM_AlibiRows(benchmark::State& st) {
  const std::int64_t nk = st.range(0), nh = st.range(1);
  const std::int64_t q[] = {(std::int64_t{1} << 30) + 12345};
  const auto k = positions(static_cast<std::size_t>(nk), 5);
  std::vector<float> out(static_cast<std::size_t>(nh * nk));
  const pec_alibi_args a{nh, 1, nk, PEC_ALIBI_SYMMETRIC, q, k.data()};
  for (auto _ : st) {
    const auto s = po::alibi_block(a, po::Format::F32, out.data(), nullptr);
    benchmark::DoNotOptimize(s.elements);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) * nh * nk);
}
BENCHMARK(BM_AlibiRows)->Args({1024, 8})->Args({1024, 12});

// A T5 row: buckets of 1024 relative positions (32 buckets, max_distance 128, bidirectional).
void BM_T5Row(benchmark::State& st) {
  const auto k = positions(1024, 6);
  for (auto _ : st) {
    std::int64_t acc = 0;
    for (std::int64_t j = 0; j < 1024; ++j) acc += po::t5_bucket(k[j] - (std::int64_t{1} << 30), 32, 128, true).bucket;
    benchmark::DoNotOptimize(acc);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) * 1024);
}
BENCHMARK(BM_T5Row);

}  // namespace

BENCHMARK_MAIN();
