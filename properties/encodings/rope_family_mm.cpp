// Properties of M-RoPE (sectioned and interleaved) and DeepSeek's MLA decoupled RoPE (spec/rope.md
// ROPE-MROPE-*, ROPE-MLA-*): each section rotated by its own axis, the offset vector, text and
// image positions, MLA's fixed non-rotary slice and shared key slice, each structural property
// with a buggy subject on which it must fail.
#include "rope_family_util.hpp"

namespace pecheck::props {
namespace {

// =============================================================================================
// M-RoPE

// The spec's axis assignment computed independently of reference::mrope_axis, the way the
// models build it: sectioned = consecutive blocks of mrope_section; interleaved = start with t
// everywhere, then overwrite indices offset, offset + 3, ... below 3 * section[axis] (Qwen3-VL).
std::vector<int> spec_axes(const MropeConfig& c) {
  const auto half = static_cast<std::size_t>(c.rotary_dim / 2);
  std::vector<int> ax(half, 0);
  if (c.layout == MropeLayout::Sectioned) {
    std::size_t k = 0;
    for (int a = 0; a < 3; ++a)
      for (std::int64_t j = 0; j < c.section[a]; ++j) ax[k++] = a;
  } else {
    for (int a = 1; a <= 2; ++a)
      for (std::int64_t j = a; j < 3 * c.section[a]; j += 3) ax[static_cast<std::size_t>(j)] = a;
  }
  return ax;
}

using MropeRotate =
    std::function<void(const MropeConfig&, std::span<const double>, const MropePosition&,
                       std::span<const double>, std::span<double>)>;
void mrope_reference(const MropeConfig& c, std::span<const double> f, const MropePosition& p,
                     std::span<const double> x, std::span<double> y) {
  reference::mrope_rotate<double>(c, f, p, x, y);
}
// A bug: the h and w sections swapped (each rotated by the other axis's position).
void mrope_bug_wrong_axis(const MropeConfig& c, std::span<const double> f, const MropePosition& p,
                          std::span<const double> x, std::span<double> y) {
  reference::mrope_rotate<double>(c, f, {p.t, p.w, p.h}, x, y);
}

rc::Gen<MropePosition> mrope_position() {
  return rc::gen::construct<MropePosition>(position(kMax), position(kMax), position(kMax));
}

// Clause: ROPE-MROPE-1, ROPE-MROPE-2, ROPE-MROPE-3 — pair i is rotated by the position of its
// spec axis: a basis vector on the pair's first lane becomes (cos, sin) of p_axis * s * f_i,
// every other lane stays 0.
void check_axes(MropeLayout layout, const MropeRotate& rotate) {
  const MropeConfig c = *mrope_config(layout);
  const MropePosition p = *mrope_position();
  const std::int64_t i = *rc::gen::inRange<std::int64_t>(0, c.rotary_dim / 2);
  const auto f = reference::mrope_inv_freq<double>(c);
  std::vector<double> x(static_cast<std::size_t>(c.head_dim), 0.0), y(x.size());
  const auto [a, b] = reference::rope_pair(reference::mrope_geometry(c), i);
  x[static_cast<std::size_t>(a)] = 1.0;
  rotate(c, f, p, x, y);
  const int axis = spec_axes(c)[static_cast<std::size_t>(i)];
  const double ang = static_cast<double>(p.axis(axis)) * c.position_scale * f[i];
  RC_LOG() << "config " << c << " position " << p << " pair " << i << " spec axis " << axis
           << " got (" << y[a] << ", " << y[b] << ") want (" << std::cos(ang) << ", "
           << std::sin(ang) << ")\n";
  RC_ASSERT(y[a] == std::cos(ang));
  RC_ASSERT(y[b] == std::sin(ang));
}
RC_GTEST_PROP(Mrope, EachSectionRotatesByItsOwnAxisSectioned, ()) {
  check_axes(MropeLayout::Sectioned, mrope_reference);
}
RC_GTEST_PROP(Mrope, EachSectionRotatesByItsOwnAxisInterleaved, ()) {
  check_axes(MropeLayout::Interleaved, mrope_reference);
}
TEST(Mrope, AxisPropertyFailsOnAWrongAxisForASection) {
  EXPECT_TRUE(expect_witness("M-RoPE with the h and w sections swapped (bug, expected to FAIL)",
                             [] { check_axes(MropeLayout::Sectioned, mrope_bug_wrong_axis); }));
}

// Clause: ROPE-MROPE-6 — the score depends only on the offset vector: (t, h, w) positions of
// both tokens shifted by a vector, in MPFR.
void check_mrope_shift(MropeLayout layout) {
  const MropeConfig c = *mrope_config(layout);
  const ShiftCase st = *shift_case(kMax), sh = *shift_case(kMax), sw = *shift_case(kMax);
  const MropePosition m{st.m, sh.m, sw.m}, n{st.n, sh.n, sw.n}, d{st.c, sh.c, sw.c};
  const MpCompare r = mp_mrope_shift(c, draw_model(), m, n, d);
  RC_LOG() << "config " << c << " m=" << m << " n=" << n << " shift=" << d << " " << r << "\n";
  RC_ASSERT(r.agree());
}
RC_GTEST_PROP(Mrope, ScoreDependsOnlyOnTheOffsetVectorSectioned, ()) {
  check_mrope_shift(MropeLayout::Sectioned);
}
RC_GTEST_PROP(Mrope, ScoreDependsOnlyOnTheOffsetVectorInterleaved, ()) {
  check_mrope_shift(MropeLayout::Interleaved);
}

// Clause: ROPE-MROPE-4 — a text token (t = h = w = p) is rotated exactly as plain RoPE at p.
RC_GTEST_PROP(Mrope, TextTokensAreOneDimensionalRope, ()) {
  const MropeConfig c =
      *mrope_config(*rc::gen::element(MropeLayout::Sectioned, MropeLayout::Interleaved));
  const std::int64_t p = *position(kMax);
  const auto x = vec(c.head_dim);
  const auto f = reference::mrope_inv_freq<double>(c);
  std::vector<double> y(x.size()), z(x.size());
  reference::mrope_rotate<double>(c, f, reference::mrope_text_position(p), x, y);
  reference::rope_rotate<double>(reference::mrope_geometry(c), f, p, x, z);
  for (std::size_t k = 0; k < y.size(); ++k) RC_ASSERT(same_bits(y[k], z[k]));
}

// Position ids of a [text, image, text] sequence as a subject: the reference (ROPE-MROPE-5) or a
// bug that gives every token its sequence index on all three axes (text positions for an image
// token).
using PositionIds =
    std::function<std::vector<MropePosition>(const std::vector<reference::MropeSegment>&)>;
std::vector<MropePosition> ids_reference(const std::vector<reference::MropeSegment>& s) {
  return reference::mrope_position_ids(s);
}
std::vector<MropePosition> ids_bug_text_positions(const std::vector<reference::MropeSegment>& s) {
  std::vector<MropePosition> out;
  std::int64_t k = 0;
  for (const auto& seg : s) {
    const std::int64_t n = seg.image ? seg.grid_t * seg.grid_h * seg.grid_w : seg.length;
    for (std::int64_t j = 0; j < n; ++j, ++k) out.push_back(reference::mrope_text_position(k));
  }
  return out;
}

// Clause: ROPE-MROPE-5, ROPE-MROPE-6 — in [text(a), image(T x H x W), text(b)], image patch
// (t, h, w) sits at (a + t, a + h, a + w); horizontally adjacent patches are (0, 0, 1) apart and
// score exactly as the offset (0, 0, 1) from the origin; the text after the image starts at the
// image's largest position + 1.
void check_image_positions(const PositionIds& ids) {
  const std::int64_t a = *rc::gen::inRange<std::int64_t>(0, 50);
  const std::int64_t T = *rc::gen::inRange<std::int64_t>(1, 3);
  const std::int64_t H = *rc::gen::inRange<std::int64_t>(1, 6);
  const std::int64_t W = *rc::gen::inRange<std::int64_t>(2, 6);
  const std::int64_t b = *rc::gen::inRange<std::int64_t>(1, 5);
  const auto pos = ids({{false, a}, {true, 0, T, H, W}, {false, b}});
  RC_ASSERT(static_cast<std::int64_t>(pos.size()) == a + T * H * W + b);
  const std::int64_t t = *rc::gen::inRange<std::int64_t>(0, T);
  const std::int64_t h = *rc::gen::inRange<std::int64_t>(0, H);
  const std::int64_t w = *rc::gen::inRange<std::int64_t>(0, W - 1);
  const auto at = [&](std::int64_t tt, std::int64_t hh, std::int64_t ww) {
    return pos[static_cast<std::size_t>(a + (tt * H + hh) * W + ww)];
  };
  const MropePosition p = at(t, h, w), q = at(t, h, w + 1);
  RC_LOG() << "text " << a << ", image " << T << "x" << H << "x" << W << ", patch (" << t << ","
           << h << "," << w << ") at " << p << ", right neighbour at " << q << "\n";
  RC_ASSERT(p == (MropePosition{a + t, a + h, a + w}));
  const MropeConfig c =
      *mrope_config(*rc::gen::element(MropeLayout::Sectioned, MropeLayout::Interleaved));
  const DModel md = dmodel(*model_seed(), 4, c.head_dim);
  const double s = reference::score_mrope<double>(c, md.proj, md.xq, md.xk, p, q);
  const double s0 = reference::score_mrope<double>(c, md.proj, md.xq, md.xk, {0, 0, 0}, {0, 0, 1});
  const auto f = reference::mrope_inv_freq<double>(c);
  const double phi = static_cast<double>(a + T + H + W) * c.position_scale * f[0];  // f_0 = max
  RC_ASSERT(std::fabs(s - s0) <= reference::shift_tolerance<double>(dmagnitude(md, 1.0, phi) +
                                                                    dmagnitude(md, 1.0, 1.0)));
  const std::int64_t top = std::max({a + T - 1, a + H - 1, a + W - 1});
  RC_ASSERT(pos[static_cast<std::size_t>(a + T * H * W)] ==
            reference::mrope_text_position(top + 1));
}
RC_GTEST_PROP(Mrope, ImagePatchesUseTheirGridPositions, ()) {
  check_image_positions(ids_reference);
}
TEST(Mrope, ImagePositionPropertyFailsOnTextPositionsForAnImageToken) {
  EXPECT_TRUE(expect_witness("image tokens given text positions (bug, expected to FAIL)",
                             [] { check_image_positions(ids_bug_text_positions); }));
}

// =============================================================================================
// MLA decoupled RoPE

using MlaRotate =
    std::function<void(const MlaConfig&, std::int64_t, std::span<const double>, std::span<double>)>;
void mla_reference(const MlaConfig& c, std::int64_t p, std::span<const double> x,
                   std::span<double> y) {
  reference::mla_rotate_head<double>(c, p, x, y);
}
// A bug: the head treated as standard partial rotary (rotary lanes first), so the rotation hits
// the first qk_rope_head_dim lanes -- the non-rotary slice -- and leaves the rope slice alone.
void mla_bug_rotates_the_first_slice(const MlaConfig& c, std::int64_t p, std::span<const double> x,
                                     std::span<double> y) {
  reference::RopeConfig g = c.rope;
  g.head_dim = c.qk_head_dim();
  const auto f = reference::rope_inv_freq<double>(c.rope);
  reference::rope_rotate_with<double>(g, f, reference::rope_attention_factor<double>(c.rope), p, x,
                                      y);
}

// Clause: ROPE-MLA-1 — the non-rotary slice never moves: lanes [0, qk_nope_head_dim) of a query
// head are the input's bits at every position; the rope slice equals the YaRN rotation.
void check_mla_slices(const MlaConfig& c, const MlaRotate& rotate) {
  const std::int64_t p = *position(kMax);
  const auto x = vec(c.qk_head_dim());
  std::vector<double> y(x.size());
  rotate(c, p, x, y);
  for (std::int64_t k = 0; k < c.qk_nope_head_dim; ++k) {
    RC_LOG() << "position " << p << " lane " << k << ": " << x[k] << " -> " << y[k] << "\n";
    RC_ASSERT(same_bits(x[k], y[k]));
  }
  const std::vector<double> pe(x.begin() + c.qk_nope_head_dim, x.end());
  const auto want = reference::mla_rotate_key_slice<double>(c, p, pe);
  for (std::size_t k = 0; k < want.size(); ++k)
    RC_ASSERT(same_bits(y[static_cast<std::size_t>(c.qk_nope_head_dim) + k], want[k]));
}
RC_GTEST_PROP(Mla, NonRotarySliceNeverMoves, ()) { check_mla_slices(*mla_config(), mla_reference); }
TEST(Mla, NonRotarySlicePropertyFailsWhenTheWrongSliceIsRotated) {
  EXPECT_TRUE(expect_witness("MLA rotating the first slice (bug, expected to FAIL)", [] {
    MlaConfig c = *mla_config();
    RC_PRE(c.qk_nope_head_dim >= c.qk_rope_head_dim);  // the bug's rotation fits the nope slice
    check_mla_slices(c, mla_bug_rotates_the_first_slice);
  }));
}

// Key heads of one token as a subject: the reference, or a bug that rotates the shared slice for
// head 0 only (the other heads' copies taken before the rotation).
using MlaKeys = std::function<std::vector<std::vector<double>>(
    const MlaConfig&, std::int64_t, std::span<const double>, std::span<const double>)>;
std::vector<std::vector<double>> keys_reference(const MlaConfig& c, std::int64_t p,
                                                std::span<const double> kn,
                                                std::span<const double> kpe) {
  return reference::mla_key_heads<double>(c, p, kn, kpe);
}
std::vector<std::vector<double>> keys_bug_first_head_only(const MlaConfig& c, std::int64_t p,
                                                          std::span<const double> kn,
                                                          std::span<const double> kpe) {
  auto heads = reference::mla_key_heads<double>(c, p, kn, kpe);
  for (std::size_t h = 1; h < heads.size(); ++h)
    std::copy(kpe.begin(), kpe.end(), heads[h].begin() + c.qk_nope_head_dim);
  return heads;
}

// Clause: ROPE-MLA-2 — every key head carries the same rotated key slice (bit-identical to the
// one rotation of k_pe) after its own non-rotary part.
void check_mla_shared_key(const MlaKeys& keys) {
  MlaConfig c = *mla_config();
  c.n_heads = *rc::gen::inRange<std::int64_t>(1, 9);
  const std::int64_t p = *position(kMax);
  const auto kn = vec(c.n_heads * c.qk_nope_head_dim);
  const auto kpe = vec(c.qk_rope_head_dim);
  const auto heads = keys(c, p, kn, kpe);
  const auto rot = reference::mla_rotate_key_slice<double>(c, p, kpe);
  RC_ASSERT(static_cast<std::int64_t>(heads.size()) == c.n_heads);
  for (std::size_t h = 0; h < heads.size(); ++h) {
    for (std::int64_t k = 0; k < c.qk_nope_head_dim; ++k)
      RC_ASSERT(same_bits(heads[h][k], kn[h * c.qk_nope_head_dim + k]));
    for (std::size_t k = 0; k < rot.size(); ++k) {
      RC_LOG() << "head " << h << " rope lane " << k << "\n";
      RC_ASSERT(same_bits(heads[h][c.qk_nope_head_dim + k], rot[k]));
    }
  }
}
RC_GTEST_PROP(Mla, RotatedKeySliceIsSharedByEveryHead, ()) { check_mla_shared_key(keys_reference); }
TEST(Mla, SharedKeyPropertyFailsWhenOnlyTheFirstHeadIsRotated) {
  EXPECT_TRUE(expect_witness("MLA rotating the first head's key slice only (bug, expected to FAIL)",
                             [] { check_mla_shared_key(keys_bug_first_head_only); }));
}

// Clause: ROPE-MLA-4 — the score is offset-only (MPFR), the YaRN table being fixed.
RC_GTEST_PROP(Mla, ScoreDependsOnlyOnOffset, ()) {
  const MlaConfig c = *mla_config();
  const ShiftCase s = *shift_case(kMax);
  const MpCompare r = mp_mla_shift(c, draw_model(), s.m, s.n, s.c);
  RC_LOG() << "config " << c << " case " << s << " scores " << r << "\n";
  RC_ASSERT(r.agree());
}

// Clause: ROPE-MLA-3 — softmax scale = qk_head_dim^-1/2 * mscale(s, mscale_all_dim)^2 (when
// mscale_all_dim != 0); DeepSeek V3's default is (0.1 ln 40 + 1)^2 / sqrt(192).
RC_GTEST_PROP(Mla, SoftmaxScaleCarriesMscaleAllDimSquared, ()) {
  const MlaConfig c = *mla_config();
  const double got = reference::mla_softmax_scale<double>(c);
  const double s = c.rope.scaling.factor, mu = c.rope.scaling.yarn_mscale_all_dim;
  const double ms = mu == 0 || s <= 1 ? 1.0 : 0.1 * mu * std::log(s) + 1.0;
  const double want = ms * ms / std::sqrt(static_cast<double>(c.qk_head_dim()));
  RC_ASSERT(std::fabs(got - want) <= reference::freq_tolerance<double>(want, std::exp(1.0)));
  const MlaConfig v3;
  const double m3 = 0.1 * std::log(40.0) + 1.0;
  const double v = reference::mla_softmax_scale<double>(v3);
  RC_ASSERT(std::fabs(v - m3 * m3 / std::sqrt(192.0)) <=
            reference::freq_tolerance<double>(v, std::exp(1.0)));
}

}  // namespace
}  // namespace pecheck::props
