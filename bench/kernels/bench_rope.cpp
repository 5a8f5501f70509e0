// RoPE throughput of pecheck_simd against the machine's copy bandwidth and a straightforward
// scalar kernel with a cos/sin table, all in one run (ratios are what to read: these
// machines are noisy). GB/s counts bytes read + written (x read, y written: 8 bytes/element).
//
//   build-kernels/bench/kernels/bench_kernels_rope --benchmark_counters_tabular=true
//
// Shapes: 8192 x 32 x 128 (out of cache, 128 MiB per tensor) and 256 x 32 x 128 (4 MiB, in
// cache); NEOX and GPT-J; full (128) and half (64) rotary; 1 and 2 threads (tokens split).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "kernels/simd/simd.hpp"

namespace {

using pecheck::kernels::simd::Path;

constexpr std::int64_t kHeads = 32, kDim = 128;

struct Tensors {
  std::int64_t tokens = 0;
  float* x = nullptr;
  float* y = nullptr;
  std::vector<std::int64_t> pos;
  ~Tensors() {
    std::free(x);
    std::free(y);
  }
};

// One pair of 64-byte aligned tensors per token count, shared by all benchmarks.
Tensors& tensors(std::int64_t tokens) {
  static std::map<std::int64_t, std::unique_ptr<Tensors>> all;
  auto& t = all[tokens];
  if (!t) {
    t = std::make_unique<Tensors>();
    t->tokens = tokens;
    const std::size_t n = static_cast<std::size_t>(tokens * kHeads * kDim);
    t->x = static_cast<float*>(std::aligned_alloc(64, n * sizeof(float)));
    t->y = static_cast<float*>(std::aligned_alloc(64, n * sizeof(float)));
    for (std::size_t i = 0; i < n; ++i) {
      t->x[i] = static_cast<float>(i % 1000) * 1e-3f - 0.5f;
      t->y[i] = 0.0f;
    }
    for (std::int64_t i = 0; i < tokens; ++i) t->pos.push_back(100000 + i);
  }
  return *t;
}

// The token range of this benchmark thread (tokens split evenly across threads).
void my_range(const benchmark::State& st, std::int64_t tokens, std::int64_t& t0, std::int64_t& t1) {
  const std::int64_t per = tokens / st.threads();
  t0 = per * st.thread_index();
  t1 = st.thread_index() + 1 == st.threads() ? tokens : t0 + per;
}

void set_bytes(benchmark::State& st, std::int64_t t0, std::int64_t t1) {
  const double bytes = static_cast<double>((t1 - t0) * kHeads * kDim) * 2.0 * sizeof(float);
  st.SetBytesProcessed(static_cast<std::int64_t>(bytes) * st.iterations());
  st.counters["GB/s"] = benchmark::Counter(bytes * static_cast<double>(st.iterations()) / 1e9,
                                           benchmark::Counter::kIsRate);
}

// args: tokens
void BM_Memcpy(benchmark::State& st) {
  Tensors& t = tensors(st.range(0));
  std::int64_t t0, t1;
  my_range(st, t.tokens, t0, t1);
  const std::size_t off = static_cast<std::size_t>(t0 * kHeads * kDim);
  const std::size_t bytes = static_cast<std::size_t>((t1 - t0) * kHeads * kDim) * sizeof(float);
  for (auto _ : st) {
    std::memcpy(t.y + off, t.x + off, bytes);
    benchmark::ClobberMemory();
  }
  set_bytes(st, t0, t1);
}

// args: tokens, layout, rotary_dim, path
void BM_RopeSimd(benchmark::State& st) {
  Tensors& t = tensors(st.range(0));
  const auto path = static_cast<Path>(st.range(3));
  if (!pecheck::kernels::simd::cpu_has(path)) {
    st.SkipWithError(pecheck::kernels::simd::missing_reason(path).c_str());
    return;
  }
  std::int64_t t0, t1;
  my_range(st, t.tokens, t0, t1);
  const std::size_t off = static_cast<std::size_t>(t0 * kHeads * kDim);
  pec_rope_args a{t1 - t0, kHeads, kDim, st.range(2), static_cast<std::int32_t>(st.range(1)),
                  10000.0, 1.0, t.pos.data() + t0, nullptr};
  for (auto _ : st) {
    if (pecheck::kernels::simd::rope_f32(path, &a, t.x + off, t.y + off) != 0) {
      st.SkipWithError("rope_f32 rejected the call");
      break;
    }
    benchmark::ClobberMemory();
  }
  set_bytes(st, t0, t1);
}

// The cos/sin part alone: one head of rotary_dim lanes per token, so the angle, its
// reduction and the polynomials dominate. ns_per_token next to BM_RopeSimd's time per token
// (time / tokens) says how much of a call the sin/cos costs. args: path
void BM_RopeSinCosOnly(benchmark::State& st) {
  const auto path = static_cast<Path>(st.range(0));
  if (!pecheck::kernels::simd::cpu_has(path)) {
    st.SkipWithError(pecheck::kernels::simd::missing_reason(path).c_str());
    return;
  }
  const std::int64_t T = 256;
  Tensors& t = tensors(T);
  pec_rope_args a{T, 1, kDim, kDim, PEC_ROPE_NEOX, 10000.0, 1.0, t.pos.data(), nullptr};
  for (auto _ : st) {
    pecheck::kernels::simd::rope_f32(path, &a, t.x, t.y);
    benchmark::ClobberMemory();
  }
  st.counters["ns_per_token"] = benchmark::Counter(static_cast<double>(T) * static_cast<double>(st.iterations()),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Streaming stores forced off (0) or on (1) for the best path, NEOX, full rotary: the data
// behind the automatic threshold (simd::kStreamMinBytes). args: tokens, stream
void BM_RopeStream(benchmark::State& st) {
  Tensors& t = tensors(st.range(0));
  const Path path = pecheck::kernels::simd::cpu_has(Path::Avx512) ? Path::Avx512 : Path::Avx2;
  pecheck::kernels::simd::set_stream_mode(static_cast<int>(st.range(1)));
  pec_rope_args a{t.tokens, kHeads, kDim, kDim, PEC_ROPE_NEOX, 10000.0, 1.0, t.pos.data(), nullptr};
  for (auto _ : st) {
    pecheck::kernels::simd::rope_f32(path, &a, t.x, t.y);
    benchmark::ClobberMemory();
  }
  pecheck::kernels::simd::set_stream_mode(-1);
  set_bytes(st, 0, t.tokens);
}

// The baseline a user writes: a float cos/sin table [token][freq] built once (outside the
// timing), then a plain scalar loop per (token, head, pair).
void BM_RopeScalarTable(benchmark::State& st) {
  Tensors& t = tensors(st.range(0));
  const std::int64_t rot = st.range(2), half = rot / 2;
  const bool neox = st.range(1) == PEC_ROPE_NEOX;
  std::vector<float> ct(static_cast<std::size_t>(t.tokens * half)), stab(ct.size());
  for (std::int64_t i = 0; i < t.tokens; ++i) {
    for (std::int64_t j = 0; j < half; ++j) {
      const float f = std::pow(10000.0f, -2.0f * static_cast<float>(j) / static_cast<float>(rot));
      const float ang = static_cast<float>(t.pos[static_cast<std::size_t>(i)]) * f;
      ct[static_cast<std::size_t>(i * half + j)] = std::cos(ang);
      stab[static_cast<std::size_t>(i * half + j)] = std::sin(ang);
    }
  }
  std::int64_t t0, t1;
  my_range(st, t.tokens, t0, t1);
  for (auto _ : st) {
    for (std::int64_t tok = t0; tok < t1; ++tok) {
      const float* c = &ct[static_cast<std::size_t>(tok * half)];
      const float* s = &stab[static_cast<std::size_t>(tok * half)];
      for (std::int64_t h = 0; h < kHeads; ++h) {
        const float* x = t.x + (tok * kHeads + h) * kDim;
        float* y = t.y + (tok * kHeads + h) * kDim;
        for (std::int64_t j = 0; j < half; ++j) {
          const std::int64_t a = neox ? j : 2 * j, b = neox ? j + half : 2 * j + 1;
          y[a] = x[a] * c[j] - x[b] * s[j];
          y[b] = x[b] * c[j] + x[a] * s[j];
        }
        for (std::int64_t j = rot; j < kDim; ++j) y[j] = x[j];
      }
    }
    benchmark::ClobberMemory();
  }
  set_bytes(st, t0, t1);
}

void rope_args(benchmark::internal::Benchmark* b, bool with_path) {
  for (std::int64_t tokens : {8192, 256}) {
    for (std::int64_t layout : {PEC_ROPE_NEOX, PEC_ROPE_GPTJ}) {
      for (std::int64_t rot : {128, 64}) {
        if (with_path) {
          for (Path p : pecheck::kernels::simd::kAllPaths) b->Args({tokens, layout, rot, static_cast<std::int64_t>(p)});
        } else {
          b->Args({tokens, layout, rot});
        }
      }
    }
  }
  b->ArgNames(with_path ? std::vector<std::string>{"tokens", "layout", "rot", "path"}
                        : std::vector<std::string>{"tokens", "layout", "rot"});
}

BENCHMARK(BM_Memcpy)->ArgName("tokens")->Arg(8192)->Arg(256)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_RopeSimd)->Apply([](auto* b) { rope_args(b, true); })->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_RopeSinCosOnly)->ArgName("path")->DenseRange(0, 2)->UseRealTime();
BENCHMARK(BM_RopeStream)->ArgNames({"tokens", "stream"})->ArgsProduct({{8192, 256}, {0, 1}})->UseRealTime();
BENCHMARK(BM_RopeScalarTable)->Apply([](auto* b) { rope_args(b, false); })->Threads(1)->Threads(2)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
