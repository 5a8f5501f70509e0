// T5 relative-position bucket: index logic, single source for the SIMD kernels, the CUDA
// kernels, the host emulation and the proofs (bit-vector instantiation of the integer type).
//
// Spec: spec/t5.md, spec/abi.md (ABI-T5-1..3). Relative position = k_pos - q_pos.
//
// T5's _relative_position_bucket:
//   bidirectional: nb' = num_buckets/2; offset = (rel > 0) ? nb' : 0; n = |rel|
//   causal:        nb' = num_buckets;   offset = 0;                    n = max(-rel, 0)
//   max_exact = nb'/2
//   n <  max_exact: bucket = offset + n
//   n >= max_exact: bucket = offset + min(nb' - 1,
//                     max_exact + floor(log(n/max_exact)/log(max_distance/max_exact)*(nb'-max_exact)))
// The logarithm is replaced by integer thresholds computed once per call on the host
// (src/kernels/common): thr[v-1] is the smallest n whose logarithmic term reaches v, for
// v = 1 .. nb'-max_exact-1, so that bucket = offset + max_exact + #{v : n >= thr[v-1]}.
// The thresholds are increasing, the last one is <= max_distance, and the count never exceeds
// nb'-max_exact-1: the bucket is in [offset, offset + nb') for every n, with no log or float
// arithmetic per element (so the kernels on every path and the device agree bit for bit).
#pragma once

#include <stdint.h>

#include "kernels/shared/hd.hpp"

namespace pecheck::kernels {

struct T5Shape {
  int64_t half_buckets;  // nb'
  int64_t max_exact;     // nb'/2
  int64_t n_thresholds;  // nb' - max_exact - 1
};

template <class I>
PEC_HD_FN T5Shape t5_shape(I num_buckets, bool bidirectional) {
  T5Shape s{};
  s.half_buckets = bidirectional ? num_buckets / 2 : num_buckets;
  s.max_exact = s.half_buckets / 2;
  s.n_thresholds = s.half_buckets - s.max_exact - 1;
  return s;
}

// Bucket of rel = k_pos - q_pos. thr: n_thresholds increasing integers (see above).
template <class I>
PEC_HD_FN I t5_bucket(I rel, bool bidirectional, const T5Shape& s, const I* thr) {
  I offset = 0;
  I n;
  if (bidirectional) {
    if (rel > 0) offset = static_cast<I>(s.half_buckets);
    n = rel < 0 ? -rel : rel;
  } else {
    n = rel < 0 ? -rel : 0;
  }
  if (n < static_cast<I>(s.max_exact)) return offset + n;
  I v = 0;
  for (int64_t j = 0; j < s.n_thresholds; ++j) v = v + (n >= thr[j] ? 1 : 0);
  return offset + static_cast<I>(s.max_exact) + v;
}

}  // namespace pecheck::kernels
