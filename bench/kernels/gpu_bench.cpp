// RoPE on a CUDA device (Google Benchmark, manual time from CUDA events) against a
// device-to-device cudaMemcpy of the same bytes measured in the same benchmark, so every row
// carries its own ratio (GB/s = bytes read + written per second). Run by scripts/gpu-check.sh
// on a machine with a GPU:
//   bench_kernels_gpu [--benchmark_* flags]
// Shapes are several times the L2 (H200: 60 MB): 8192/32768/65536 tokens x 32 heads x 128.
// Without a usable device it prints the reason and exits 77 (skipped), never a number.
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels/cuda/cuda_api.hpp"

namespace {

#define CHECK(call)                                                                          \
  do {                                                                                       \
    const cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "bench_kernels_gpu: %s failed: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(2);                                                                          \
    }                                                                                        \
  } while (0)

class Events {
 public:
  Events() {
    CHECK(cudaEventCreate(&a_));
    CHECK(cudaEventCreate(&b_));
  }
  ~Events() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  // Milliseconds of one call of f, from events around it on the default stream.
  template <class F>
  float time_ms(F&& f) {
    CHECK(cudaEventRecord(a_));
    f();
    CHECK(cudaEventRecord(b_));
    CHECK(cudaEventSynchronize(b_));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a_, b_));
    return ms;
  }

 private:
  cudaEvent_t a_{}, b_{};
};

constexpr std::int64_t kHeads = 32, kHeadDim = 128;

// args: tokens, layout, rotary_dim, in place (0/1)
void BM_RopeVsCopy(benchmark::State& state) {
  const std::int64_t T = state.range(0);
  const auto layout = static_cast<std::int32_t>(state.range(1));
  const std::int64_t rot = state.range(2);
  const bool inplace = state.range(3) != 0;
  const std::size_t n = static_cast<std::size_t>(T * kHeads * kHeadDim);
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(float);
  float *dx = nullptr, *dy = nullptr;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemset(dx, 0x3c, n * sizeof(float)));
  std::vector<std::int64_t> pos(static_cast<std::size_t>(T));
  for (std::int64_t i = 0; i < T; ++i) pos[static_cast<std::size_t>(i)] = 1000000 + i;
  pec_rope_args a{T, kHeads, kHeadDim, rot, layout, 10000.0, 1.0, pos.data(), nullptr};
  pecheck::kernels::cuda::DeviceRope rope;
  if (rope.prepare(a) != 0) {
    state.SkipWithError("DeviceRope::prepare failed");
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    return;
  }
  float* out = inplace ? dx : dy;
  auto run_rope = [&] {
    if (rope.run(dx, out) != 0) {
      std::fprintf(stderr, "bench_kernels_gpu: launch failed\n");
      std::exit(1);
    }
  };
  auto run_copy = [&] { CHECK(cudaMemcpy(dy, dx, n * sizeof(float), cudaMemcpyDeviceToDevice)); };
  Events ev;
  for (int i = 0; i < 3; ++i) {  // warm-up
    run_rope();
    run_copy();
  }
  double rope_ms = 0, copy_ms = 0;
  std::int64_t calls = 0;
  for (auto _ : state) {
    const float r = ev.time_ms(run_rope);
    copy_ms += ev.time_ms(run_copy);  // interleaved: both see the same clocks and neighbours
    rope_ms += r;
    ++calls;
    state.SetIterationTime(static_cast<double>(r) * 1e-3);
  }
  // In place with partial rotary moves only the rotated lanes; count what is moved.
  const double moved =
      inplace ? bytes * static_cast<double>(rot) / static_cast<double>(kHeadDim) : bytes;
  const double rope_gbs = moved * static_cast<double>(calls) / (rope_ms * 1e-3) / 1e9;
  const double copy_gbs = bytes * static_cast<double>(calls) / (copy_ms * 1e-3) / 1e9;
  state.counters["rope_GB/s"] = rope_gbs;
  state.counters["copy_GB/s"] = copy_gbs;
  state.counters["ratio"] = rope_gbs / copy_gbs;
  state.SetLabel(std::string(layout == PEC_ROPE_NEOX ? "neox" : "gptj") + " rot " +
                 std::to_string(rot) + (inplace ? " in place" : ""));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  std::string reason;
  if (!pecheck::kernels::cuda::device_available(reason)) {
    std::fprintf(stderr, "bench_kernels_gpu: SKIPPED: %s\n", reason.c_str());
    return 77;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  benchmark::AddCustomContext("device", std::string(prop.name) + ", " +
                                            std::to_string(prop.multiProcessorCount) + " SMs, L2 " +
                                            std::to_string(prop.l2CacheSize >> 20) + " MiB");
  auto* b = benchmark::RegisterBenchmark("BM_RopeVsCopy", BM_RopeVsCopy);
  for (std::int64_t T : {8192, 32768, 65536}) {
    for (std::int64_t layout : {PEC_ROPE_NEOX, PEC_ROPE_GPTJ}) {
      for (std::int64_t rot : {128, 64}) {
        for (std::int64_t inplace : {0, 1}) b->Args({T, layout, rot, inplace});
      }
    }
  }
  b->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.2);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
