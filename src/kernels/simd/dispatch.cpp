// pecheck_simd: the pec_* exports, validation, call plans, and the one-time choice of code
// path (dispatch once at the entry; the kernels never query the CPU).
#include <atomic>
#if defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
#endif
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "kernels/common/prep.hpp"
#include "kernels/shared/grid.hpp"
#include "kernels/shared/t5_arith.hpp"
#include "kernels/simd/isa.hpp"
#include "kernels/simd/simd.hpp"

// One call on the chosen ISA unit's entry point (isa.hpp).
#define PEC_ON_PATH(p, call)                          \
  switch (p) {                                        \
    case Path::Scalar: scalar::call; break;           \
    case Path::Avx2: avx2::call; break;               \
    case Path::Avx512: avx512::call; break;           \
    case Path::Avx512Bf16: avx512bf16::call; break;   \
  }

namespace pecheck::kernels::simd {
namespace {

struct Choice {
  bool ok = false;
  Path path = Path::Scalar;
  std::string reason;
};

const Choice& choice() {
  static const Choice c = [] {
    Choice r;
    const char* env = std::getenv("PECHECK_SIMD");
    if (env == nullptr || *env == '\0') {
      r.ok = true;
      r.path = cpu_has(Path::Avx512Bf16) ? Path::Avx512Bf16
               : cpu_has(Path::Avx512)   ? Path::Avx512
               : cpu_has(Path::Avx2)     ? Path::Avx2
                                         : Path::Scalar;
      return r;
    }
    bool known = false;
    for (Path p : kAllPaths) {
      if (std::strcmp(env, to_string(p)) == 0) {
        known = true;
        r.path = p;
      }
    }
    if (!known) {
      r.reason = std::string("pecheck_simd: PECHECK_SIMD=") + env +
                 " is not a code path (use scalar, avx2, avx512 or avx512bf16); every call fails";
    } else if (!cpu_has(r.path)) {
      r.reason = std::string("pecheck_simd: PECHECK_SIMD=") + env + " but " +
                 missing_reason(r.path) + "; every call fails";
    } else {
      r.ok = true;
    }
    if (!r.ok) std::fprintf(stderr, "%s\n", r.reason.c_str());
    return r;
  }();
  return c;
}

std::atomic<int>& stream_setting() {
  static std::atomic<int> v{[] {
    const char* e = std::getenv("PECHECK_SIMD_STREAM");
    if (e == nullptr) return -1;
    return std::strcmp(e, "0") == 0 ? 0 : 1;
  }()};
  return v;
}

template <class F>
int guarded(F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return kOutOfMemory;
  } catch (...) {
    return kInvalidArgument;
  }
}

}  // namespace

const char* to_string(Path p) {
  switch (p) {
    case Path::Scalar: return "scalar";
    case Path::Avx2: return "avx2";
    case Path::Avx512: return "avx512";
    case Path::Avx512Bf16: return "avx512bf16";
  }
  return "unknown";
}

#if defined(__x86_64__) || defined(__i386__)
static bool has_f16c() {
#if defined(__clang__)
  unsigned a = 0, b = 0, c = 0, d = 0;  // clang 14's builtin does not know "f16c": CPUID 1, ECX bit 29
  return __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29)) != 0;
#else
  return __builtin_cpu_supports("f16c");
#endif
}
#endif

bool cpu_has(Path p) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  switch (p) {
    case Path::Scalar: return true;
    case Path::Avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             __builtin_cpu_supports("bmi2") && has_f16c();
    case Path::Avx512:
      return cpu_has(Path::Avx2) && __builtin_cpu_supports("avx512f") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl");
    case Path::Avx512Bf16: {
#if defined(__clang__)
      // clang 14's __builtin_cpu_supports does not know "avx512bf16": CPUID leaf 7, sub-leaf 1,
      // EAX bit 5.
      unsigned a = 0, b = 0, c = 0, d = 0;
      return cpu_has(Path::Avx512) && __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 5)) != 0;
#else
      return cpu_has(Path::Avx512) && __builtin_cpu_supports("avx512bf16");
#endif
    }
  }
  return false;
#else
  return p == Path::Scalar;
#endif
}

