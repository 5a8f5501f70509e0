// The functions of one kernel under test: the pec_* entry points of spec/pecheck_kernel.h as
// function pointers (NULL = not exported). Filled by dlsym from a plug-in library, or by a
// user's own test suite for in-process verification (pecheck::verify).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "pecheck_kernel.h"

namespace pecheck::verifier {

enum class Fn : int { Rope = 0, Alibi = 1, T5 = 2, Sinusoidal = 3, Learned = 4 };
inline constexpr int kFnCount = 5;
inline constexpr std::array<Fn, kFnCount> kAllFns = {Fn::Rope, Fn::Alibi, Fn::T5, Fn::Sinusoidal,
                                                      Fn::Learned};

// ABI symbol of each function: "pec_rope_f32", ...
std::string_view symbol(Fn f);
// Scheme name used in reports: "rope", "alibi", "t5", "sinusoidal", "learned".
std::string_view scheme(Fn f);

}  // namespace pecheck::verifier

namespace pecheck {

struct KernelTable {
  int (*abi_version)(void) = nullptr;
  int (*rope_f32)(const pec_rope_args*, const float*, float*) = nullptr;
  int (*alibi_bias_f32)(const pec_alibi_args*, float*) = nullptr;
  int (*t5_bias_f32)(const pec_t5_args*, float*) = nullptr;
  int (*sinusoidal_f32)(const pec_sinusoidal_args*, float*) = nullptr;
  int (*learned_f32)(const pec_learned_args*, float*) = nullptr;
  const char* (*domain)(void) = nullptr;  // optional declared domain (ABI-DOM-1); not a check target

  bool has(verifier::Fn f) const;
  // Bit i set when function kAllFns[i] is present.
  std::uint32_t mask() const;
};

}  // namespace pecheck
