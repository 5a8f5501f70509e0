// Shrink candidates: smaller variants of a failing case, simplest first. The shrinker (engine)
// takes the first candidate that still fails the same way and starts over, so the order here
// decides what "minimal" means: fewest tokens and heads, then smallest dimensions, then
// smallest positions and shift, then simplest values.
#include <algorithm>
#include <cmath>

#include "verify/v1/cases.hpp"
#include "verify/gen/shrink_util.hpp"

namespace pecheck::verifier {

namespace {

using namespace shrinking;

template <class T>
std::vector<T> pick(const std::vector<T>& v, const Idx& idx) {
  std::vector<T> out;
  for (auto i : idx) out.push_back(v[static_cast<std::size_t>(i)]);
  return out;
}

// Position lists made smaller: a common shift down to 0, then each entry on its own.
template <class C>
void shrink_positions(const C& c, std::vector<std::int64_t> C::*field, std::vector<C>& out) {
  const auto& p = c.*field;
  if (p.empty()) return;
  // Big jumps first (every position at 0, every position halved), then one entry at a time.
  if (std::any_of(p.begin(), p.end(), [](std::int64_t v) { return v > 0; })) {
    C zero = c, half = c;
    for (auto& e : zero.*field) e = 0;
    for (auto& e : half.*field) e = e > 0 ? e / 2 : e;
    out.push_back(std::move(zero));
    out.push_back(std::move(half));
  }
  const std::int64_t lo = *std::min_element(p.begin(), p.end());
  if (lo > 0) {
    for (auto s : smaller(lo)) {
      C d = c;
      for (auto& e : d.*field) e -= lo - s;
      out.push_back(d);
    }
  }
  for (std::size_t t = 0; t < p.size(); ++t) {
    for (auto v : smaller(p[t])) {
      C d = c;
      (d.*field)[t] = v;
      out.push_back(d);
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

bool float_is_not(float x, float s) { return x != s || std::signbit(x) != std::signbit(s); }

// Simplicity rank of a value: 0, 1, -1, 1/2, then everything else. Candidates must be strictly
// simpler than the current value, or shrinking would cycle between equally simple values.
int rank(float x) {
  const float simple[] = {0.0f, 1.0f, -1.0f, 0.5f};
  for (int k = 0; k < 4; ++k)
    if (!float_is_not(x, simple[k])) return k;
  return 4;
}

// Simpler float values: 0, 1, -1, 1/2.
void shrink_values(const std::vector<float>& v, std::size_t i, std::vector<std::vector<float>>& out) {
  const float x = v[i];
  for (float s : {0.0f, 1.0f, -1.0f, 0.5f}) {
    if (rank(s) < rank(x)) {
      auto w = v;
      w[i] = s;
      out.push_back(w);
    }
  }
}

template <class C>
void shrink_floats(const C& c, std::vector<float> C::*field, std::vector<C>& out, std::size_t limit = 64) {
  const auto& v = c.*field;
  if (v.empty()) return;
  for (float fill : {0.0f, 1.0f}) {  // every value at once first, when that is simpler for all
    if (std::all_of(v.begin(), v.end(), [&](float x) { return rank(fill) <= rank(x); }) &&
        std::any_of(v.begin(), v.end(), [&](float x) { return float_is_not(x, fill); })) {
      C d = c;
      std::fill((d.*field).begin(), (d.*field).end(), fill);
      out.push_back(std::move(d));
    }
  }
  if (v.size() > limit) return;
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::vector<std::vector<float>> ws;
    shrink_values(c.*field, i, ws);
    for (auto& w : ws) {
      C d = c;
      d.*field = std::move(w);
      out.push_back(std::move(d));
    }
  }
}

}  // namespace

std::vector<RopeCase> shrink_candidates(const RopeCase& c) {
  std::vector<RopeCase> out;
  const auto keep = [&](const Idx& toks, const Idx& heads, std::int64_t hd, std::int64_t rd) {
    RopeCase d = c;
    const Idx lanes = iota(hd);
    d.x = select3(c.x, c.n_heads, c.head_dim, toks, heads, lanes);
    d.k = select3(c.k, c.n_heads, c.head_dim, toks, heads, lanes);
    d.positions = pick(c.positions, toks);
    d.n_tokens = static_cast<std::int64_t>(toks.size());
    d.n_heads = static_cast<std::int64_t>(heads.size());
    d.head_dim = hd;
    d.rotary_dim = rd;
    if (d.has_inv_freq) d.inv_freq.resize(static_cast<std::size_t>(rd / 2));
    out.push_back(std::move(d));
  };
  const Idx all_t = iota(c.n_tokens), all_h = iota(c.n_heads);
  if (c.n_tokens >= 0 && c.n_heads >= 1 && c.head_dim >= 2) {
    for (const auto& t : subsets(c.n_tokens, true)) keep(t, all_h, c.head_dim, c.rotary_dim);
    for (const auto& h : subsets(c.n_heads, false)) keep(all_t, h, c.head_dim, c.rotary_dim);
    if (c.rotary_dim >= 2 && c.rotary_dim <= c.head_dim) {
      if (c.head_dim > c.rotary_dim) keep(all_t, all_h, c.rotary_dim, c.rotary_dim);
      for (std::int64_t rd : {std::int64_t{2}, (c.rotary_dim / 2) & ~std::int64_t{1}, c.rotary_dim - 2}) {
        if (rd >= 2 && rd < c.rotary_dim) {
          keep(all_t, all_h, rd, rd);
          if (c.head_dim > c.rotary_dim) keep(all_t, all_h, rd + (c.head_dim - c.rotary_dim), rd);
        }
      }
    }
  }
  shrink_positions(c, &RopeCase::positions, out);
  shrink_shift(c, out);
  if (c.has_inv_freq) {
    RopeCase d = c;
    d.has_inv_freq = false;
    d.inv_freq.clear();
    d.note.clear();
    out.push_back(d);
  }
  if (c.position_scale != 1.0) {
    RopeCase d = c;
    d.position_scale = 1.0;
    out.push_back(d);
  }
  if (c.theta_base != 10000.0) {
    RopeCase d = c;
    d.theta_base = 10000.0;
    out.push_back(d);
  }
  shrink_floats(c, &RopeCase::x, out);
  shrink_floats(c, &RopeCase::k, out);
  return out;
}

std::vector<RopeCase> shrink_candidates_large(const RopeCase& c) {
  if (c.n_tokens * c.n_heads * c.head_dim <= 16384) return shrink_candidates(c);
  std::vector<RopeCase> out;
  const auto keep = [&](const Idx& toks, const Idx& heads) {
    RopeCase d = c;
    d.x = select3(c.x, c.n_heads, c.head_dim, toks, heads, iota(c.head_dim));
    d.k = select3(c.k, c.n_heads, c.head_dim, toks, heads, iota(c.head_dim));
    d.positions = pick(c.positions, toks);
    d.n_tokens = static_cast<std::int64_t>(toks.size());
    d.n_heads = static_cast<std::int64_t>(heads.size());
    out.push_back(std::move(d));
  };
  for (const auto& t : halves(c.n_tokens)) keep(t, iota(c.n_heads));
  for (const auto& h : halves(c.n_heads)) keep(iota(c.n_tokens), h);
  return out;
}

std::vector<AlibiCase> shrink_candidates(const AlibiCase& c) {
  std::vector<AlibiCase> out;
  if (c.n_heads >= 1 && c.n_q >= 0 && c.n_k >= 0) {
    const auto keep = [&](const Idx& h, const Idx& q, const Idx& k, std::int64_t n_heads) {
      AlibiCase d = c;
      d.scores = select3(c.scores, c.n_q, c.n_k, h, q, k);
      d.q_pos = pick(c.q_pos, q);
      d.k_pos = pick(c.k_pos, k);
      d.n_heads = n_heads;
      d.n_q = static_cast<std::int64_t>(q.size());
      d.n_k = static_cast<std::int64_t>(k.size());
      out.push_back(std::move(d));
    };
    const Idx H = iota(c.n_heads), Q = iota(c.n_q), K = iota(c.n_k);
    for (const auto& q : subsets(c.n_q, true)) keep(H, q, K, c.n_heads);
    for (const auto& k : subsets(c.n_k, true)) keep(H, Q, k, c.n_heads);
    // Fewer heads changes the slopes: keep the first n heads of a smaller model.
    for (auto n : smaller(c.n_heads, 1)) keep(iota(n), Q, K, n);
  }
  shrink_positions(c, &AlibiCase::q_pos, out);
  shrink_positions(c, &AlibiCase::k_pos, out);
  shrink_shift(c, out);
  if (c.mode == 1) {
    AlibiCase d = c;
    d.mode = 0;
    out.push_back(d);
  }
  shrink_floats(c, &AlibiCase::scores, out);
  return out;
}

std::vector<T5Case> shrink_candidates(const T5Case& c) {
  std::vector<T5Case> out;
  if (c.n_heads >= 1 && c.n_q >= 0 && c.n_k >= 0) {
    const Idx H = iota(c.n_heads), Q = iota(c.n_q), K = iota(c.n_k);
    const auto keep = [&](const Idx& h, const Idx& q, const Idx& k) {
      T5Case d = c;
      d.q_pos = pick(c.q_pos, q);
      d.k_pos = pick(c.k_pos, k);
      d.n_heads = static_cast<std::int64_t>(h.size());
      d.n_q = static_cast<std::int64_t>(q.size());
      d.n_k = static_cast<std::int64_t>(k.size());
      if (c.num_buckets > 0 && static_cast<std::int64_t>(c.table.size()) >= c.num_buckets * c.n_heads) {
        d.table = select3(c.table, 1, c.n_heads, iota(c.num_buckets), {0}, h);
      }
      out.push_back(std::move(d));
    };
    for (const auto& q : subsets(c.n_q, true)) keep(H, q, K);
    for (const auto& k : subsets(c.n_k, true)) keep(H, Q, k);
    for (const auto& h : subsets(c.n_heads, false)) keep(h, Q, K);
  }
  shrink_positions(c, &T5Case::q_pos, out);
  shrink_positions(c, &T5Case::k_pos, out);
  shrink_shift(c, out);
  return out;
}

std::vector<SinusoidalCase> shrink_candidates(const SinusoidalCase& c) {
  std::vector<SinusoidalCase> out;
  for (const auto& t : subsets(c.n_tokens, true)) {
    SinusoidalCase d = c;
    d.positions = pick(c.positions, t);
    d.n_tokens = static_cast<std::int64_t>(t.size());
    out.push_back(d);
  }
  if (c.d_model >= 2 && c.d_model % 2 == 0) {
    for (auto h : smaller(c.d_model / 2, 1)) {
      SinusoidalCase d = c;
      d.d_model = 2 * h;
      out.push_back(d);
    }
  }
  shrink_positions(c, &SinusoidalCase::positions, out);
  if (c.base != 10000.0) {
    SinusoidalCase d = c;
    d.base = 10000.0;
    out.push_back(d);
  }
  return out;
}

std::vector<LearnedCase> shrink_candidates(const LearnedCase& c) {
  std::vector<LearnedCase> out;
  for (const auto& t : subsets(c.n_tokens, true)) {
    LearnedCase d = c;
    d.positions = pick(c.positions, t);
    d.n_tokens = static_cast<std::int64_t>(t.size());
    out.push_back(d);
  }
  if (c.d_model >= 1 && c.max_positions >= 1 &&
      static_cast<std::int64_t>(c.table.size()) == c.max_positions * c.d_model) {
    for (auto dm : smaller(c.d_model, 1)) {
      LearnedCase d = c;
      d.d_model = dm;
      d.table = select3(c.table, 1, c.d_model, iota(c.max_positions), {0}, iota(dm));
      out.push_back(d);
    }
    std::int64_t top = -1;
    for (auto p : c.positions) top = std::max(top, p);
    for (auto mp : smaller(c.max_positions, std::max<std::int64_t>(1, top + 1))) {
      LearnedCase d = c;
      d.max_positions = mp;
      d.table.resize(static_cast<std::size_t>(mp * c.d_model));
      out.push_back(d);
    }
  }
  shrink_positions(c, &LearnedCase::positions, out);
  return out;
}

std::vector<AlibiCase> shrink_candidates_large(const AlibiCase& c) {
  if (output_size(c) <= 16384) return shrink_candidates(c);
  std::vector<AlibiCase> out;
  const auto keep = [&](const Idx& q, const Idx& k) {
    AlibiCase d = c;
    d.scores = select3(c.scores, c.n_q, c.n_k, iota(c.n_heads), q, k);
    d.q_pos = pick(c.q_pos, q);
    d.k_pos = pick(c.k_pos, k);
    d.n_q = static_cast<std::int64_t>(q.size());
    d.n_k = static_cast<std::int64_t>(k.size());
    out.push_back(std::move(d));
  };
  for (const auto& q : halves(c.n_q)) keep(q, iota(c.n_k));
  for (const auto& k : halves(c.n_k)) keep(iota(c.n_q), k);
  return out;
}

std::vector<T5Case> shrink_candidates_large(const T5Case& c) {
  if (output_size(c) <= 16384) return shrink_candidates(c);
  std::vector<T5Case> out;
  const auto keep = [&](const Idx& h, const Idx& q, const Idx& k) {
    T5Case d = c;
    d.q_pos = pick(c.q_pos, q);
    d.k_pos = pick(c.k_pos, k);
    d.n_heads = static_cast<std::int64_t>(h.size());
    d.n_q = static_cast<std::int64_t>(q.size());
    d.n_k = static_cast<std::int64_t>(k.size());
    if (c.num_buckets > 0 && static_cast<std::int64_t>(c.table.size()) >= c.num_buckets * c.n_heads) {
      d.table = select3(c.table, 1, c.n_heads, iota(c.num_buckets), {0}, h);
    }
    out.push_back(std::move(d));
  };
  const Idx H = iota(c.n_heads), Q = iota(c.n_q), K = iota(c.n_k);
  for (const auto& q : halves(c.n_q)) keep(H, q, K);
  for (const auto& k : halves(c.n_k)) keep(H, Q, k);
  for (const auto& h : halves(c.n_heads)) keep(h, Q, K);
  return out;
}

std::vector<LearnedCase> shrink_candidates_large(const LearnedCase& c) {
  if (output_size(c) <= 16384) return shrink_candidates(c);
  std::vector<LearnedCase> out;
  for (const auto& t : halves(c.n_tokens)) {
    LearnedCase d = c;
    d.positions = pick(c.positions, t);
    d.n_tokens = static_cast<std::int64_t>(t.size());
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace pecheck::verifier