std::string missing_reason(Path p) {
  if (cpu_has(p)) return "";
  if (p == Path::Avx2) return "this CPU lacks AVX2/FMA/BMI2/F16C (x86-64-v3)";
  if (p == Path::Avx512Bf16 && cpu_has(Path::Avx512)) return "this CPU lacks AVX512_BF16";
  return "this CPU lacks AVX-512 F/DQ/BW/VL (x86-64-v4)";
}

void set_stream_mode(int mode) { stream_setting().store(mode < 0 ? -1 : mode > 0 ? 1 : 0); }
int stream_mode() { return stream_setting().load(); }

bool active_path(Path& p, std::string& reason) {
  const Choice& c = choice();
  p = c.path;
  reason = c.reason;
  return c.ok;
}

int rope_f32(Path p, const pec_rope_args* a, const float* x, float* y) {
  if (!cpu_has(p)) return kPathUnavailable;
  if (!valid_rope(a, x, y)) return kInvalidArgument;
  return guarded([&] {
    const int64_t half = a->rotary_dim / 2;
    thread_local FreqTable freq;
    thread_local std::vector<float> scratch;
    RopePlan pl{};
    pl.n_tokens = a->n_tokens;
    pl.n_heads = a->n_heads;
    pl.head_dim = a->head_dim;
    pl.rotary_dim = a->rotary_dim;
    pl.half = half;
    pl.half_pad = round_up(half, 16);
    pl.layout = a->layout;
    pl.scale = a->position_scale;
    pl.positions = a->positions;
    freq_table(a->theta_base, a->rotary_dim, a->inv_freq, pl.half_pad, freq);
    pl.f_hi = freq.hi.data();
    pl.f_lo = freq.lo.data();
    pl.f_absmax = freq.absmax;
    const long long bytes = static_cast<long long>(a->n_tokens * a->n_heads * a->head_dim) * 4;
    const bool aligned = reinterpret_cast<uintptr_t>(y) % 64 == 0 && a->head_dim % 16 == 0 &&
                         a->rotary_dim % (a->layout == PEC_ROPE_NEOX ? 32 : 16) == 0;
    const int force = stream_mode();
    pl.stream = x != y && aligned && (force == 1 || (force == -1 && bytes >= kStreamMinBytes));
    scratch.resize(static_cast<size_t>(8 * pl.half_pad));
    PEC_ON_PATH(p, rope(pl, x, y, 0, a->n_tokens, scratch.data()));
    return static_cast<int>(kOk);
  });
}

int alibi_bias_f32(Path p, const pec_alibi_args* a, float* scores) {
  if (!cpu_has(p)) return kPathUnavailable;
  if (!valid_alibi(a, scores)) return kInvalidArgument;
  return guarded([&] {
    std::vector<double> slopes(static_cast<size_t>(a->n_heads));
    for (int64_t h = 0; h < a->n_heads; ++h) slopes[static_cast<size_t>(h)] = alibi_slope(a->n_heads, h);
    std::vector<double> kd(static_cast<size_t>(a->n_k));
    for (int64_t j = 0; j < a->n_k; ++j) kd[static_cast<size_t>(j)] = static_cast<double>(a->k_pos[j]);
    AlibiPlan pl{a->n_heads, a->n_q, a->n_k, a->mode == PEC_ALIBI_CAUSAL, slopes.data(), a->q_pos,
                 kd.data()};
    PEC_ON_PATH(p, alibi(pl, scores));
    return static_cast<int>(kOk);
  });
}

int t5_bias_f32(Path p, const pec_t5_args* a, float* bias) {
  if (!cpu_has(p)) return kPathUnavailable;
  if (!valid_t5(a, bias)) return kInvalidArgument;
  return guarded([&] {
    const T5Shape shape = t5_shape<int64_t>(a->num_buckets, a->bidirectional != 0);
    const std::vector<int64_t> thr = t5_thresholds(shape.half_buckets, shape.max_exact, a->max_distance);
    std::vector<float> table_t(static_cast<size_t>(a->num_buckets * a->n_heads));
    for (int64_t b = 0; b < a->num_buckets; ++b) {
      for (int64_t h = 0; h < a->n_heads; ++h) {
        // grid.hpp's t5_table_index: the same index as t5_thread's (PROOF-IDX-2).
        table_t[static_cast<size_t>(grid::t5_table_index<int64_t>(h, b, a->num_buckets))] =
            a->table[grid::t5_table_index<int64_t>(b, h, a->n_heads)];
      }
    }
    std::vector<int32_t> buckets(static_cast<size_t>(a->n_k));
    T5Plan pl{a->n_heads, a->n_q, a->n_k, a->bidirectional != 0, shape.half_buckets, shape.max_exact,
              static_cast<int64_t>(thr.size()), thr.data(), table_t.data(), a->num_buckets,
              a->q_pos, a->k_pos};
    PEC_ON_PATH(p, t5(pl, bias, buckets.data()));
    return static_cast<int>(kOk);
  });
}

