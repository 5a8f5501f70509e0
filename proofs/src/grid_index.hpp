// The [n_heads][n_q][n_k] index map of the ALiBi and T5 kernels (src/kernels/shared/grid.hpp:
// hqk_total, hqk_split, called by alibi_thread and t5_thread), proved over the SMT Int sort
// with SymIdx (range obligations instead of bit-blasted 64-bit division), for one index type
// (internal header: claims_grid.cpp, and claims_mutation.cpp for the wrong-stride mutant).
//
// The split is passed as a generic callable `split(g, nq, nk) -> {h, i, j}` so that the very
// same code runs symbolically (SymIdx) and concretely (the replay, Checked<T> below): the
// claim passes the kernels' hqk_split, the mutant a deliberately wrong copy.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/shared/grid.hpp"
#include "proofs/claims.hpp"
#include "symbolic_run.hpp"

namespace pecheck::proofs::grid_index {

// One index type and the sizes the host lets reach it.
struct Width {
  std::string label;        // "int64", "uint32", "int32": the claim's suffix
  IntRange type;
  std::int64_t max_total;   // the host's bound on n_heads*n_q*n_k (inclusive)
  std::string host_check;   // where that bound comes from
};

inline std::vector<Width> widths() {
  return {
      {"int64", IntRange::int64(), std::int64_t{1} << 60,
       "prep.cpp product_ok: n_heads*n_q <= 2^60 and n_heads*n_q*n_k <= 2^60"},
      {"uint32", IntRange::uint32(), (std::int64_t{1} << 31) - 1,
       "product_ok and kernels.cu fits32 (n < 2^31 - 256): the index type the CUDA launch and the "
       "host emulation instantiate"},
      {"int32", IntRange::int32(), (std::int64_t{1} << 31) - 1,
       "product_ok and n_heads*n_q*n_k < 2^31: a signed 32-bit index would be safe too"},
  };
}

// ---------------------------------------------------------------------------------------------
// Concrete replay: the same callable on exact 128-bit integers, each + - * checked against T's
// range and each / against the SymIdx precondition (a >= 0, b > 0), truncating like C++.

struct CheckLog {
  std::vector<std::string> violations;
};

struct Checked {
  __int128 v = 0;
  const IntRange* r = nullptr;
  CheckLog* log = nullptr;
  Checked make(__int128 x, const char* what, const Checked& b) const {
    if (x < r->min || x > r->max) {
      log->violations.push_back(std::string(what) + " " + str(v) + ", " + str(b.v) + " = " +
                                str(x) + " leaves " + r->name);
    }
    return Checked{x, r, log};
  }
  static std::string str(__int128 x) {
    if (x < 0) return "-" + str(-x);
    std::string s;
    do { s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(x % 10))); x /= 10; } while (x);
    return s;
  }
  friend Checked operator+(const Checked& a, const Checked& b) { return a.make(a.v + b.v, "add", b); }
  friend Checked operator-(const Checked& a, const Checked& b) { return a.make(a.v - b.v, "sub", b); }
  friend Checked operator*(const Checked& a, const Checked& b) { return a.make(a.v * b.v, "mul", b); }
  friend Checked operator/(const Checked& a, const Checked& b) {
    if (b.v <= 0 || a.v < 0) {
      a.log->violations.push_back("div " + str(a.v) + " / " + str(b.v) + " with a < 0 or b <= 0");
      if (b.v == 0) return Checked{0, a.r, a.log};
    }
    return Checked{a.v / b.v, a.r, a.log};
  }
};

// What a query establishes; the replay checks the same property concretely.
enum class Part { CastsExact, TotalNoOverflow, SplitNoOverflow, Map, Empty };

inline const char* part_name(Part p) {
  switch (p) {
    case Part::CastsExact: return "casts-exact";
    case Part::TotalNoOverflow: return "total-no-overflow";
    case Part::SplitNoOverflow: return "split-no-overflow";
    case Part::Map: return "map";
    case Part::Empty: return "empty-grid";
  }
  return "?";
}

