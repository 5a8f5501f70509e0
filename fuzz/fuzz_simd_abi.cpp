// libFuzzer target: the argument validation of pecheck's own CPU kernels (pecheck_simd) through
// the plug-in ABI (spec/pecheck_kernel.h), with fuzzed argument structs on small bounded sizes.
//
// The fuzzer loads the library (PECHECK_SIMD_LIB=path/libpecheck_simd.so, set by fuzz/run.sh: the
// one built beside it, instrumented, in scripts/test.sh); the replay build of this file
// (tests/ci) links it directly. Whether or not the library is instrumented, every
// array is placed so that it ends exactly at a PROT_NONE guard page (a read or write past its
// end faults) and the bytes before it are poisoned and checked (a write before its start is
// caught); at most one array is passed as NULL. Properties, for all five functions: no crash,
// no access outside the arrays, and the kernel accepts (returns 0) exactly the calls inside the
// ABI's domain as pecheck verify judges it (verifier::invalid_reason, spec/abi.md *-1 clauses
// and ABI-GEN-3), rejecting every other one without touching its output.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "bytes.hpp"
#include "pecheck_kernel.h"
#include "verify/v1/cases.hpp"

namespace {

using pecheck::fuzz::Bytes;
using namespace pecheck::verifier;

constexpr double kReals[] = {NAN, -INFINITY, -10000.0, -1.0, -0.0, 0.0, 1e-30, 0.25, 1.0, 1.0000000000000002,
                             2.0, 8.0, 10000.0, 500000.0, 1e300, INFINITY};
constexpr std::int64_t kPositions[] = {0, 1, 2, 7, 4095, 65535, 131071, 2147483647, 2147483648LL, -1,
                                       -2147483648LL, INT64_MIN, INT64_MAX, 1LL << 40};
constexpr float kPoison = 1234.5f;

std::int64_t position(Bytes& b, std::int64_t limit) {
  return b.u8() < 200 ? b.range(0, limit) : b.pick(kPositions);
}

// An array that ends exactly at a guard page. The bytes between the start of its mapping and
// the array are filled with a pattern that intact() checks.
template <class T>
class Guarded {
 public:
  explicit Guarded(std::int64_t n) : n_(n > 0 ? static_cast<std::size_t>(n) : 0) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t bytes = n_ * sizeof(T);
    pages_ = (bytes + page - 1) / page + 1;
    len_ = (pages_ + 1) * page;
    base_ = static_cast<unsigned char*>(mmap(nullptr, len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base_ == MAP_FAILED) std::abort();
    mprotect(base_ + pages_ * page, page, PROT_NONE);
    data_ = reinterpret_cast<T*>(base_ + pages_ * page - bytes);
    std::memset(base_, 0xA5, pages_ * page - bytes);
    for (std::size_t i = 0; i < n_; ++i) data_[i] = T{};
  }
  ~Guarded() { munmap(base_, len_); }
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;
  T* get() { return data_; }
  T& operator[](std::int64_t i) { return data_[i]; }
  bool intact() const {
    const unsigned char* end = reinterpret_cast<const unsigned char*>(data_);
    for (const unsigned char* p = base_; p < end; ++p) {
      if (*p != 0xA5) return false;
    }
    return true;
  }

 private:
  std::size_t n_, pages_ = 0, len_ = 0;
  unsigned char* base_ = nullptr;
  T* data_ = nullptr;
};

template <class T>
std::unique_ptr<Guarded<T>> array(std::int64_t n) {
  return std::make_unique<Guarded<T>>(n);
}

// The five entry points: from the library named by PECHECK_SIMD_LIB, or linked in.
struct Table {
  decltype(&pec_rope_f32) rope = nullptr;
  decltype(&pec_alibi_bias_f32) alibi = nullptr;
  decltype(&pec_t5_bias_f32) t5 = nullptr;
  decltype(&pec_sinusoidal_f32) sinusoidal = nullptr;
  decltype(&pec_learned_f32) learned = nullptr;
};

const Table& kernels() {
  static const Table t = [] {
    Table k;
    if (const char* lib = std::getenv("PECHECK_SIMD_LIB"); lib != nullptr && *lib != '\0') {
      void* h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
      if (h == nullptr) {
        std::fprintf(stderr, "fuzz_simd_abi: cannot load %s: %s\n", lib, dlerror());
        std::abort();
      }
      k.rope = reinterpret_cast<decltype(k.rope)>(dlsym(h, "pec_rope_f32"));
      k.alibi = reinterpret_cast<decltype(k.alibi)>(dlsym(h, "pec_alibi_bias_f32"));
      k.t5 = reinterpret_cast<decltype(k.t5)>(dlsym(h, "pec_t5_bias_f32"));
      k.sinusoidal = reinterpret_cast<decltype(k.sinusoidal)>(dlsym(h, "pec_sinusoidal_f32"));
      k.learned = reinterpret_cast<decltype(k.learned)>(dlsym(h, "pec_learned_f32"));
    } else {
#ifdef PECHECK_FUZZ_LINKED_SIMD
      k = Table{&pec_rope_f32, &pec_alibi_bias_f32, &pec_t5_bias_f32, &pec_sinusoidal_f32, &pec_learned_f32};
#else
      std::fprintf(stderr, "fuzz_simd_abi: set PECHECK_SIMD_LIB to the GCC-built libpecheck_simd.so\n");
      std::abort();
#endif
    }
    if (!k.rope || !k.alibi || !k.t5 || !k.sinusoidal || !k.learned) {
      std::fprintf(stderr, "fuzz_simd_abi: the library lacks a pec_* function\n");
      std::abort();
    }
    return k;
  }();
  return t;
}

std::int64_t count(std::initializer_list<std::int64_t> dims) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d > 0 ? d : 0;
  return n;
}