int sinusoidal_f32(Path p, const pec_sinusoidal_args* a, float* out) {
  if (!cpu_has(p)) return kPathUnavailable;
  if (!valid_sinusoidal(a, out)) return kInvalidArgument;
  return guarded([&] {
    SinusoidalPlan pl{};
    pl.n_tokens = a->n_tokens;
    pl.d_model = a->d_model;
    pl.half = a->d_model / 2;
    pl.half_pad = round_up(pl.half, 16);
    pl.positions = a->positions;
    FreqTable freq;
    freq_table(a->base, a->d_model, nullptr, pl.half_pad, freq);
    pl.f_hi = freq.hi.data();
    pl.f_lo = freq.lo.data();
    pl.f_absmax = freq.absmax;
    std::vector<float> scratch(static_cast<size_t>(2 * pl.half_pad));
    PEC_ON_PATH(p, sinusoidal(pl, out, scratch.data()));
    return static_cast<int>(kOk);
  });
}

int learned_f32(const pec_learned_args* a, float* out) {
  if (!valid_learned(a, out)) return kInvalidArgument;
  for (int64_t t = 0; t < a->n_tokens; ++t) {
    std::memcpy(out + t * a->d_model, a->table + a->positions[t] * a->d_model,
                static_cast<size_t>(a->d_model) * sizeof(float));
  }
  return kOk;
}

// ---- Version 2 ---------------------------------------------------------------------------------
namespace {

bool is16(int32_t format) { return format == PEC_DTYPE_BF16 || format == PEC_DTYPE_F16; }

RopeView view_of(const void* in, void* out, int64_t n_heads, pec_strides si, pec_strides so) {
  return RopeView{in, out, n_heads, si.token, si.head, so.token, so.head};
}

// Streaming stores for a float32 output view: out of place, 64-byte aligned, every stride the
// shape uses and every row's vector blocks 16-float aligned (as pec_rope_f32's rule).
bool view_streamable(const RopeView& v, int64_t n_tokens, int64_t head_dim, int64_t rot,
                     int32_t layout) {
  if (v.n_heads == 0) return true;
  if (v.in == v.out || reinterpret_cast<uintptr_t>(v.out) % 64 != 0) return false;
  if (n_tokens > 1 && v.out_token % 16 != 0) return false;
  if (v.n_heads > 1 && v.out_head % 16 != 0) return false;
  return head_dim % 16 == 0 && rot % (layout == PEC_ROPE_NEOX ? 32 : 16) == 0;
}

bool want_stream(const RopeV2Plan& pl, int32_t format) {
  if (format != PEC_DTYPE_F32) return false;
  const int force = stream_mode();
  if (force == 0) return false;
  const long long bytes =
      static_cast<long long>(pl.n_tokens * (pl.q.n_heads + pl.k.n_heads) * pl.head_dim) * 4;
  if (force == -1 && bytes < kStreamMinBytes) return false;
  return view_streamable(pl.q, pl.n_tokens, pl.head_dim, pl.rotary_dim, pl.layout) &&
         view_streamable(pl.k, pl.n_tokens, pl.head_dim, pl.rotary_dim, pl.layout);
}

RopeV2Plan v2_plan(int64_t n_tokens, int64_t head_dim, int64_t rotary_dim, int32_t layout,
                   int32_t format, const int64_t* positions) {
  RopeV2Plan pl{};
  pl.n_tokens = n_tokens;
  pl.head_dim = head_dim;
  pl.rotary_dim = rotary_dim;
  pl.half = rotary_dim / 2;
  pl.half_pad = round_up(pl.half, 16);
  pl.layout = layout;
  pl.format = format;
  pl.positions = positions;
  pl.attn = 1.0;
  pl.scale = 1.0;
  return pl;
}

// The computed-angle plans: frequencies as pec_rope_f32 (double-double, cached per thread).
void v2_freq(RopeV2Plan& pl, double base, const float* inv_freq, FreqTable& freq) {
  freq_table(base, pl.rotary_dim, inv_freq, pl.half_pad, freq);
  pl.f_hi = freq.hi.data();
  pl.f_lo = freq.lo.data();
  pl.f_absmax = freq.absmax;
}

void run_v2(Path p, const RopeV2Plan& pl) {
  thread_local std::vector<float> scratch;
  scratch.assign(static_cast<size_t>(8 * pl.half_pad), 0.0f);
  PEC_ON_PATH(p, rope_v2(pl, scratch.data()));
}

}  // namespace

