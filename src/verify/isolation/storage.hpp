// Storage formats of the ABI's tensors (spec/abi.md ABI-STORE-1): float32, bfloat16 and IEEE
// binary16, the 16-bit ones passed as uint16_t bit patterns. Encoding (round to nearest, ties to
// even, fp16 overflow to infinity), exact decoding, and the arena's bit patterns per format.
//
// A value of any of the three formats is held exactly by a float, so pecheck carries tensors as
// float vectors whose values are representable in the case's storage format (generators round
// them, verify/gen) and encodes them at the call (each family's run.cpp, e.g. verify/v1/run.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace pecheck::verifier {

enum class Storage { F32, BF16, F16 };
inline constexpr Storage kAllStorages[] = {Storage::F32, Storage::BF16, Storage::F16};

// Bytes per element: 4, 2, 2.
constexpr std::size_t storage_bytes(Storage s) { return s == Storage::F32 ? 4 : 2; }
// "f32", "bf16", "f16" (the budgets.tsv dtype and the check-name suffix).
std::string_view storage_name(Storage s);

// The bits of `v` rounded to the format (nearest, ties to even; subnormals; fp16 overflows to
// +-inf past 65504 + ulp/2; NaN stays a quiet NaN of the same sign). For F32 from a float: the
// float's bits unchanged (payloads included).
std::uint32_t to_storage(double v, Storage s);
std::uint32_t to_storage(float v, Storage s);
// The value of a bit pattern of the format, exactly (every bf16/f16 value is a float; a NaN
// keeps its payload in the float's top mantissa bits, so decoding is injective).
float from_storage(std::uint32_t bits, Storage s);
// v rounded to the format, as a float (from_storage(to_storage(v, s), s)).
float round_to_storage(double v, Storage s);
// True when the float is exactly a value of the format (NaN and infinities included).
bool representable_in(float v, Storage s);
// Largest finite value of the format.
double storage_max_finite(Storage s);

// Encodes floats into a buffer of the format (4 or 2 bytes per element).
std::vector<unsigned char> encode(std::span<const float> v, Storage s);

// Arena patterns per format (verify/isolation/arena.hpp). Poison: a NaN payload that neither
// arithmetic nor a conversion produces — arithmetic yields the default quiet NaN (f32 0x7fc00000,
// bf16 0x7fc0, f16 0x7e00) or propagates an input's payload, a float->16-bit conversion keeps the
// top payload bits of a float NaN, and no input pecheck passes carries these payloads, so an
// element that holds one after a successful call was never written (ABI-GEN-5). f32 0x7fa5c0de /
// 0x7fb1e55e, bf16 0x7fa5 / 0x7fb1 (the same top bits: signalling-NaN payloads no operation
// returns), f16 0x7e5e / 0x7e1e (quiet NaNs with low payload bits: a float NaN converts to
// 0x7e00 | its top 9 payload bits, and pecheck's floats carry none). Canary (guard zones,
// ABI-GEN-4): a negative-signed NaN, f32 0xfff0cafe, bf16 0xffca, f16 0xfcaf — distinct from
// every poison and from the default NaNs, so a stray store of any value or NaN is seen.
std::uint32_t poison_bits(Storage s, bool alt = false);
std::uint32_t canary_bits(Storage s);

}  // namespace pecheck::verifier
