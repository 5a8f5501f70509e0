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
#include "kernels/common/v2_host.hpp"
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

// ---- Version 2 ---------------------------------------------------------------------------------
namespace {

// One tensor of a version 2 RoPE call, in host memory.
struct HostView {
  const void* in;
  void* out;
  int64_t n_heads;
  pec_strides s_in, s_out;
};

// The cos/sin tables of a call: computed (the double-double angles of positions, times attn,
// quad-path rows from the host) or given (a cos/sin cache's rows, widened on the host).
struct Tables {
  bool computed = true;
  const int64_t* positions = nullptr;
  double scale = 1.0, attn = 1.0;
  double theta_base = 10000.0;
  const float* inv_freq = nullptr;
  const pec_rope_cached_args* cached = nullptr;
};

int upload_tables(const Tables& tb, int64_t T, int64_t rot, Buf& dc, Buf& ds, Buf* keep) {
  const int64_t half = rot / 2;
  std::vector<float> c, s;
  if (!tb.computed) {
    v2host::cached_tables(*tb.cached, c, s);
    return dc.upload(c.data(), c.size()) && ds.upload(s.data(), s.size()) ? kOk : kNoDevice;
  }
  FreqTable freq;
  freq_table(tb.theta_base, rot, tb.inv_freq, half, freq);
  std::vector<uint8_t> host_rows;
  v2host::quad_rows(tb.positions, T, tb.scale, tb.attn, false, freq, half, host_rows, c, s);
  bool any = false;
  for (uint8_t r : host_rows) any = any || r != 0;
  Buf& dpos = keep[0];
  Buf& dhi = keep[1];
  Buf& dlo = keep[2];
  Buf& drows = keep[3];
  if (!dc.upload(c.data(), c.size()) || !ds.upload(s.data(), s.size()) ||
      !dpos.upload(tb.positions, static_cast<size_t>(T)) || !dhi.upload(freq.hi.data(), freq.hi.size()) ||
      !dlo.upload(freq.lo.data(), freq.lo.size()) || (any && !drows.upload(host_rows.data(), host_rows.size()))) {
    return kNoDevice;
  }
  const grid::TableDev p{T, half, tb.scale, tb.attn, dpos.as<int64_t>(), dhi.as<double>(), dlo.as<double>(),
                         dc.as<float>(), ds.as<float>(), 0};
  return launch_table_attn(p, any ? drows.as<uint8_t>() : nullptr);
}

template <class S>
int rope_v2(int32_t format, int64_t T, int64_t D, int64_t rot, int32_t layout, const Tables& tb,
            const HostView* views, int n_views) {
  if (T == 0) return kOk;
  if (!usable()) return kNoDevice;
  Buf dc, ds, keep[4];
  int st = upload_tables(tb, T, rot, dc, ds, keep);
  if (st != kOk) return st;
  for (int v = 0; v < n_views; ++v) {
    const HostView& hv = views[v];
    if (hv.n_heads == 0) continue;
    std::vector<S> dense = v2host::pack(static_cast<const S*>(hv.in), T, hv.n_heads, D, hv.s_in);
    Buf dx;
    if (!dx.upload(dense.data(), dense.size())) return kNoDevice;
    const grid::RotDev p{T, hv.n_heads, D, rot, rot / 2, layout, dc.as<float>(), ds.as<float>()};
    st = launch_rotate(format, p, dx.p);
    if (st != kOk) return st;
    if (!ok(cudaMemcpy(dense.data(), dx.p, dense.size() * sizeof(S), cudaMemcpyDeviceToHost), "cudaMemcpy")) {
      return kNoDevice;
    }
    v2host::scatter(dense, static_cast<S*>(hv.out), T, hv.n_heads, D, hv.s_out);
  }
  return kOk;
}

template <class F>
int guarded(F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return kOutOfMemory;
  }
}

int rope16(int32_t format, const pec_rope_args* a, const uint16_t* x, uint16_t* y) {
  if (!valid_rope(a, x, y)) return kInvalidArgument;
  return guarded([&] {
    Tables tb;
    tb.positions = a->positions;
    tb.scale = a->position_scale;
    tb.theta_base = a->theta_base;
    tb.inv_freq = a->inv_freq;
    const pec_strides dense{a->n_heads * a->head_dim, a->head_dim};
    const HostView v{x, y, a->n_heads, dense, dense};
    return rope_v2<uint16_t>(format, a->n_tokens, a->head_dim, a->rotary_dim, a->layout, tb, &v, 1);
  });
}

