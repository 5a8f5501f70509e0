// C++ API of pecheck_simd (the plug-in's pec_* functions are the C ABI of
// spec/pecheck_kernel.h). Tests and benchmarks call a chosen code path directly through it.
#pragma once

#include <string>

#include "pecheck_kernel.h"

namespace pecheck::kernels::simd {

// Avx512Bf16 is the AVX-512 path with bfloat16 results rounded by vcvtneps2bf16 (AVX512_BF16)
// instead of the integer rule; binary16 uses F16C on AVX2 and both AVX-512 paths, the portable
// rule of shared/f16_conv.hpp on the scalar path. Every path gives the same bits.
enum class Path : int { Scalar = 0, Avx2 = 1, Avx512 = 2, Avx512Bf16 = 3 };
inline constexpr Path kAllPaths[] = {Path::Scalar, Path::Avx2, Path::Avx512, Path::Avx512Bf16};

const char* to_string(Path p);
// True when this CPU (and OS) can run the path: AVX2 needs AVX2+FMA+BMI2+F16C (x86-64-v3),
// AVX-512 needs F+DQ+BW+VL (x86-64-v4), Avx512Bf16 also AVX512_BF16. The scalar path runs
// everywhere.
bool cpu_has(Path p);
// A one-line reason when !cpu_has(p), for test skips and error messages.
std::string missing_reason(Path p);

// The path the pec_* exports use: PECHECK_SIMD=scalar|avx2|avx512|avx512bf16 when set, else the best
// the CPU has. Returns false (and a reason) when PECHECK_SIMD names an unknown path or one
// the CPU lacks; the pec_* functions then return kPathUnavailable on every call.
bool active_path(Path& p, std::string& reason);

// Streaming (non-temporal) stores for RoPE outputs of at least this many bytes (when y is
// 64-byte aligned, not in place, and rows keep vector alignment); below it, and always in
// place, ordinary stores keep y in cache for the next kernel. PECHECK_SIMD_STREAM=0|1 forces
// them off or on (on still needs the alignment). 32 MiB: there x + y (64 MiB) are twice this
// Zen 5 VM's 32 MiB L3. In bench_kernels_rope's A/B (BM_RopeStream, two runs, one thread)
// streaming was faster in 10 of 12 (size, layout) pairs from 32 to 128 MiB (equal in one,
// slower in one) and mixed at 16 MiB (slower for NEOX in both runs): ordinary stores read each
// line of y before writing it (read-for-ownership), streaming stores do not, but they also
// leave y out of the cache. The in-cache cases (4 MiB) keep ordinary stores.
inline constexpr long long kStreamMinBytes = 1ll << 25;

// Process-wide streaming-store mode for benchmarks: -1 automatic (above), 0 never, 1 when
// aligned. Starts from PECHECK_SIMD_STREAM when set.
void set_stream_mode(int mode);
int stream_mode();

int rope_f32(Path p, const pec_rope_args* a, const float* x, float* y);
int alibi_bias_f32(Path p, const pec_alibi_args* a, float* scores);
int t5_bias_f32(Path p, const pec_t5_args* a, float* bias);
int sinusoidal_f32(Path p, const pec_sinusoidal_args* a, float* out);
int learned_f32(const pec_learned_args* a, float* out);

// Version 2. format: PEC_DTYPE_F32, PEC_DTYPE_BF16 or PEC_DTYPE_F16, the storage type of the
// tensors (uint16_t patterns for the 16-bit ones; the _16 functions take only BF16 or F16).
int rope_16(Path p, int32_t format, const pec_rope_args* a, const uint16_t* x, uint16_t* y);
int alibi_bias_16(Path p, int32_t format, const pec_alibi_args* a, uint16_t* scores);
int t5_bias_16(Path p, const pec_t5_args16* a, uint16_t* bias);
int sinusoidal_16(Path p, int32_t format, const pec_sinusoidal_args* a, uint16_t* out);
int learned_16(const pec_learned_args16* a, uint16_t* out);
int rope_qk(Path p, int32_t format, const pec_rope_qk_args* a, const void* q, const void* k,
            void* q_out, void* k_out);
int rope_cached(Path p, int32_t format, const pec_rope_cached_args* a, const void* q,
                const void* k, void* q_out, void* k_out);
int rope_cache(Path p, int32_t format, const pec_rope_cache_args* a, void* cache);
// M-RoPE (pec_mrope_*): rope_qk with pair i rotated by the position of its axis.
int mrope(Path p, int32_t format, const pec_mrope_args* a, const void* q, const void* k,
          void* q_out, void* k_out);

// Test hook: the path's own conversions, on n elements each way: out[i] = in[i] rounded to
// `format` (BF16 or F16), out32[i] = in16[i] widened. Returns kPathUnavailable or 0.
int convert_16(Path p, int32_t format, const float* in, uint16_t* out, const uint16_t* in16,
               float* out32, int64_t n);

}  // namespace pecheck::kernels::simd

extern "C" {
// Name of the path the pec_* exports use ("scalar", "avx2", "avx512", "avx512bf16"), or
// "unavailable".
const char* pecheck_simd_path(void);
}
