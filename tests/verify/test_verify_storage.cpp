// The storage formats of the ABI (verify/isolation/storage.hpp) and the arena's 16-bit outputs:
// encoding with round to nearest even, exact decoding, the poison and canary patterns, and the
// guard zones of 2-byte outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "verify/isolation/arena.hpp"
#include "verify/isolation/kernel_table.hpp"
#include "verify/isolation/storage.hpp"

namespace {

using namespace pecheck::verifier;

// Clause: ABI-STORE-1 (bf16 and fp16 bit patterns, nearest-even rounding, fp16 overflow)
TEST(VerifyStorage, EncodingRoundsToNearestEvenAndDecodesExactly) {
  // bf16: 1 + 2^-8 is a tie between 1 and 1 + 2^-7: to even (1); 1 + 3 * 2^-8 ties up to 1 + 2^-6.
  EXPECT_EQ(to_storage(1.0 + 0x1p-8, Storage::BF16), 0x3f80u);
  EXPECT_EQ(to_storage(1.0 + 3 * 0x1p-8, Storage::BF16), 0x3f82u);
  EXPECT_EQ(to_storage(1.0 + 0x1p-8 + 0x1p-30, Storage::BF16), 0x3f81u);  // above the tie: up
  EXPECT_EQ(to_storage(-2.0, Storage::BF16), 0xc000u);
  EXPECT_EQ(to_storage(-0.0, Storage::BF16), 0x8000u);
  // fp16: 1 + 2^-11 ties to 1; 65504 is the largest value, 65520 overflows to infinity.
  EXPECT_EQ(to_storage(1.0 + 0x1p-11, Storage::F16), 0x3c00u);
  EXPECT_EQ(to_storage(1.0 + 3 * 0x1p-11, Storage::F16), 0x3c02u);
  EXPECT_EQ(to_storage(65504.0, Storage::F16), 0x7bffu);
  EXPECT_EQ(to_storage(65519.0, Storage::F16), 0x7bffu);
  EXPECT_EQ(to_storage(65520.0, Storage::F16), 0x7c00u);
  EXPECT_EQ(to_storage(-1e9, Storage::F16), 0xfc00u);
  EXPECT_EQ(to_storage(0x1p-24, Storage::F16), 0x0001u);  // smallest subnormal
  EXPECT_EQ(to_storage(0x1p-26, Storage::F16), 0x0000u);  // below half of it: zero
  EXPECT_EQ(to_storage(3 * 0x1p-25, Storage::F16), 0x0002u);  // 1.5 subnormals: tie to even (2)
  // Every 16-bit pattern decodes to a float that encodes back to the same bits (NaNs keep their
  // payload), so comparing decoded floats bit for bit is comparing the stored bits.
  for (Storage s : {Storage::BF16, Storage::F16}) {
    for (std::uint32_t b = 0; b < 0x10000u; ++b) {
      const float v = from_storage(b, s);
      if (std::isnan(v)) {
        std::uint32_t fb;
        std::memcpy(&fb, &v, 4);
        const std::uint32_t back = s == Storage::BF16 ? fb >> 16 : ((fb >> 16) & 0x8000u) | 0x7c00u | ((fb >> 13) & 0x3ffu);
        EXPECT_EQ(back, b) << std::hex << b;
        continue;
      }
      ASSERT_EQ(to_storage(v, s), b) << std::hex << b << " " << storage_name(s);
      EXPECT_TRUE(representable_in(v, s));
    }
  }
  EXPECT_FALSE(representable_in(1.0f + 0x1p-9f, Storage::BF16));
  EXPECT_TRUE(representable_in(1.0f + 0x1p-9f, Storage::F16));
  EXPECT_EQ(round_to_storage(1.0 + 0x1p-9 + 0x1p-12, Storage::BF16), 1.0f);
}

// Clause: ABI-GEN-4 ABI-GEN-5 (guards and poison of 16-bit outputs)
TEST(VerifyStorage, SixteenBitOutputsHaveGuardsAndPoisonOfTheirFormat) {
  Arena a(1 << 20);
  for (Storage s : {Storage::BF16, Storage::F16}) {
    a.reset();
    const std::uint32_t poison = poison_bits(s), alt = poison_bits(s, true), canary = canary_bits(s);
    // The patterns are NaNs of the format, distinct from each other and from the default NaN.
    for (std::uint32_t p : {poison, alt, canary}) {
      EXPECT_TRUE(std::isnan(from_storage(p, s))) << std::hex << p;
      EXPECT_NE(p, to_storage(std::numeric_limits<double>::quiet_NaN(), s));
    }
    EXPECT_NE(poison, alt);
    GuardedOutput out = a.output(5, poison, 2, s);
    EXPECT_EQ(out.elem_bytes(), 2u);
    EXPECT_TRUE(out.guards_intact());
    EXPECT_EQ(out.count_bits(poison), 5u);
    out.u16()[2] = static_cast<std::uint16_t>(to_storage(0.5, s));
    EXPECT_EQ(out.values()[2], 0.5f);
    EXPECT_EQ(out.count_bits(poison), 4u);
    out.u16()[5] = 0;  // one 16-bit element past the end
    EXPECT_EQ(out.first_guard_violation(), 5);
    out.u16()[5] = static_cast<std::uint16_t>(canary);
    out.u16()[-1] = 0;
    EXPECT_EQ(out.first_guard_violation(), -1);
    const GuardedOutput init = a.output_from(std::vector<float>{1.0f, -2.0f}, 64, s);
    EXPECT_EQ(init.bits(0), to_storage(1.0f, s));
    EXPECT_EQ(init.bits(1), to_storage(-2.0f, s));
    EXPECT_TRUE(init.guards_intact());
  }
}

// Clause: ABI-STORE-2 (every function of the version 2 header has a symbol, a storage type and a
// family, and check names keep the version 1 prefixes)
TEST(VerifyStorage, EveryFunctionOfTheHeaderIsNamedAndTyped) {
  EXPECT_EQ(kAllFns.size(), static_cast<std::size_t>(kFnCount));
  for (int i = 0; i < kFnCount; ++i) {
    const Fn f = kAllFns[i];
    EXPECT_EQ(static_cast<int>(f), i);
    EXPECT_EQ(fn_of(family(f), storage(f)), f);
    EXPECT_TRUE(symbol(f).starts_with("pec_"));
    EXPECT_TRUE(symbol(f).ends_with(storage_name(storage(f))));
  }
  EXPECT_EQ(check_prefix(Fn::Rope), "rope");
  EXPECT_EQ(check_prefix(Fn::Learned), "learned");
  EXPECT_EQ(check_prefix(Fn::RopeBf16), "rope.bf16");
  EXPECT_EQ(check_prefix(Fn::T5F16), "t5.f16");
  EXPECT_EQ(check_prefix(Fn::RopeQkF32), "rope_qk");
  EXPECT_EQ(check_prefix(Fn::RopeQkF16), "rope_qk.f16");
  EXPECT_EQ(symbol(Fn::AlibiBf16), "pec_alibi_bias_bf16");
  EXPECT_EQ(symbol(Fn::RopeCacheF16), "pec_rope_cache_f16");
  pecheck::KernelTable t;
  EXPECT_EQ(t.mask(), 0u);
  t.rope_cached_bf16 = [](const pec_rope_cached_args*, const std::uint16_t*, const std::uint16_t*, std::uint16_t*,
                          std::uint16_t*) { return 0; };
  EXPECT_TRUE(t.has(Fn::RopeCachedBf16));
  EXPECT_EQ(t.mask(), fn_bit(Fn::RopeCachedBf16));
}

}  // namespace