int rope_16(Path p, int32_t format, const pec_rope_args* a, const uint16_t* x, uint16_t* y) {
  if (!cpu_has(p)) return kPathUnavailable;
  if (!is16(format) || !valid_rope(a, x, y)) return kInvalidArgument;
  return guarded([&] {
    thread_local FreqTable freq;
    RopeV2Plan pl = v2_plan(a->n_tokens, a->head_dim, a->rotary_dim, a->layout, format, a->positions);
    pl.scale = a->position_scale;
    v2_freq(pl, a->theta_base, a->inv_freq, freq);
    const pec_strides dense{a->n_heads * a->head_dim, a->head_dim};
    pl.q = view_of(x, y, a->n_heads, dense, dense);
    pl.k = view_of(nullptr, nullptr, 0, dense, dense);
    run_v2(p, pl);
    return static_cast<int>(kOk);
  });
}

int rope_qk(Path p, int32_t format, const pec_rope_qk_args* a, const void* q, const void* k,
            void* q_out, void* k_out) {
  if (!cpu_has(p)) return kPathUnavailable;
  const int64_t elem = dtype_bytes(format);
  if (elem == 0 || !valid_rope_qk(a, q, k, q_out, k_out, elem)) return kInvalidArgument;
  return guarded([&] {
    thread_local FreqTable freq;
    RopeV2Plan pl = v2_plan(a->n_tokens, a->head_dim, a->rotary_dim, a->layout, format, a->positions);
    pl.scale = a->position_scale;
    pl.attn = a->attn_factor;
    v2_freq(pl, a->theta_base, a->inv_freq, freq);
    pl.q = view_of(q, q_out, a->n_q_heads, a->q, a->q_out);
    pl.k = view_of(k, k_out, a->n_kv_heads, a->k, a->k_out);
    pl.stream = want_stream(pl, format);
    run_v2(p, pl);
    return static_cast<int>(kOk);
  });
}

int rope_cached(Path p, int32_t format, const pec_rope_cached_args* a, const void* q,
                const void* k, void* q_out, void* k_out) {
  if (!cpu_has(p)) return kPathUnavailable;
  const int64_t elem = dtype_bytes(format);
  if (elem == 0 || !valid_rope_cached(a, q, k, q_out, k_out, elem)) return kInvalidArgument;
  return guarded([&] {
    RopeV2Plan pl = v2_plan(a->n_tokens, a->head_dim, a->rotary_dim, a->layout, format, a->positions);
    pl.cache = a->cos_sin_cache;
    pl.cache_format = a->cache_dtype;
    pl.q = view_of(q, q_out, a->n_q_heads, a->q, a->q_out);
    pl.k = view_of(k, k_out, a->n_kv_heads, a->k, a->k_out);
    pl.stream = want_stream(pl, format);
    run_v2(p, pl);
    return static_cast<int>(kOk);
  });
}