template <class S>
int rope_qk(int32_t format, const pec_rope_qk_args* a, const S* q, const S* k, S* q_out, S* k_out) {
  if (!valid_rope_qk(a, q, k, q_out, k_out, static_cast<int64_t>(sizeof(S)))) return kInvalidArgument;
  return guarded([&] {
    Tables tb;
    tb.positions = a->positions;
    tb.scale = a->position_scale;
    tb.attn = a->attn_factor;
    tb.theta_base = a->theta_base;
    tb.inv_freq = a->inv_freq;
    // Both inputs are packed before either output is written (in place, fused buffers).
    const HostView v[2] = {{q, q_out, a->n_q_heads, a->q, a->q_out}, {k, k_out, a->n_kv_heads, a->k, a->k_out}};
    return rope_v2<S>(format, a->n_tokens, a->head_dim, a->rotary_dim, a->layout, tb, v, 2);
  });
}

template <class S>
int rope_cached(int32_t format, const pec_rope_cached_args* a, const S* q, const S* k, S* q_out, S* k_out) {
  if (!valid_rope_cached(a, q, k, q_out, k_out, static_cast<int64_t>(sizeof(S)))) return kInvalidArgument;
  return guarded([&] {
    Tables tb;
    tb.computed = false;
    tb.cached = a;
    const HostView v[2] = {{q, q_out, a->n_q_heads, a->q, a->q_out}, {k, k_out, a->n_kv_heads, a->k, a->k_out}};
    return rope_v2<S>(format, a->n_tokens, a->head_dim, a->rotary_dim, a->layout, tb, v, 2);
  });
}

template <class S>
int rope_cache(int32_t format, const pec_rope_cache_args* a, S* cache) {
  if (!valid_rope_cache(a, cache)) return kInvalidArgument;
  return guarded([&] {
    if (!usable()) return static_cast<int>(kNoDevice);
    const int64_t P = a->cache_positions, half = a->rotary_dim / 2;
    FreqTable freq;
    freq_table(a->theta_base, a->rotary_dim, a->inv_freq, half, freq);
    std::vector<uint8_t> host_rows;
    std::vector<float> c, s;
    v2host::quad_rows(nullptr, P, a->position_scale, a->attn_factor, format != 0, freq, half, host_rows, c, s);
    bool any = false;
    for (uint8_t r : host_rows) any = any || r != 0;
    Buf dc, ds, dhi, dlo, drows, dcache;
    const size_t n = static_cast<size_t>(P * a->rotary_dim);
    if (!dc.upload(c.data(), c.size()) || !ds.upload(s.data(), s.size()) || !dhi.upload(freq.hi.data(), freq.hi.size()) ||
        !dlo.upload(freq.lo.data(), freq.lo.size()) || (any && !drows.upload(host_rows.data(), host_rows.size())) ||
        !dcache.alloc(n * sizeof(S))) {
      return static_cast<int>(kNoDevice);
    }
    const grid::TableDev p{P, half, a->position_scale, a->attn_factor, nullptr, dhi.as<double>(), dlo.as<double>(),
                           dc.as<float>(), ds.as<float>(), format != 0 ? 1 : 0};
    int st = launch_table_attn(p, any ? drows.as<uint8_t>() : nullptr);
    if (st == kOk) st = launch_cache_rows(format, p, dcache.p);
    if (st != kOk) return st;
    if (!ok(cudaMemcpy(cache, dcache.p, n * sizeof(S), cudaMemcpyDeviceToHost), "cudaMemcpy")) return static_cast<int>(kNoDevice);
    return static_cast<int>(kOk);
  });
}

int alibi16(int32_t format, const pec_alibi_args* a, uint16_t* scores) {
  if (!valid_alibi(a, scores)) return kInvalidArgument;
  return guarded([&] {
    const size_t n = static_cast<size_t>(a->n_heads * a->n_q * a->n_k);
    if (n == 0) return static_cast<int>(kOk);
    if (!usable()) return static_cast<int>(kNoDevice);
    std::vector<double> slopes(static_cast<size_t>(a->n_heads));
    for (int64_t h = 0; h < a->n_heads; ++h) slopes[static_cast<size_t>(h)] = alibi_slope(a->n_heads, h);
    Buf dsl, dq, dk, dsc;
    if (!dsl.upload(slopes.data(), slopes.size()) || !dq.upload(a->q_pos, static_cast<size_t>(a->n_q)) ||
        !dk.upload(a->k_pos, static_cast<size_t>(a->n_k)) || !dsc.upload(scores, n)) {
      return static_cast<int>(kNoDevice);
    }
    const grid::AlibiDev p{a->n_heads, a->n_q, a->n_k, a->mode == PEC_ALIBI_CAUSAL, dsl.as<double>(),
                           dq.as<int64_t>(), dk.as<int64_t>(), -HUGE_VAL};
    const int st = launch_alibi16(format, p, dsc.as<uint16_t>());
    if (st != kOk) return st;
    if (!ok(cudaMemcpy(scores, dsc.p, n * sizeof(uint16_t), cudaMemcpyDeviceToHost), "cudaMemcpy")) return static_cast<int>(kNoDevice);
    return static_cast<int>(kOk);
  });
}

