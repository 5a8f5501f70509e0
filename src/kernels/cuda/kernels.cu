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
    rotate_kernel<0, uint32_t><<<blocks_for(n), kBlock>>>(p, static_cast<float*>(d_xy), static_cast<float*>(d_xy));
  } else if (format == 1) {
    rotate_kernel<1, uint32_t><<<blocks_for(n), kBlock>>>(p, static_cast<uint16_t*>(d_xy), static_cast<uint16_t*>(d_xy));
  } else {
    rotate_kernel<2, uint32_t><<<blocks_for(n), kBlock>>>(p, static_cast<uint16_t*>(d_xy), static_cast<uint16_t*>(d_xy));
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
