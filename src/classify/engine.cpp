// The property runs and the shrinking of CLASSIFY-1..3.
#include "classify/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "classify/engine_impl.hpp"
#include "classify/generators.hpp"
#include "reference/tolerance.hpp"

namespace pecheck::classify {

using namespace detail;

PropertyRun run_shift_property(const Subject& s, const EngineOptions& o) {
  PropertyRun run{"shift", 0, std::nullopt};
  for (std::int64_t i = 0; i < o.shift_cases; ++i) {
    Rng r(case_seed(o.seed, 1, i));
    const std::uint64_t iseed = r.next();
    std::int64_t m, n;
    draw_pair(r, s.max_position, m, n);
    const std::int64_t c = gen_shift(r, m, n, s.max_position);
    ++run.cases;
    if (c == 0) continue;
    const Instance inst = s.instance(iseed);
    auto fails = [&](const std::vector<std::int64_t>& v) {
      return !scores_agree(inst.score(v[0], v[1]), inst.score(v[0] + v[2], v[1] + v[2]));
    };
    std::vector<std::int64_t> v{m, n, c};
    if (!fails(v)) continue;
    auto valid = [&](const std::vector<std::int64_t>& x) {
      return in_range(x[0], s.max_position) && in_range(x[1], s.max_position) &&
             in_range(x[0] + x[2], s.max_position) && in_range(x[1] + x[2], s.max_position);
    };
    Witness w;
    w.property = run.property;
    w.instance_seed = iseed;
    w.config = inst.config;
    w.shrink_steps = shrink(v, {false, false, true}, {true, true, false}, valid, fails);
    if (v[2] < 0) {  // report the lower pair first, so the shift is positive
      v[0] += v[2];
      v[1] += v[2];
      v[2] = -v[2];
    }
    w.m1 = v[0];
    w.n1 = v[1];
    w.m2 = v[0] + v[2];
    w.n2 = v[1] + v[2];
    const Score a = inst.score(w.m1, w.n1), b = inst.score(w.m2, w.n2);
    scores_agree(a, b, &w.tolerance);
    w.s1 = a.value;
    w.s2 = b.value;
    run.witness = w;
    return run;
  }
  return run;
}

PropertyRun run_swap_property(const Subject& s, const EngineOptions& o) {
  PropertyRun run{"swap", 0, std::nullopt};
  if (s.max_position < 2) return run;
  for (std::int64_t i = 0; i < o.swap_cases; ++i) {
    Rng r(case_seed(o.seed, 2, i));
    const std::uint64_t iseed = r.next();
    std::int64_t m, n;
    draw_pair(r, s.max_position, m, n);
    if (m == n) n = m > 0 ? m - 1 : m + 1;
    ++run.cases;
    const Instance inst = s.instance(iseed);
    auto fails = [&](const std::vector<std::int64_t>& v) {
      return !scores_agree(inst.score(v[0], v[1]), inst.score(v[1], v[0]));
    };
    std::vector<std::int64_t> v{m, n};
    if (!fails(v)) continue;
    auto valid = [&](const std::vector<std::int64_t>& x) {
      return in_range(x[0], s.max_position) && in_range(x[1], s.max_position) && x[0] != x[1];
    };
    Witness w;
    w.property = run.property;
    w.instance_seed = iseed;
    w.config = inst.config;
    w.shrink_steps = shrink(v, {false, false}, {true, true}, valid, fails);
    w.m1 = v[0];
    w.n1 = v[1];
    w.m2 = v[1];
    w.n2 = v[0];
    const Score a = inst.score(w.m1, w.n1), b = inst.score(w.m2, w.n2);
    scores_agree(a, b, &w.tolerance);
    w.s1 = a.value;
    w.s2 = b.value;
    run.witness = w;
    return run;
  }
  return run;
}

PropertyRun run_softmax_row_property(const Subject& s, const EngineOptions& o) {
  PropertyRun run{"softmax-row", 0, std::nullopt};
  const int K = std::max(2, o.softmax_keys);
  // v = [m, c, n_1..n_K]; keys lie at or before the query so no key is masked.
  auto valid = [&](const std::vector<std::int64_t>& v) {
    if (v[1] == 0 || !in_range(v[0], s.max_position) || !in_range(v[0] + v[1], s.max_position))
      return false;
    for (int j = 0; j < K; ++j) {
      const std::int64_t n = v[2 + j];
      if (n < 0 || n > v[0] || !in_range(n + v[1], s.max_position)) return false;
    }
    return true;
  };
  // Largest |p - p'| over the row minus its tolerance; > 0 means the row changed.
  auto excess = [&](const Instance& inst, const std::vector<std::int64_t>& v, std::int64_t* worst,
                    double* p1, double* p2, double* tol) {
    std::vector<Score> a(K), b(K);
    double t = 0;
    for (int j = 0; j < K; ++j) {
      // Keys of two contents (odd j: the instance's other content), so a row whose logits all
      // carry one content cannot pass by being uniform (NoPE with temperature tuning).
      const Scorer& sc = j % 2 == 0 ? inst.score : inst.score_other_content;
      a[j] = sc(v[0], v[2 + j]);
      b[j] = sc(v[0] + v[1], v[2 + j] + v[1]);
      t = std::max(t, reference::shift_tolerance<double>(a[j].magnitude + b[j].magnitude));
    }
    auto softmax = [&](std::vector<Score>& z) {
      double mx = -std::numeric_limits<double>::infinity();
      for (auto& e : z) mx = std::max(mx, e.value);
      double sum = 0;
      for (auto& e : z) sum += (e.value = std::exp(e.value - mx));
      for (auto& e : z) e.value /= sum;
    };
    softmax(a);
    softmax(b);
    const double pt = reference::softmax_tolerance<double>(t);
    double ex = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < K; ++j) {
      const double d = std::fabs(a[j].value - b[j].value) - pt;
      if (std::isnan(d) || d > ex) {
        ex = std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
        if (worst) *worst = j;
        if (p1) *p1 = a[j].value;
        if (p2) *p2 = b[j].value;
      }
    }
    if (tol) *tol = pt;
    return ex;
  };
  for (std::int64_t i = 0; i < o.softmax_cases; ++i) {
    Rng r(case_seed(o.seed, 3, i));
    const std::uint64_t iseed = r.next();
    std::vector<std::int64_t> v(2 + K);
    v[0] = gen_position(r, s.max_position);
    for (int j = 0; j < K; ++j) {
      v[2 + j] = r.coin(2) ? std::max<std::int64_t>(0, v[0] - r.range(0, 64)) : r.range(0, v[0]);
    }
    v[2] = v[0];  // the query attends to itself
    std::int64_t lo = v[0];
    for (int j = 0; j < K; ++j) lo = std::min(lo, v[2 + j]);
    v[1] = gen_shift(r, lo, v[0], s.max_position);
    ++run.cases;
    if (!valid(v)) continue;
    const Instance inst = s.instance(iseed);
    auto fails = [&](const std::vector<std::int64_t>& x) {
      return excess(inst, x, nullptr, nullptr, nullptr, nullptr) > 0;
    };
    if (!fails(v)) continue;
    std::vector<bool> nonzero(2 + K, false), is_pos(2 + K, true);
    nonzero[1] = true;
    is_pos[1] = false;
    Witness w;
    w.property = run.property;
    w.instance_seed = iseed;
    w.config = inst.config;
    w.shrink_steps = shrink(v, nonzero, is_pos, valid, fails);
    std::int64_t j = 0;
    excess(inst, v, &j, &w.s1, &w.s2, &w.tolerance);
    w.m1 = v[0];
    w.n1 = v[2 + j];
    w.m2 = v[0] + v[1];
    w.n2 = v[2 + j] + v[1];
    run.witness = w;
    return run;
  }
  return run;
}