// The kernels' own split and count (grid.hpp), for any number type.
struct KernelSplit {
  template <class N>
  kernels::grid::HQK<N> operator()(const N& g, const N& nq, const N& nk) const {
    return kernels::grid::hqk_split<N>(g, nq, nk);
  }
};
template <class N>
N total_of(const N& nh, const N& nq, const N& nk) {
  return kernels::grid::hqk_total<N>(nh, nq, nk);
}

namespace detail {

inline Term ge0(const Term& x) { return le(int_lit(0), x); }

inline __int128 model_int(const Model& m, const std::string& name) {
  std::string t;
  for (char ch : m.vars.at(name).text) {
    if (ch != '(' && ch != ')' && ch != ' ') t += ch;
  }
  const bool negative = !t.empty() && t[0] == '-';
  __int128 v = 0;
  for (std::size_t k = negative ? 1 : 0; k < t.size(); ++k) {
    if (t[k] < '0' || t[k] > '9') throw std::runtime_error("not an integer in the model: " + t);
    v = v * 10 + (t[k] - '0');
  }
  return negative ? -v : v;
}

// The host check, concretely (so a model that breaks an assumption never replays).
inline bool host_accepts(__int128 h, __int128 q, __int128 k, const Width& w) {
  const __int128 i64max = std::numeric_limits<std::int64_t>::max();
  if (h < 1 || q < 0 || k < 0 || h > i64max || q > i64max || k > i64max) return false;
  const __int128 hq = h * q;
  if (hq > (__int128{1} << 60)) return false;
  const __int128 n = hq * k;
  return n <= (__int128{1} << 60) && n <= w.max_total;
}

}  // namespace detail

