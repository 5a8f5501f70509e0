#include "verify/isolation/kernel_table.hpp"

#include <string>

namespace pecheck::verifier {

Storage storage(Fn f) {
  switch (f) {
    case Fn::Rope: case Fn::Alibi: case Fn::T5: case Fn::Sinusoidal: case Fn::Learned:
    case Fn::RopeQkF32: case Fn::RopeCachedF32: case Fn::RopeCacheF32: case Fn::MropeF32:
    case Fn::AttentionF32:
      return Storage::F32;
    case Fn::RopeBf16: case Fn::AlibiBf16: case Fn::T5Bf16: case Fn::SinusoidalBf16: case Fn::LearnedBf16:
    case Fn::RopeQkBf16: case Fn::RopeCachedBf16: case Fn::RopeCacheBf16: case Fn::MropeBf16:
    case Fn::AttentionBf16:
      return Storage::BF16;
    case Fn::RopeF16: case Fn::AlibiF16: case Fn::T5F16: case Fn::SinusoidalF16: case Fn::LearnedF16:
    case Fn::RopeQkF16: case Fn::RopeCachedF16: case Fn::RopeCacheF16: case Fn::MropeF16:
    case Fn::AttentionF16:
      return Storage::F16;
  }
  return Storage::F32;
}

Family family(Fn f) {
  switch (f) {
    case Fn::Rope: case Fn::RopeBf16: case Fn::RopeF16: return Family::Rope;
    case Fn::Alibi: case Fn::AlibiBf16: case Fn::AlibiF16: return Family::Alibi;
    case Fn::T5: case Fn::T5Bf16: case Fn::T5F16: return Family::T5;
    case Fn::Sinusoidal: case Fn::SinusoidalBf16: case Fn::SinusoidalF16: return Family::Sinusoidal;
    case Fn::Learned: case Fn::LearnedBf16: case Fn::LearnedF16: return Family::Learned;
    case Fn::RopeQkF32: case Fn::RopeQkBf16: case Fn::RopeQkF16: return Family::RopeQk;
    case Fn::RopeCachedF32: case Fn::RopeCachedBf16: case Fn::RopeCachedF16: return Family::RopeCached;
    case Fn::RopeCacheF32: case Fn::RopeCacheBf16: case Fn::RopeCacheF16: return Family::RopeCache;
    case Fn::MropeF32: case Fn::MropeBf16: case Fn::MropeF16: return Family::Mrope;
    case Fn::AttentionF32: case Fn::AttentionBf16: case Fn::AttentionF16: return Family::Attention;
  }
  return Family::Rope;
}

Fn fn_of(Family fam, Storage s) {
  const int k = s == Storage::F32 ? 0 : s == Storage::BF16 ? 1 : 2;
  switch (fam) {
    case Family::Rope: return k == 0 ? Fn::Rope : k == 1 ? Fn::RopeBf16 : Fn::RopeF16;
    case Family::Alibi: return k == 0 ? Fn::Alibi : k == 1 ? Fn::AlibiBf16 : Fn::AlibiF16;
    case Family::T5: return k == 0 ? Fn::T5 : k == 1 ? Fn::T5Bf16 : Fn::T5F16;
    case Family::Sinusoidal: return k == 0 ? Fn::Sinusoidal : k == 1 ? Fn::SinusoidalBf16 : Fn::SinusoidalF16;
    case Family::Learned: return k == 0 ? Fn::Learned : k == 1 ? Fn::LearnedBf16 : Fn::LearnedF16;
    case Family::RopeQk: return k == 0 ? Fn::RopeQkF32 : k == 1 ? Fn::RopeQkBf16 : Fn::RopeQkF16;
    case Family::RopeCached: return k == 0 ? Fn::RopeCachedF32 : k == 1 ? Fn::RopeCachedBf16 : Fn::RopeCachedF16;
    case Family::RopeCache: return k == 0 ? Fn::RopeCacheF32 : k == 1 ? Fn::RopeCacheBf16 : Fn::RopeCacheF16;
    case Family::Mrope: return k == 0 ? Fn::MropeF32 : k == 1 ? Fn::MropeBf16 : Fn::MropeF16;
    case Family::Attention: return k == 0 ? Fn::AttentionF32 : k == 1 ? Fn::AttentionBf16 : Fn::AttentionF16;
  }
  return Fn::Rope;
}

std::string_view scheme(Family f) {
  switch (f) {
    case Family::Rope: return "rope";
    case Family::Alibi: return "alibi";
    case Family::T5: return "t5";
    case Family::Sinusoidal: return "sinusoidal";
    case Family::Learned: return "learned";
    case Family::RopeQk: return "rope_qk";
    case Family::RopeCached: return "rope_cached";
    case Family::RopeCache: return "rope_cache";
    case Family::Mrope: return "mrope";
    case Family::Attention: return "attention";
  }
  return "?";
}

std::string_view scheme(Fn f) { return scheme(family(f)); }

std::string_view symbol(Fn f) {
  switch (f) {
    case Fn::Rope: return "pec_rope_f32";
    case Fn::Alibi: return "pec_alibi_bias_f32";
    case Fn::T5: return "pec_t5_bias_f32";
    case Fn::Sinusoidal: return "pec_sinusoidal_f32";
    case Fn::Learned: return "pec_learned_f32";
    case Fn::RopeBf16: return "pec_rope_bf16";
    case Fn::RopeF16: return "pec_rope_f16";
    case Fn::AlibiBf16: return "pec_alibi_bias_bf16";
    case Fn::AlibiF16: return "pec_alibi_bias_f16";
    case Fn::T5Bf16: return "pec_t5_bias_bf16";
    case Fn::T5F16: return "pec_t5_bias_f16";
    case Fn::SinusoidalBf16: return "pec_sinusoidal_bf16";
    case Fn::SinusoidalF16: return "pec_sinusoidal_f16";
    case Fn::LearnedBf16: return "pec_learned_bf16";
    case Fn::LearnedF16: return "pec_learned_f16";
    case Fn::RopeQkF32: return "pec_rope_qk_f32";
    case Fn::RopeQkBf16: return "pec_rope_qk_bf16";
    case Fn::RopeQkF16: return "pec_rope_qk_f16";
    case Fn::RopeCachedF32: return "pec_rope_cached_f32";
    case Fn::RopeCachedBf16: return "pec_rope_cached_bf16";
    case Fn::RopeCachedF16: return "pec_rope_cached_f16";
    case Fn::RopeCacheF32: return "pec_rope_cache_f32";
    case Fn::RopeCacheBf16: return "pec_rope_cache_bf16";
    case Fn::RopeCacheF16: return "pec_rope_cache_f16";
    case Fn::MropeF32: return "pec_mrope_f32";
    case Fn::MropeBf16: return "pec_mrope_bf16";
    case Fn::MropeF16: return "pec_mrope_f16";
    case Fn::AttentionF32: return "pec_attention_f32";
    case Fn::AttentionBf16: return "pec_attention_bf16";
    case Fn::AttentionF16: return "pec_attention_f16";
  }
  return "?";
}

std::string check_prefix(Fn f) {
  const std::string s(scheme(f));
  return storage(f) == Storage::F32 ? s : s + "." + std::string(storage_name(storage(f)));
}

}  // namespace pecheck::verifier