int t5_16(const pec_t5_args16* a, uint16_t* bias) {
  if (!valid_t5(a, bias)) return kInvalidArgument;
  return guarded([&] {
    const size_t n = static_cast<size_t>(a->n_heads * a->n_q * a->n_k);
    if (n == 0) return static_cast<int>(kOk);
    if (!usable()) return static_cast<int>(kNoDevice);
    const T5Shape shape = t5_shape<int64_t>(a->num_buckets, a->bidirectional != 0);
    const std::vector<int64_t> thr = t5_thresholds(shape.half_buckets, shape.max_exact, a->max_distance);
    Buf dthr, dtab, dq, dk, db;
    if (!dthr.upload(thr.data(), thr.size()) || !dtab.upload(a->table, static_cast<size_t>(a->num_buckets * a->n_heads)) ||
        !dq.upload(a->q_pos, static_cast<size_t>(a->n_q)) || !dk.upload(a->k_pos, static_cast<size_t>(a->n_k)) ||
        !db.alloc(n * sizeof(uint16_t))) {
      return static_cast<int>(kNoDevice);
    }
    const grid::T5Dev16 p{a->n_heads, a->n_q, a->n_k, a->bidirectional, shape, dthr.as<int64_t>(), dtab.as<uint16_t>(),
                          dq.as<int64_t>(), dk.as<int64_t>()};
    const int st = launch_t5_16(p, db.as<uint16_t>());
    if (st != kOk) return st;
    if (!ok(cudaMemcpy(bias, db.p, n * sizeof(uint16_t), cudaMemcpyDeviceToHost), "cudaMemcpy")) return static_cast<int>(kNoDevice);
    return static_cast<int>(kOk);
  });
}

int sinusoidal16(int32_t format, const pec_sinusoidal_args* a, uint16_t* out) {
  if (!valid_sinusoidal(a, out)) return kInvalidArgument;
  return guarded([&] {
    if (a->n_tokens == 0) return static_cast<int>(kOk);
    if (!usable()) return static_cast<int>(kNoDevice);
    const int64_t half = a->d_model / 2;
    FreqTable freq;
    freq_table(a->base, a->d_model, nullptr, half, freq);
    std::vector<uint8_t> host_rows;
    std::vector<float> c, s;
    v2host::quad_rows(a->positions, a->n_tokens, 1.0, 1.0, true, freq, half, host_rows, c, s);
    bool any = false;
    for (uint8_t r : host_rows) any = any || r != 0;
    const size_t n = static_cast<size_t>(a->n_tokens * a->d_model);
    Buf dc, ds, dpos, dhi, dlo, drows, dout;
    if (!dc.upload(c.data(), c.size()) || !ds.upload(s.data(), s.size()) ||
        !dpos.upload(a->positions, static_cast<size_t>(a->n_tokens)) || !dhi.upload(freq.hi.data(), freq.hi.size()) ||
        !dlo.upload(freq.lo.data(), freq.lo.size()) || (any && !drows.upload(host_rows.data(), host_rows.size())) ||
        !dout.alloc(n * sizeof(uint16_t))) {
      return static_cast<int>(kNoDevice);
    }
    const grid::TableDev p{a->n_tokens, half, 1.0, 1.0, dpos.as<int64_t>(), dhi.as<double>(), dlo.as<double>(),
                           dc.as<float>(), ds.as<float>(), 1};
    int st = launch_table_attn(p, any ? drows.as<uint8_t>() : nullptr);
    if (st == kOk) st = launch_sinusoidal16(format, p, dout.as<uint16_t>());
    if (st != kOk) return st;
    if (!ok(cudaMemcpy(out, dout.p, n * sizeof(uint16_t), cudaMemcpyDeviceToHost), "cudaMemcpy")) return static_cast<int>(kNoDevice);
    return static_cast<int>(kOk);
  });
}