// Two pairs of one instance as a witness (no shrinking needed to read it: the pairs are drawn
// small-first by gen_position).
Witness pair_witness(const std::string& property, std::uint64_t iseed, const Instance& inst,
                     std::int64_t m1, std::int64_t n1, std::int64_t m2, std::int64_t n2, double s1,
                     double s2, double tol) {
  Witness w;
  w.property = property;
  w.instance_seed = iseed;
  w.config = inst.config;
  w.m1 = m1;
  w.n1 = n1;
  w.m2 = m2;
  w.n2 = n2;
  w.s1 = s1;
  w.s2 = s2;
  w.tolerance = tol;
  return w;
}

PropertyRun run_additive_bias_property(const Subject& s, const EngineOptions& o) {
  PropertyRun run{"additive-bias", 0, std::nullopt};
  for (std::int64_t i = 0; i < o.applied_cases; ++i) {
    Rng r(case_seed(o.seed, 4, i));
    const std::uint64_t iseed = r.next();
    // keys at or before their queries: no masked entries
    const std::int64_t m1 = gen_position(r, s.max_position), m2 = gen_position(r, s.max_position);
    const std::int64_t n1 = r.range(0, m1), n2 = r.range(0, m2);
    ++run.cases;
    const Instance inst = s.instance(iseed);
    const Score a1 = inst.score(m1, n1), b1 = inst.score_other_content(m1, n1);
    const Score a2 = inst.score(m2, n2), b2 = inst.score_other_content(m2, n2);
    const double tol = reference::shift_tolerance<double>(a1.magnitude + b1.magnitude +
                                                          a2.magnitude + b2.magnitude);
    const double d1 = a1.value - b1.value, d2 = a2.value - b2.value;
    if (std::isfinite(d1) && std::isfinite(d2) && std::fabs(d1 - d2) <= tol) continue;
    run.witness = pair_witness(run.property, iseed, inst, m1, n1, m2, n2, d1, d2, tol);
    return run;
  }
  return run;
}

