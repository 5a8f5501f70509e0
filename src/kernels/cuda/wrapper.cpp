// pecheck_cuda host wrapper: the pec_* exports of spec/pecheck_kernel.h on a CUDA device.
// Each call validates (nothing is written on rejection), copies its inputs to the device,
// launches, and copies the output back; with no usable device it returns kNoDevice and says
// why on stderr (once per process).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "kernels/common/prep.hpp"
#include "kernels/cuda/cuda_api.hpp"

namespace pecheck::kernels::cuda {
namespace {

void say_once(const std::string& msg) {
  static std::once_flag once;
  std::call_once(once, [&] { std::fprintf(stderr, "pecheck_cuda: %s\n", msg.c_str()); });
}

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  say_once(std::string(what) + " failed: " + cudaGetErrorString(e));
  return false;
}

// Device buffer freed on scope exit.
struct Buf {
  void* p = nullptr;
  ~Buf() {
    if (p) cudaFree(p);
  }
  bool alloc(size_t bytes) { return bytes == 0 || ok(cudaMalloc(&p, bytes), "cudaMalloc"); }
  template <class T>
  bool upload(const T* src, size_t n) {
    if (!alloc(n * sizeof(T))) return false;
    return n == 0 || ok(cudaMemcpy(p, src, n * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

bool usable() {
  std::string reason;
  if (device_available(reason)) return true;
  say_once(reason);
  return false;
}

}  // namespace

bool device_available(std::string& reason) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    reason = std::string("no CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")";
    return false;
  }
  if (n == 0) {
    reason = "no CUDA device (cudaGetDeviceCount returned 0)";
    return false;
  }
  return true;
}

DeviceRope::~DeviceRope() { release(); }

void DeviceRope::release() {
  for (void*& p : d_mem_) {
    if (p) cudaFree(p);
    p = nullptr;
  }
  if (d_host_rows_) cudaFree(d_host_rows_);
  d_host_rows_ = nullptr;
}

int DeviceRope::prepare(const pec_rope_args& a) {
  // x and y are device pointers here: validate the arguments with stand-in pointers.
  static const float stand_in = 0.0f;
  if (!valid_rope(&a, &stand_in, &stand_in)) return kInvalidArgument;
  if (!usable()) return kNoDevice;
  release();
  const int64_t half = a.rotary_dim / 2;
  FreqTable freq;
  freq_table(a.theta_base, a.rotary_dim, a.inv_freq, half, freq);
  const auto nt = static_cast<size_t>(a.n_tokens);
  const auto nh = static_cast<size_t>(half);
  any_host_rows_ = false;
  std::vector<uint8_t> host_rows;
  std::vector<float> c, s;
  rope_host_rows(a, freq, host_rows, c, s);
  for (uint8_t r : host_rows) any_host_rows_ = any_host_rows_ || r != 0;
  auto up = [&](int slot, const void* src, size_t bytes) {
    if (bytes == 0) return true;
    if (!ok(cudaMalloc(&d_mem_[slot], bytes), "cudaMalloc")) return false;
    return src == nullptr || ok(cudaMemcpy(d_mem_[slot], src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  };
  const bool ok_all = up(0, a.positions, nt * sizeof(int64_t)) && up(1, freq.hi.data(), nh * sizeof(double)) &&
                      up(2, freq.lo.data(), nh * sizeof(double)) && up(3, c.data(), c.size() * sizeof(float)) &&
                      up(4, s.data(), s.size() * sizeof(float));
  if (!ok_all) return kNoDevice;
  if (any_host_rows_) {
    if (!ok(cudaMalloc(reinterpret_cast<void**>(&d_host_rows_), nt), "cudaMalloc")) return kNoDevice;
    if (!ok(cudaMemcpy(d_host_rows_, host_rows.data(), nt, cudaMemcpyHostToDevice), "cudaMemcpy")) return kNoDevice;
  }
  dev_ = grid::RopeDev{a.n_tokens, a.n_heads, a.head_dim, a.rotary_dim, half, a.layout, a.position_scale,
                       static_cast<const int64_t*>(d_mem_[0]), static_cast<const double*>(d_mem_[1]),
                       static_cast<const double*>(d_mem_[2]), static_cast<float*>(d_mem_[3]),
                       static_cast<float*>(d_mem_[4])};
  return kOk;
}

int DeviceRope::run(const float* d_x, float* d_y) { return launch_rope(dev_, d_host_rows_, d_x, d_y); }

}  // namespace pecheck::kernels::cuda

namespace pk = pecheck::kernels;
namespace pc = pecheck::kernels::cuda;

extern "C" {

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const struct pec_rope_args* a, const float* x, float* y) {
  if (!pk::valid_rope(a, x, y)) return pk::kInvalidArgument;
  try {
    const size_t n = static_cast<size_t>(a->n_tokens * a->n_heads * a->head_dim);
    if (n == 0) return pk::kOk;
    pc::DeviceRope rope;
    int st = rope.prepare(*a);
    if (st != pk::kOk) return st;
    pc::Buf dx, dy;
    if (!dx.upload(x, n) || !dy.alloc(n * sizeof(float))) return pk::kNoDevice;
    st = rope.run(dx.as<float>(), dy.as<float>());
    if (st != pk::kOk) return st;
    if (!pc::ok(cudaMemcpy(y, dy.p, n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy")) return pk::kNoDevice;
    return pk::kOk;
  } catch (const std::bad_alloc&) {
    return pk::kOutOfMemory;
  }
}

int pec_alibi_bias_f32(const struct pec_alibi_args* a, float* scores) {
  if (!pk::valid_alibi(a, scores)) return pk::kInvalidArgument;
  try {
    const size_t n = static_cast<size_t>(a->n_heads * a->n_q * a->n_k);
    if (n == 0) return pk::kOk;
    if (!pc::usable()) return pk::kNoDevice;
    std::vector<double> slopes(static_cast<size_t>(a->n_heads));
    for (int64_t h = 0; h < a->n_heads; ++h) slopes[static_cast<size_t>(h)] = pk::alibi_slope(a->n_heads, h);
    pc::Buf ds, dq, dk, dsc;
    if (!ds.upload(slopes.data(), slopes.size()) || !dq.upload(a->q_pos, static_cast<size_t>(a->n_q)) ||
        !dk.upload(a->k_pos, static_cast<size_t>(a->n_k)) || !dsc.upload(scores, n)) {
      return pk::kNoDevice;
    }
    const pecheck::kernels::grid::AlibiDev p{a->n_heads, a->n_q, a->n_k, a->mode == PEC_ALIBI_CAUSAL,
                                             ds.as<double>(), dq.as<int64_t>(), dk.as<int64_t>(),
                                             -HUGE_VAL};
    const int st = pc::launch_alibi(p, dsc.as<float>());
    if (st != pk::kOk) return st;
    if (!pc::ok(cudaMemcpy(scores, dsc.p, n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy")) return pk::kNoDevice;
    return pk::kOk;
  } catch (const std::bad_alloc&) {
    return pk::kOutOfMemory;
  }
}

int pec_t5_bias_f32(const struct pec_t5_args* a, float* bias) {
  if (!pk::valid_t5(a, bias)) return pk::kInvalidArgument;
  try {
    const size_t n = static_cast<size_t>(a->n_heads * a->n_q * a->n_k);
    if (n == 0) return pk::kOk;
    if (!pc::usable()) return pk::kNoDevice;
    const pk::T5Shape shape = pk::t5_shape<int64_t>(a->num_buckets, a->bidirectional != 0);
    const std::vector<int64_t> thr = pk::t5_thresholds(shape.half_buckets, shape.max_exact, a->max_distance);
    pc::Buf dthr, dtab, dq, dk, db;
    if (!dthr.upload(thr.data(), thr.size()) ||
        !dtab.upload(a->table, static_cast<size_t>(a->num_buckets * a->n_heads)) ||
        !dq.upload(a->q_pos, static_cast<size_t>(a->n_q)) || !dk.upload(a->k_pos, static_cast<size_t>(a->n_k)) ||
        !db.alloc(n * sizeof(float))) {
      return pk::kNoDevice;
    }
    const pecheck::kernels::grid::T5Dev p{a->n_heads, a->n_q, a->n_k, a->bidirectional, shape,
                                          dthr.as<int64_t>(), dtab.as<float>(), dq.as<int64_t>(),
                                          dk.as<int64_t>()};
    const int st = pc::launch_t5(p, db.as<float>());
    if (st != pk::kOk) return st;
    if (!pc::ok(cudaMemcpy(bias, db.p, n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy")) return pk::kNoDevice;
    return pk::kOk;
  } catch (const std::bad_alloc&) {
    return pk::kOutOfMemory;
  }
}

}  // extern "C"
