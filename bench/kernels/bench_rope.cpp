// RoPE throughput of pecheck_simd against glibc memcpy of the same bytes, measured in the same
// benchmark: every iteration copies x -> y with memcpy and then runs the kernel x -> y, each
// timed on its own (steady_clock), so the two see the same machine state and every row carries
// its own ratio (load on these shared VMs drifts within seconds; ratios are what to read).
// GB/s counts bytes read + written (x read, y written: 8 bytes per element).
//
//   bench_kernels_rope --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//                      --benchmark_out=rope.json --benchmark_out_format=json
//   python3 bench/kernels/rope_table.py rope.json [--readme README.md]   # the README tables
//
// The JSON context carries the CPU model (/proc/cpuinfo), the path pec_rope_f32 dispatches to,
// the streaming-store threshold and the load average at start; BM_LoadAverage, registered last,
// records the load average at the end of the run.
//
// Rows (32 heads x 128 lanes; 8192 tokens = 128 MiB per tensor, out of cache; 256 tokens =
// 4 MiB, in cache; NEOX and GPT-J; rotary 128 and 64; one thread):
//   BM_Rope/.../impl:auto     the exported pec_rope_f32 (dispatch, automatic streaming stores)
//   BM_Rope/.../impl:scalar|avx2|avx512   one code path, automatic streaming stores
//   BM_Rope/.../impl:table    the loop a user writes with a precomputed float cos/sin table
//   BM_RopeStream/...         avx512 (else avx2) with streaming stores off and on in the same
//                             iteration: the data behind simd::kStreamMinBytes, by size (from
//                             16 MiB per tensor: with an in-cache y, the streamed variant
//                             would evict it and slow the next iteration's memcpy)
//   BM_RopeCached/...         pec_rope_cached_f32 (ABI version 2, issue 15 item 2): q [8192][32][128]
//                             and k [8192][8][128] (GQA 4:1) rotated out of place from a float32
//                             cos/sin cache [108192][rotary] built by pec_rope_cache_f32 outside
//                             the timing (positions 100000 + t, so every token reads its own
//                             row), paired with memcpy of q and k in the same iteration;
//                             fn:1 is pec_rope_qk_f32 on the same tensors (angles computed)
// A new implementation is one more impl id (kImplNames, rope_args), a branch in BM_Rope's timed
// lambda and a column in rope_table.py: the memcpy pairing, the ratio and the JSON come with it.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/simd/simd.hpp"

namespace {

using pecheck::kernels::simd::Path;
namespace simd = pecheck::kernels::simd;

constexpr std::int64_t kHeads = 32, kDim = 128;

struct Tensors {
  std::int64_t tokens = 0;
  std::size_t bytes = 0;  // per tensor
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
    t->bytes = n * sizeof(float);
    t->x = static_cast<float*>(std::aligned_alloc(64, t->bytes));
    t->y = static_cast<float*>(std::aligned_alloc(64, t->bytes));
    for (std::size_t i = 0; i < n; ++i) {
      t->x[i] = static_cast<float>(i % 1000) * 1e-3f - 0.5f;
      t->y[i] = 0.0f;
    }
    for (std::int64_t i = 0; i < tokens; ++i) t->pos.push_back(100000 + i);
  }
  return *t;
}

double seconds_since(std::chrono::steady_clock::time_point a) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
}

// Per-iteration pairing of memcpy and one or more kernel variants. Manual time = the first
// variant's time; counters: GB/s of memcpy and of each variant, and ratio = memcpy time /
// variant time over the whole repetition.
struct Paired {
  double t_copy = 0;
  std::vector<double> t_var;
  explicit Paired(std::size_t n) : t_var(n, 0.0) {}
  template <class... F>
  bool iterate(benchmark::State& st, const Tensors& t, F&&... variants) {
    auto c0 = std::chrono::steady_clock::now();
    std::memcpy(t.y, t.x, t.bytes);
    benchmark::ClobberMemory();
    t_copy += seconds_since(c0);
    std::size_t i = 0;
    double first = 0;
    bool ok = true;
    auto one = [&](auto&& f) {
      const auto v0 = std::chrono::steady_clock::now();
      ok = f() && ok;
      benchmark::ClobberMemory();
      const double d = seconds_since(v0);
      t_var[i] += d;
      if (i++ == 0) first = d;
    };
    (one(variants), ...);
    st.SetIterationTime(first);
    return ok;
  }
  void report(benchmark::State& st, const Tensors& t, const std::vector<std::string>& names) {
    const double moved = 2.0 * static_cast<double>(t.bytes) * static_cast<double>(st.iterations());
    st.SetBytesProcessed(static_cast<std::int64_t>(moved));
    st.counters["memcpy_GB/s"] = moved / t_copy / 1e9;
    for (std::size_t i = 0; i < names.size(); ++i) {
      st.counters["GB/s" + names[i]] = moved / t_var[i] / 1e9;
      st.counters["ratio" + names[i]] = t_copy / t_var[i];
    }
  }
};