// M-RoPE: rope_qk's plan with the axis of each pair (ABI-MROPE-2, spec/rope.md ROPE-MROPE-2/-3);
// the kernels take each token's cos/sin per axis (impl2.inc's mrope_sincos).
int mrope(Path p, int32_t format, const pec_mrope_args* a, const void* q, const void* k,
          void* q_out, void* k_out) {
  if (!cpu_has(p)) return kPathUnavailable;
  const int64_t elem = dtype_bytes(format);
  if (elem == 0 || !valid_mrope(a, q, k, q_out, k_out, elem)) return kInvalidArgument;
  return guarded([&] {
    thread_local FreqTable freq;
    thread_local std::vector<uint8_t> axis;
    RopeV2Plan pl = v2_plan(a->n_tokens, a->head_dim, a->rotary_dim, a->layout, format, a->positions);
    pl.scale = a->position_scale;
    pl.attn = a->attn_factor;
    v2_freq(pl, a->theta_base, a->inv_freq, freq);
    const int64_t st = a->mrope_section[0], sh = a->mrope_section[1];
    const int64_t sw = a->mrope_section[2];
    axis.assign(static_cast<size_t>(pl.half_pad), 0);
    for (int64_t i = 0; i < pl.half; ++i) {
      uint8_t ax = 0;
      if (a->mrope_layout == PEC_MROPE_SECTIONED) {
        ax = i < st ? 0 : i < st + sh ? 1 : 2;
      } else if (i % 3 == 1 && i < 3 * sh) {
        ax = 1;
      } else if (i % 3 == 2 && i < 3 * sw) {
        ax = 2;
      }
      axis[static_cast<size_t>(i)] = ax;
    }
    pl.axis = axis.data();
    pl.q = view_of(q, q_out, a->n_q_heads, a->q, a->q_out);
    pl.k = view_of(k, k_out, a->n_kv_heads, a->k, a->k_out);
    pl.stream = want_stream(pl, format);
    run_v2(p, pl);
    return static_cast<int>(kOk);
  });
}

int rope_cache(Path p, int32_t format, const pec_rope_cache_args* a, void* cache) {
  if (!cpu_has(p)) return kPathUnavailable;
  if (dtype_bytes(format) == 0 || !valid_rope_cache(a, cache)) return kInvalidArgument;
  return guarded([&] {
    thread_local FreqTable freq;
    RopeCachePlan pl{};
    pl.cache_positions = a->cache_positions;
    pl.rotary_dim = a->rotary_dim;
    pl.half = a->rotary_dim / 2;
    pl.half_pad = round_up(pl.half, 16);
    pl.format = format;
    pl.scale = a->position_scale;
    pl.attn = a->attn_factor;
    freq_table(a->theta_base, a->rotary_dim, a->inv_freq, pl.half_pad, freq);
    pl.f_hi = freq.hi.data();
    pl.f_lo = freq.lo.data();
    pl.f_absmax = freq.absmax;
    std::vector<float> scratch(static_cast<size_t>(2 * pl.half_pad), 0.0f);
    PEC_ON_PATH(p, rope_cache(pl, cache, scratch.data()));
    return static_cast<int>(kOk);
  });
}

int alibi_bias_16(Path p, int32_t format, const pec_alibi_args* a, uint16_t* scores) {
  if (!cpu_has(p)) return kPathUnavailable;
  if (!is16(format) || !valid_alibi(a, scores)) return kInvalidArgument;
  return guarded([&] {
    std::vector<double> slopes(static_cast<size_t>(a->n_heads));
    for (int64_t h = 0; h < a->n_heads; ++h) slopes[static_cast<size_t>(h)] = alibi_slope(a->n_heads, h);
    std::vector<double> kd(static_cast<size_t>(a->n_k));
    for (int64_t j = 0; j < a->n_k; ++j) kd[static_cast<size_t>(j)] = static_cast<double>(a->k_pos[j]);
    AlibiPlan pl{a->n_heads, a->n_q, a->n_k, a->mode == PEC_ALIBI_CAUSAL, slopes.data(), a->q_pos,
                 kd.data()};
    PEC_ON_PATH(p, alibi16(pl, format, scores));
    return static_cast<int>(kOk);
  });
}

int t5_bias_16(Path p, const pec_t5_args16* a, uint16_t* bias) {
  if (!cpu_has(p)) return kPathUnavailable;
  if (!valid_t5(a, bias)) return kInvalidArgument;
  return guarded([&] {
    const T5Shape shape = t5_shape<int64_t>(a->num_buckets, a->bidirectional != 0);
    const std::vector<int64_t> thr = t5_thresholds(shape.half_buckets, shape.max_exact, a->max_distance);
    std::vector<uint16_t> table_t(static_cast<size_t>(a->num_buckets * a->n_heads));
    for (int64_t b = 0; b < a->num_buckets; ++b) {
      for (int64_t h = 0; h < a->n_heads; ++h) {
        table_t[static_cast<size_t>(grid::t5_table_index<int64_t>(h, b, a->num_buckets))] =
            a->table[grid::t5_table_index<int64_t>(b, h, a->n_heads)];
      }
    }
    std::vector<int32_t> buckets(static_cast<size_t>(a->n_k));
    T5Plan pl{a->n_heads, a->n_q, a->n_k, a->bidirectional != 0, shape.half_buckets, shape.max_exact,
              static_cast<int64_t>(thr.size()), thr.data(), nullptr, a->num_buckets,
              a->q_pos, a->k_pos};
    PEC_ON_PATH(p, t5_16(pl, table_t.data(), bias, buckets.data()));
    return static_cast<int>(kOk);
  });
}

