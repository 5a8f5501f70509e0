#include "verify/isolation/kernel_call.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "verify/isolation/worker.hpp"

namespace pecheck::verifier {

// The call of one function with its own signature (spec/pecheck_kernel.h): (args, x, y) for
// RoPE, (args, out) for the biases and tables, (args, q, k, q_out, k_out) for the query+key and
// cached functions, (args, cache) for the cache builder.
int invoke(const KernelTable& t, Fn fn, const void* args, const void* x, void* y, const void* x2, void* y2,
           const void* x3) {
  using U = std::uint16_t;
  const auto* xf = static_cast<const float*>(x);
  const auto* xh = static_cast<const U*>(x);
  const auto* kf = static_cast<const float*>(x2);
  const auto* kh = static_cast<const U*>(x2);
  auto* yf = static_cast<float*>(y);
  auto* yh = static_cast<U*>(y);
  auto* lf = static_cast<float*>(y2);
  auto* lh = static_cast<U*>(y2);
  const auto* rope = static_cast<const pec_rope_args*>(args);
  const auto* alibi = static_cast<const pec_alibi_args*>(args);
  const auto* sinus = static_cast<const pec_sinusoidal_args*>(args);
  const auto* qk = static_cast<const pec_rope_qk_args*>(args);
  const auto* cached = static_cast<const pec_rope_cached_args*>(args);
  const auto* cache = static_cast<const pec_rope_cache_args*>(args);
  const auto* mrope = static_cast<const pec_mrope_args*>(args);
  switch (fn) {
    case Fn::Rope: return t.rope_f32(rope, xf, yf);
    case Fn::RopeBf16: return t.rope_bf16(rope, xh, yh);
    case Fn::RopeF16: return t.rope_f16(rope, xh, yh);
    case Fn::Alibi: return t.alibi_bias_f32(alibi, yf);
    case Fn::AlibiBf16: return t.alibi_bias_bf16(alibi, yh);
    case Fn::AlibiF16: return t.alibi_bias_f16(alibi, yh);
    case Fn::T5: return t.t5_bias_f32(static_cast<const pec_t5_args*>(args), yf);
    case Fn::T5Bf16: return t.t5_bias_bf16(static_cast<const pec_t5_args16*>(args), yh);
    case Fn::T5F16: return t.t5_bias_f16(static_cast<const pec_t5_args16*>(args), yh);
    case Fn::Sinusoidal: return t.sinusoidal_f32(sinus, yf);
    case Fn::SinusoidalBf16: return t.sinusoidal_bf16(sinus, yh);
    case Fn::SinusoidalF16: return t.sinusoidal_f16(sinus, yh);
    case Fn::Learned: return t.learned_f32(static_cast<const pec_learned_args*>(args), yf);
    case Fn::LearnedBf16: return t.learned_bf16(static_cast<const pec_learned_args16*>(args), yh);
    case Fn::LearnedF16: return t.learned_f16(static_cast<const pec_learned_args16*>(args), yh);
    case Fn::RopeQkF32: return t.rope_qk_f32(qk, xf, kf, yf, lf);
    case Fn::RopeQkBf16: return t.rope_qk_bf16(qk, xh, kh, yh, lh);
    case Fn::RopeQkF16: return t.rope_qk_f16(qk, xh, kh, yh, lh);
    case Fn::RopeCachedF32: return t.rope_cached_f32(cached, xf, kf, yf, lf);
    case Fn::RopeCachedBf16: return t.rope_cached_bf16(cached, xh, kh, yh, lh);
    case Fn::RopeCachedF16: return t.rope_cached_f16(cached, xh, kh, yh, lh);
    case Fn::RopeCacheF32: return t.rope_cache_f32(cache, yf);
    case Fn::RopeCacheBf16: return t.rope_cache_bf16(cache, yh);
    case Fn::RopeCacheF16: return t.rope_cache_f16(cache, yh);
    case Fn::MropeF32: return t.mrope_f32(mrope, xf, kf, yf, lf);
    case Fn::MropeBf16: return t.mrope_bf16(mrope, xh, kh, yh, lh);
    case Fn::MropeF16: return t.mrope_f16(mrope, xh, kh, yh, lh);
    // Attention: x = q, x2 = k, x3 = v, y = out, y2 = lse (float32 in every variant).
    case Fn::AttentionF32:
      return t.attention_f32(static_cast<const pec_attention_args*>(args), xf, kf, static_cast<const float*>(x3), yf,
                             lf);
    case Fn::AttentionBf16:
      return t.attention_bf16(static_cast<const pec_attention_args*>(args), xh, kh, static_cast<const U*>(x3), yh, lf);
    case Fn::AttentionF16:
      return t.attention_f16(static_cast<const pec_attention_args*>(args), xh, kh, static_cast<const U*>(x3), yh, lf);
  }
  return -1;
}

// Resolves the pec_* symbols of an opened library (every function of the version 2 header).
int invoke_noting(const KernelTable& table, Fn fn, const void* args, const void* x, void* y, const void* x2, void* y2,
                  const void* x3, bool* raised, char* what, std::size_t what_len) {
  const int rc = invoke(table, fn, args, x, y, x2, y2, x3);
  const char* w = table.failure ? table.failure() : nullptr;
  *raised = w != nullptr;
  if (w) std::snprintf(what, what_len, "%s", w);
  return rc;
}

KernelTable resolve(void* h) {
  KernelTable t;
  t.abi_version = reinterpret_cast<int (*)(void)>(dlsym(h, "pec_abi_version"));
  t.domain = reinterpret_cast<decltype(t.domain)>(dlsym(h, "pec_domain"));
  for (Fn f : kAllFns) t.set_entry(f, dlsym(h, std::string(symbol(f)).c_str()));
  return t;
}

bool open_table(void* h, const std::string& provider_spec, KernelTable* table, std::string* error) {
  if (provider_spec.empty()) {
    *table = resolve(h);
    return true;
  }
  const auto open = reinterpret_cast<ProviderOpen>(dlsym(h, kProviderOpenSymbol));
  if (!open) {
    *error = std::string("not a kernel provider (no ") + kProviderOpenSymbol + ")";
    return false;
  }
  char buf[480] = {};
  KernelTable t;
  if (open(provider_spec.c_str(), &t, buf, sizeof buf) != 0) {
    buf[sizeof buf - 1] = '\0';
    *error = buf[0] ? buf : "the provider could not load " + provider_spec;
    return false;
  }
  *table = t;
  return true;
}

void check_library_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw UsageError("cannot open kernel library " + path + ": " + std::strerror(errno));
  unsigned char h[64] = {};
  const ssize_t n = read(fd, h, sizeof h);
  const int err = errno;
  close(fd);
  if (n < 0) throw UsageError("cannot read kernel library " + path + ": " + std::strerror(err));
  if (n < 20 || std::memcmp(h, ELFMAG, SELFMAG) != 0) {
    throw UsageError("kernel library " + path + " is not an ELF shared object");
  }
#if defined(__x86_64__)
  constexpr int kMachine = EM_X86_64;
  constexpr const char* kArch = "x86-64";
#elif defined(__aarch64__)
  constexpr int kMachine = EM_AARCH64;
  constexpr const char* kArch = "aarch64";
#else
  constexpr int kMachine = -1;
  constexpr const char* kArch = "this host";
#endif
  if (h[EI_CLASS] != (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32)) {
    throw UsageError("kernel library " + path + " is a " + (h[EI_CLASS] == ELFCLASS32 ? "32" : "64") +
                     "-bit ELF file; pecheck needs a " + std::to_string(sizeof(void*) * 8) + "-bit library");
  }
  std::uint16_t type = 0, machine = 0;
  std::memcpy(&type, h + 16, 2);
  std::memcpy(&machine, h + 18, 2);
  if (kMachine >= 0 && machine != kMachine) {
    throw UsageError("kernel library " + path + " is built for another architecture (ELF machine " +
                     std::to_string(machine) + "), not " + kArch);
  }
  if (type != ET_DYN) throw UsageError("kernel library " + path + " is an ELF file but not a shared object");
}

}  // namespace pecheck::verifier
