// 16-bit storage formats (spec/abi.md ABI-STORE-1): bfloat16 and IEEE binary16 as uint16_t bit
// patterns, converted to and from float32 bit-exactly with integer operations only. The single
// portable definition: the scalar SIMD path, every vector tail, the CUDA kernels and the host
// emulation use it, and the hardware conversions (AVX-512 BF16 vcvtneps2bf16, F16C vcvtps2ph)
// are checked against it bit for bit (tests/kernels/test_simd_storage.cpp).
//
// Rules (what the hardware does, so that every path gives the same bits):
//   widening (bf16/f16 -> f32) is exact; a binary16 NaN comes out quiet (vcvtph2ps sets the
//   quiet bit), a bfloat16 NaN keeps its bits (the widening is a shift on every path);
//   f32 -> bf16 and f32 -> f16 round to nearest, ties to even, subnormals included (bf16 keeps
//   f32's exponent range; f16 results below 2^-14 are f16 subnormals); f16 overflows to +-inf
//   from 65520 = 65504 + half an ulp; +-inf stay +-inf;
//   NaN stays NaN and is quieted: bf16 = the upper 16 bits | 0x0040, f16 = sign | 0x7e00 |
//   the upper 10 fraction bits (vcvtneps2bf16 and vcvtps2ph give exactly these).
// vcvtneps2bf16 treats f32 subnormal inputs as zero; the vector path repairs those lanes with
// the integer rule below (simd/avx512bf16.cpp), so the rule here is the one of every path.
//
// f32_round_odd: double -> float rounded to odd (truncate, then set the last bit when
// inexact). Rounding that float once more to bf16 or f16 (nearest-even) gives the double
// correctly rounded to the 16-bit format, because float carries at least two more bits than
// either: the one rounding into the 16-bit format of a value computed in double (ALiBi sums,
// sinusoidal and cos/sin cache entries). NaN comes out NaN (its last bit set).
#pragma once

#include <stdint.h>

#include "kernels/shared/hd.hpp"

namespace pecheck::kernels {

PEC_HD_FN uint32_t f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t b;
  __builtin_memcpy(&b, &f, sizeof b);
  return b;
#endif
}
PEC_HD_FN float f32_from_bits(uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(b);
#else
  float f;
  __builtin_memcpy(&f, &b, sizeof f);
  return f;
#endif
}

PEC_HD_FN float bf16_to_f32(uint16_t h) { return f32_from_bits(static_cast<uint32_t>(h) << 16); }

PEC_HD_FN uint16_t f32_to_bf16(float f) {
  const uint32_t b = f32_bits(f);
  if ((b & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((b >> 16) | 0x0040u);
  // Adding 0x7fff plus the kept lsb rounds the dropped 16 bits to nearest-even; a carry into
  // the exponent is the correct next binade (and max finite + 1/2 ulp gives infinity).
  return static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

PEC_HD_FN float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu;
  const uint32_t m = h & 0x3ffu;
  if (e == 0x1fu) {  // inf; NaN quieted with its payload kept (as vcvtph2ps)
    return f32_from_bits(sign | 0x7f800000u | (m << 13) | (m != 0 ? 0x400000u : 0u));
  }
  if (e != 0) return f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
  // Zero or subnormal: m * 2^-24 exactly (m < 2^10, so the float product is exact).
  const float v = static_cast<float>(m) * 0x1p-24f;
  return sign ? -v : v;
}

PEC_HD_FN uint16_t f32_to_f16(float f) {
  const uint32_t b = f32_bits(f);
  const uint32_t sign = (b >> 16) & 0x8000u;
  const uint32_t a = b & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520: inf
  if (a >= 0x38800000u) {                                              // >= 2^-14: normal
    const uint32_t r = a - 0x38000000u;                                // exponent rebiased
    return static_cast<uint16_t>(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
  }
  if (a <= 0x33000000u) return static_cast<uint16_t>(sign);  // <= 2^-25: nearest-even is 0
  // Subnormal result: round m * 2^(e-150) to a multiple of 2^-24, i.e. m >> (126 - e).
  const uint32_t e = a >> 23;  // 102 .. 112
  const uint32_t m = (a & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - e;  // 14 .. 24
  uint32_t q = m >> shift;
  const uint32_t rem = m & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (q & 1u))) ++q;  // q may reach 0x400: the smallest normal
  return static_cast<uint16_t>(sign | q);
}

PEC_HD_FN float f32_round_odd(double d) {
  const float f = static_cast<float>(d);
  const double back = static_cast<double>(f);
  uint32_t b = f32_bits(f);
  // |f| > |d|: step back toward zero (f is then non-zero, possibly inf from an overflow).
  if ((back < 0 ? -back : back) > (d < 0 ? -d : d)) b -= 1u;
  if (!(back == d)) b |= 1u;  // inexact (or NaN)
  return f32_from_bits(b);
}

}  // namespace pecheck::kernels
