// Shrinking and report descriptions of the version 2 RoPE cases: fewer tokens, GQA groups and
// group members, smaller heads, dense out-of-place views, smaller positions and shift, simpler
// values (simplest first, as v1/shrink.cpp); descriptions under the ABI field names.
#include <algorithm>
#include <cmath>

#include "verify/rope_v2/cases.hpp"
#include "verify/gen/shrink_util.hpp"

namespace pecheck::verifier {

namespace {

using namespace shrinking;

bool same_float(float a, float b) { return a == b && std::signbit(a) == std::signbit(b); }

// The other position rows of a case that has them (M-RoPE), for the tokens kept.
template <class C>
void select_rows(C&, const C&, const Idx&) {}
void select_rows(MropeCase& d, const MropeCase& c, const Idx& toks) {
  d.pos_h.clear();
  d.pos_w.clear();
  for (auto t : toks) {
    d.pos_h.push_back(c.pos_h[static_cast<std::size_t>(t)]);
    d.pos_w.push_back(c.pos_w[static_cast<std::size_t>(t)]);
  }
}
template <class C>
bool rows_fit(const C&) { return true; }
bool rows_fit(const MropeCase& c) {
  return c.pos_h.size() == c.positions.size() && c.pos_w.size() == c.positions.size();
}

// Shape shrinking common to the query+key cases: tokens, GQA groups and ratio, dimensions,
// views (toward dense, out of place), positions, values. `fix` re-derives dependent fields.
template <class C, class Fix>
void shrink_shape(const C& c, std::vector<C>& out, Fix fix) {
  const std::int64_t ratio = c.n_kv_heads > 0 ? c.n_q_heads / c.n_kv_heads : 1;
  const bool shaped = c.n_tokens >= 0 && c.n_kv_heads >= 1 && ratio >= 1 &&
                      c.n_q_heads == ratio * c.n_kv_heads && c.head_dim >= 2 && c.rotary_dim >= 2 &&
                      c.rotary_dim <= c.head_dim;
  const auto keep = [&](const Idx& toks, const Idx& kv, std::int64_t new_ratio, std::int64_t hd,
                        std::int64_t rd) {
    C d = c;
    Idx qh;
    for (auto g : kv)
      for (std::int64_t j = 0; j < new_ratio; ++j) qh.push_back(g * ratio + j);
    const Idx lanes = iota(hd);
    d.q = select3(c.q, c.n_q_heads, c.head_dim, toks, qh, lanes);
    d.k = select3(c.k, c.n_kv_heads, c.head_dim, toks, kv, lanes);
    d.positions.clear();
    for (auto t : toks) d.positions.push_back(c.positions[static_cast<std::size_t>(t)]);
    select_rows(d, c, toks);
    d.n_tokens = static_cast<std::int64_t>(toks.size());
    d.n_kv_heads = static_cast<std::int64_t>(kv.size());
    d.n_q_heads = static_cast<std::int64_t>(qh.size());
    d.head_dim = hd;
    d.rotary_dim = rd;
    if (d.has_inv_freq) d.inv_freq.resize(static_cast<std::size_t>(rd / 2));
    fix(d);
    out.push_back(std::move(d));
  };
  if (shaped && static_cast<std::int64_t>(c.positions.size()) == c.n_tokens && rows_fit(c)) {
    const Idx all_t = iota(c.n_tokens), all_kv = iota(c.n_kv_heads);
    for (const auto& t : subsets(c.n_tokens, true))
      keep(t, all_kv, ratio, c.head_dim, c.rotary_dim);
    for (const auto& g : subsets(c.n_kv_heads, false))
      keep(all_t, g, ratio, c.head_dim, c.rotary_dim);
    for (std::int64_t r2 : {std::int64_t{1}, ratio / 2})
      if (r2 >= 1 && r2 < ratio) keep(all_t, all_kv, r2, c.head_dim, c.rotary_dim);
    if (c.head_dim > c.rotary_dim) keep(all_t, all_kv, ratio, c.rotary_dim, c.rotary_dim);
    for (std::int64_t rd :
         {std::int64_t{2}, (c.rotary_dim / 2) & ~std::int64_t{1}, c.rotary_dim - 2}) {
      if (rd >= 2 && rd < c.rotary_dim) {
        keep(all_t, all_kv, ratio, rd, rd);
        if (c.head_dim > c.rotary_dim)
          keep(all_t, all_kv, ratio, rd + (c.head_dim - c.rotary_dim), rd);
      }
    }
  }
  // Views: dense and out of place first (the simplest layout that still fails).
  const auto dense = [](const ViewSpec& v) {
    return !v.explicit_strides && v.kind == ViewSpec::TokenMajor && v.head_gap == 0 &&
           v.token_gap == 0;
  };
  for (int which = 0; which < 4; ++which) {
    C d = c;
    ViewSpec& v = which == 0   ? d.q_view
                  : which == 1 ? d.k_view
                  : which == 2 ? d.q_out_view
                               : d.k_out_view;
    if (v.explicit_strides || dense(v)) continue;
    v = ViewSpec{};
    if (which == 0 && d.q_in_place) d.q_out_view = v;
    if (which == 1 && d.k_in_place) d.k_out_view = v;
    if (which == 2 && d.q_in_place) continue;
    if (which == 3 && d.k_in_place) continue;
    fix(d);
    out.push_back(std::move(d));
  }
  if (c.q_in_place) {
    C d = c;
    d.q_in_place = false;
    fix(d);
    out.push_back(std::move(d));
  }
  if (c.k_in_place) {
    C d = c;
    d.k_in_place = false;
    fix(d);
    out.push_back(std::move(d));
  }
  if (c.layout == 1) {
    C d = c;
    d.layout = 0;
    fix(d);
    out.push_back(std::move(d));
  }
  // Positions: all at zero, halved, each smaller.
  const auto& p = c.positions;
  if (std::any_of(p.begin(), p.end(), [](std::int64_t v) { return v > 0; })) {
    C zero = c, half = c;
    for (auto& e : zero.positions) e = e > 0 ? 0 : e;
    for (auto& e : half.positions) e = e > 0 ? e / 2 : e;
    fix(zero);
    fix(half);
    out.push_back(std::move(zero));
    out.push_back(std::move(half));
  }
  if (p.size() <= 16) {
    for (std::size_t t = 0; t < p.size(); ++t) {
      for (auto v : smaller(p[t])) {
        C d = c;
        d.positions[t] = v;
        fix(d);
        out.push_back(std::move(d));
      }
    }
  }
  // Values: every value 0 or 1 at once, then each (small tensors only) to 0, 1, -1, 1/2.
  for (std::vector<float> C::*field : {&C::q, &C::k}) {
    const auto& v = c.*field;
    for (float fill : {0.0f, 1.0f}) {
      if (std::any_of(v.begin(), v.end(),
                      [&](float x) { return !same_float(x, fill) && !same_float(x, 0.0f); })) {
        C d = c;
        std::fill((d.*field).begin(), (d.*field).end(), fill);
        fix(d);
        out.push_back(std::move(d));
      }
    }
    if (v.size() > 64) continue;
    for (std::size_t i = 0; i < v.size(); ++i) {
      for (float s : {0.0f, 1.0f, 0.5f}) {
        const bool simpler =
            same_float(s, 0.0f)
                ? !same_float(v[i], 0.0f)
                : !same_float(v[i], 0.0f) && !same_float(v[i], 1.0f) && !same_float(v[i], s);
        if (!simpler) continue;
        C d = c;
        (d.*field)[i] = s;
        fix(d);
        out.push_back(std::move(d));
      }
    }
  }
}

template <class C>
void shrink_shift(const C& c, std::vector<C>& out) {
  const std::int64_t s = c.shift < 0 ? -c.shift : c.shift;
  for (auto v : smaller(s, 1)) {
    C d = c;
    d.shift = c.shift < 0 ? -v : v;
    out.push_back(d);
  }
}

void add_view(std::vector<report::Arg>& args, const char* name, const pec_strides& s) {
  args.push_back({name, std::vector<std::int64_t>{s.token, s.head}});
}

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

void describe_shape(const QkShape& c, std::vector<report::Arg>& args) {
  args.push_back({"storage", std::string(storage_name(c.storage))});
  args.push_back({"n_tokens", c.n_tokens});
  args.push_back({"n_q_heads", c.n_q_heads});
  args.push_back({"n_kv_heads", c.n_kv_heads});
  args.push_back({"head_dim", c.head_dim});
  args.push_back({"rotary_dim", c.rotary_dim});
  args.push_back({"layout", std::int64_t{c.layout}});
}

void describe_views(const QkShape& c, std::vector<report::Arg>& args) {
  if (c.null_field == "positions")
    args.push_back({"positions", std::monostate{}});
  else
    args.push_back({"positions", c.positions});
  add_view(args, "q_strides [token, head]", view_strides(c, c.q_view, c.n_q_heads));
  add_view(args, "k_strides [token, head]", view_strides(c, c.k_view, c.n_kv_heads));
  add_view(args, "q_out_strides [token, head]", view_strides(c, c.q_out_view, c.n_q_heads));
  add_view(args, "k_out_strides [token, head]", view_strides(c, c.k_out_view, c.n_kv_heads));
  if (c.q_in_place || c.k_in_place) {
    args.push_back({"in_place", std::string(c.q_in_place && c.k_in_place ? "q_out == q, k_out == k"
                                            : c.q_in_place               ? "q_out == q"
                                                                         : "k_out == k")});
  }
  if (c.shift != 0) args.push_back({"shift", c.shift});
  if (!c.null_field.empty()) args.push_back({"null_argument", c.null_field});
  if (!c.note.empty()) args.push_back({"generator", c.note});
}

void describe_inputs(const QkShape& c, std::vector<report::Tensor>& in) {
  if (c.null_field != "q") in.push_back({"q", {c.n_tokens, c.n_q_heads, c.head_dim}, c.q});
  if (c.null_field != "k") in.push_back({"k", {c.n_tokens, c.n_kv_heads, c.head_dim}, c.k});
}

}  // namespace

// ---- shrinking
// -------------------------------------------------------------------------------------

std::vector<RopeQkCase> shrink_candidates(const RopeQkCase& c) {
  std::vector<RopeQkCase> out;
  shrink_shape(c, out, [](RopeQkCase&) {});
  if (c.attn_factor != 1.0 && std::isfinite(c.attn_factor) && c.attn_factor > 0) {
    RopeQkCase d = c;
    d.attn_factor = 1.0;
    out.push_back(std::move(d));
  }
  if (c.has_inv_freq) {
    RopeQkCase d = c;
    d.has_inv_freq = false;
    d.inv_freq.clear();
    out.push_back(std::move(d));
  }
  if (c.position_scale != 1.0 && std::isfinite(c.position_scale) && c.position_scale > 0) {
    RopeQkCase d = c;
    d.position_scale = 1.0;
    out.push_back(std::move(d));
  }
  shrink_shift(c, out);
  return out;
}

std::vector<RopeCachedCase> shrink_candidates(const RopeCachedCase& c) {
  std::vector<RopeCachedCase> out;
  const auto fix = [](RopeCachedCase& d) { fill_cache_rows(d); };
  shrink_shape(c, out, fix);
  // A smaller cache: just above the largest position read.
  std::int64_t top = -1;
  for (auto p : c.positions) top = std::max({top, p, p + c.shift});
  if (top >= 0 && c.cache_positions > top + 1) {
    RopeCachedCase d = c;
    d.cache_positions = top + 1;
    fix(d);
    out.push_back(std::move(d));
  }
  if (c.attn_factor != 1.0 && std::isfinite(c.attn_factor) && c.attn_factor > 0) {
    RopeCachedCase d = c;
    d.attn_factor = 1.0;
    fix(d);
    out.push_back(std::move(d));
  }
  if (c.cache_dtype >= 0 && c.cache_dtype <= 2 && c.cache_dtype != PEC_DTYPE_F32) {
    RopeCachedCase d = c;
    d.cache_dtype = PEC_DTYPE_F32;
    fix(d);
    out.push_back(std::move(d));
  }
  std::vector<RopeCachedCase> sh;
  shrink_shift(c, sh);
  for (auto& d : sh) {
    fix(d);
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<RopeCacheCase> shrink_candidates(const RopeCacheCase& c) {
  std::vector<RopeCacheCase> out;
  for (auto n : smaller(c.cache_positions, 1)) {
    RopeCacheCase d = c;
    d.cache_positions = n;
    out.push_back(std::move(d));
  }
  if (c.rotary_dim > 2 && c.rotary_dim % 2 == 0) {
    for (std::int64_t rd :
         {std::int64_t{2}, (c.rotary_dim / 2) & ~std::int64_t{1}, c.rotary_dim - 2}) {
      if (rd < 2 || rd >= c.rotary_dim) continue;
      RopeCacheCase d = c;
      d.rotary_dim = rd;
      if (d.has_inv_freq) d.inv_freq.resize(static_cast<std::size_t>(rd / 2));
      out.push_back(std::move(d));
    }
  }
  if (c.attn_factor != 1.0 && std::isfinite(c.attn_factor) && c.attn_factor > 0) {
    RopeCacheCase d = c;
    d.attn_factor = 1.0;
    out.push_back(std::move(d));
  }
  if (c.has_inv_freq) {
    RopeCacheCase d = c;
    d.has_inv_freq = false;
    d.inv_freq.clear();
    out.push_back(std::move(d));
  }
  if (c.position_scale != 1.0 && std::isfinite(c.position_scale) && c.position_scale > 0) {
    RopeCacheCase d = c;
    d.position_scale = 1.0;
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<MropeCase> shrink_candidates(const MropeCase& c) {
  std::vector<MropeCase> out;
  const std::int64_t half = c.rotary_dim / 2;
  const bool valid_sections =
      c.section[0] >= 0 && c.section[1] >= 0 && c.section[2] >= 0 &&
      c.section[0] + c.section[1] + c.section[2] == half;
  // A smaller rotary part keeps the sections' proportions (the t section takes the remainder),
  // within the interleaved limits.
  shrink_shape(c, out, [&c, valid_sections](MropeCase& d) {
    if (!valid_sections || d.rotary_dim == c.rotary_dim || c.rotary_dim < 2) return;
    const std::int64_t h2 = d.rotary_dim / 2, h1 = c.rotary_dim / 2;
    std::int64_t sh = c.section[1] * h2 / h1, sw = c.section[2] * h2 / h1;
    if (d.mrope_layout == PEC_MROPE_INTERLEAVED) sh = std::min(sh, (h2 + 1) / 3), sw = std::min(sw, h2 / 3);
    sw = std::min(sw, h2 - sh);
    d.section[0] = h2 - sh - sw, d.section[1] = sh, d.section[2] = sw;
  });
  // The h and w rows: equal to t (a text token), halved, each entry smaller.
  for (std::vector<std::int64_t> MropeCase::*row : {&MropeCase::pos_h, &MropeCase::pos_w}) {
    const auto& v = c.*row;
    if (v.size() != c.positions.size()) continue;
    if (v != c.positions) {
      MropeCase d = c;
      d.*row = c.positions;
      out.push_back(std::move(d));
    }
    if (std::any_of(v.begin(), v.end(), [](std::int64_t x) { return x > 1; })) {
      MropeCase d = c;
      for (auto& e : d.*row) e = e > 0 ? e / 2 : e;
      out.push_back(std::move(d));
    }
    if (v.size() <= 16) {
      for (std::size_t t = 0; t < v.size(); ++t)
        for (auto x : smaller(v[t])) {
          MropeCase d = c;
          (d.*row)[t] = x;
          out.push_back(std::move(d));
        }
    }
  }
  if (c.attn_factor != 1.0 && std::isfinite(c.attn_factor) && c.attn_factor > 0) {
    MropeCase d = c;
    d.attn_factor = 1.0;
    out.push_back(std::move(d));
  }
  if (c.has_inv_freq) {
    MropeCase d = c;
    d.has_inv_freq = false;
    d.inv_freq.clear();
    out.push_back(std::move(d));
  }
  if (c.position_scale != 1.0 && std::isfinite(c.position_scale) && c.position_scale > 0) {
    MropeCase d = c;
    d.position_scale = 1.0;
    out.push_back(std::move(d));
  }
  for (int a = 0; a < 3; ++a) {  // the .shift check's per-axis amounts, toward 0
    const std::int64_t s = c.axis_shift[a] < 0 ? -c.axis_shift[a] : c.axis_shift[a];
    for (auto v : smaller(s)) {
      MropeCase d = c;
      d.axis_shift[a] = c.axis_shift[a] < 0 ? -v : v;
      out.push_back(std::move(d));
    }
  }
  return out;
}

// ---- descriptions
// ------------------------------------------------------------------------------------

void describe(const RopeQkCase& c, std::vector<report::Arg>& args,
              std::vector<report::Tensor>& in) {
  args.clear();
  describe_shape(c, args);
  args.push_back({"theta_base", c.theta_base});
  args.push_back({"position_scale", c.position_scale});
  args.push_back({"attn_factor", c.attn_factor});
  describe_views(c, args);
  args.insert(args.begin() + 11, {"inv_freq", c.has_inv_freq ? report::ArgValue{widen(c.inv_freq)}
                                                             : report::ArgValue{std::monostate{}}});
  describe_inputs(c, in);
}

void describe(const MropeCase& c, std::vector<report::Arg>& args, std::vector<report::Tensor>& in) {
  args.clear();
  describe_shape(c, args);
  args.push_back({"mrope_layout",
                  std::string(c.mrope_layout == PEC_MROPE_SECTIONED     ? "sectioned"
                              : c.mrope_layout == PEC_MROPE_INTERLEAVED ? "interleaved"
                                                                        : "invalid (" + std::to_string(c.mrope_layout) + ")")});
  args.push_back({"mrope_section [t, h, w]", std::vector<std::int64_t>{c.section[0], c.section[1], c.section[2]}});
  args.push_back({"theta_base", c.theta_base});
  args.push_back({"position_scale", c.position_scale});
  args.push_back({"attn_factor", c.attn_factor});
  args.push_back({"inv_freq", c.has_inv_freq ? report::ArgValue{widen(c.inv_freq)}
                                             : report::ArgValue{std::monostate{}}});
  describe_views(c, args);
  for (auto& a : args)  // the t row under its ABI name
    if (a.name == "positions" && c.null_field != "positions") a.name = "positions[t]";
  if (c.null_field != "positions") {
    args.push_back({"positions[h]", c.pos_h});
    args.push_back({"positions[w]", c.pos_w});
  }
  if (c.axis_shift[0] != 0 || c.axis_shift[1] != 0 || c.axis_shift[2] != 0)
    args.push_back({"shift [t, h, w]", std::vector<std::int64_t>{c.axis_shift[0], c.axis_shift[1], c.axis_shift[2]}});
  describe_inputs(c, in);
}

void describe(const RopeCachedCase& c, std::vector<report::Arg>& args,
              std::vector<report::Tensor>& in) {
  args.clear();
  describe_shape(c, args);
  args.push_back({"cache_dtype", std::string(dtype_name(c.cache_dtype))});
  args.push_back({"cache_positions", c.cache_positions});
  describe_views(c, args);
  args.push_back({"cache built with", "theta_base " + report::format_real(c.theta_base) +
                                          ", position_scale " +
                                          report::format_real(c.position_scale) + ", attn_factor " +
                                          report::format_real(c.attn_factor) +
                                          (c.has_inv_freq ? ", inv_freq table" : "")});
  args.push_back({"cache rows filled (others NaN)", c.row_pos});
  describe_inputs(c, in);
  if (c.null_field != "cos_sin_cache" && !c.row_pos.empty()) {
    in.push_back({"cos_sin_cache rows",
                  {static_cast<std::int64_t>(c.row_pos.size()), c.rotary_dim},
                  c.row_vals});
  }
}

void describe(const RopeCacheCase& c, std::vector<report::Arg>& args,
              std::vector<report::Tensor>&) {
  args = {{"storage", std::string(storage_name(c.storage))},
          {"cache_positions", c.cache_positions},
          {"rotary_dim", c.rotary_dim},
          {"theta_base", c.theta_base},
          {"position_scale", c.position_scale},
          {"attn_factor", c.attn_factor},
          {"inv_freq", c.has_inv_freq ? report::ArgValue{widen(c.inv_freq)}
                                      : report::ArgValue{std::monostate{}}}};
  if (!c.null_field.empty()) args.push_back({"null_argument", c.null_field});
  if (!c.note.empty()) args.push_back({"generator", c.note});
}

namespace {

// Halves of the tokens and of the GQA groups of a production-size case; at or below 16,384
// elements the case's own candidates. The cache rows of a cached case are kept as they are (a
// half reads a subset of them), so no candidate recomputes the cache.
template <class C>
std::vector<C> large_candidates(const C& c) {
  if (c.n_tokens * (c.n_q_heads + c.n_kv_heads) * c.head_dim <= 16384) return shrink_candidates(c);
  std::vector<C> out;
  const std::int64_t ratio = c.n_kv_heads > 0 ? c.n_q_heads / c.n_kv_heads : 1;
  if (c.n_kv_heads < 1 || ratio * c.n_kv_heads != c.n_q_heads ||
      static_cast<std::int64_t>(c.positions.size()) != c.n_tokens)
    return out;
  const auto keep = [&](const Idx& toks, const Idx& kv) {
    C d = c;
    Idx qh;
    for (auto g : kv)
      for (std::int64_t j = 0; j < ratio; ++j) qh.push_back(g * ratio + j);
    const Idx lanes = iota(c.head_dim);
    d.q = select3(c.q, c.n_q_heads, c.head_dim, toks, qh, lanes);
    d.k = select3(c.k, c.n_kv_heads, c.head_dim, toks, kv, lanes);
    d.positions.clear();
    for (auto t : toks) d.positions.push_back(c.positions[static_cast<std::size_t>(t)]);
    select_rows(d, c, toks);
    d.n_tokens = static_cast<std::int64_t>(toks.size());
    d.n_kv_heads = static_cast<std::int64_t>(kv.size());
    d.n_q_heads = static_cast<std::int64_t>(qh.size());
    out.push_back(std::move(d));
  };
  if (!rows_fit(c)) return out;
  for (const auto& t : halves(c.n_tokens)) keep(t, iota(c.n_kv_heads));
  for (const auto& g : halves(c.n_kv_heads)) keep(iota(c.n_tokens), g);
  return out;
}

}  // namespace

std::vector<RopeQkCase> shrink_candidates_large(const RopeQkCase& c) { return large_candidates(c); }
std::vector<RopeCachedCase> shrink_candidates_large(const RopeCachedCase& c) { return large_candidates(c); }
std::vector<MropeCase> shrink_candidates_large(const MropeCase& c) { return large_candidates(c); }

}  // namespace pecheck::verifier
