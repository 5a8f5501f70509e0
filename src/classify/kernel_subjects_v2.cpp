// The version 2 RoPE functions as `classify --kernel` subjects (spec/README.md CLASSIFY-9): query
// and key from one call, two tokens, one query head and one key head of the same head_dim in
// contiguous views; every score pairs token 0's query output with token 1's key output.
//   pec_rope_qk_*:     positions (m, n);
//   pec_mrope_*:       position triples (t, h, w) (ABI-MROPE-3), one subject per M-RoPE layout,
//                      classified by the vector shift of CLASSIFY-5 and the axis-free runs;
//   pec_rope_cached_*: positions (m, n) rotated from a cos/sin cache, the library's own builder's
//                      (pec_rope_cache_* of the storage type) when it exports one, else pecheck's.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <span>

#include "classify/kernel_subjects_impl.hpp"
#include "oracle/budget.hpp"
#include "oracle/format.hpp"
#include "verify/isolation/storage.hpp"

namespace pecheck::classify::kernel_detail {

using verifier::Fn;
using verifier::Storage;

namespace {

oracle::Format format_of(Storage s) {
  return s == Storage::F32 ? oracle::Format::F32 : s == Storage::BF16 ? oracle::Format::BF16 : oracle::Format::F16;
}

std::int64_t lane_a(std::int32_t layout, std::int64_t, std::int64_t i) { return layout == 0 ? i : 2 * i; }
std::int64_t lane_b(std::int32_t layout, std::int64_t R, std::int64_t i) { return layout == 0 ? i + R / 2 : 2 * i + 1; }

double frequency(double base, std::int64_t i, std::int64_t R) {
  return std::pow(base, -2.0 * static_cast<double>(i) / static_cast<double>(R));
}

double decode(const unsigned char* base, std::size_t i, Storage sto) {
  const std::size_t bytes = verifier::storage_bytes(sto);
  std::uint32_t b = 0;
  std::memcpy(&b, base + i * bytes, bytes);
  return static_cast<double>(verifier::from_storage(b, sto));
}

std::vector<float> random_heads(Rng& r, std::size_t n, Storage sto) {
  std::vector<float> v(n);
  for (auto& e : v) e = verifier::round_to_storage(r.uniform(-1, 1), sto);
  return v;
}

// One call of a query+key function: q and k ([2 tokens][D]) encoded in the storage type into the
// arena after whatever `args` already points to there; returns <q_out[0], k_out[1]> in double
// (the sum of D products of 16- or 32-bit values is exact enough to be taken as exact: its
// rounding is below 2^-50 of the score's magnitude, far below every element bound).
template <class Args>
double call_score(State& st, Fn fn, const Args& args, const std::vector<float>& q, const std::vector<float>& k,
                  std::size_t D, Storage sto) {
  verifier::Arena& a = st.ex.arena();
  const std::size_t bytes = verifier::storage_bytes(sto);
  const auto qe = verifier::encode(q, sto), ke = verifier::encode(k, sto);
  void* qp = a.allocate(qe.size());
  void* kp = a.allocate(ke.size());
  std::memcpy(qp, qe.data(), qe.size());
  std::memcpy(kp, ke.data(), ke.size());
  void* qo = a.allocate(2 * D * bytes);
  void* ko = a.allocate(2 * D * bytes);
  const auto* ap = a.put(args);
  const verifier::CallOutcome o = st.ex.call(fn, ap, qp, qo, kp, ko);
  if (!o.ok()) call_failed(fn, o);
  const auto* qb = static_cast<const unsigned char*>(qo);
  const auto* kb = static_cast<const unsigned char*>(ko);
  double v = 0;
  for (std::size_t l = 0; l < D; ++l) v += decode(qb, l, sto) * decode(kb, D + l, sto);
  return v;
}

// The score's bound from element bounds (the tolerance argument of every subject here): with
// |q_hat - q| <= eq and |k_hat - k| <= ek per lane and |q|, |k| <= M (a rotated lane is at most
// the pair's |a| + |b|), |q_hat k_hat - q k| <= Mq ek + Mk eq + eq ek per lane; two lanes a pair.
double pair_term(double mq, double mk, double eq, double ek) { return mq * ek + mk * eq + eq * ek; }

// The geometry of a RoPE call drawn within the declared domain.
struct Geometry {
  std::int64_t D = 0, R = 0;
  std::int32_t layout = 0;
};

Geometry draw_geometry(Rng& r, const verifier::Domain& dom, std::int64_t min_rot, bool prefer_128) {
  Geometry g;
  g.D = prefer_128 && dom.rope_head_dims.empty() && r.coin(2) ? 128
                                                               : pick(r, dom.rope_head_dims, std::max<std::int64_t>(2, min_rot), 128, true);
  std::vector<std::int64_t> rot = dom.rope_rotary_dims;
  std::erase_if(rot, [&](std::int64_t v) { return v > g.D; });
  if (dom.rope_full_rotary || r.coin(2) || g.D / 2 < std::max<std::int64_t>(1, min_rot / 2)) {
    g.R = g.D;
  } else if (!rot.empty()) {
    g.R = rot[static_cast<std::size_t>(r.range(0, static_cast<std::int64_t>(rot.size()) - 1))];
  } else {
    g.R = 2 * r.range(std::max<std::int64_t>(1, min_rot / 2), g.D / 2);
  }
  g.layout = dom.rope_layouts.empty()
                 ? static_cast<std::int32_t>(r.range(0, 1))
                 : dom.rope_layouts[static_cast<std::size_t>(r.range(0, static_cast<std::int64_t>(dom.rope_layouts.size()) - 1))];
  return g;
}

const char* layout_name(std::int32_t l) { return l == 0 ? "neox" : "gptj"; }

}  // namespace

// ---- RoPE on query and key together: <q_out(m), k_out(n)> from one call -----------------------
//
// The tolerance carries each lane's element bound (the RoPE class of the storage type, output
// rounding included) through the dot product (pair_term); pass-through lanes are exact copies.

Subject rope_qk_subject(const std::shared_ptr<State>& st, Storage sto) {
  Subject s;
  s.name = "kernel:" + std::string(verifier::symbol(verifier::fn_of(verifier::Family::RopeQk, sto)));
  s.family = "rope";
  s.max_position = verifier::max_position_for(st->domain, "rope", st->opt.max_position) + 1;
  s.instance = [st, sto](std::uint64_t seed) {
    Rng r(seed);
    const verifier::Domain& dom = st->domain;
    pec_rope_qk_args args{};
    args.n_tokens = 2;
    args.n_q_heads = args.n_kv_heads = 1;
    args.head_dim = pick(r, dom.rope_head_dims, 2, 128, true);
    args.rotary_dim = dom.rope_full_rotary || r.coin(2) ? args.head_dim : 2 * r.range(1, args.head_dim / 2);
    args.layout = dom.rope_layouts.empty() ? static_cast<std::int32_t>(r.range(0, 1)) : dom.rope_layouts[0];
    args.theta_base = r.coin(2) ? 10000.0 : 500000.0;
    args.position_scale = 1.0;
    args.attn_factor = 1.0;
    args.inv_freq = nullptr;
    args.q = args.k = args.q_out = args.k_out = pec_strides{args.head_dim, args.head_dim};
    const std::size_t D = static_cast<std::size_t>(args.head_dim);
    auto q1 = std::make_shared<std::vector<float>>(random_heads(r, 2 * D, sto));
    auto k1 = std::make_shared<std::vector<float>>(random_heads(r, 2 * D, sto));
    auto q2 = std::make_shared<std::vector<float>>(random_heads(r, 2 * D, sto));
    auto k2 = std::make_shared<std::vector<float>>(random_heads(r, 2 * D, sto));
    const oracle::Budget* row = &oracle::budget("rope", format_of(sto), st->opt.rope_class);
    Instance in;
    in.config = fmt::format("head_dim={} rotary_dim={} layout={} theta_base={} storage={} (q, k in [-1, 1])",
                            args.head_dim, args.rotary_dim, layout_name(args.layout), args.theta_base,
                            verifier::storage_name(sto));
    auto scorer = [st, args, row, sto, D](std::shared_ptr<std::vector<float>> q, std::shared_ptr<std::vector<float>> k) {
      return [st, args, row, sto, D, q, k](std::int64_t m, std::int64_t n) {
        verifier::Arena& a = st->ex.arena();
        a.reset();
        const std::int64_t pos[2] = {m, n};
        pec_rope_qk_args ar = args;
        ar.positions = a.copy(std::span<const std::int64_t>(pos, 2));
        const double v = call_score(*st, verifier::fn_of(verifier::Family::RopeQk, sto), ar, *q, *k, D, sto);
        const std::int64_t R = args.rotary_dim, half = R / 2;
        double bound = 0;
        for (std::int64_t i = 0; i < half; ++i) {
          const std::size_t ia = static_cast<std::size_t>(lane_a(args.layout, R, i));
          const std::size_t ib = static_cast<std::size_t>(lane_b(args.layout, R, i));
          const double f = frequency(args.theta_base, i, R), L = std::fabs(std::log(f));
          const double mq = std::fabs((*q)[ia]) + std::fabs((*q)[ib]);
          const double mk = std::fabs((*k)[D + ia]) + std::fabs((*k)[D + ib]);
          const double eq = row->bound({mq, static_cast<double>(m) * f, static_cast<double>(i), L});
          const double ek = row->bound({mk, static_cast<double>(n) * f, static_cast<double>(i), L});
          bound += 2.0 * pair_term(mq, mk, eq, ek);
        }
        return Score{v, magnitude_for(bound)};
      };
    };
    in.score = scorer(q1, k1);
    in.score_other_content = scorer(q2, k2);
    return in;
  };
  return s;
}

// ---- M-RoPE: <q_out(token 0), k_out(token 1)> at position triples (ABI-MROPE-3) ---------------

namespace {

// ROPE-MROPE-2 (sectioned) and ROPE-MROPE-3 (interleaved): the axis (0 t, 1 h, 2 w) of pair i.
int mrope_axis(std::int64_t i, std::int32_t mrope_layout, const std::int64_t sec[3]) {
  if (mrope_layout == PEC_MROPE_SECTIONED) return i < sec[0] ? 0 : i < sec[0] + sec[1] ? 1 : 2;
  if (i % 3 == 1 && i < 3 * sec[1]) return 1;
  if (i % 3 == 2 && i < 3 * sec[2]) return 2;
  return 0;
}

// Sections for `half` pairs: Qwen2-VL's [16, 24, 24] (sectioned) and Qwen3-VL's [24, 20, 20]
// (interleaved; [16, 24, 24] breaks ABI-MROPE-1's 3 s_h - 2 < 64) at 64 pairs, scaled down for
// smaller heads: h and w rounded down (at least one pair each from 3 pairs on), t the rest. The
// interleaved bounds hold: 3 floor(20 half / 64) <= 0.94 half.
void mrope_sections(std::int64_t half, std::int32_t mrope_layout, std::int64_t sec[3]) {
  const std::int64_t share = mrope_layout == PEC_MROPE_SECTIONED ? 24 : 20;
  std::int64_t hw = share * half / 64;
  if (half >= 3) hw = std::max<std::int64_t>(hw, 1);
  sec[1] = half >= 2 ? std::max<std::int64_t>(hw, 1) : 0;
  sec[2] = half >= 3 ? hw : 0;
  sec[0] = half - sec[1] - sec[2];
}

}  // namespace

Subject mrope_subject(const std::shared_ptr<State>& st, Storage sto, std::int32_t mrope_layout) {
  Subject s;
  s.name = "kernel:" + std::string(verifier::symbol(verifier::fn_of(verifier::Family::Mrope, sto))) +
           (mrope_layout == PEC_MROPE_SECTIONED ? ":sectioned" : ":interleaved");
  s.family = "rope";
  s.axes = 3;
  s.report_axes = true;
  s.max_position = verifier::max_position_for(st->domain, "rope", st->opt.max_position) + 1;
  s.instance = [st, sto, mrope_layout](std::uint64_t seed) {
    Rng r(seed);
    const Geometry g = draw_geometry(r, st->domain, 6, true);
    pec_mrope_args args{};
    args.n_tokens = 2;
    args.n_q_heads = args.n_kv_heads = 1;
    args.head_dim = g.D;
    args.rotary_dim = g.R;
    args.layout = g.layout;
    args.mrope_layout = mrope_layout;
    mrope_sections(g.R / 2, mrope_layout, args.mrope_section);
    args.theta_base = mrope_layout == PEC_MROPE_SECTIONED ? 1000000.0 : 5000000.0;
    args.position_scale = 1.0;
    args.attn_factor = 1.0;
    args.inv_freq = nullptr;
    args.q = args.k = args.q_out = args.k_out = pec_strides{args.head_dim, args.head_dim};
    const std::size_t D = static_cast<std::size_t>(g.D);
    auto q1 = std::make_shared<std::vector<float>>(random_heads(r, 2 * D, sto));
    auto k1 = std::make_shared<std::vector<float>>(random_heads(r, 2 * D, sto));
    auto q2 = std::make_shared<std::vector<float>>(random_heads(r, 2 * D, sto));
    auto k2 = std::make_shared<std::vector<float>>(random_heads(r, 2 * D, sto));
    const oracle::Budget* row = &oracle::budget("rope", format_of(sto), st->opt.rope_class);
    Instance in;
    in.config = fmt::format(
        "head_dim={} rotary_dim={} layout={} mrope_section=[{},{},{}] {} theta_base={} storage={} (q, k in [-1, 1])",
        args.head_dim, args.rotary_dim, layout_name(args.layout), args.mrope_section[0], args.mrope_section[1],
        args.mrope_section[2], mrope_layout == PEC_MROPE_SECTIONED ? "sectioned" : "interleaved", args.theta_base,
        verifier::storage_name(sto));
    auto scorer = [st, args, row, sto, D](std::shared_ptr<std::vector<float>> q, std::shared_ptr<std::vector<float>> k) {
      return [st, args, row, sto, D, q, k](const Position3& m, const Position3& n) {
        verifier::Arena& a = st->ex.arena();
        a.reset();
        // [3][n_tokens]: the t row, the h row, the w row (ABI-MROPE-1).
        const std::int64_t pos[6] = {m[0], n[0], m[1], n[1], m[2], n[2]};
        pec_mrope_args ar = args;
        ar.positions = a.copy(std::span<const std::int64_t>(pos, 6));
        const double v = call_score(*st, verifier::fn_of(verifier::Family::Mrope, sto), ar, *q, *k, D, sto);
        // Clause: ABI-MROPE-2 — each pair's angle from its own axis's position; the element bound
        // of the RoPE class of the storage type through the dot product as for pec_rope_qk_*.
        const std::int64_t R = args.rotary_dim, half = R / 2;
        double bound = 0;
        for (std::int64_t i = 0; i < half; ++i) {
          const int ax = mrope_axis(i, args.mrope_layout, args.mrope_section);
          const std::size_t ia = static_cast<std::size_t>(lane_a(args.layout, R, i));
          const std::size_t ib = static_cast<std::size_t>(lane_b(args.layout, R, i));
          const double f = frequency(args.theta_base, i, R), L = std::fabs(std::log(f));
          const double mq = std::fabs((*q)[ia]) + std::fabs((*q)[ib]);
          const double mk = std::fabs((*k)[D + ia]) + std::fabs((*k)[D + ib]);
          const double eq = row->bound({mq, static_cast<double>(m[ax]) * f, static_cast<double>(i), L});
          const double ek = row->bound({mk, static_cast<double>(n[ax]) * f, static_cast<double>(i), L});
          bound += 2.0 * pair_term(mq, mk, eq, ek);
        }
        return Score{v, magnitude_for(bound)};
      };
    };
    auto s3 = scorer(q1, k1), o3 = scorer(q2, k2);
    in.score3 = s3;
    // Text tokens: t = h = w (ROPE-MROPE-4).
    in.score = [s3](std::int64_t m, std::int64_t n) { return s3(Position3{m, m, m}, Position3{n, n, n}); };
    in.score_other_content = [o3](std::int64_t m, std::int64_t n) { return o3(Position3{m, m, m}, Position3{n, n, n}); };
    return in;
  };
  return s;
}

// ---- RoPE from a cos/sin cache: <q_out(m), k_out(n)> -----------------------------------------
//
// The cache has kCacheRows rows (a common max_position_embeddings; fewer under a declared
// rope.max_position) and is copied whole into the arena for every call, so a kernel that reads
// another row than its position's (the token index) reads a valid row of the same cache and is
// told by its scores, not by a NaN. Cache dtype = the storage type (the builder's, ABI-CACHE-3).
//
// Tolerance (PREC-CACHE-1 with the cache's own error added): for lane a of a pair (xa, xb) at
// angle theta, with C, S the cache's values,
//   |y_hat_a - (xa cos - xb sin)| <= rot_a + (|xa| + |xb|) e_cache,
// rot_a the rope_cached class bound with M = |xa C| + |xb S| and |y| = |xa C - xb S| (c_out only
// for a 16-bit cache), e_cache a bound on |C - cos theta| and |S - sin theta|: the builder's
// RoPE class with magnitude attn_factor = 1 (ABI-CACHE-3), or for pecheck's cache
// u(cache) + min_subnormal(cache) (one rounding of values of magnitude <= 1) + 2^-52 (libm's
// cos/sin in double) + |theta| 2^-50 (the angle formed in double). The lane bounds go through
// the dot product as pair_term.

namespace {

constexpr std::int64_t kCacheRows = 4096;

std::int32_t dtype_of(Storage s) {
  return s == Storage::F32 ? PEC_DTYPE_F32 : s == Storage::BF16 ? PEC_DTYPE_BF16 : PEC_DTYPE_F16;
}

// The cached-rotation row of the chosen class, or `field` when the scheme has no such class.
oracle::Budget cached_row(const std::string& cls, Storage sto, std::string* used) {
  const std::string_view dt = oracle::format_info(format_of(sto)).name;
  *used = "field";
  for (const auto& b : oracle::budgets())
    if (b.scheme == "rope_cached" && b.dtype == dt && b.variant == cls) *used = cls;
  oracle::Budget row = oracle::budget("rope_cached", format_of(sto), *used);
  // The cache is in the storage type: the per-operation term only for a 16-bit one.
  if (dtype_of(sto) == PEC_DTYPE_F32) row.c_out = 0;
  return row;
}

std::shared_ptr<const std::vector<unsigned char>> cache_for(State& st, Storage sto, std::int64_t rows, std::int64_t R, double base,
                                                              bool own) {
  const auto key = std::make_tuple(static_cast<int>(sto), rows, R, base);
  auto it = st.built_caches.find(key);
  if (it != st.built_caches.end()) return it->second;
  const std::size_t n = static_cast<std::size_t>(rows * R), bytes = verifier::storage_bytes(sto);
  std::vector<unsigned char> out(n * bytes);
  if (own) {
    const Fn fn = verifier::fn_of(verifier::Family::RopeCache, sto);
    verifier::Arena& a = st.ex.arena();
    a.reset();
    pec_rope_cache_args args{rows, R, base, 1.0, 1.0, nullptr};
    const auto* ap = a.put(args);
    void* y = a.allocate(n * bytes);
    std::memset(y, 0xFF, n * bytes);  // a NaN in every storage type: an entry left unwritten shows
    const verifier::CallOutcome o = st.ex.call(fn, ap, nullptr, y);
    if (!o.ok()) call_failed(fn, o);
    std::memcpy(out.data(), y, n * bytes);
  } else {
    std::vector<float> v(n);
    const std::int64_t half = R / 2;
    for (std::int64_t p = 0; p < rows; ++p) {
      for (std::int64_t i = 0; i < half; ++i) {
        const double th = static_cast<double>(p) * frequency(base, i, R);
        v[static_cast<std::size_t>(p * R + i)] = verifier::round_to_storage(std::cos(th), sto);
        v[static_cast<std::size_t>(p * R + half + i)] = verifier::round_to_storage(std::sin(th), sto);
      }
    }
    out = verifier::encode(v, sto);
  }
  return st.built_caches.emplace(key, std::make_shared<const std::vector<unsigned char>>(std::move(out))).first->second;
}

}  // namespace

Subject rope_cached_subject(const std::shared_ptr<State>& st, Storage sto) {
  Subject s;
  const Fn fn = verifier::fn_of(verifier::Family::RopeCached, sto);
  const Fn builder = verifier::fn_of(verifier::Family::RopeCache, sto);
  const bool own = st->exports(builder);
  s.name = "kernel:" + std::string(verifier::symbol(fn));
  s.family = "rope";
  const std::int64_t rows =
      std::min(kCacheRows, verifier::max_position_for(st->domain, "rope", st->opt.max_position) + 1);
  s.max_position = rows;
  s.instance = [st, sto, fn, builder, own, rows](std::uint64_t seed) {
    Rng r(seed);
    const verifier::Domain& dom = st->domain;
    // Few geometries (each has its cache): head_dim 64 or 128 unless declared, full or half rotary.
    Geometry g;
    g.D = dom.rope_head_dims.empty() ? (r.coin(2) ? 128 : 64) : pick(r, dom.rope_head_dims, 2, 128, true);
    g.R = dom.rope_full_rotary || r.coin(2) || (g.D / 2) % 2 ? g.D : g.D / 2;
    g.layout = dom.rope_layouts.empty() ? static_cast<std::int32_t>(r.range(0, 1)) : dom.rope_layouts[0];
    const double base = r.coin(2) ? 10000.0 : 500000.0;
    const auto cache = cache_for(*st, sto, rows, g.R, base, own);
    pec_rope_cached_args args{};
    args.n_tokens = 2;
    args.n_q_heads = args.n_kv_heads = 1;
    args.head_dim = g.D;
    args.rotary_dim = g.R;
    args.layout = g.layout;
    args.cache_dtype = dtype_of(sto);
    args.cache_positions = rows;
    args.q = args.k = args.q_out = args.k_out = pec_strides{g.D, g.D};
    const std::size_t D = static_cast<std::size_t>(g.D);
    auto q1 = std::make_shared<std::vector<float>>(random_heads(r, 2 * D, sto));
    auto k1 = std::make_shared<std::vector<float>>(random_heads(r, 2 * D, sto));
    auto q2 = std::make_shared<std::vector<float>>(random_heads(r, 2 * D, sto));
    auto k2 = std::make_shared<std::vector<float>>(random_heads(r, 2 * D, sto));
    std::string cls;
    const auto rot = std::make_shared<const oracle::Budget>(cached_row(st->opt.rope_class, sto, &cls));
    const oracle::Budget* brow = own ? &oracle::budget("rope", format_of(sto), st->opt.rope_class) : nullptr;
    const double uc = oracle::format_info(format_of(sto)).unit_roundoff;
    const double min_sub = oracle::format_info(format_of(sto)).min_subnormal;
    Instance in;
    in.config = fmt::format(
        "head_dim={} rotary_dim={} layout={} theta_base={} storage={} cache_positions={} cache_dtype={} cache={} "
        "rotation class {} (q, k in [-1, 1])",
        g.D, g.R, layout_name(g.layout), base, verifier::storage_name(sto), rows, verifier::storage_name(sto),
        own ? std::string(verifier::symbol(builder)) + " (the library's builder)"
            : std::string("pecheck's (correctly rounded, attn_factor 1)"),
        cls);
    auto scorer = [st, args, sto, fn, D, base, cache, rot, brow, uc, min_sub](std::shared_ptr<std::vector<float>> q,
                                                                        std::shared_ptr<std::vector<float>> k) {
      return [st, args, sto, fn, D, base, cache, rot, brow, uc, min_sub, q, k](std::int64_t m, std::int64_t n) {
        verifier::Arena& a = st->ex.arena();
        a.reset();
        void* cp = a.allocate(cache->size());
        std::memcpy(cp, cache->data(), cache->size());
        const std::int64_t pos[2] = {m, n};
        pec_rope_cached_args ar = args;
        ar.cos_sin_cache = cp;
        ar.positions = a.copy(std::span<const std::int64_t>(pos, 2));
        const double v = call_score(*st, fn, ar, *q, *k, D, sto);
        const std::int64_t R = args.rotary_dim, half = R / 2;
        // The element bounds of lanes a and b of pair i of head vector x at position p.
        auto lanes = [&](const std::vector<float>& x, std::size_t off, std::int64_t p, std::int64_t i, double* ea,
                         double* eb) {
          const double xa = x[off + static_cast<std::size_t>(lane_a(args.layout, R, i))];
          const double xb = x[off + static_cast<std::size_t>(lane_b(args.layout, R, i))];
          const double C = decode(cache->data(), static_cast<std::size_t>(p * R + i), sto);
          const double S = decode(cache->data(), static_cast<std::size_t>(p * R + half + i), sto);
          const double th = static_cast<double>(p) * frequency(base, i, R);
          const double ec = brow ? brow->bound({1.0, th, static_cast<double>(i), std::fabs(std::log(frequency(base, i, R)))})
                                 : uc + min_sub + 0x1p-52 + std::fabs(th) * 0x1p-50;
          const double mx = std::fabs(xa) + std::fabs(xb);
          *ea = rot->bound({std::fabs(xa * C) + std::fabs(xb * S), 0.0, static_cast<double>(i), 0.0,
                            std::fabs(std::fma(xa, C, -(xb * S)))}) + mx * ec;
          *eb = rot->bound({std::fabs(xb * C) + std::fabs(xa * S), 0.0, static_cast<double>(i), 0.0,
                            std::fabs(std::fma(xb, C, xa * S))}) + mx * ec;
          return mx;
        };
        double bound = 0;
        for (std::int64_t i = 0; i < half; ++i) {
          double qa = 0, qb = 0, ka = 0, kb = 0;
          const double mq = lanes(*q, 0, m, i, &qa, &qb), mk = lanes(*k, D, n, i, &ka, &kb);
          bound += pair_term(mq, mk, qa, ka) + pair_term(mq, mk, qb, kb);
        }
        return Score{v, magnitude_for(bound)};
      };
    };
    in.score = scorer(q1, k1);
    in.score_other_content = scorer(q2, k2);
    return in;
  };
  return s;
}

}  // namespace pecheck::classify::kernel_detail