namespace pecheck {

namespace {
using verifier::Fn;

template <class F>
void* untyped(F* p) {
  return reinterpret_cast<void*>(p);
}
template <class F>
void assign(F*& member, void* p) {
  member = reinterpret_cast<F*>(p);
}

// One visitor over the members, so that has/entry/set_entry cannot disagree.
template <class T, class V>
auto visit(T& t, Fn f, V v) {
  switch (f) {
    case Fn::Rope: return v(t.rope_f32);
    case Fn::Alibi: return v(t.alibi_bias_f32);
    case Fn::T5: return v(t.t5_bias_f32);
    case Fn::Sinusoidal: return v(t.sinusoidal_f32);
    case Fn::Learned: return v(t.learned_f32);
    case Fn::RopeBf16: return v(t.rope_bf16);
    case Fn::RopeF16: return v(t.rope_f16);
    case Fn::AlibiBf16: return v(t.alibi_bias_bf16);
    case Fn::AlibiF16: return v(t.alibi_bias_f16);
    case Fn::T5Bf16: return v(t.t5_bias_bf16);
    case Fn::T5F16: return v(t.t5_bias_f16);
    case Fn::SinusoidalBf16: return v(t.sinusoidal_bf16);
    case Fn::SinusoidalF16: return v(t.sinusoidal_f16);
    case Fn::LearnedBf16: return v(t.learned_bf16);
    case Fn::LearnedF16: return v(t.learned_f16);
    case Fn::RopeQkF32: return v(t.rope_qk_f32);
    case Fn::RopeQkBf16: return v(t.rope_qk_bf16);
    case Fn::RopeQkF16: return v(t.rope_qk_f16);
    case Fn::RopeCachedF32: return v(t.rope_cached_f32);
    case Fn::RopeCachedBf16: return v(t.rope_cached_bf16);
    case Fn::RopeCachedF16: return v(t.rope_cached_f16);
    case Fn::RopeCacheF32: return v(t.rope_cache_f32);
    case Fn::RopeCacheBf16: return v(t.rope_cache_bf16);
    case Fn::RopeCacheF16: return v(t.rope_cache_f16);
    case Fn::MropeF32: return v(t.mrope_f32);
    case Fn::MropeBf16: return v(t.mrope_bf16);
    case Fn::MropeF16: return v(t.mrope_f16);
    case Fn::AttentionF32: return v(t.attention_f32);
    case Fn::AttentionBf16: return v(t.attention_bf16);
    case Fn::AttentionF16: return v(t.attention_f16);
  }
  return v(t.rope_f32);
}

}  // namespace

void* KernelTable::entry(Fn f) const {
  return visit(*this, f, [](auto p) { return untyped(p); });
}

void KernelTable::set_entry(Fn f, void* p) {
  visit(*this, f, [p](auto& member) { assign(member, p); });
}

bool KernelTable::has(Fn f) const { return entry(f) != nullptr; }

std::uint32_t KernelTable::mask() const {
  std::uint32_t m = 0;
  for (int i = 0; i < verifier::kFnCount; ++i) {
    if (has(verifier::kAllFns[i])) m |= 1u << i;
  }
  return m;
}

}  // namespace pecheck