// Proves (or, for a mutant, refutes) the index map for one index type. Queries:
//   casts-exact        sizes the host accepts with n_q, n_k >= 1 fit the index type, so the
//                      kernels' static_cast<I> of n_heads, n_q, n_k is exact
//   total-no-overflow  hqk_total's products stay in the type (its value is then n_heads*n_q*n_k)
//   split-no-overflow  for every g in [0, total), the split's / * - stay in the type
//   map                0 <= h < n_heads, 0 <= i < n_q, 0 <= j < n_k, (h*n_q + i)*n_k + j == g
//   empty-grid         n_q == 0 or n_k == 0 (a cast of another size may truncate): the count is
//                      0 without overflow, so the guard g >= total stops every thread
template <class Split>
ClaimResult prove(const std::string& claim_name, const std::string& clause, Answer expected,
                  const Width& w, Split split, const std::vector<Part>& parts,
                  const std::string& description) {
  using detail::ge0;
  auto c = start(claim_name, clause, "kernel", expected, description);
  c.notes.push_back(std::string("index type ") + w.type.name + "; sizes: " + w.host_check);
  const IntRange& T = w.type;
  const Term H = var("n_heads", Sort::integer()), Q = var("n_q", Sort::integer()),
             K = var("n_k", Sort::integer()), G = var("g", Sort::integer());
  const Term i64max = int_lit(std::numeric_limits<std::int64_t>::max());
  const Term HQ = mul(H, Q), HQK = mul(HQ, K);
  const std::vector<Term> dom = {
      le(int_lit(1), H), ge0(Q), ge0(K), le(H, i64max), le(Q, i64max), le(K, i64max),
      le(HQ, int_lit(std::int64_t{1} << 60)), le(HQK, int_lit(std::int64_t{1} << 60)),
      le(HQK, int_lit(w.max_total))};
  std::vector<Term> nonempty = dom;
  nonempty.push_back(le(int_lit(1), Q));
  nonempty.push_back(le(int_lit(1), K));

  // n_q, n_k >= 1: the casts are exact (casts-exact), so the I-values are the sizes.
  const SymIdx nh(H, T), nq(Q, T), nk(K, T);
  std::vector<ObligationScope::Obligation> total_obs, split_obs;
  const SymIdx total = [&] {
    ObligationScope scope;
    SymIdx t = total_of(nh, nq, nk);
    total_obs = scope.obligations();
    return t;
  }();
  const SymIdx g(G, T);
  std::vector<Term> thread = nonempty;  // g is a thread that passed the guard g < total
  thread.push_back(ge0(G));
  thread.push_back(g.in_range());
  thread.push_back(lt(G, total.term()));
  const auto e = [&] {
    ObligationScope scope;
    auto r = split(g, nq, nk);
    split_obs = scope.obligations();
    return r;
  }();

  // n_q == 0 or n_k == 0: the zero size casts to 0, the others to any value of the type.
  const SymIdx nh0 = SymIdx::var("nh_cast", T), nq0 = SymIdx::var("nq_cast", T),
               nk0 = SymIdx::var("nk_cast", T);
  std::vector<ObligationScope::Obligation> empty_obs;
  const SymIdx total0 = [&] {
    ObligationScope scope;
    SymIdx t = total_of(nh0, nq0, nk0);
    empty_obs = scope.obligations();
    return t;
  }();
  std::vector<Term> empty = dom;
  empty.push_back(nh0.in_range());
  empty.push_back(nq0.in_range());
  empty.push_back(nk0.in_range());
  empty.push_back(t_or({t_and({eq(Q, int_lit(0)), eq(nq0.term(), int_lit(0))}),
                        t_and({eq(K, int_lit(0)), eq(nk0.term(), int_lit(0))})}));

  const Term map_claim =
      t_and({ge0(e.h.term()), lt(e.h.term(), H), ge0(e.i.term()), lt(e.i.term(), Q),
             ge0(e.j.term()), lt(e.j.term(), K),
             eq(add(mul(add(mul(e.h.term(), Q), e.i.term()), K), e.j.term()), G)});

  // The replay: the same code on exact integers, each operation checked against T.
  auto replay_for = [&, split](Part part) -> ReplayFn {
    return [part, split, w, claim_name, clause](const Model& m) {
      Replay rp;
      CheckLog log;
      const IntRange* r = &w.type;
      auto ck = [&](__int128 v) { return Checked{v, r, &log}; };
      const __int128 h = detail::model_int(m, "n_heads"), q = detail::model_int(m, "n_q"),
                     k = detail::model_int(m, "n_k");
      if (!detail::host_accepts(h, q, k, w)) {
        rp.message = "model sizes are not accepted by the host check";
        return rp;
      }
      std::string what;
      if (part == Part::CastsExact) {
        rp.confirmed = q >= 1 && k >= 1 && (h > r->max || q > r->max || k > r->max);
        what = "a size does not fit " + r->name;
      } else if (part == Part::Empty) {
        const __int128 a = detail::model_int(m, "nh_cast"), b = detail::model_int(m, "nq_cast"),
                       cc = detail::model_int(m, "nk_cast");
        const bool premise = ((q == 0 && b == 0) || (k == 0 && cc == 0)) && a >= r->min &&
                             a <= r->max && b >= r->min && b <= r->max && cc >= r->min &&
                             cc <= r->max;
        const Checked t = total_of(ck(a), ck(b), ck(cc));
        rp.confirmed = premise && (!log.violations.empty() || t.v != 0);
        what = "empty grid: count " + Checked::str(t.v);
      } else if (part == Part::TotalNoOverflow) {
        if (q >= 1 && k >= 1) total_of(ck(h), ck(q), ck(k));
        rp.confirmed = q >= 1 && k >= 1 && !log.violations.empty();
        what = "the element count overflows";
      } else {
        const __int128 gv = detail::model_int(m, "g");
        CheckLog tl;
        const Checked t = total_of(Checked{h, r, &tl}, Checked{q, r, &tl}, Checked{k, r, &tl});
        const bool premise = q >= 1 && k >= 1 && gv >= 0 && gv <= r->max && gv < t.v;
        const auto s = split(ck(gv), ck(q), ck(k));
        if (part == Part::SplitNoOverflow) {
          rp.confirmed = premise && !log.violations.empty();
          what = "the split overflows";
        } else {
          const bool ok = s.h.v >= 0 && s.h.v < h && s.i.v >= 0 && s.i.v < q && s.j.v >= 0 &&
                          s.j.v < k && (s.h.v * q + s.i.v) * k + s.j.v == gv;
          rp.confirmed = premise && !ok;
          what = "g = " + Checked::str(gv) + " splits into h = " + Checked::str(s.h.v) +
                 ", i = " + Checked::str(s.i.v) + ", j = " + Checked::str(s.j.v) +
                 ((s.h.v * q + s.i.v) * k + s.j.v == gv ? "" : " (does not recompose to g)");
        }
      }
      rp.message = std::string("[") + r->name + "] n_heads = " + Checked::str(h) +
                   ", n_q = " + Checked::str(q) + ", n_k = " + Checked::str(k) + ": " + what;
      for (auto& v : log.violations) rp.message += "; " + v;
      if (!rp.confirmed) return rp;
      auto& cx = rp.cx;
      cx.clause = clause.substr(0, clause.find(','));
      cx.kind = "property";
      cx.message = rp.message;
      cx.function = "pec_alibi_bias_f32";
      auto i64 = [](__int128 v) { return static_cast<std::int64_t>(v); };
      cx.args = {{"n_heads", i64(h)}, {"n_q", i64(q)}, {"n_k", i64(k)}};
      cx.reproduce = "pecheck prove --only " + claim_name;
      cx.notes.push_back("the same index map is used by t5_thread (pec_t5_bias_f32)");
      return rp;
    };
  };

  for (Part part : parts) {
    Query qq;
    qq.name = claim_name + "." + part_name(part);
    qq.time_limit_s = 10;
    qq.primary = Backend::Z3;  // nonlinear integer arithmetic: Z3's SMT core
    qq.z3_smt_core = true;
    switch (part) {
      case Part::CastsExact:
        qq.assumptions = nonempty;
        qq.claim = t_and({le(H, int_lit(T.max)), le(Q, int_lit(T.max)), le(K, int_lit(T.max))});
        break;
      case Part::TotalNoOverflow:
        qq.assumptions = nonempty;
        qq.claim = obligations_hold(total_obs);
        break;
      case Part::SplitNoOverflow:
        qq.assumptions = thread;
        qq.claim = obligations_hold(split_obs);
        break;
      case Part::Map:
        qq.assumptions = thread;
        qq.claim = map_claim;
        break;
      case Part::Empty:
        qq.assumptions = empty;
        qq.claim = t_and({obligations_hold(empty_obs), eq(total0.term(), int_lit(0))});
        break;
    }
    add_query(c, qq, replay_for(part));
  }
  finish(c);
  return c;
}


