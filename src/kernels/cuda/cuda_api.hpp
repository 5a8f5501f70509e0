// C++ API of pecheck_cuda beyond the pec_* exports: device-pointer entry points for callers
// that keep their tensors on the GPU (and for scripts/gpu-check.sh's timing program).
// No CUDA header here: device pointers are plain pointers, the stream is the default one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/shared/grid.hpp"
#include "kernels/shared/grid_v2.hpp"
#include "pecheck_kernel.h"

namespace pecheck::kernels::cuda {

// True when a CUDA device can be used; otherwise `reason` says why (one line).
bool device_available(std::string& reason);

// RoPE on device buffers. prepare() validates the call (ABI-ROPE-1), builds the double-double
// frequencies and the quad-path rows on the host, uploads positions and tables; run()
// launches the table kernel, the rotation kernel and (x != y, partial rotary) the
// pass-through kernel on the default stream. Status codes of kernels/common/plans.hpp.
class DeviceRope {
 public:
  DeviceRope() = default;
  DeviceRope(const DeviceRope&) = delete;
  DeviceRope& operator=(const DeviceRope&) = delete;
  ~DeviceRope();
  int prepare(const pec_rope_args& a);
  int run(const float* d_x, float* d_y);

 private:
  void release();
  grid::RopeDev dev_{};
  uint8_t* d_host_rows_ = nullptr;  // 1 where the row was filled by the host quad path
  void* d_mem_[6] = {};
  bool any_host_rows_ = false;
};

// Launchers (kernels.cu): one thread per work item as described in shared/grid.hpp.
int launch_rope(const grid::RopeDev& p, const uint8_t* d_host_rows, const float* d_x, float* d_y);
int launch_alibi(const grid::AlibiDev& p, float* d_scores);
int launch_t5(const grid::T5Dev& p, float* d_bias);

// Version 2 launchers (grid_v2.hpp). format: 0 float32, 1 bfloat16, 2 binary16. The rotation
// runs in place on a dense device tensor (the wrapper packs and scatters strided views).
int launch_table_attn(const grid::TableDev& p, const uint8_t* d_host_rows);
int launch_rotate(int32_t format, const grid::RotDev& p, void* d_xy);
int launch_cache_rows(int32_t format, const grid::TableDev& p, void* d_cache);
int launch_alibi16(int32_t format, const grid::AlibiDev& p, uint16_t* d_scores);
int launch_t5_16(const grid::T5Dev16& p, uint16_t* d_bias);
int launch_sinusoidal16(int32_t format, const grid::TableDev& p, uint16_t* d_out);
int launch_learned16(const grid::LearnedDev16& p, uint16_t* d_out);

}  // namespace pecheck::kernels::cuda
