// pecheck_cuda device kernels of ABI version 2: thin __global__ wrappers around the per-thread
// bodies of src/kernels/shared/grid_v2.hpp (the same functions the host emulation runs), with
// kernels.cu's launch shape: kBlock = 256 threads, blocks_for(n) blocks, 32-bit indices only
// when fits32(n) (the launch PROOF-IDX-2 models for kernels.cu; tests/kernels/test_cuda_ptx.cpp
// checks that these helper lines are textually kernels.cu's and that every launch uses them).
// Compiled with kernels.cu's flags: -fmad=false, no fast math; the PTX inspection covers it.
#include <cuda_runtime.h>

#include "kernels/common/plans.hpp"
#include "kernels/cuda/cuda_api.hpp"

namespace pecheck::kernels::cuda {
namespace {

constexpr unsigned kBlock = 256;

// Version 2 (grid_v2.hpp).
template <class I>
__global__ void table_attn_kernel(grid::TableDev p, const uint8_t* host_rows) {
  grid::table_attn_thread<I>({blockIdx.x, blockDim.x, threadIdx.x}, p, host_rows);
}
template <int F, class I>
__global__ void rotate_kernel(grid::RotDev p, const grid::StoreT<F>* x, grid::StoreT<F>* y) {
  grid::rotate_thread<F, I>({blockIdx.x, blockDim.x, threadIdx.x}, p, x, y);
}
template <int F, class I>
__global__ void cache_row_kernel(grid::TableDev p, grid::StoreT<F>* cache) {
  grid::cache_row_thread<F, I>({blockIdx.x, blockDim.x, threadIdx.x}, p, cache);
}
template <int F, class I>
__global__ void alibi16_kernel(grid::AlibiDev p, uint16_t* scores) {
  grid::alibi16_thread<F, I>({blockIdx.x, blockDim.x, threadIdx.x}, p, scores);
}
template <class I>
__global__ void t5_16_kernel(grid::T5Dev16 p, uint16_t* bias) {
  grid::t5_16_thread<I>({blockIdx.x, blockDim.x, threadIdx.x}, p, bias);
}
template <int F, class I>
__global__ void sinusoidal16_kernel(grid::TableDev p, uint16_t* out) {
  grid::sinusoidal16_thread<F, I>({blockIdx.x, blockDim.x, threadIdx.x}, p, out);
}
template <class I>
__global__ void learned16_kernel(grid::LearnedDev16 p, uint16_t* out) {
  grid::learned16_thread<I>({blockIdx.x, blockDim.x, threadIdx.x}, p, out);
}

unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

// 32-bit indices when every index (and the grid) fits; the grid's x dimension allows 2^31-1.
bool fits32(int64_t n) { return n < (int64_t{1} << 31) - static_cast<int64_t>(kBlock); }

int status() { return cudaGetLastError() == cudaSuccess ? kOk : kNoDevice; }

}  // namespace

int launch_table_attn(const grid::TableDev& p, const uint8_t* d_host_rows) {
  const int64_t n = p.n_rows * p.half;
  if (n == 0) return kOk;
  if (!fits32(n)) return kInvalidArgument;
  table_attn_kernel<uint32_t><<<blocks_for(n), kBlock>>>(p, d_host_rows);
  return status();
}

int launch_rotate(int32_t format, const grid::RotDev& p, void* d_xy) {
  const int64_t n = p.n_tokens * p.n_heads * p.half;
  if (n == 0) return kOk;
  if (!fits32(p.n_tokens * p.n_heads * p.head_dim)) return kInvalidArgument;
  if (format == 0) {
    rotate_kernel<0, uint32_t>
        <<<blocks_for(n), kBlock>>>(p, static_cast<float*>(d_xy), static_cast<float*>(d_xy));
  } else if (format == 1) {
    rotate_kernel<1, uint32_t>
        <<<blocks_for(n), kBlock>>>(p, static_cast<uint16_t*>(d_xy), static_cast<uint16_t*>(d_xy));
  } else {
    rotate_kernel<2, uint32_t>
        <<<blocks_for(n), kBlock>>>(p, static_cast<uint16_t*>(d_xy), static_cast<uint16_t*>(d_xy));
  }
  return status();
}

int launch_cache_rows(int32_t format, const grid::TableDev& p, void* d_cache) {
  const int64_t n = p.n_rows * p.half;
  if (n == 0) return kOk;
  if (!fits32(2 * n)) return kInvalidArgument;
  if (format == 0) {
    cache_row_kernel<0, uint32_t><<<blocks_for(n), kBlock>>>(p, static_cast<float*>(d_cache));
  } else if (format == 1) {
    cache_row_kernel<1, uint32_t><<<blocks_for(n), kBlock>>>(p, static_cast<uint16_t*>(d_cache));
  } else {
    cache_row_kernel<2, uint32_t><<<blocks_for(n), kBlock>>>(p, static_cast<uint16_t*>(d_cache));
  }
  return status();
}

int launch_alibi16(int32_t format, const grid::AlibiDev& p, uint16_t* d_scores) {
  const int64_t n = p.n_heads * p.n_q * p.n_k;
  if (n == 0) return kOk;
  if (!fits32(n)) return kInvalidArgument;
  if (format == 1) {
    alibi16_kernel<1, uint32_t><<<blocks_for(n), kBlock>>>(p, d_scores);
  } else {
    alibi16_kernel<2, uint32_t><<<blocks_for(n), kBlock>>>(p, d_scores);
  }
  return status();
}

int launch_t5_16(const grid::T5Dev16& p, uint16_t* d_bias) {
  const int64_t n = p.n_heads * p.n_q * p.n_k;
  if (n == 0) return kOk;
  if (!fits32(n)) return kInvalidArgument;
  t5_16_kernel<uint32_t><<<blocks_for(n), kBlock>>>(p, d_bias);
  return status();
}

int launch_sinusoidal16(int32_t format, const grid::TableDev& p, uint16_t* d_out) {
  const int64_t n = p.n_rows * p.half;
  if (n == 0) return kOk;
  if (!fits32(2 * n)) return kInvalidArgument;
  if (format == 1) {
    sinusoidal16_kernel<1, uint32_t><<<blocks_for(n), kBlock>>>(p, d_out);
  } else {
    sinusoidal16_kernel<2, uint32_t><<<blocks_for(n), kBlock>>>(p, d_out);
  }
  return status();
}

int launch_learned16(const grid::LearnedDev16& p, uint16_t* d_out) {
  const int64_t n = p.n_tokens * p.d_model;
  if (n == 0) return kOk;
  if (!fits32(n)) return kInvalidArgument;
  learned16_kernel<uint32_t><<<blocks_for(n), kBlock>>>(p, d_out);
  return status();
}

}  // namespace pecheck::kernels::cuda