// ---------------------------------------------------------------------------------------------
// T5's table index (grid.hpp t5_table_index, PROOF-IDX-2): the element (r, c) of a row-major
// [rows][cols] table is r*cols + c. t5_thread reads table[b][h] = t5_table_index(b, h, n_heads)
// (rows = num_buckets, cols = n_heads); the SIMD path also writes its transposed copy at
// t5_table_index(h, b, num_buckets) (rows = n_heads, cols = num_buckets). The index is passed as
// a callable `index(r, c, rows, cols)` so the mutant can swap in a wrong stride.
namespace table_index {

struct KernelIndex {
  template <class N>
  N operator()(const N& r, const N& c, const N& /*rows*/, const N& cols) const {
    return kernels::grid::t5_table_index<N>(r, c, cols);
  }
};

enum class Order { Table, Transposed };
inline const char* order_name(Order o) { return o == Order::Table ? "table" : "transposed"; }

// The sizes valid_t5 (src/kernels/common/prep.cpp) accepts: n_heads >= 1, 2 <= num_buckets <=
// 1024 (4 when bidirectional), product_ok(num_buckets, n_heads, 1): num_buckets*n_heads <= 2^60.
inline bool host_accepts(__int128 nb, __int128 nh) {
  return nh >= 1 && nh <= std::numeric_limits<std::int64_t>::max() && nb >= 2 && nb <= 1024 &&
         nb * nh <= (__int128{1} << 60);
}

// Queries per order: no-overflow (every * + stays in int64_t), in-range (0 <= index <
// num_buckets*n_heads). b in [0, num_buckets) is what t5_bucket returns (claims t5.bucket.*);
// h in [0, n_heads) is what hqk_split returns (PROOF-IDX-1), cast exactly to int64_t.
template <class Index>
ClaimResult prove(const std::string& claim_name, const std::string& clause, Answer expected,
                  Index index, const std::vector<Order>& orders, const std::string& description) {
  using detail::ge0;
  auto c = start(claim_name, clause, "kernel", expected, description);
  const IntRange T = IntRange::int64();
  c.notes.push_back("index type int64_t; sizes: prep.cpp valid_t5 (n_heads >= 1, 2 <= num_buckets "
                    "<= 1024, num_buckets*n_heads <= 2^60)");
  const Term NB = var("num_buckets", Sort::integer()), NH = var("n_heads", Sort::integer()),
             B = var("b", Sort::integer()), H = var("h", Sort::integer());
  const std::vector<Term> dom = {
      le(int_lit(1), NH), le(NH, int_lit(std::numeric_limits<std::int64_t>::max())),
      le(int_lit(2), NB), le(NB, int_lit(1024)),
      le(mul(NB, NH), int_lit(std::int64_t{1} << 60)),
      ge0(B), lt(B, NB), ge0(H), lt(H, NH)};
  for (Order o : orders) {
    const bool table = o == Order::Table;
    const SymIdx b(B, T), h(H, T), nb(NB, T), nh(NH, T);
    std::vector<ObligationScope::Obligation> obs;
    const SymIdx idx = [&] {
      ObligationScope scope;
      SymIdx r = table ? index(b, h, nb, nh) : index(h, b, nh, nb);
      obs = scope.obligations();
      return r;
    }();
    auto replay = [index, table, claim_name, clause](const Model& m) {
      Replay rp;
      CheckLog log;
      const IntRange r = IntRange::int64();
      auto ck = [&](__int128 v) { return Checked{v, &r, &log}; };
      const __int128 nbv = detail::model_int(m, "num_buckets"), nhv = detail::model_int(m, "n_heads"),
                     bv = detail::model_int(m, "b"), hv = detail::model_int(m, "h");
      if (!host_accepts(nbv, nhv) || bv < 0 || bv >= nbv || hv < 0 || hv >= nhv) {
        rp.message = "model sizes are not accepted by the host check";
        return rp;
      }
      const Checked x = table ? index(ck(bv), ck(hv), ck(nbv), ck(nhv))
                              : index(ck(hv), ck(bv), ck(nhv), ck(nbv));
      rp.confirmed = !log.violations.empty() || x.v < 0 || x.v >= nbv * nhv;
      rp.message = std::string(table ? "table[b][h]" : "transposed [h][b]") +
                   ": num_buckets = " + Checked::str(nbv) + ", n_heads = " + Checked::str(nhv) +
                   ", b = " + Checked::str(bv) + ", h = " + Checked::str(hv) + ": index " +
                   Checked::str(x.v) + " (table size " + Checked::str(nbv * nhv) + ")";
      for (auto& v : log.violations) rp.message += "; " + v;
      if (!rp.confirmed) return rp;
      auto& cx = rp.cx;
      cx.clause = clause.substr(0, clause.find(','));
      cx.kind = "property";
      cx.message = rp.message;
      cx.function = "pec_t5_bias_f32";
      auto i64 = [](__int128 v) { return static_cast<std::int64_t>(v); };
      cx.args = {{"num_buckets", i64(nbv)}, {"n_heads", i64(nhv)}, {"b", i64(bv)}, {"h", i64(hv)}};
      cx.reproduce = "pecheck prove --only " + claim_name;
      return rp;
    };
    for (int part = 0; part < 2; ++part) {
      Query qq;
      qq.name = claim_name + "." + order_name(o) + (part == 0 ? ".no-overflow" : ".in-range");
      qq.time_limit_s = 10;
      qq.primary = Backend::Z3;
      qq.z3_smt_core = true;  // nonlinear integer arithmetic: never Z3's default QF_NIA strategy
      qq.assumptions = dom;
      qq.claim = part == 0 ? obligations_hold(obs)
                           : t_and({ge0(idx.term()), lt(idx.term(), mul(NB, NH))});
      add_query(c, qq, replay);
    }
  }
  finish(c);
  return c;
}

}  // namespace table_index

}  // namespace pecheck::proofs::grid_index