PropertyRun run_logit_scale_property(const Subject& s, const EngineOptions& o) {
  PropertyRun run{"logit-scale", 0, std::nullopt};
  for (std::int64_t i = 0; i < o.applied_cases; ++i) {
    Rng r(case_seed(o.seed, 12, i));
    const std::uint64_t iseed = r.next();
    const std::int64_t m1 = gen_position(r, s.max_position), m2 = gen_position(r, s.max_position);
    const std::int64_t n1 = r.range(0, m1), n2 = r.range(0, m2);
    ++run.cases;
    const Instance inst = s.instance(iseed);
    const Score a1 = inst.score(m1, n1), b1 = inst.score_other_content(m1, n1);
    const Score a2 = inst.score(m2, n2), b2 = inst.score_other_content(m2, n2);
    // s_A(p1) s_B(p2) = s_A(p2) s_B(p1): the contents' ratio does not depend on the positions.
    const double x = a1.value * b2.value, y = a2.value * b1.value;
    const double tol = reference::shift_tolerance<double>(
        a1.magnitude * std::fabs(b2.value) + b2.magnitude * std::fabs(a1.value) +
        a2.magnitude * std::fabs(b1.value) + b1.magnitude * std::fabs(a2.value));
    if (std::isfinite(x) && std::isfinite(y) && std::fabs(x - y) <= tol) continue;
    run.witness = pair_witness(run.property, iseed, inst, m1, n1, m2, n2, x, y, tol);
    return run;
  }
  return run;
}

