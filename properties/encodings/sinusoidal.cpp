// Sinusoidal properties (spec/sinusoidal.md): the raw dot product is offset-only, the model's
// score is not (a witness is found and printed, shrunk), and the two layouts' definitions.
#include "reference/sinusoidal.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "gen.hpp"
#include "mp_model.hpp"
#include "reference/tolerance.hpp"

namespace pecheck::props {
namespace {

using reference::SinusoidalConfig;
using reference::SinusoidalLayout;

rc::Gen<SinusoidalConfig> sinusoidal_config() {
  return from_rng<SinusoidalConfig>(
      [](Rng& r) {
        SinusoidalConfig c;
        c.layout = r.coin(2) ? SinusoidalLayout::Interleaved : SinusoidalLayout::Concat;
        static constexpr std::int64_t kD[] = {2, 4, 6, 8, 10, 16, 64, 128, 512};
        c.d_model = kD[r.range(0, std::size(kD) - 1)];
        c.base = r.coin(2) ? 10000.0 : r.uniform(1.5, 1.0e6);
        return c;
      },
      [](const SinusoidalConfig& c) {
        std::vector<SinusoidalConfig> out;
        if (c.base != 10000.0) {
          auto t = c;
          t.base = 10000.0;
          out.push_back(t);
        }
        if (c.d_model > 2) {
          auto t = c;
          t.d_model = std::max<std::int64_t>(2, (c.d_model / 2) & ~std::int64_t{1});
          out.push_back(t);
        }
        return out;
      });
}

}  // namespace
}  // namespace pecheck::props

namespace pecheck::reference {
inline std::ostream& operator<<(std::ostream& os, const SinusoidalConfig& c) {
  return os << "{d_model=" << c.d_model << ", base=" << c.base << ", layout=" << to_string(c.layout)
            << "}";
}
}  // namespace pecheck::reference

namespace pecheck::props {
namespace {

// Clause: SIN-DOT-1 — p_m . p_n = sum cos((m - n) w_i): a function of the offset only, in both
// layouts, checked in 100-digit MPFR within MODEL-TOL-1 for positions up to 2^31 - 1.
RC_GTEST_PROP(Sinusoidal, RawDotProductDependsOnlyOnOffset, ()) {
  const SinusoidalConfig c = *sinusoidal_config();
  const ShiftCase s = *shift_case(reference::kSinusoidalMaxPosition);
  const MpCompare r = mp_sinusoidal_dot_shift(c, s.m, s.n, s.c);
  RC_LOG() << c << " " << s << " " << r << "\n";
  RC_ASSERT(r.agree());
}

// Clause: SIN-AXIS-2, SIN-AXIS-1 — with the encoding added to the embeddings before W_q/W_k
// (MODEL-SCORE-1) the score is NOT shift-invariant: the property must be falsified, and
// RapidCheck prints the shrunk witness (positions, shift, both scores).
TEST(Sinusoidal, ProjectedScoreDependsOnAbsolutePositionWitness) {
  const bool found = expect_witness(
      "sinusoidal projected score is shift-invariant (expected to FAIL with a witness)", [] {
        const SinusoidalConfig c = *sinusoidal_config();
        const ShiftCase s = *shift_case(reference::kSinusoidalMaxPosition);
        ModelDraw md;
        md.seed = *model_seed();
        md.head_dim = *rc::gen::inRange<std::int64_t>(1, 9);
        const MpCompare r = mp_sinusoidal_shift(c, md, s.m, s.n, s.c);
        RC_LOG() << c << " " << s << " scores " << r << "\n";
        RC_ASSERT(r.agree());
      });
  EXPECT_TRUE(found)
      << "no witness: the projected sinusoidal score looked shift-invariant (SIN-AXIS-2)";
}

// Clause: SIN-LAYOUT-1, SIN-LAYOUT-2 — lane placement and frequencies of both layouts:
// interleaved lanes (2i, 2i+1) and concatenated lanes (i, h+i) hold sin and cos of pos*w_i with
// w_i = base^(-2i/d) and base^(-i/max(h-1,1)) respectively (computed here independently).
RC_GTEST_PROP(Sinusoidal, LayoutsPlaceSinAndCos, ()) {
  const SinusoidalConfig c = *sinusoidal_config();
  const std::int64_t p = *position(reference::kSinusoidalMaxPosition);
  const auto pe = reference::sinusoidal_encode<double>(c, p);
  const std::int64_t h = c.d_model / 2;
  RC_ASSERT(static_cast<std::int64_t>(pe.size()) == c.d_model);
  for (std::int64_t i = 0; i < h; ++i) {
    const double e =
        c.layout == SinusoidalLayout::Interleaved
            ? static_cast<double>(2 * i) / static_cast<double>(c.d_model)
            : static_cast<double>(i) / static_cast<double>(std::max<std::int64_t>(h - 1, 1));
    const double a = static_cast<double>(p) * std::pow(c.base, -e);
    const std::int64_t ls = c.layout == SinusoidalLayout::Interleaved ? 2 * i : i;
    const std::int64_t lc = c.layout == SinusoidalLayout::Interleaved ? 2 * i + 1 : h + i;
    RC_ASSERT(pe[ls] == std::sin(a));
    RC_ASSERT(pe[lc] == std::cos(a));
  }
}

// Clause: SIN-ARG-1, SIN-ARG-2, SIN-ARG-3 — invalid parameters and positions throw.
RC_GTEST_PROP(Sinusoidal, InvalidArgumentsThrow, ()) {
  SinusoidalConfig c = *sinusoidal_config();
  const int which = *rc::gen::inRange(0, 3);
  std::int64_t p = *position(reference::kSinusoidalMaxPosition);
  if (which == 0) c.d_model = *rc::gen::element<std::int64_t>(0, 1, 3, 7, -2);
  if (which == 1) c.base = *rc::gen::element(1.0, 0.5, -3.0, 0.0, INFINITY, NAN);
  if (which == 2)
    p = *rc::gen::element<std::int64_t>(-1, -12345, reference::kSinusoidalMaxPosition, INT64_MAX);
  RC_ASSERT_THROWS_AS(reference::sinusoidal_encode<double>(c, p), InvalidArgument);
}

}  // namespace
}  // namespace pecheck::props