void expect(int rc, const std::string& why, const char* fn, const float* out, std::int64_t n) {
  if ((rc == 0) != why.empty()) {
    std::fprintf(stderr, "%s returned %d for a call that is %s\n", fn, rc,
                 why.empty() ? "valid" : ("invalid: " + why).c_str());
    std::abort();
  }
  if (rc != 0 && out != nullptr) {
    for (std::int64_t i = 0; i < n; ++i) {
      if (std::memcmp(&out[i], &kPoison, sizeof kPoison) != 0) {
        std::fprintf(stderr, "%s rejected a call (%s) but wrote its output\n", fn, why.c_str());
        std::abort();
      }
    }
  }
}

std::unique_ptr<Guarded<float>> output(std::int64_t n) {
  auto p = array<float>(n);
  for (std::int64_t i = 0; i < n; ++i) (*p)[i] = kPoison;
  return p;
}

template <class... A>
void expect_intact(const char* fn, A&... arrays) {
  if (!(arrays->intact() && ...)) {
    std::fprintf(stderr, "%s wrote before the start of an array\n", fn);
    std::abort();
  }
}

void rope(Bytes& b) {
  RopeCase c;
  c.n_tokens = b.range(-2, 24), c.n_heads = b.range(-1, 4), c.head_dim = b.range(-2, 40);
  c.rotary_dim = b.flag() ? c.head_dim - 2 * b.range(0, 8) : b.range(-4, 44);
  c.layout = static_cast<std::int32_t>(b.range(-1, 2));
  c.theta_base = b.pick(kReals), c.position_scale = b.pick(kReals);
  const char* nulls[] = {"", "", "", "positions", "x", "y"};
  c.null_field = b.pick(nulls);
  const std::int64_t n = count({c.n_tokens, c.n_heads, c.head_dim});
  auto pos = array<std::int64_t>(c.n_tokens);
  for (std::int64_t t = 0; t < c.n_tokens; ++t) (*pos)[t] = position(b, 1LL << 31), c.positions.push_back((*pos)[t]);
  const std::int64_t half = c.rotary_dim > 0 ? c.rotary_dim / 2 : 0;
  auto inv = array<float>(half);
  const bool with_inv = b.flag();
  for (std::int64_t i = 0; i < half; ++i) (*inv)[i] = b.flag() ? b.any_float() : std::ldexp(1.0f, -static_cast<int>(i));
  auto x = array<float>(n);
  for (std::int64_t i = 0; i < n; ++i) (*x)[i] = b.flag() ? b.any_float() : 0.5f;
  auto y = output(n);
  const bool in_place = b.flag() && c.null_field.empty();
  pec_rope_args a{c.n_tokens, c.n_heads, c.head_dim, c.rotary_dim, c.layout, c.theta_base, c.position_scale,
                  c.null_field == "positions" ? nullptr : pos->get(), with_inv ? inv->get() : nullptr};
  if (in_place) std::memcpy(y->get(), x->get(), sizeof(float) * static_cast<std::size_t>(n));
  const float* xp = c.null_field == "x" ? nullptr : in_place ? y->get() : x->get();
  float* yp = c.null_field == "y" ? nullptr : y->get();
  const int rc = kernels().rope(&a, xp, yp);
  expect(rc, invalid_reason(c), "pec_rope_f32", in_place ? nullptr : yp, n);
  expect_intact("pec_rope_f32", pos, inv, x, y);
}

void alibi(Bytes& b) {
  AlibiCase c;
  c.n_heads = b.range(-1, 12), c.n_q = b.range(-1, 10), c.n_k = b.range(-1, 10);
  c.mode = static_cast<std::int32_t>(b.range(-1, 2));
  const char* nulls[] = {"", "", "", "q_pos", "k_pos", "scores"};
  c.null_field = b.pick(nulls);
  auto q = array<std::int64_t>(c.n_q), k = array<std::int64_t>(c.n_k);
  for (std::int64_t i = 0; i < c.n_q; ++i) (*q)[i] = position(b, 1LL << 31), c.q_pos.push_back((*q)[i]);
  for (std::int64_t i = 0; i < c.n_k; ++i) (*k)[i] = position(b, 1LL << 31), c.k_pos.push_back((*k)[i]);
  const std::int64_t n = count({c.n_heads, c.n_q, c.n_k});
  auto s = output(n);
  pec_alibi_args a{c.n_heads, c.n_q, c.n_k, c.mode, c.null_field == "q_pos" ? nullptr : q->get(),
                   c.null_field == "k_pos" ? nullptr : k->get()};
  float* sp = c.null_field == "scores" ? nullptr : s->get();
  expect(kernels().alibi(&a, sp), invalid_reason(c), "pec_alibi_bias_f32", sp, n);
  expect_intact("pec_alibi_bias_f32", q, k, s);
}

