// The float variants of each encoding, one call per element (internal to pecheck::precision,
// exposed for the properties). Inputs are exact; results are the variant's values widened to
// double. Storage formats bf16/f16 mean f32 arithmetic with the result rounded to the format.
#pragma once

#include <cstdint>

#include "oracle/format.hpp"
#include "precision/precision.hpp"

namespace pecheck::precision {

struct RopeInputs {
  std::int64_t position = 0;
  double scale = 1.0;
  double base = 10000.0;
  std::int64_t index = 0;
  std::int64_t rotary_dim = 128;  // d_model for sinusoidal
};

void rope_variant_pair(const Variant& v, oracle::Format dtype, const RopeInputs& in, double xa,
                       double xb, double& ya, double& yb);
void sinusoidal_variant(const Variant& v, oracle::Format dtype, const RopeInputs& in,
                        double& sin_out, double& cos_out);
double alibi_variant(const Variant& v, oracle::Format dtype, std::int64_t n_heads,
                     std::int64_t head, std::int64_t distance);
std::int64_t t5_variant(const Variant& v, oracle::Format dtype, std::int64_t relative,
                        std::int64_t num_buckets, std::int64_t max_distance, bool bidirectional);

}  // namespace pecheck::precision
