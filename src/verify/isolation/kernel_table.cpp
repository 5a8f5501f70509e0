#include "verify/isolation/kernel_table.hpp"

namespace pecheck::verifier {

std::string_view symbol(Fn f) {
  switch (f) {
    case Fn::Rope: return "pec_rope_f32";
    case Fn::Alibi: return "pec_alibi_bias_f32";
    case Fn::T5: return "pec_t5_bias_f32";
    case Fn::Sinusoidal: return "pec_sinusoidal_f32";
    case Fn::Learned: return "pec_learned_f32";
  }
  return "?";
}

std::string_view scheme(Fn f) {
  switch (f) {
    case Fn::Rope: return "rope";
    case Fn::Alibi: return "alibi";
    case Fn::T5: return "t5";
    case Fn::Sinusoidal: return "sinusoidal";
    case Fn::Learned: return "learned";
  }
  return "?";
}

}  // namespace pecheck::verifier

namespace pecheck {

bool KernelTable::has(verifier::Fn f) const {
  switch (f) {
    case verifier::Fn::Rope: return rope_f32 != nullptr;
    case verifier::Fn::Alibi: return alibi_bias_f32 != nullptr;
    case verifier::Fn::T5: return t5_bias_f32 != nullptr;
    case verifier::Fn::Sinusoidal: return sinusoidal_f32 != nullptr;
    case verifier::Fn::Learned: return learned_f32 != nullptr;
  }
  return false;
}

std::uint32_t KernelTable::mask() const {
  std::uint32_t m = 0;
  for (int i = 0; i < verifier::kFnCount; ++i) {
    if (has(verifier::kAllFns[i])) m |= 1u << i;
  }
  return m;
}

}  // namespace pecheck