void t5(Bytes& b) {
  static const std::int64_t kBuckets[] = {-1, 0, 1, 2, 3, 4, 5, 8, 32, 33, 1024, 1025};
  static const std::int64_t kDist[] = {-1, 0, 1, 2, 8, 9, 128, 1000, 2147483648LL, 2147483649LL};
  T5Case c;
  c.n_heads = b.range(-1, 4), c.n_q = b.range(-1, 8), c.n_k = b.range(-1, 8);
  c.num_buckets = b.pick(kBuckets), c.max_distance = b.pick(kDist);
  c.bidirectional = static_cast<std::int32_t>(b.range(-1, 2));
  const char* nulls[] = {"", "", "", "q_pos", "k_pos", "table", "bias"};
  c.null_field = b.pick(nulls);
  auto q = array<std::int64_t>(c.n_q), k = array<std::int64_t>(c.n_k);
  for (std::int64_t i = 0; i < c.n_q; ++i) (*q)[i] = position(b, 1LL << 31), c.q_pos.push_back((*q)[i]);
  for (std::int64_t i = 0; i < c.n_k; ++i) (*k)[i] = position(b, 1LL << 31), c.k_pos.push_back((*k)[i]);
  const std::int64_t nt = count({c.num_buckets, c.n_heads});
  auto table = array<float>(nt);
  for (std::int64_t i = 0; i < nt; ++i) (*table)[i] = b.any_float();
  const std::int64_t n = count({c.n_heads, c.n_q, c.n_k});
  auto out = output(n);
  pec_t5_args a{c.n_heads, c.n_q, c.n_k, c.num_buckets, c.max_distance, c.bidirectional,
                c.null_field == "q_pos" ? nullptr : q->get(), c.null_field == "k_pos" ? nullptr : k->get(),
                c.null_field == "table" ? nullptr : table->get()};
  float* op = c.null_field == "bias" ? nullptr : out->get();
  expect(kernels().t5(&a, op), invalid_reason(c), "pec_t5_bias_f32", op, n);
  expect_intact("pec_t5_bias_f32", q, k, table, out);
}

void sinusoidal(Bytes& b) {
  SinusoidalCase c;
  c.n_tokens = b.range(-2, 20), c.d_model = b.range(-2, 40), c.base = b.pick(kReals);
  const char* nulls[] = {"", "", "positions", "out"};
  c.null_field = b.pick(nulls);
  auto pos = array<std::int64_t>(c.n_tokens);
  for (std::int64_t t = 0; t < c.n_tokens; ++t) (*pos)[t] = position(b, 1LL << 31), c.positions.push_back((*pos)[t]);
  const std::int64_t n = count({c.n_tokens, c.d_model});
  auto out = output(n);
  pec_sinusoidal_args a{c.n_tokens, c.d_model, c.base, c.null_field == "positions" ? nullptr : pos->get()};
  float* op = c.null_field == "out" ? nullptr : out->get();
  expect(kernels().sinusoidal(&a, op), invalid_reason(c), "pec_sinusoidal_f32", op, n);
  expect_intact("pec_sinusoidal_f32", pos, out);
}

void learned(Bytes& b) {
  LearnedCase c;
  c.n_tokens = b.range(-2, 16), c.d_model = b.range(-2, 12), c.max_positions = b.range(-2, 40);
  const char* nulls[] = {"", "", "positions", "table", "out"};
  c.null_field = b.pick(nulls);
  auto pos = array<std::int64_t>(c.n_tokens);
  for (std::int64_t t = 0; t < c.n_tokens; ++t) {
    (*pos)[t] = b.u8() < 220 ? b.range(-2, c.max_positions + 2) : b.pick(kPositions);
    c.positions.push_back((*pos)[t]);
  }
  const std::int64_t nt = count({c.max_positions, c.d_model});
  auto table = array<float>(nt);
  for (std::int64_t i = 0; i < nt; ++i) (*table)[i] = b.any_float();
  const std::int64_t n = count({c.n_tokens, c.d_model});
  auto out = output(n);
  pec_learned_args a{c.n_tokens, c.d_model, c.max_positions, c.null_field == "positions" ? nullptr : pos->get(),
                     c.null_field == "table" ? nullptr : table->get()};
  float* op = c.null_field == "out" ? nullptr : out->get();
  expect(kernels().learned(&a, op), invalid_reason(c), "pec_learned_f32", op, n);
  expect_intact("pec_learned_f32", pos, table, out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes b(data, size);
  switch (b.u8() % 5) {
    case 0: rope(b); break;
    case 1: alibi(b); break;
    case 2: t5(b); break;
    case 3: sinusoidal(b); break;
    default: learned(b); break;
  }
  return 0;
}