// The baseline a user writes: a float cos/sin table [token][freq] built once (outside the
// timing), then a plain scalar loop per (token, head, pair).
struct TableRope {
  std::vector<float> ct, stab;
  std::int64_t half = 0;
  bool neox = true;
  TableRope(const Tensors& t, std::int64_t rot, bool neox_layout)
      : half(rot / 2), neox(neox_layout) {
    ct.resize(static_cast<std::size_t>(t.tokens * half));
    stab.resize(ct.size());
    for (std::int64_t i = 0; i < t.tokens; ++i) {
      for (std::int64_t j = 0; j < half; ++j) {
        const float f = std::pow(10000.0f, -2.0f * static_cast<float>(j) / static_cast<float>(rot));
        const float ang = static_cast<float>(t.pos[static_cast<std::size_t>(i)]) * f;
        ct[static_cast<std::size_t>(i * half + j)] = std::cos(ang);
        stab[static_cast<std::size_t>(i * half + j)] = std::sin(ang);
      }
    }
  }
  void run(const Tensors& t) const {
    const std::int64_t rot = 2 * half;
    for (std::int64_t tok = 0; tok < t.tokens; ++tok) {
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
  }
};

// impl ids: 0..2 = simd::Path, 3 = auto (pec_rope_f32), 4 = table.
constexpr std::int64_t kAuto = 3, kTable = 4;
const char* const kImplNames[] = {"scalar", "avx2", "avx512", "auto", "table"};

// args: tokens, layout, rot, impl
void BM_Rope(benchmark::State& st) {
  Tensors& t = tensors(st.range(0));
  const std::int64_t layout = st.range(1), rot = st.range(2), impl = st.range(3);
  if (impl <= 2 && !simd::cpu_has(static_cast<Path>(impl))) {
    st.SkipWithError(simd::missing_reason(static_cast<Path>(impl)).c_str());
    return;
  }
  const pec_rope_args a{t.tokens, kHeads, kDim,         rot,    static_cast<std::int32_t>(layout),
                        10000.0,  1.0,    t.pos.data(), nullptr};
  std::unique_ptr<TableRope> table;
  if (impl == kTable) table = std::make_unique<TableRope>(t, rot, layout == PEC_ROPE_NEOX);
  Paired p(1);
  for (auto _ : st) {
    const bool ok = p.iterate(st, t, [&] {
      if (impl == kTable) {
        table->run(t);
        return true;
      }
      if (impl == kAuto) return pec_rope_f32(&a, t.x, t.y) == 0;
      return simd::rope_f32(static_cast<Path>(impl), &a, t.x, t.y) == 0;
    });
    if (!ok) {
      st.SkipWithError("the kernel rejected the call");
      return;
    }
  }
  p.report(st, t, {""});
  st.SetLabel(kImplNames[impl]);
}

// Streaming stores off and on, same iteration (best path, NEOX or GPT-J, full rotary).
// args: tokens, layout
void BM_RopeStream(benchmark::State& st) {
  Tensors& t = tensors(st.range(0));
  const Path path = simd::cpu_has(Path::Avx512) ? Path::Avx512 : Path::Avx2;
  const pec_rope_args a{
      t.tokens, kHeads, kDim,         kDim,   static_cast<std::int32_t>(st.range(1)),
      10000.0,  1.0,    t.pos.data(), nullptr};
  Paired p(2);
  auto with = [&](int mode) {
    simd::set_stream_mode(mode);
    const bool ok = simd::rope_f32(path, &a, t.x, t.y) == 0;
    simd::set_stream_mode(-1);
    return ok;
  };
  for (auto _ : st)
    p.iterate(
        st, t, [&] { return with(0); }, [&] { return with(1); });
  p.report(st, t, {"_off", "_on"});
  st.SetLabel(simd::to_string(path));
}

// Key tensor and key output of BM_RopeCached: [tokens][kKvHeads][kDim], 64-byte aligned.
constexpr std::int64_t kKvHeads = 8;
struct KeyTensors {
  std::size_t bytes = 0;
  float* k = nullptr;
  float* k_out = nullptr;
  ~KeyTensors() {
    std::free(k);
    std::free(k_out);
  }
};
KeyTensors& key_tensors(std::int64_t tokens) {
  static std::map<std::int64_t, std::unique_ptr<KeyTensors>> all;
  auto& t = all[tokens];
  if (!t) {
    t = std::make_unique<KeyTensors>();
    const std::size_t n = static_cast<std::size_t>(tokens * kKvHeads * kDim);
    t->bytes = n * sizeof(float);
    t->k = static_cast<float*>(std::aligned_alloc(64, t->bytes));
    t->k_out = static_cast<float*>(std::aligned_alloc(64, t->bytes));
    for (std::size_t i = 0; i < n; ++i) {
      t->k[i] = static_cast<float>(i % 777) * 1e-3f - 0.3f;
      t->k_out[i] = 0.0f;
    }
  }
  return *t;
}

// The float32 cos/sin cache for positions [0, rows), built once per rotary width.
const std::vector<float>& cos_sin_cache(std::int64_t rot, std::int64_t rows) {
  static std::map<std::int64_t, std::vector<float>> all;
  auto& c = all[rot];
  if (c.empty()) {
    c.resize(static_cast<std::size_t>(rows * rot));
    const pec_rope_cache_args a{rows, rot, 10000.0, 1.0, 1.0, nullptr};
    if (pec_rope_cache_f32(&a, c.data()) != 0) c.clear();
  }
  return c;
}

// args: tokens, layout, rot, fn (0: pec_rope_cached_f32, 1: pec_rope_qk_f32 on the same tensors,
// its angles computed per token: the cost the cache saves)
void BM_RopeCached(benchmark::State& st) {
  Tensors& t = tensors(st.range(0));
  KeyTensors& k = key_tensors(st.range(0));
  const std::int64_t layout = st.range(1), rot = st.range(2);
  const std::int64_t rows = t.pos.back() + 1;
  const std::vector<float>& cache = cos_sin_cache(rot, rows);
  if (cache.empty()) {
    st.SkipWithError("pec_rope_cache_f32 rejected the call");
    return;
  }
  const pec_strides sq{kHeads * kDim, kDim}, sk{kKvHeads * kDim, kDim};
  const pec_rope_cached_args a{t.tokens, kHeads, kKvHeads, kDim, rot, static_cast<std::int32_t>(layout),
                               PEC_DTYPE_F32, rows, cache.data(), t.pos.data(), sq, sk, sq, sk};
  const pec_rope_qk_args qa{t.tokens, kHeads, kKvHeads, kDim, rot, static_cast<std::int32_t>(layout),
                            10000.0, 1.0, 1.0, t.pos.data(), nullptr, sq, sk, sq, sk};
  const bool qk = st.range(3) == 1;
  double t_copy = 0, t_kernel = 0;
  for (auto _ : st) {
    const auto c0 = std::chrono::steady_clock::now();
    std::memcpy(t.y, t.x, t.bytes);
    std::memcpy(k.k_out, k.k, k.bytes);
    benchmark::ClobberMemory();
    t_copy += seconds_since(c0);
    const auto v0 = std::chrono::steady_clock::now();
    const bool ok = (qk ? pec_rope_qk_f32(&qa, t.x, k.k, t.y, k.k_out)
                        : pec_rope_cached_f32(&a, t.x, k.k, t.y, k.k_out)) == 0;
    benchmark::ClobberMemory();
    const double d = seconds_since(v0);
    t_kernel += d;
    st.SetIterationTime(d);
    if (!ok) {
      st.SkipWithError("the kernel rejected the call");
      return;
    }
  }
  const double moved = 2.0 * static_cast<double>(t.bytes + k.bytes) * static_cast<double>(st.iterations());
  st.SetBytesProcessed(static_cast<std::int64_t>(moved));
  st.counters["memcpy_GB/s"] = moved / t_copy / 1e9;
  st.counters["GB/s"] = moved / t_kernel / 1e9;
  st.counters["ratio"] = t_copy / t_kernel;
  st.SetLabel(std::string(qk ? "qk " : "cached ") + pecheck_simd_path());
}

// M-RoPE (pec_mrope_f32) on the tensors of BM_RopeCached (q 32 heads, k 8, head_dim 128,
// theta 1e6), against memcpy of the same bytes and pec_rope_qk_f32 in the same run.
// args: mrope (0 sectioned [16, 24, 24], 1 interleaved [24, 20, 20]), rows (0 text: t = h = w,
// 1 image grids: a 1 x 32 x 32 grid of patches after every 64 text tokens, the rows differ),
// fn (0 pec_mrope_f32, 1 pec_rope_qk_f32 at the t row)
void BM_Mrope(benchmark::State& st) {
  Tensors& t = tensors(st.range(0));
  KeyTensors& k = key_tensors(st.range(0));
  const bool inter = st.range(1) == 1, image = st.range(2) == 1, qk = st.range(3) == 1;
  const std::int64_t T = t.tokens;
  std::vector<std::int64_t> pos(static_cast<std::size_t>(3 * T));
  std::int64_t s = 0;
  for (std::int64_t i = 0; i < T;) {  // text, then an image grid at (s, s + h, s + w), ...
    for (int j = 0; j < 64 && i < T; ++j, ++i, ++s) pos[i] = pos[T + i] = pos[2 * T + i] = s;
    if (!image) continue;
    for (std::int64_t h = 0; h < 32 && i < T; ++h)
      for (std::int64_t w = 0; w < 32 && i < T; ++w, ++i)
        pos[i] = s, pos[T + i] = s + h, pos[2 * T + i] = s + w;
    s += 32;
  }
  const pec_strides sq{kHeads * kDim, kDim}, sk{kKvHeads * kDim, kDim};
  pec_mrope_args a{};
  a.n_tokens = T, a.n_q_heads = kHeads, a.n_kv_heads = kKvHeads, a.head_dim = kDim, a.rotary_dim = kDim;
  a.layout = PEC_ROPE_NEOX;
  a.mrope_layout = inter ? PEC_MROPE_INTERLEAVED : PEC_MROPE_SECTIONED;
  a.mrope_section[0] = inter ? 24 : 16, a.mrope_section[1] = inter ? 20 : 24, a.mrope_section[2] = inter ? 20 : 24;
  a.theta_base = 1e6, a.position_scale = 1.0, a.attn_factor = 1.0;
  a.positions = pos.data();
  a.q = a.q_out = sq, a.k = a.k_out = sk;
  const pec_rope_qk_args qa{T, kHeads, kKvHeads, kDim, kDim, PEC_ROPE_NEOX, 1e6, 1.0, 1.0, pos.data(), nullptr,
                            sq, sk, sq, sk};
  double t_copy = 0, t_kernel = 0;
  for (auto _ : st) {
    const auto c0 = std::chrono::steady_clock::now();
    std::memcpy(t.y, t.x, t.bytes);
    std::memcpy(k.k_out, k.k, k.bytes);
    benchmark::ClobberMemory();
    t_copy += seconds_since(c0);
    const auto v0 = std::chrono::steady_clock::now();
    const bool ok = (qk ? pec_rope_qk_f32(&qa, t.x, k.k, t.y, k.k_out) : pec_mrope_f32(&a, t.x, k.k, t.y, k.k_out)) == 0;
    benchmark::ClobberMemory();
    const double d = seconds_since(v0);
    t_kernel += d;
    st.SetIterationTime(d);
    if (!ok) {
      st.SkipWithError("the kernel rejected the call");
      return;
    }
  }
  const double moved = 2.0 * static_cast<double>(t.bytes + k.bytes) * static_cast<double>(st.iterations());
  st.SetBytesProcessed(static_cast<std::int64_t>(moved));
  st.counters["memcpy_GB/s"] = moved / t_copy / 1e9;
  st.counters["GB/s"] = moved / t_kernel / 1e9;
  st.counters["ratio"] = t_copy / t_kernel;
  st.SetLabel(std::string(qk ? "rope_qk " : "mrope ") + (image ? "image " : "text ") + pecheck_simd_path());
}

// The cos/sin part alone: one head of rotary_dim lanes per token, so the angle, its reduction
// and the polynomials dominate. args: path
void BM_RopeSinCosOnly(benchmark::State& st) {
  const auto path = static_cast<Path>(st.range(0));
  if (!simd::cpu_has(path)) {
    st.SkipWithError(simd::missing_reason(path).c_str());
    return;
  }
  const std::int64_t T = 256;
  Tensors& t = tensors(T);
  pec_rope_args a{T, 1, kDim, kDim, PEC_ROPE_NEOX, 10000.0, 1.0, t.pos.data(), nullptr};
  for (auto _ : st) {
    simd::rope_f32(path, &a, t.x, t.y);
    benchmark::ClobberMemory();
  }
  st.counters["ns_per_token"] =
      benchmark::Counter(static_cast<double>(T) * static_cast<double>(st.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

double load_average() {
  std::ifstream in("/proc/loadavg");
  double l = -1;
  in >> l;
  return l;
}

void BM_LoadAverage(benchmark::State& st) {
  for (auto _ : st) benchmark::DoNotOptimize(st.iterations());
  st.counters["load1"] = load_average();
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto c = line.find(':');
      if (c != std::string::npos) return line.substr(line.find_first_not_of(" \t", c + 1));
    }
  }
  return "unknown";
}

std::string cpu_family() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, fam, model;
  while (std::getline(in, line) && (fam.empty() || model.empty())) {
    const auto c = line.find(':');
    if (c == std::string::npos) continue;
    const std::string v = c + 2 <= line.size() ? line.substr(c + 2) : "";
    if (line.rfind("cpu family", 0) == 0) fam = v;
    if (line.rfind("model\t", 0) == 0) model = v;
  }
  return "family " + fam + " model " + model;
}

void rope_args(benchmark::internal::Benchmark* b) {
  for (std::int64_t tokens : {8192, 256}) {
    for (std::int64_t layout : {PEC_ROPE_NEOX, PEC_ROPE_GPTJ}) {
      for (std::int64_t rot : {128, 64}) {
        for (std::int64_t impl :
             {kAuto, std::int64_t{2}, std::int64_t{1}, std::int64_t{0}, kTable}) {
          b->Args({tokens, layout, rot, impl});
        }
      }
    }
  }
  b->ArgNames({"tokens", "layout", "rot", "impl"});
}

BENCHMARK(BM_Rope)->Apply(rope_args)->UseManualTime();
BENCHMARK(BM_RopeStream)
    ->ArgNames({"tokens", "layout"})
    ->ArgsProduct({{1024, 2048, 4096, 8192}, {PEC_ROPE_NEOX, PEC_ROPE_GPTJ}})
    ->UseManualTime();
BENCHMARK(BM_RopeCached)
    ->ArgNames({"tokens", "layout", "rot", "fn"})
    ->ArgsProduct({{8192}, {PEC_ROPE_NEOX, PEC_ROPE_GPTJ}, {128, 64}, {0, 1}})
    ->UseManualTime();
BENCHMARK(BM_Mrope)
    ->ArgNames({"tokens", "interleaved", "image", "qk"})
    ->ArgsProduct({{8192}, {0, 1}, {0, 1}, {0, 1}})
    ->UseManualTime();
BENCHMARK(BM_RopeSinCosOnly)->ArgName("path")->DenseRange(0, 2)->UseRealTime();
BENCHMARK(BM_LoadAverage)->Iterations(1);

}  // namespace

int main(int argc, char** argv) {
  std::printf("CPU: %s (%s); pec_* dispatch to %s\n", cpu_model().c_str(), cpu_family().c_str(),
              pecheck_simd_path());
  std::fflush(stdout);
  benchmark::AddCustomContext("cpu_model", cpu_model());
  benchmark::AddCustomContext("cpu_family", cpu_family());
  benchmark::AddCustomContext("pec_rope_f32_path", pecheck_simd_path());
  benchmark::AddCustomContext("stream_min_bytes", std::to_string(simd::kStreamMinBytes));
  benchmark::AddCustomContext("load_average_start", std::to_string(load_average()));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
