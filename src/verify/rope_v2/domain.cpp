// Declared domains (spec/abi.md ABI-DOM-1..3) for the version 2 RoPE functions: the `rope.*` rules
// of a declaration (layout, head_dim, rotary_dim, inv_freq, max_position) hold for every RoPE
// function of the library, so pecheck generates query+key, cached and builder calls inside them
// as it does for pec_rope_*; the builder has no layout or head_dim, so only its rotary_dim,
// inv_freq and number of rows (positions 0 .. cache_positions - 1) follow the declaration.
#include <algorithm>
#include <cmath>

#include "verify/rope_v2/cases.hpp"
#include "verify/gen/domain.hpp"

namespace pecheck::verifier {

namespace {

template <class T>
bool allowed(const std::vector<T>& set, T v) {
  return set.empty() || std::find(set.begin(), set.end(), v) != set.end();
}

template <class T>
T pick(const std::vector<T>& set, Rng& r) {
  return set[static_cast<std::size_t>(r.range(0, static_cast<std::int64_t>(set.size()) - 1))];
}

// rotary_dim inside the declaration for a head of head_dim lanes (the builder: any head).
std::int64_t fit_rotary(const Domain& d, std::int64_t rotary, std::int64_t head_dim, Rng& r) {
  if (d.rope_full_rotary) return head_dim - head_dim % 2;
  if (!d.rope_rotary_dims.empty() && !allowed(d.rope_rotary_dims, rotary)) {
    std::vector<std::int64_t> fit;
    for (auto x : d.rope_rotary_dims)
      if (x <= head_dim) fit.push_back(x);
    return fit.empty() ? head_dim - head_dim % 2 : pick(fit, r);
  }
  return std::min(rotary, head_dim - head_dim % 2);
}

template <class C>
void fix_inv_freq(const Domain& d, C& c, std::int64_t rotary) {
  if (d.rope_inv_freq && !*d.rope_inv_freq) {
    c.has_inv_freq = false;
    c.inv_freq.clear();
  }
  if (c.has_inv_freq && c.inv_freq.size() != static_cast<std::size_t>(rotary / 2)) {
    const std::size_t old = c.inv_freq.size();
    c.inv_freq.resize(static_cast<std::size_t>(rotary / 2));
    for (std::size_t i = old; i < c.inv_freq.size(); ++i) {
      c.inv_freq[i] = static_cast<float>(
          std::pow(c.theta_base, -2.0 * static_cast<double>(i) / static_cast<double>(rotary)));
    }
  }
}

void constrain_shape(const Domain& d, QkShape& c, Rng& r) {
  bool resized = false;
  if (!allowed(d.rope_layouts, c.layout)) c.layout = pick(d.rope_layouts, r);
  if (!allowed(d.rope_head_dims, c.head_dim))
    c.head_dim = pick(d.rope_head_dims, r), resized = true;
  const std::int64_t rd = fit_rotary(d, c.rotary_dim, c.head_dim, r);
  if (rd != c.rotary_dim) c.rotary_dim = rd, resized = true;
  if (d.rope_max_position)
    for (auto& p : c.positions) p = std::min(p, *d.rope_max_position);
  if (resized) {
    c.q.resize(static_cast<std::size_t>(c.n_tokens * c.n_q_heads * c.head_dim));
    c.k.resize(static_cast<std::size_t>(c.n_tokens * c.n_kv_heads * c.head_dim));
    for (auto* v : {&c.q, &c.k})
      for (auto& e : *v) e = r.signed_unit();
  }
}

bool shape_inside(const Domain& d, const QkShape& c) {
  if (!allowed(d.rope_layouts, c.layout) || !allowed(d.rope_head_dims, c.head_dim)) return false;
  if (d.rope_full_rotary && c.rotary_dim != c.head_dim) return false;
  if (!d.rope_full_rotary && !allowed(d.rope_rotary_dims, c.rotary_dim)) return false;
  if (d.rope_max_position)
    for (auto p : c.positions)
      if (p > *d.rope_max_position) return false;
  return true;
}

}  // namespace

// The parameters a kernel does not take (rope.position_scale 1, rope.attn_factor 1).
template <class C>
void fix_factors(const Domain& d, C& c) {
  if (d.rope_unit_position_scale) c.position_scale = 1.0;
  if (d.rope_unit_attn_factor) c.attn_factor = 1.0;
}
template <class C>
bool factors_inside(const Domain& d, const C& c) {
  return !(d.rope_unit_position_scale && c.position_scale != 1.0) && !(d.rope_unit_attn_factor && c.attn_factor != 1.0);
}

// The cache dtypes a cached rotation takes (rope_cached.cache_dtype; own = its storage type).
bool dtype_allowed(const Domain& d, const RopeCachedCase& c) {
  if (d.cached_dtypes.empty()) return true;
  for (auto t : d.cached_dtypes) {
    if (t == c.cache_dtype || (t == Domain::kOwnDtype && c.cache_dtype == static_cast<std::int32_t>(c.storage))) return true;
  }
  return false;
}

void constrain(const Domain& d, RopeQkCase& c, Rng& r) {
  if (!d.declared) return;
  constrain_shape(d, c, r);
  fix_inv_freq(d, c, c.rotary_dim);
  fix_factors(d, c);
}

void constrain(const Domain& d, RopeCachedCase& c, Rng& r) {
  if (!d.declared) return;
  constrain_shape(d, c, r);
  fix_inv_freq(d, c, c.rotary_dim);  // how pecheck builds the cache: the kernel sees no table
  if (d.rope_max_position)
    c.cache_positions = std::min(c.cache_positions, *d.rope_max_position + 1);
  for (auto& p : c.positions) p = std::min(p, c.cache_positions - 1);
  if (!dtype_allowed(d, c)) {
    const std::int32_t t = pick(d.cached_dtypes, r);
    c.cache_dtype = t == Domain::kOwnDtype ? static_cast<std::int32_t>(c.storage) : t;
  }
  fill_cache_rows(c);
}

void constrain(const Domain& d, RopeCacheCase& c, Rng& r) {
  if (!d.declared) return;
  const std::int64_t rd = fit_rotary(d, c.rotary_dim, std::max<std::int64_t>(c.rotary_dim, 256), r);
  if (!d.rope_full_rotary) c.rotary_dim = rd;
  fix_inv_freq(d, c, c.rotary_dim);
  fix_factors(d, c);
  if (d.rope_max_position)
    c.cache_positions = std::min(c.cache_positions, *d.rope_max_position + 1);
}

void constrain(const Domain& d, MropeCase& c, Rng& r) {
  if (!d.declared) return;
  const std::int64_t old_half = c.rotary_dim / 2;
  constrain_shape(d, c, r);
  fix_inv_freq(d, c, c.rotary_dim);
  fix_factors(d, c);
  if (!allowed(d.mrope_layouts, c.mrope_layout)) c.mrope_layout = pick(d.mrope_layouts, r);
  const std::int64_t half = c.rotary_dim / 2;
  if (half != old_half || c.mrope_layout == PEC_MROPE_INTERLEAVED) {  // refit the sections
    std::int64_t sh = old_half > 0 ? c.section[1] * half / old_half : 0;
    std::int64_t sw = old_half > 0 ? c.section[2] * half / old_half : 0;
    if (c.mrope_layout == PEC_MROPE_INTERLEAVED) sh = std::min(sh, (half + 1) / 3), sw = std::min(sw, half / 3);
    sw = std::min(sw, half - sh);
    c.section[0] = half - sh - sw, c.section[1] = sh, c.section[2] = sw;
  }
  if (d.rope_max_position)
    for (auto* row : {&c.pos_h, &c.pos_w})
      for (auto& p : *row) p = std::min(p, *d.rope_max_position);
}

bool inside(const Domain& d, const MropeCase& c) {
  if (!shape_inside(d, c) || !allowed(d.mrope_layouts, c.mrope_layout) || !factors_inside(d, c)) return false;
  if (d.rope_inv_freq && !*d.rope_inv_freq && c.has_inv_freq) return false;
  if (d.rope_max_position)
    for (const auto* row : {&c.pos_h, &c.pos_w})
      for (auto p : *row)
        if (p > *d.rope_max_position) return false;
  return true;
}

bool inside(const Domain& d, const RopeQkCase& c) {
  return shape_inside(d, c) && !(d.rope_inv_freq && !*d.rope_inv_freq && c.has_inv_freq) && factors_inside(d, c);
}
bool inside(const Domain& d, const RopeCachedCase& c) {
  return shape_inside(d, c) && dtype_allowed(d, c) &&
         !(d.rope_max_position && c.cache_positions > *d.rope_max_position + 1);
}
bool inside(const Domain& d, const RopeCacheCase& c) {
  if (!d.rope_full_rotary && !allowed(d.rope_rotary_dims, c.rotary_dim)) return false;
  if (d.rope_inv_freq && !*d.rope_inv_freq && c.has_inv_freq) return false;
  if (!factors_inside(d, c)) return false;
  return !(d.rope_max_position && c.cache_positions > *d.rope_max_position + 1);
}

}  // namespace pecheck::verifier
