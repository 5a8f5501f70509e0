#include "verify/isolation/storage.hpp"

#include <cmath>
#include <cstring>

#include "oracle/format.hpp"

namespace pecheck::verifier {

namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

float float_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

oracle::Format format_of(Storage s) {
  return s == Storage::F32 ? oracle::Format::F32 : s == Storage::BF16 ? oracle::Format::BF16 : oracle::Format::F16;
}

// The binary16 bits of a finite or infinite double that is exactly a value of the format.
std::uint32_t f16_bits_exact(double v) {
  const std::uint32_t sign = std::signbit(v) ? 0x8000u : 0u;
  const double a = std::fabs(v);
  if (std::isinf(a)) return sign | 0x7c00u;
  if (a == 0) return sign;
  if (a < 0x1p-14) return sign | static_cast<std::uint32_t>(a * 0x1p24);  // subnormal: a multiple of 2^-24
  int e = 0;
  const double m = std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1)
  const std::uint32_t exp = static_cast<std::uint32_t>(e - 1 + 15);
  const std::uint32_t frac = static_cast<std::uint32_t>((m * 2 - 1) * 1024.0);
  return sign | (exp << 10) | frac;
}

}  // namespace

std::string_view storage_name(Storage s) {
  switch (s) {
    case Storage::F32: return "f32";
    case Storage::BF16: return "bf16";
    case Storage::F16: return "f16";
  }
  return "?";
}

std::uint32_t to_storage(float v, Storage s) {
  if (s == Storage::F32) return bits_of(v);
  return to_storage(static_cast<double>(v), s);
}

std::uint32_t to_storage(double v, Storage s) {
  if (std::isnan(v)) {
    const std::uint32_t neg = std::signbit(v) ? 1u : 0u;
    return s == Storage::F32 ? (neg << 31 | 0x7fc00000u) : s == Storage::BF16 ? (neg << 15 | 0x7fc0u) : (neg << 15 | 0x7e00u);
  }
  const double r = oracle::round_to(v, format_of(s));  // nearest-even, subnormals, overflow to inf
  switch (s) {
    case Storage::F32: return bits_of(static_cast<float>(r));
    case Storage::BF16: return bits_of(static_cast<float>(r)) >> 16;  // r is a bf16 value: low bits zero
    case Storage::F16: return f16_bits_exact(r);
  }
  return 0;
}

float from_storage(std::uint32_t bits, Storage s) {
  switch (s) {
    case Storage::F32: return float_of(bits);
    case Storage::BF16: return float_of((bits & 0xffffu) << 16);
    case Storage::F16: {
      const std::uint32_t sign = (bits & 0x8000u) << 16, exp = (bits >> 10) & 0x1fu, frac = bits & 0x3ffu;
      if (exp == 0x1f) return float_of(sign | 0x7f800000u | (frac << 13));  // inf, NaN with its payload
      if (exp == 0) {
        const float m = std::ldexp(static_cast<float>(frac), -24);  // exact
        return sign ? -m : m;
      }
      return float_of(sign | ((exp - 15 + 127) << 23) | (frac << 13));
    }
  }
  return 0;
}

float round_to_storage(double v, Storage s) { return from_storage(to_storage(v, s), s); }

bool representable_in(float v, Storage s) {
  if (std::isnan(v) || std::isinf(v)) return true;
  return oracle::representable(static_cast<double>(v), format_of(s));
}

double storage_max_finite(Storage s) { return oracle::format_info(format_of(s)).max_finite; }

std::vector<unsigned char> encode(std::span<const float> v, Storage s) {
  const std::size_t w = storage_bytes(s);
  std::vector<unsigned char> out(v.size() * w);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::uint32_t b = to_storage(v[i], s);
    if (w == 4) {
      std::memcpy(&out[i * 4], &b, 4);
    } else {
      const std::uint16_t h = static_cast<std::uint16_t>(b);
      std::memcpy(&out[i * 2], &h, 2);
    }
  }
  return out;
}

std::uint32_t poison_bits(Storage s, bool alt) {
  switch (s) {
    case Storage::F32: return alt ? 0x7fb1e55eu : 0x7fa5c0deu;
    case Storage::BF16: return alt ? 0x7fb1u : 0x7fa5u;
    case Storage::F16: return alt ? 0x7e1eu : 0x7e5eu;
  }
  return 0;
}

std::uint32_t canary_bits(Storage s) {
  switch (s) {
    case Storage::F32: return 0xfff0cafeu;
    case Storage::BF16: return 0xffcau;
    case Storage::F16: return 0xfcafu;
  }
  return 0;
}

}  // namespace pecheck::verifier
