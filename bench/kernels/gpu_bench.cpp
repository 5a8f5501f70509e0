// RoPE on a CUDA device, timed with CUDA events against a device-to-device cudaMemcpy of the
// same bytes in the same run (GB/s = bytes read + written per second). Run by
// scripts/gpu-check.sh on a machine with a GPU:
//   gpu_bench [iterations]        prints one table row per configuration
// Shapes are several times the L2 (H200: 60 MB): 8192/32768/65536 tokens x 32 heads x 128.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernels/cuda/cuda_api.hpp"

namespace {

#define CHECK(call)                                                                     \
  do {                                                                                  \
    const cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "gpu_bench: %s failed: %s\n", #call, cudaGetErrorString(e_)); \
      std::exit(2);                                                                     \
    }                                                                                   \
  } while (0)

// Mean milliseconds per call of f over `iters` calls after 3 warm-ups.
template <class F>
float time_ms(int iters, F&& f) {
  for (int i = 0; i < 3; ++i) f();
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  CHECK(cudaEventRecord(a));
  for (int i = 0; i < iters; ++i) f();
  CHECK(cudaEventRecord(b));
  CHECK(cudaEventSynchronize(b));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, a, b));
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return ms / static_cast<float>(iters);
}

}  // namespace

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 20;
  std::string reason;
  if (!pecheck::kernels::cuda::device_available(reason)) {
    std::fprintf(stderr, "gpu_bench: %s\n", reason.c_str());
    return 2;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20);
  std::printf("%-8s %-6s %-4s %-8s %10s %10s %10s %8s\n", "tokens", "layout", "rot", "inplace",
              "rope_us", "rope_GB/s", "copy_GB/s", "ratio");
  const std::int64_t H = 32, D = 128;
  for (std::int64_t T : {8192, 32768, 65536}) {
    const std::size_t n = static_cast<std::size_t>(T * H * D);
    const double bytes = 2.0 * static_cast<double>(n) * sizeof(float);
    float *dx = nullptr, *dy = nullptr;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMemset(dx, 0x3c, n * sizeof(float)));
    const float copy_ms = time_ms(iters, [&] {
      CHECK(cudaMemcpy(dy, dx, n * sizeof(float), cudaMemcpyDeviceToDevice));
    });
    const double copy_gbs = bytes / (copy_ms * 1e-3) / 1e9;
    std::vector<std::int64_t> pos(static_cast<std::size_t>(T));
    for (std::int64_t i = 0; i < T; ++i) pos[static_cast<std::size_t>(i)] = 1000000 + i;
    for (std::int32_t layout : {PEC_ROPE_NEOX, PEC_ROPE_GPTJ}) {
      for (std::int64_t rot : {128, 64}) {
        for (bool inplace : {false, true}) {
          pec_rope_args a{T, H, D, rot, layout, 10000.0, 1.0, pos.data(), nullptr};
          pecheck::kernels::cuda::DeviceRope rope;
          if (rope.prepare(a) != 0) {
            std::fprintf(stderr, "gpu_bench: prepare failed\n");
            return 1;
          }
          float* out = inplace ? dx : dy;
          const float ms = time_ms(iters, [&] {
            if (rope.run(dx, out) != 0) {
              std::fprintf(stderr, "gpu_bench: launch failed\n");
              std::exit(1);
            }
          });
          // In place with partial rotary moves only the rotated lanes; count what is moved.
          const double moved = inplace ? bytes * static_cast<double>(rot) / static_cast<double>(D) : bytes;
          const double gbs = moved / (ms * 1e-3) / 1e9;
          std::printf("%-8lld %-6s %-4lld %-8s %10.1f %10.1f %10.1f %8.2f\n", static_cast<long long>(T),
                      layout == PEC_ROPE_NEOX ? "neox" : "gptj", static_cast<long long>(rot),
                      inplace ? "yes" : "no", ms * 1e3, gbs, copy_gbs, gbs / copy_gbs);
        }
      }
    }
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
  }
  return 0;
}