int sinusoidal_16(Path p, int32_t format, const pec_sinusoidal_args* a, uint16_t* out) {
  if (!cpu_has(p)) return kPathUnavailable;
  if (!is16(format) || !valid_sinusoidal(a, out)) return kInvalidArgument;
  return guarded([&] {
    SinusoidalPlan pl{};
    pl.n_tokens = a->n_tokens;
    pl.d_model = a->d_model;
    pl.half = a->d_model / 2;
    pl.half_pad = round_up(pl.half, 16);
    pl.positions = a->positions;
    FreqTable freq;
    freq_table(a->base, a->d_model, nullptr, pl.half_pad, freq);
    pl.f_hi = freq.hi.data();
    pl.f_lo = freq.lo.data();
    pl.f_absmax = freq.absmax;
    std::vector<float> scratch(static_cast<size_t>(2 * pl.half_pad));
    PEC_ON_PATH(p, sinusoidal16(pl, format, out, scratch.data()));
    return static_cast<int>(kOk);
  });
}

int convert_16(Path p, int32_t format, const float* in, uint16_t* out, const uint16_t* in16,
               float* out32, int64_t n) {
  if (!cpu_has(p)) return kPathUnavailable;
  if (!is16(format) || n < 0) return kInvalidArgument;
  PEC_ON_PATH(p, convert16(format, in, out, n, in16, out32));
  return kOk;
}

int learned_16(const pec_learned_args16* a, uint16_t* out) {
  if (!valid_learned(a, out)) return kInvalidArgument;
  for (int64_t t = 0; t < a->n_tokens; ++t) {
    std::memcpy(out + t * a->d_model, a->table + a->positions[t] * a->d_model,
                static_cast<size_t>(a->d_model) * sizeof(uint16_t));
  }
  return kOk;
}

}  // namespace pecheck::kernels::simd

// The version 2 exports are in exports_v2.cpp.
namespace {
using pecheck::kernels::simd::Path;

// Resolves the process-wide path; kPathUnavailable (and the reason, once, on stderr) when
// PECHECK_SIMD asks for something this CPU cannot run.
bool resolve(Path& p) {
  std::string reason;
  return pecheck::kernels::simd::active_path(p, reason);
}
}  // namespace

extern "C" {

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_rope_f32(const struct pec_rope_args* args, const float* x, float* y) {
  Path p;
  if (!resolve(p)) return pecheck::kernels::kPathUnavailable;
  return pecheck::kernels::simd::rope_f32(p, args, x, y);
}

int pec_alibi_bias_f32(const struct pec_alibi_args* args, float* scores) {
  Path p;
  if (!resolve(p)) return pecheck::kernels::kPathUnavailable;
  return pecheck::kernels::simd::alibi_bias_f32(p, args, scores);
}

int pec_t5_bias_f32(const struct pec_t5_args* args, float* bias) {
  Path p;
  if (!resolve(p)) return pecheck::kernels::kPathUnavailable;
  return pecheck::kernels::simd::t5_bias_f32(p, args, bias);
}

int pec_sinusoidal_f32(const struct pec_sinusoidal_args* args, float* out) {
  Path p;
  if (!resolve(p)) return pecheck::kernels::kPathUnavailable;
  return pecheck::kernels::simd::sinusoidal_f32(p, args, out);
}

int pec_learned_f32(const struct pec_learned_args* args, float* out) {
  Path p;
  if (!resolve(p)) return pecheck::kernels::kPathUnavailable;
  return pecheck::kernels::simd::learned_f32(args, out);
}

const char* pecheck_simd_path(void) {
  Path p;
  if (!resolve(p)) return "unavailable";
  return pecheck::kernels::simd::to_string(p);
}

}  // extern "C"
