// pecheck_cuda device kernels: thin __global__ wrappers around the per-thread bodies of
// src/kernels/shared/grid.hpp (the same functions the host emulation runs). Compiled with
// -fmad=false and without fast math: the only fused operations are the explicit ffma
// (__fma_rn) of the double-double angle; tests/kernels inspects the PTX for that.
#include <cuda_runtime.h>

#include "kernels/common/plans.hpp"
#include "kernels/cuda/cuda_api.hpp"

namespace pecheck::kernels::cuda {
namespace {

constexpr unsigned kBlock = 256;

template <class I>
__global__ void rope_table_kernel(grid::RopeDev p, const uint8_t* host_rows) {
  grid::rope_table_thread<I>({blockIdx.x, blockDim.x, threadIdx.x}, p, host_rows);
}
template <class I>
__global__ void rope_rotate_kernel(grid::RopeDev p, const float* x, float* y) {
  grid::rope_rotate_thread<I>({blockIdx.x, blockDim.x, threadIdx.x}, p, x, y);
}
template <class I>
__global__ void rope_pass_kernel(grid::RopeDev p, const float* x, float* y) {
  grid::rope_pass_thread<I>({blockIdx.x, blockDim.x, threadIdx.x}, p, x, y);
}
template <class I>
__global__ void rope_rotate4_kernel(grid::RopeDev p, const float* x, float* y, bool copy_pass) {
  grid::rope_rotate4_thread<I>({blockIdx.x, blockDim.x, threadIdx.x}, p, x, y, copy_pass);
}
template <class I>
__global__ void alibi_kernel(grid::AlibiDev p, float* scores) {
  grid::alibi_thread<I>({blockIdx.x, blockDim.x, threadIdx.x}, p, scores);
}
template <class I>
__global__ void t5_kernel(grid::T5Dev p, float* bias) {
  grid::t5_thread<I>({blockIdx.x, blockDim.x, threadIdx.x}, p, bias);
}

unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

// 32-bit indices when every index (and the grid) fits; the grid's x dimension allows 2^31-1.
bool fits32(int64_t n) { return n < (int64_t{1} << 31) - static_cast<int64_t>(kBlock); }

int status() { return cudaGetLastError() == cudaSuccess ? kOk : kNoDevice; }

}  // namespace

int launch_rope(const grid::RopeDev& p, const uint8_t* d_host_rows, const float* d_x, float* d_y) {
  const int64_t n_table = p.n_tokens * p.half;
  const int64_t n_pairs = p.n_tokens * p.n_heads * p.half;
  const int64_t n_pass = p.n_tokens * p.n_heads * (p.head_dim - p.rotary_dim);
  const int64_t n_all = p.n_tokens * p.n_heads * p.head_dim;
  if (n_all == 0) return kOk;
  if (!fits32(n_all)) return kInvalidArgument;  // beyond one 1-D grid
  rope_table_kernel<uint32_t><<<blocks_for(n_table), kBlock>>>(p, d_host_rows);
  if (grid::rope4_applies(p, d_x, d_y)) {
    const bool copy_pass = d_x != d_y;
    const int64_t n4 = p.n_tokens * p.n_heads * grid::rope4_items_per_row(p, copy_pass);
    rope_rotate4_kernel<uint32_t><<<blocks_for(n4), kBlock>>>(p, d_x, d_y, copy_pass);
    return status();
  }
  rope_rotate_kernel<uint32_t><<<blocks_for(n_pairs), kBlock>>>(p, d_x, d_y);
  if (n_pass > 0 && d_x != d_y) rope_pass_kernel<uint32_t><<<blocks_for(n_pass), kBlock>>>(p, d_x, d_y);
  return status();
}

int launch_alibi(const grid::AlibiDev& p, float* d_scores) {
  const int64_t n = p.n_heads * p.n_q * p.n_k;
  if (n == 0) return kOk;
  if (!fits32(n)) return kInvalidArgument;
  alibi_kernel<uint32_t><<<blocks_for(n), kBlock>>>(p, d_scores);
  return status();
}

int launch_t5(const grid::T5Dev& p, float* d_bias) {
  const int64_t n = p.n_heads * p.n_q * p.n_k;
  if (n == 0) return kOk;
  if (!fits32(n)) return kInvalidArgument;
  t5_kernel<uint32_t><<<blocks_for(n), kBlock>>>(p, d_bias);
  return status();
}

}  // namespace pecheck::kernels::cuda