int learned16(const pec_learned_args16* a, uint16_t* out) {
  if (!valid_learned(a, out)) return kInvalidArgument;
  return guarded([&] {
    const size_t n = static_cast<size_t>(a->n_tokens * a->d_model);
    if (n == 0) return static_cast<int>(kOk);
    if (!usable()) return static_cast<int>(kNoDevice);
    Buf dpos, dtab, dout;
    if (!dpos.upload(a->positions, static_cast<size_t>(a->n_tokens)) ||
        !dtab.upload(a->table, static_cast<size_t>(a->max_positions * a->d_model)) || !dout.alloc(n * sizeof(uint16_t))) {
      return static_cast<int>(kNoDevice);
    }
    const grid::LearnedDev16 p{a->n_tokens, a->d_model, dpos.as<int64_t>(), dtab.as<uint16_t>()};
    const int st = launch_learned16(p, dout.as<uint16_t>());
    if (st != kOk) return st;
    if (!ok(cudaMemcpy(out, dout.p, n * sizeof(uint16_t), cudaMemcpyDeviceToHost), "cudaMemcpy")) return static_cast<int>(kNoDevice);
    return static_cast<int>(kOk);
  });
}

}  // namespace

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

int pec_rope_bf16(const struct pec_rope_args* a, const uint16_t* x, uint16_t* y) { return pc::rope16(1, a, x, y); }
int pec_rope_f16(const struct pec_rope_args* a, const uint16_t* x, uint16_t* y) { return pc::rope16(2, a, x, y); }
int pec_rope_qk_f32(const struct pec_rope_qk_args* a, const float* q, const float* k, float* qo, float* ko) {
  return pc::rope_qk<float>(0, a, q, k, qo, ko);
}
int pec_rope_qk_bf16(const struct pec_rope_qk_args* a, const uint16_t* q, const uint16_t* k, uint16_t* qo,
                     uint16_t* ko) {
  return pc::rope_qk<uint16_t>(1, a, q, k, qo, ko);
}
int pec_rope_qk_f16(const struct pec_rope_qk_args* a, const uint16_t* q, const uint16_t* k, uint16_t* qo,
                    uint16_t* ko) {
  return pc::rope_qk<uint16_t>(2, a, q, k, qo, ko);
}
int pec_rope_cached_f32(const struct pec_rope_cached_args* a, const float* q, const float* k, float* qo, float* ko) {
  return pc::rope_cached<float>(0, a, q, k, qo, ko);
}
int pec_rope_cached_bf16(const struct pec_rope_cached_args* a, const uint16_t* q, const uint16_t* k, uint16_t* qo,
                         uint16_t* ko) {
  return pc::rope_cached<uint16_t>(1, a, q, k, qo, ko);
}
int pec_rope_cached_f16(const struct pec_rope_cached_args* a, const uint16_t* q, const uint16_t* k, uint16_t* qo,
                        uint16_t* ko) {
  return pc::rope_cached<uint16_t>(2, a, q, k, qo, ko);
}
int pec_rope_cache_f32(const struct pec_rope_cache_args* a, float* cache) { return pc::rope_cache<float>(0, a, cache); }
int pec_rope_cache_bf16(const struct pec_rope_cache_args* a, uint16_t* cache) {
  return pc::rope_cache<uint16_t>(1, a, cache);
}
int pec_rope_cache_f16(const struct pec_rope_cache_args* a, uint16_t* cache) {
  return pc::rope_cache<uint16_t>(2, a, cache);
}
int pec_alibi_bias_bf16(const struct pec_alibi_args* a, uint16_t* scores) { return pc::alibi16(1, a, scores); }
int pec_alibi_bias_f16(const struct pec_alibi_args* a, uint16_t* scores) { return pc::alibi16(2, a, scores); }
int pec_t5_bias_bf16(const struct pec_t5_args16* a, uint16_t* bias) { return pc::t5_16(a, bias); }
int pec_t5_bias_f16(const struct pec_t5_args16* a, uint16_t* bias) { return pc::t5_16(a, bias); }
int pec_sinusoidal_bf16(const struct pec_sinusoidal_args* a, uint16_t* out) { return pc::sinusoidal16(1, a, out); }
int pec_sinusoidal_f16(const struct pec_sinusoidal_args* a, uint16_t* out) { return pc::sinusoidal16(2, a, out); }
int pec_learned_bf16(const struct pec_learned_args16* a, uint16_t* out) { return pc::learned16(a, out); }
int pec_learned_f16(const struct pec_learned_args16* a, uint16_t* out) { return pc::learned16(a, out); }

}  // extern "C"
