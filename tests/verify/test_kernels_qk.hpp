// Test kernels of the version 2 RoPE functions (pec_rope_qk_*, pec_rope_cached_*,
// pec_rope_cache_*), used through pecheck::KernelTable. The correct ones validate every domain
// rule of spec/abi.md (ABI-QK-1, ABI-VIEW-1, ABI-CACHE-1, ABI-CACHE-3), compute in double and
// round once to the storage type. `g_qk_bug`, set by a test before pecheck::verify (forked
// workers inherit it), injects one defect.
#pragma once

#include "pecheck_kernel.h"
#include "verify/verify.hpp"

namespace testk {

enum class QkBug {
  None,
  CacheByTokenIndex,  // cached: reads cache row t (the token's index) instead of positions[t]
  KeyWithQueryHeads,  // rotates the key for n_q_heads heads (the query's head count)
  IgnoreStrides,      // addresses every tensor as dense [T][H][D], whatever the strides
  AttnTwice,          // qk and builder: cos and sin times attn_factor^2
  AttnCosOnly,        // qk and builder: attn_factor on cos only
  DegradeF32Cache,    // cached: rounds a float32 cache's C, S to bfloat16 before the multiply
  PerOpStorage,       // cached, 16-bit storage: every operation rounded to the storage type (vLLM
                      // scalar_t)
  NoValidation,       // accepts every call (trusts the arguments)
  Bf16Position,       // qk: the angle from a position rounded to bfloat16
  BatchDependent,     // qk: the last token of an odd-length batch is rounded through float twice
  InPlaceAlias,       // qk: writes y[a] before reading x[a] for y[b] (wrong in place)
  NeoxOnly,  // qk and cached: rejects GPT-J calls and head_dim outside {64, 128} (a narrow kernel)
  // M-RoPE (pec_mrope_*):
  MropeWrongAxis,       // the h section rotated by the w row (and w by h)
  MropeTextPositions,   // every pair rotated by the t row: image tokens get their text position
  MropeInterleavedAsSectioned,  // an interleaved call rotated with the sectioned assignment
  MropeAbsoluteScale,   // q_out times (1 + t/2^20): a position-dependent query scale
  FloatField,  // not a bug: the field's float32 formulas (powf frequencies, float angle,
               // cosf/sinf, float attn product and rotation), then one rounding to the storage type
};

extern QkBug g_qk_bug;

// The twelve version 2 RoPE functions (query+key, cached, builder, M-RoPE) in a KernelTable (and
// pec_abi_version).
pecheck::KernelTable qk_all();

}  // namespace testk
