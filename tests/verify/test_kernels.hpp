// Small kernels for the verify engine's own tests, used through pecheck::KernelTable (the
// in-process C++ API; calls still run in a forked worker unless isolate = false).
//
// The correct ones compute in double (far inside the float32 contracts). A global `g_bug`, set
// by a test before calling pecheck::verify (forked workers inherit it), injects one defect.
#pragma once

#include "pecheck_kernel.h"
#include "verify/verify.hpp"

namespace testk {

enum class Bug {
  None,
  CrashFrom3Tokens,     // SIGSEGV when n_tokens >= 3
  AbortFrom2Heads,      // abort() when n_heads >= 2
  HangFrom2Heads,       // spins forever when n_heads >= 2
  WritePastEnd,         // writes one float after the output when n_tokens >= 2
  SkipLastElement,      // leaves the last output element unwritten
  Nondeterministic,     // flips the low bit of y[0] on every other call
  WriteInput,           // scribbles on positions[0]
  IdentityFrom1000,     // y = x for tokens at positions >= 1000 (RoPE), wrong rotation
  NoValidation,         // accepts every call (RoPE rejection check)
  WriteThenReject,      // writes y, then rejects an invalid call
  InPlaceAlias,         // reads x after writing y (wrong when y == x)
  Bf16Position,         // RoPE angle from a position rounded to bfloat16
  AlibiKeyOnly,         // BLOOM, causal mode: bias = +slope * k_pos (the causal form up to a row constant)
  SinCosSwapped,        // sinusoidal: cos in even lanes
  LearnedClamp,         // clamps out-of-range positions instead of rejecting
  T5NegatedOffset,      // uses q - k instead of k - q
  ReturnsOne,           // returns 1 for n_tokens == 0
  PrintsToStdout,       // writes "kernel-noise" to stdout on every call
  T5LowerOnTies,        // T5: where the log formula is an exact integer, gives the bucket below
  WriteBeforeStart,     // T5: writes bias[-3] when n_q >= 2
  AlibiFinfoMinMask,    // ALiBi causal: masks with -FLT_MAX (HF's finfo.min) instead of -inf
  SlowThenHang,         // RoPE: sleeps 0.4 s for 2 heads (within the 1 s limit), spins from 3 heads
  // 16-bit kernels (rope16, alibi16, ...; the honest ones compute in double and round once, RNE):
  HfBf16Arith,          // RoPE 16-bit, Hugging Face style: float angle and cos/sin, cos/sin cast to the
                        // format, x*cos + rotate_half(x)*sin with every operation rounded to it
  AngleIn16Bit,         // RoPE 16-bit: the angle rounded to bfloat16 before cos/sin
  Truncate,             // 16-bit results rounded toward zero instead of to nearest even (ALiBi)
  BatchRemainderF32,    // RoPE 16-bit: tokens past the last full block of 8 computed in float32
  // issue 20:
  TrustsRotaryRange,    // RoPE: accepts rotary_dim > head_dim and rotates lanes past the head (reads and
                        // writes past x and y at the last head: harm, tier A)
  OverReadPairCopy,     // RoPE: copies pass-through lanes in pairs (ggml), reading one float past the head
                        // when head_dim - rotary_dim is odd (past x at the last head)
  BaseCacheKept,        // RoPE (transformers #25306 stand-in): a cos/sin cache rebuilt when a call needs
                        // more positions, with that call's theta_base, and reused by later shorter calls
  SizeGatedHeads,       // RoPE (vllm#51049 stand-in): from 10,240 token-heads a "multi-head" path rotates
                        // heads 1..3 of every group of 4 from the group's first head's input
  AlibiTiledSlopes,     // ALiBi: from 32,768 elements a "tiled" path gives head h the slope of head h % 8
};

extern Bug g_bug;

int rope(const pec_rope_args* a, const float* x, float* y);
int alibi(const pec_alibi_args* a, float* scores);
int t5(const pec_t5_args* a, float* bias);
int sinusoidal(const pec_sinusoidal_args* a, float* out);
int learned(const pec_learned_args* a, float* out);
int abi_version();

// 16-bit variants (ABI-STORE-2) for bf16 (Bf16 = true) and fp16.
template <bool Bf16> int rope16(const pec_rope_args* a, const std::uint16_t* x, std::uint16_t* y);
template <bool Bf16> int alibi16(const pec_alibi_args* a, std::uint16_t* scores);
template <bool Bf16> int t5_16(const pec_t5_args16* a, std::uint16_t* bias);
template <bool Bf16> int sinusoidal16(const pec_sinusoidal_args* a, std::uint16_t* out);
template <bool Bf16> int learned16(const pec_learned_args16* a, std::uint16_t* out);

// All five functions (and pec_abi_version).
pecheck::KernelTable all();
// The ten 16-bit functions (bf16 and f16 of the five families) and pec_abi_version.
pecheck::KernelTable all16();

}  // namespace testk
