// The functions of one kernel under test: the pec_* entry points of spec/pecheck_kernel.h
// (ABI version 2) as function pointers (NULL = not exported). Filled by dlsym from a plug-in
// library, or by a user's own test suite for in-process verification (pecheck::verify).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "pecheck_kernel.h"
#include "verify/isolation/storage.hpp"

namespace pecheck::verifier {

// Every function of the header. The five float32 functions of version 1 keep values 0-4 (a
// LibraryInfo mask bit i is kAllFns[i]); the version 2 ones follow.
enum class Fn : int {
  Rope = 0, Alibi = 1, T5 = 2, Sinusoidal = 3, Learned = 4,
  RopeBf16, RopeF16, AlibiBf16, AlibiF16, T5Bf16, T5F16, SinusoidalBf16, SinusoidalF16, LearnedBf16, LearnedF16,
  RopeQkF32, RopeQkBf16, RopeQkF16, RopeCachedF32, RopeCachedBf16, RopeCachedF16,
  RopeCacheF32, RopeCacheBf16, RopeCacheF16, MropeF32, MropeBf16, MropeF16,
  AttentionF32, AttentionBf16, AttentionF16,
};
inline constexpr int kFnCount = 30;
static_assert(kFnCount <= 32, "LibraryInfo::mask is a uint32");
inline constexpr std::array<Fn, kFnCount> kAllFns = {
    Fn::Rope, Fn::Alibi, Fn::T5, Fn::Sinusoidal, Fn::Learned,
    Fn::RopeBf16, Fn::RopeF16, Fn::AlibiBf16, Fn::AlibiF16, Fn::T5Bf16, Fn::T5F16,
    Fn::SinusoidalBf16, Fn::SinusoidalF16, Fn::LearnedBf16, Fn::LearnedF16,
    Fn::RopeQkF32, Fn::RopeQkBf16, Fn::RopeQkF16, Fn::RopeCachedF32, Fn::RopeCachedBf16, Fn::RopeCachedF16,
    Fn::RopeCacheF32, Fn::RopeCacheBf16, Fn::RopeCacheF16, Fn::MropeF32, Fn::MropeBf16, Fn::MropeF16,
    Fn::AttentionF32, Fn::AttentionBf16, Fn::AttentionF16};

// The families of functions (one argument struct each; the storage type is the suffix).
enum class Family { Rope, Alibi, T5, Sinusoidal, Learned, RopeQk, RopeCached, RopeCache, Mrope, Attention };

Storage storage(Fn f);
Family family(Fn f);
Fn fn_of(Family fam, Storage s);
// True for the five float32 functions of ABI version 1.
constexpr bool is_v1(Fn f) { return static_cast<int>(f) < 5; }
// Bit of `f` in a mask (1u << index in kAllFns).
constexpr std::uint32_t fn_bit(Fn f) { return 1u << static_cast<int>(f); }
// Mask of the version 1 functions.
inline constexpr std::uint32_t kV1Mask = 0x1fu;
// The attention functions (ABI-ATTN-*): optional within version 2. A library that exports none of
// them is reported exactly as before they existed (they are neither listed as missing nor given
// skipped checks).
inline constexpr int kAttentionFnCount = 3;
inline constexpr std::uint32_t kAttentionMask = 7u << 27;
constexpr bool is_attention(Fn f) { return static_cast<int>(f) >= 27 && static_cast<int>(f) < 30; }

// ABI symbol of each function: "pec_rope_f32", "pec_alibi_bias_bf16", "pec_rope_qk_f16", ...
std::string_view symbol(Fn f);
// Scheme name used in reports, budgets, declared domains and rejection requirements: "rope",
// "alibi", "t5", "sinusoidal", "learned", "rope_qk", "rope_cached", "rope_cache", "mrope", "attention" (whatever the
// storage type).
std::string_view scheme(Fn f);
std::string_view scheme(Family f);
// Prefix of the function's check names: the scheme for float32 ("rope": the version 1 check
// names and stored corpus/regression files are unchanged), else scheme.storage ("rope.bf16",
// "t5.f16", "rope_qk.bf16"); "rope_qk" for pec_rope_qk_f32.
std::string check_prefix(Fn f);

}  // namespace pecheck::verifier

