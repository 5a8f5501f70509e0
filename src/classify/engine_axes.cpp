// The properties of 3-axis (M-RoPE) positions (CLASSIFY-5, and CLASSIFY-9's axis-free runs).
#include <fmt/format.h>

#include <stdexcept>

#include "classify/engine.hpp"
#include "classify/engine_impl.hpp"

namespace pecheck::classify {

using namespace detail;

PropertyRun run_vector_shift_property(const Subject& s, const EngineOptions& o) {
  PropertyRun run{"vector-shift", 0, std::nullopt};
  const std::int64_t max = s.max_position;
  // v = [m_t, m_h, m_w, n_t, n_h, n_w, c_t, c_h, c_w]
  auto at = [](const std::vector<std::int64_t>& v, int base) {
    return Position3{v[base], v[base + 1], v[base + 2]};
  };
  auto valid = [&](const std::vector<std::int64_t>& v) {
    bool moved = false;
    for (int a = 0; a < 3; ++a) {
      if (!in_range(v[a], max) || !in_range(v[3 + a], max) || !in_range(v[a] + v[6 + a], max) ||
          !in_range(v[3 + a] + v[6 + a], max))
        return false;
      moved = moved || v[6 + a] != 0;
    }
    return moved;
  };
  for (std::int64_t i = 0; i < o.shift_cases; ++i) {
    Rng r(case_seed(o.seed, 7, i));
    const std::uint64_t iseed = r.next();
    std::vector<std::int64_t> v(9);
    for (int a = 0; a < 3; ++a) {
      draw_pair(r, max, v[a], v[3 + a]);
      v[6 + a] = r.coin(4) ? 0 : gen_shift(r, v[a], v[3 + a], max);
    }
    ++run.cases;
    if (!valid(v)) continue;
    const Instance inst = s.instance(iseed);
    if (!inst.score3) throw std::logic_error(s.name + ": axes == 3 but the instance has no score3");
    auto shifted = [&](const std::vector<std::int64_t>& x, int base) {
      return Position3{x[base] + x[6], x[base + 1] + x[7], x[base + 2] + x[8]};
    };
    auto fails = [&](const std::vector<std::int64_t>& x) {
      return !scores_agree(inst.score3(at(x, 0), at(x, 3)),
                           inst.score3(shifted(x, 0), shifted(x, 3)));
    };
    if (!fails(v)) continue;
    Witness w;
    w.property = run.property;
    w.instance_seed = iseed;
    w.config = inst.config;
    w.shrink_steps =
        shrink(v, std::vector<bool>(9, false),
               {true, true, true, true, true, true, false, false, false}, valid, fails);
    const Score a = inst.score3(at(v, 0), at(v, 3)), b = inst.score3(shifted(v, 0), shifted(v, 3));
    scores_agree(a, b, &w.tolerance);
    w.m1 = v[0];
    w.n1 = v[3];
    w.m2 = v[0] + v[6];
    w.n2 = v[3] + v[6];
    w.s1 = a.value;
    w.s2 = b.value;
    w.detail = fmt::format("s({}, {}) = {:.17g} but s({}, {}) = {:.17g} (shift {})", pos3(at(v, 0)),
                           pos3(at(v, 3)), a.value, pos3(shifted(v, 0)), pos3(shifted(v, 3)),
                           b.value, pos3(at(v, 6)));
    run.witness = w;
    return run;
  }
  return run;
}

PropertyRun run_axis_free_property(const Subject& s, const EngineOptions& o, int axis) {
  static constexpr const char* kAxis[3] = {"t", "h", "w"};
  PropertyRun run{std::string("axis-free:") + kAxis[axis], 0, std::nullopt};
  const std::int64_t max = s.max_position;
  for (std::int64_t i = 0; i < o.applied_cases; ++i) {
    Rng r(case_seed(o.seed, 20 + static_cast<std::uint64_t>(axis), i));
    const std::uint64_t iseed = r.next();
    Position3 m{}, n{};
    for (int a = 0; a < 3; ++a) draw_pair(r, max, m[a], n[a]);
    Position3 m2 = m, n2 = n;
    draw_pair(r, max, m2[axis], n2[axis]);
    ++run.cases;
    // The same offset along the axis moves no relative score: only a changed offset tells.
    if (n2[axis] - m2[axis] == n[axis] - m[axis]) continue;
    const Instance inst = s.instance(iseed);
    if (!inst.score3) throw std::logic_error(s.name + ": axes == 3 but the instance has no score3");
    const Score a = inst.score3(m, n), b = inst.score3(m2, n2);
    double tol = 0;
    if (scores_agree(a, b, &tol)) continue;
    Witness w;
    w.property = run.property;
    w.instance_seed = iseed;
    w.config = inst.config;
    w.m1 = m[axis], w.n1 = n[axis], w.m2 = m2[axis], w.n2 = n2[axis];
    w.s1 = a.value, w.s2 = b.value;
    w.tolerance = tol;
    w.detail = fmt::format("s({}, {}) = {:.17g} but s({}, {}) = {:.17g} (only the {} positions changed)",
                           pos3(m), pos3(n), a.value, pos3(m2), pos3(n2), b.value, kAxis[axis]);
    run.witness = w;
    return run;
  }
  return run;
}

}  // namespace pecheck::classify