PropertyRun run_diagonal_property(const Subject& s, const EngineOptions& o) {
  PropertyRun run{"diagonal", 0, std::nullopt};
  for (std::int64_t i = 0; i < o.applied_cases; ++i) {
    Rng r(case_seed(o.seed, 5, i));
    const std::uint64_t iseed = r.next();
    const std::int64_t m1 = gen_position(r, s.max_position), m2 = gen_position(r, s.max_position);
    ++run.cases;
    const Instance inst = s.instance(iseed);
    Score a = inst.score(m1, m1), b = inst.score(m2, m2);
    double tol = 0;
    if (scores_agree(a, b, &tol)) continue;
    run.witness = pair_witness(run.property, iseed, inst, m1, m1, m2, m2, a.value, b.value, tol);
    return run;
  }
  return run;
}

namespace {

// Keys at or before the query (no causal mask hides them): n in [0, m], near m half the time.
std::int64_t draw_key_at_or_before(Rng& r, std::int64_t m) {
  if (r.coin(2)) return std::max<std::int64_t>(0, m - r.range(0, 600));
  return r.range(0, m);
}

// CLASSIFY-7's mask probe: every sampled key after its query is masked (-inf).
bool causally_masked(const Subject& s, const EngineOptions& o) {
  if (s.max_position < 2) return false;
  for (std::int64_t i = 0; i < 64; ++i) {
    Rng r(case_seed(o.seed, 11, i));
    const Instance inst = s.instance(r.next());
    const std::int64_t m = gen_position(r, s.max_position - 1);
    const std::int64_t n = r.range(m + 1, s.max_position - 1);
    const double v = inst.score(m, n).value;
    if (!(std::isinf(v) && v < 0)) return false;
  }
  return true;
}

// CLASSIFY-9: which axes of a 3-axis subject enter, by one axis-free run each; the offset
// vector when all do, else the offsets of those that do ("Δt only (the h and w positions do not
// enter)").
std::string axes_entering(const Subject& s, const EngineOptions& o, Classification& c) {
  static constexpr const char* kAxis[3] = {"t", "h", "w"};
  std::vector<std::string> in, out;
  for (int a = 0; a < 3; ++a) {
    PropertyRun run = run_axis_free_property(s, o, a);
    c.cases += run.cases;
    (run.witness ? in : out).push_back(kAxis[a]);
    c.evidence.push_back(std::move(run));
  }
  if (out.empty()) return "the offset vector (Δt, Δh, Δw)";
  if (in.empty()) return "no axis's offset (every axis-free run held)";
  std::string offs, gone;
  for (std::size_t i = 0; i < in.size(); ++i) offs += (i ? ", Δ" : "Δ") + in[i];
  for (std::size_t i = 0; i < out.size(); ++i) gone += (i ? (i + 1 == out.size() ? " and " : ", ") : "") + out[i];
  if (in.size() > 1) offs = "(" + offs + ")";
  return offs + " only (the " + gone + (out.size() > 1 ? " positions do" : " position does") + " not enter)";
}

}  // namespace

PropertyRun run_position_free_property(const Subject& s, const EngineOptions& o) {
  PropertyRun run{"position-free", 0, std::nullopt};
  for (std::int64_t i = 0; i < o.applied_cases; ++i) {
    Rng r(case_seed(o.seed, 6, i));
    const std::uint64_t iseed = r.next();
    const std::int64_t m1 = gen_position(r, s.max_position), m2 = gen_position(r, s.max_position);
    const std::int64_t n1 = draw_key_at_or_before(r, m1), n2 = draw_key_at_or_before(r, m2);
    ++run.cases;
    const Instance inst = s.instance(iseed);
    const Score a = inst.score(m1, n1), b = inst.score(m2, n2);
    double tol = 0;
    if (scores_agree(a, b, &tol)) continue;
    run.witness = pair_witness(run.property, iseed, inst, m1, n1, m2, n2, a.value, b.value, tol);
    return run;
  }
  return run;
}

