// BUGGY (on purpose): T5's logarithmic bucket with its scale (nb - max_exact) / ln(max_distance /
// max_exact) rounded to fp16, as a kernel that keeps its constants in half precision. The
// scale is off by up to 2^-11 relative, so offsets near a bucket boundary fall into the
// neighbouring bucket; with many buckets and a large max_distance (64 buckets, max_distance
// 1000) the boundaries are close together and many offsets are affected. Violates ABI-T5-2.
#include <cmath>
#include <cstring>

#include "../common.hpp"

using namespace example;

namespace {

// Round to the nearest fp16 value (normal range only: the scale is in [2^-14, 65504]).
double to_fp16(double v) {
  int e = 0;
  const double m = std::frexp(v, &e);  // v = m 2^e, m in [0.5, 1)
  return std::ldexp(std::nearbyint(std::ldexp(m, 11)), e - 11);
}

std::int64_t bucket(std::int64_t rel, bool bidirectional, std::int64_t num_buckets,
                    std::int64_t max_distance) {
  std::int64_t nb = num_buckets, base = 0, d = 0;
  if (bidirectional) {
    nb = num_buckets / 2;
    base = rel > 0 ? nb : 0;
    d = rel < 0 ? -rel : rel;
  } else {
    d = rel < 0 ? -rel : 0;
  }
  const std::int64_t e = nb / 2;
  if (d < e) return base + d;
  if (d >= max_distance) return base + nb - 1;
  const double scale =
      to_fp16(double(nb - e) / std::log(double(max_distance) / double(e)));  // the bug
  const auto v = e + std::int64_t(std::floor(scale * std::log(double(d) / double(e))));
  return base + (v < nb - 1 ? v : nb - 1);
}

}  // namespace

int pec_abi_version(void) { return PEC_ABI_VERSION; }

int pec_t5_bias_f32(const pec_t5_args* a, float* bias) {
  if (!t5_args_ok(a, bias)) return 1;
  for (std::int64_t i = 0; i < a->n_q; ++i) {
    for (std::int64_t j = 0; j < a->n_k; ++j) {
      const auto b =
          bucket(a->k_pos[j] - a->q_pos[i], a->bidirectional, a->num_buckets, a->max_distance);
      for (std::int64_t h = 0; h < a->n_heads; ++h)
        bias[(h * a->n_q + i) * a->n_k + j] = a->table[b * a->n_heads + h];
    }
  }
  return 0;
}