namespace pecheck {

struct KernelTable {
  int (*abi_version)(void) = nullptr;
  // Version 1.
  int (*rope_f32)(const pec_rope_args*, const float*, float*) = nullptr;
  int (*alibi_bias_f32)(const pec_alibi_args*, float*) = nullptr;
  int (*t5_bias_f32)(const pec_t5_args*, float*) = nullptr;
  int (*sinusoidal_f32)(const pec_sinusoidal_args*, float*) = nullptr;
  int (*learned_f32)(const pec_learned_args*, float*) = nullptr;
  const char* (*domain)(void) = nullptr;  // optional declared domain (ABI-DOM-1); not a check target
  // Optional, not an ABI function: a kernel provider's account of why the last call it ran failed
  // instead of returning a status ("raised ValueError: ... (at file.py:12 in f)"), NULL when
  // it returned. Read by the worker right after each call (src/python, pecheck verify --python).
  const char* (*failure)(void) = nullptr;
  // Version 2: 16-bit storage variants (ABI-STORE-2).
  int (*rope_bf16)(const pec_rope_args*, const std::uint16_t*, std::uint16_t*) = nullptr;
  int (*rope_f16)(const pec_rope_args*, const std::uint16_t*, std::uint16_t*) = nullptr;
  int (*alibi_bias_bf16)(const pec_alibi_args*, std::uint16_t*) = nullptr;
  int (*alibi_bias_f16)(const pec_alibi_args*, std::uint16_t*) = nullptr;
  int (*t5_bias_bf16)(const pec_t5_args16*, std::uint16_t*) = nullptr;
  int (*t5_bias_f16)(const pec_t5_args16*, std::uint16_t*) = nullptr;
  int (*sinusoidal_bf16)(const pec_sinusoidal_args*, std::uint16_t*) = nullptr;
  int (*sinusoidal_f16)(const pec_sinusoidal_args*, std::uint16_t*) = nullptr;
  int (*learned_bf16)(const pec_learned_args16*, std::uint16_t*) = nullptr;
  int (*learned_f16)(const pec_learned_args16*, std::uint16_t*) = nullptr;
  // Version 2: query and key together (ABI-QK), from a cos/sin cache (ABI-CACHE), the builder.
  int (*rope_qk_f32)(const pec_rope_qk_args*, const float*, const float*, float*, float*) = nullptr;
  int (*rope_qk_bf16)(const pec_rope_qk_args*, const std::uint16_t*, const std::uint16_t*, std::uint16_t*,
                      std::uint16_t*) = nullptr;
  int (*rope_qk_f16)(const pec_rope_qk_args*, const std::uint16_t*, const std::uint16_t*, std::uint16_t*,
                     std::uint16_t*) = nullptr;
  int (*rope_cached_f32)(const pec_rope_cached_args*, const float*, const float*, float*, float*) = nullptr;
  int (*rope_cached_bf16)(const pec_rope_cached_args*, const std::uint16_t*, const std::uint16_t*, std::uint16_t*,
                          std::uint16_t*) = nullptr;
  int (*rope_cached_f16)(const pec_rope_cached_args*, const std::uint16_t*, const std::uint16_t*, std::uint16_t*,
                         std::uint16_t*) = nullptr;
  int (*rope_cache_f32)(const pec_rope_cache_args*, float*) = nullptr;
  int (*rope_cache_bf16)(const pec_rope_cache_args*, std::uint16_t*) = nullptr;
  int (*rope_cache_f16)(const pec_rope_cache_args*, std::uint16_t*) = nullptr;
  // Version 2: M-RoPE (ABI-MROPE).
  int (*mrope_f32)(const pec_mrope_args*, const float*, const float*, float*, float*) = nullptr;
  int (*mrope_bf16)(const pec_mrope_args*, const std::uint16_t*, const std::uint16_t*, std::uint16_t*,
                    std::uint16_t*) = nullptr;
  int (*mrope_f16)(const pec_mrope_args*, const std::uint16_t*, const std::uint16_t*, std::uint16_t*,
                   std::uint16_t*) = nullptr;
  // Attention with the encoding inside (ABI-ATTN).
  int (*attention_f32)(const pec_attention_args*, const float*, const float*, const float*, float*, float*) = nullptr;
  int (*attention_bf16)(const pec_attention_args*, const std::uint16_t*, const std::uint16_t*, const std::uint16_t*,
                        std::uint16_t*, float*) = nullptr;
  int (*attention_f16)(const pec_attention_args*, const std::uint16_t*, const std::uint16_t*, const std::uint16_t*,
                       std::uint16_t*, float*) = nullptr;

  bool has(verifier::Fn f) const;
  // Bit i set when function kAllFns[i] is present.
  std::uint32_t mask() const;
  // The entry point of `f` as an untyped pointer (NULL when absent).
  void* entry(verifier::Fn f) const;
  void set_entry(verifier::Fn f, void* p);
};

}  // namespace pecheck