PropertyRun run_regime_shift_property(const Subject& s, const EngineOptions& o) {
  PropertyRun run{"regime-shift", 0, std::nullopt};
  for (std::int64_t i = 0; i < o.shift_cases; ++i) {
    Rng r(case_seed(o.seed, 8, i));
    const std::uint64_t iseed = r.next();
    std::int64_t m, n;
    draw_pair(r, s.max_position, m, n);
    std::int64_t c = gen_shift(r, m, n, s.max_position);
    ++run.cases;
    if (c == 0) continue;
    const Instance inst = s.instance(iseed);
    if (!inst.regime) throw std::logic_error(s.name + ": regime_function_of set but no regime");
    auto keeps = [&](std::int64_t a, std::int64_t b, std::int64_t k) {
      return inst.regime(a, b) == inst.regime(a + k, b + k);
    };
    if (!keeps(m, n, c)) {  // the largest simpler shift that keeps the regime, if any
      std::int64_t kept = 0;
      for (std::int64_t k : shrink_toward(c, 0))
        if (k != 0 && keeps(m, n, k)) kept = k;
      if (kept == 0) continue;
      c = kept;
    }
    auto valid = [&](const std::vector<std::int64_t>& x) {
      return x[2] != 0 && in_range(x[0], s.max_position) && in_range(x[1], s.max_position) &&
             in_range(x[0] + x[2], s.max_position) && in_range(x[1] + x[2], s.max_position) &&
             keeps(x[0], x[1], x[2]);
    };
    auto fails = [&](const std::vector<std::int64_t>& x) {
      return !scores_agree(inst.score(x[0], x[1]), inst.score(x[0] + x[2], x[1] + x[2]));
    };
    std::vector<std::int64_t> v{m, n, c};
    if (!fails(v)) continue;
    Witness w;
    w.property = run.property;
    w.instance_seed = iseed;
    w.config = inst.config;
    w.shrink_steps = shrink(v, {false, false, true}, {true, true, false}, valid, fails);
    w.m1 = v[0];
    w.n1 = v[1];
    w.m2 = v[0] + v[2];
    w.n2 = v[1] + v[2];
    const Score a = inst.score(w.m1, w.n1), b = inst.score(w.m2, w.n2);
    scores_agree(a, b, &w.tolerance);
    w.s1 = a.value;
    w.s2 = b.value;
    run.witness = w;
    return run;
  }
  return run;
}

namespace {
// One position fixed, the other drawn twice (keys never after their query).
PropertyRun one_position_free(const Subject& s, const EngineOptions& o, bool key_free) {
  PropertyRun run{key_free ? "key-free" : "query-free", 0, std::nullopt};
  for (std::int64_t i = 0; i < o.applied_cases; ++i) {
    Rng r(case_seed(o.seed, key_free ? 9 : 10, i));
    const std::uint64_t iseed = r.next();
    std::int64_t m1, n1, m2, n2;
    if (key_free) {
      m1 = m2 = gen_position(r, s.max_position);
      n1 = draw_key_at_or_before(r, m1);
      n2 = draw_key_at_or_before(r, m1);
    } else {
      n1 = n2 = gen_position(r, s.max_position);
      m1 = r.coin(2) ? std::min(s.max_position - 1, n1 + r.range(0, 600))
                     : r.range(n1, s.max_position - 1);
      m2 = r.range(n1, s.max_position - 1);
    }
    ++run.cases;
    const Instance inst = s.instance(iseed);
    const Score a = inst.score(m1, n1), b = inst.score(m2, n2);
    double tol = 0;
    if (scores_agree(a, b, &tol)) continue;
    run.witness = pair_witness(run.property, iseed, inst, m1, n1, m2, n2, a.value, b.value, tol);
    return run;
  }
  return run;
}
}  // namespace

PropertyRun run_key_free_property(const Subject& s, const EngineOptions& o) {
  return one_position_free(s, o, true);
}
PropertyRun run_query_free_property(const Subject& s, const EngineOptions& o) {
  return one_position_free(s, o, false);
}

