// Inverse frequencies of the scaled RoPEs of spec/rope.md (ROPE-SCALE-*), evaluated by the
// foundation's reference formulas (src/reference/rope.hpp) instantiated with Boost.Multiprecision
// on the MPFR backend. The only translation unit that includes Boost.Multiprecision.
//
// Precision: the formulas are a handful of well-conditioned operations on positive values
// (pow, log, divisions, a convex blend), each correctly rounded, so at P bits the relative error
// is <= 2^-(P-10) (PREC-ORACLE-7). Two fixed precisions (no global default-precision state):
// 70 decimal digits (~232 bits) serves requests up to 220 bits, 1000 digits (~3321 bits) up to
// 3300 bits; beyond that the request is refused.
#include <boost/multiprecision/mpfr.hpp>

#include <stdexcept>
#include <vector>

#include "oracle/mp_internal.hpp"
#include "reference/rope.hpp"

namespace pecheck::oracle::mp {
namespace {

bool same(const reference::RopeConfig& a, const reference::RopeConfig& b) {
  const auto &s = a.scaling, &t = b.scaling;
  return a.rotary_dim == b.rotary_dim && a.base == b.base && s.kind == t.kind &&
         s.factor == t.factor && s.original_max_positions == t.original_max_positions &&
         s.beta_fast == t.beta_fast && s.beta_slow == t.beta_slow &&
         s.yarn_truncate == t.yarn_truncate && s.low_freq_factor == t.low_freq_factor &&
         s.high_freq_factor == t.high_freq_factor;
}

template <unsigned Digits>
void table_value(const reference::RopeConfig& c, std::int64_t seq_len, std::int64_t i,
                 mpfr_ptr out) {
  using T = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<Digits>>;
  struct Cache {
    bool valid = false;
    reference::RopeConfig c;
    std::int64_t seq_len = 0;
    std::vector<T> f;
  };
  thread_local Cache cache;
  if (!cache.valid || cache.seq_len != seq_len || !same(cache.c, c)) {
    cache.f = reference::rope_inv_freq<T>(c, seq_len);
    cache.c = c;
    cache.seq_len = seq_len;
    cache.valid = true;
  }
  mpfr_set(out, cache.f.at(static_cast<std::size_t>(i)).backend().data(), MPFR_RNDN);
}

}  // namespace

void scaled_inv_freq(const reference::RopeConfig& c, std::int64_t seq_len, std::int64_t i,
                     mpfr_prec_t bits, mpfr_ptr out) {
  if (bits <= 220) {
    table_value<70>(c, seq_len, i, out);
  } else if (bits <= 3300) {
    table_value<1000>(c, seq_len, i, out);
  } else {
    throw std::runtime_error("oracle: scaled RoPE frequencies are available to 3300 bits");
  }
}

}  // namespace pecheck::oracle::mp