Classification classify(const Subject& s, const EngineOptions& o) {
  Classification c;
  c.name = s.name;
  c.family = s.family;
  // CLASSIFY-7: no position at all (NoPE): neither axis applies.
  PropertyRun free = run_position_free_property(s, o);
  c.cases += free.cases;
  if (!free.witness) {
    c.applied_at = "none";
    c.depends_on = "none";
    c.function_of = causally_masked(s, o)
                        ? "neither position (the causal mask, -inf for n > m, adds order only)"
                        : "neither position";
    c.evidence.push_back(std::move(free));
    PropertyRun sm = run_softmax_row_property(s, o);
    c.cases += sm.cases;
    c.softmax_row_invariant = !sm.witness.has_value();
    c.evidence.push_back(std::move(sm));
    return c;
  }
  c.evidence.push_back(std::move(free));
  // CLASSIFY-4: where the position enters, from runs.
  PropertyRun additive = run_additive_bias_property(s, o);
  c.cases += additive.cases;
  std::optional<PropertyRun> diag, scale;
  if (!additive.witness) {
    c.applied_at = "logits";
  } else {
    diag = run_diagonal_property(s, o);
    c.cases += diag->cases;
    c.applied_at = diag->witness ? "input" : "qk-rotation";
    if (diag->witness) {  // CLASSIFY-8: a position-dependent factor on the logit?
      scale = run_logit_scale_property(s, o);
      c.cases += scale->cases;
      if (!scale->witness) c.applied_at = "logit-scale";
    }
  }
  c.evidence.push_back(std::move(additive));
  if (diag) c.evidence.push_back(std::move(*diag));
  if (scale) c.evidence.push_back(std::move(*scale));
  // CLASSIFY-1 / CLASSIFY-5: the shift (a vector of per-axis shifts for 3-axis positions).
  PropertyRun shift = s.axes == 3 ? run_vector_shift_property(s, o) : run_shift_property(s, o);
  c.cases += shift.cases;
  c.witness = shift.witness;
  if (shift.witness) {
    c.depends_on = "positions";
    c.evidence.push_back(shift);
    // CLASSIFY-6: offset-only within a regime?
    if (!s.regime_function_of.empty()) {
      PropertyRun rs = run_regime_shift_property(s, o);
      c.cases += rs.cases;
      if (!rs.witness) c.function_of = s.regime_function_of;
      c.evidence.push_back(std::move(rs));
    }
    // CLASSIFY-7: one position only?
    if (c.function_of.empty()) {
      PropertyRun kf = run_key_free_property(s, o);
      c.cases += kf.cases;
      const bool key_free = !kf.witness;
      c.evidence.push_back(std::move(kf));
      bool query_free = false;
      if (!key_free) {
        PropertyRun qf = run_query_free_property(s, o);
        c.cases += qf.cases;
        query_free = !qf.witness;
        c.evidence.push_back(std::move(qf));
      }
      c.function_of = key_free     ? "m only (the query's absolute position)"
                      : query_free ? "n only (the key's absolute position)"
                                   : "m and n";
    }
  } else {
    PropertyRun swap = run_swap_property(s, o);
    c.cases += swap.cases;
    c.depends_on = swap.witness ? "offset" : "abs-offset";
    c.function_of =
        s.axes == 3 ? "the offset vector (Δt, Δh, Δw)" : (swap.witness ? "n - m" : "|n - m|");
    c.evidence.push_back(shift);
    c.evidence.push_back(std::move(swap));
    if (s.axes == 3 && s.report_axes) c.function_of = axes_entering(s, o, c);
  }
  PropertyRun sm = run_softmax_row_property(s, o);
  c.cases += sm.cases;
  c.softmax_row_invariant = !sm.witness.has_value();
  c.evidence.push_back(std::move(sm));
  return c;
}

}  // namespace pecheck::classify
