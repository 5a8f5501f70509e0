// The ALiBi and T5 kernels' element index map (PROOF-IDX-1; ABI-ALIBI-2, ABI-T5-2: the
// [n_heads][n_q][n_k] layout; ABI-GEN-4, ABI-GEN-5: every element written, nothing outside):
// the kernels' own hqk_total and hqk_split (src/kernels/shared/grid.hpp), instantiated with
// SymIdx over the SMT Int sort, for every size the host accepts (ABI-ALIBI-1, ABI-T5-1:
// n_heads >= 1, n_q, n_k >= 0, product_ok) and every global index g in [0, total), in each
// index type: int64 (all accepted sizes, n_heads*n_q*n_k <= 2^60), uint32 (what the CUDA
// launch and the host emulation instantiate, n < 2^31) and int32. See grid_index.hpp.
// PROOF-IDX-2: T5's table index (t5_table_index, both argument orders) and the launch grid
// (kernels.cu's block count and fits32 with the kernels' global_index<uint32_t>).
#include "grid_index.hpp"

namespace pecheck::proofs {

namespace {
constexpr const char* kClause = "PROOF-IDX-1, ABI-ALIBI-2, ABI-T5-2, ABI-GEN-4, ABI-GEN-5";

ClaimResult hqk_index(const grid_index::Width& w) {
  using grid_index::Part;
  return grid_index::prove(
      "grid.hqk-index." + w.label, kClause, Answer::Proved, w, grid_index::KernelSplit{},
      {Part::CastsExact, Part::TotalNoOverflow, Part::SplitNoOverflow, Part::Map, Part::Empty},
      "alibi_thread / t5_thread: hqk_split of every g < n_heads*n_q*n_k is the [h][q][k] element "
      "g, in range, with no " + w.type.name + " overflow (Int theory, range obligations)");
}
// ---------------------------------------------------------------------------------------------
// The launch grid (PROOF-IDX-2). The host side is kernels.cu's, modelled here (it is CUDA host
// code, not a shared header; proofs/tests/launch_model_test.cpp checks that the modelled lines
// are still kernels.cu's):
//   constexpr unsigned kBlock = 256;
//   unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }
//   bool fits32(int64_t n) { return n < (int64_t{1} << 31) - static_cast<int64_t>(kBlock); }
//   launch_*: n == 0 returns, !fits32(n) refuses, else <<<blocks_for(n), kBlock>>> with I = uint32_t
// The device side is the kernels' own global_index<uint32_t> (grid.hpp), instantiated with
// DimOf<SymIdx> whose fields are uint64_t (the range is checked up to 2^63 - 1, a stricter and so
// sound obligation). n is the kernels' count (hqk_total == n_heads*n_q*n_k, PROOF-IDX-1).
constexpr std::int64_t kBlock = 256;

ClaimResult launch_grid() {
  using grid_index::detail::ge0;
  auto c = start("grid.launch.uint32", "PROOF-IDX-2, ABI-GEN-4, ABI-GEN-5", "kernel",
                 Answer::Proved,
                 "kernels.cu's launch (256 threads, ceil(n/256) blocks, fits32) with global_index"
                 "<uint32_t>: no overflow, g < 2^31, each g in [0, n) reached by exactly one thread");
  c.notes.push_back("index type uint32_t; n: 1 <= n < 2^31 - 256 (fits32), blocks_for(n) blocks");
  const IntRange I64 = IntRange::int64();
  const IntRange U64{"uint64_t", 0, std::numeric_limits<std::int64_t>::max()};
  const Term N = var("n", Sort::integer()), G = var("g", Sort::integer());
  const std::vector<Term> host = {le(int_lit(1), N),
                                  lt(N, int_lit((std::int64_t{1} << 31) - kBlock))};
  // blocks_for(n), in int64_t as kernels.cu computes it, before the cast to unsigned.
  std::vector<ObligationScope::Obligation> blocks_obs;
  const SymIdx blocks = [&] {
    ObligationScope scope;
    const SymIdx n(N, I64), kb(int_lit(kBlock), I64), one(int_lit(1), I64);
    SymIdx b = (n + kb - one) / kb;
    blocks_obs = scope.obligations();
    return b;
  }();
  // One launched thread: block in [0, blocks), thread in [0, kBlock), block_dim = kBlock.
  auto thread_of = [&](const Term& blk, const Term& thr,
                       std::vector<ObligationScope::Obligation>& obs) {
    ObligationScope scope;
    const kernels::grid::DimOf<SymIdx> d{SymIdx(blk, U64), SymIdx(int_lit(kBlock), U64),
                                         SymIdx(thr, U64)};
    SymIdx g = kernels::grid::global_index<SymIdx>(d);
    obs = scope.obligations();
    return g;
  };
  auto launched = [&](const Term& blk, const Term& thr) {
    return std::vector<Term>{ge0(blk), lt(blk, blocks.term()), ge0(thr), lt(thr, int_lit(kBlock))};
  };
  const Term B1 = var("block", Sort::integer()), T1 = var("thread", Sort::integer()),
             B2 = var("block2", Sort::integer()), T2 = var("thread2", Sort::integer());
  std::vector<ObligationScope::Obligation> g1_obs, g2_obs, w_obs;
  const SymIdx g1 = thread_of(B1, T1, g1_obs), g2 = thread_of(B2, T2, g2_obs);
  // The witness thread of an element g: block g / 256, thread g - block*256.
  const Term WB = int_div(G, int_lit(kBlock));
  const Term WT = sub(G, mul(WB, int_lit(kBlock)));
  const SymIdx gw = thread_of(WB, WT, w_obs);

  auto with = [](std::vector<Term> a, const std::vector<Term>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const std::int64_t u32max = std::numeric_limits<std::uint32_t>::max();
  struct Q {
    const char* part;
    std::vector<Term> assumptions;
    Term claim;
  };
  const std::vector<Q> qs = {
      // n + 255 and the quotient stay in int64_t; the block count converts to unsigned exactly
      // and is within CUDA's grid x limit 2^31 - 1; blocks*256 >= n (the grid covers n).
      {"blocks", host,
       t_and({obligations_hold(blocks_obs), le(int_lit(1), blocks.term()),
              le(blocks.term(), int_lit((std::int64_t{1} << 31) - 1)),
              le(N, mul(blocks.term(), int_lit(kBlock)))})},
      // Every launched thread: block*block_dim + thread does not overflow uint64_t, and
      // g < 2^31 <= UINT32_MAX, so static_cast<uint32_t> is exact and the guard g >= total
      // compares the true index.
      {"index-no-overflow", with(host, launched(B1, T1)),
       t_and({obligations_hold(g1_obs), ge0(g1.term()), lt(g1.term(), int_lit(std::int64_t{1} << 31)),
              le(g1.term(), int_lit(u32max))})},
      // Every g in [0, n) is reached: by block g/256, thread g%256, which is launched.
      {"covers", with(host, {ge0(G), lt(G, N)}),
       t_and({obligations_hold(w_obs), ge0(WB), lt(WB, blocks.term()), ge0(WT),
              lt(WT, int_lit(kBlock)), eq(gw.term(), G)})},
      // ... by one thread only: two launched threads with the same g are the same thread.
      {"unique", with(with(host, launched(B1, T1)), launched(B2, T2)),
       implies(eq(g1.term(), g2.term()), t_and({eq(B1, B2), eq(T1, T2)}))},
  };
  for (const auto& q : qs) {
    Query qq;
    qq.name = std::string("grid.launch.uint32.") + q.part;
    qq.time_limit_s = 10;
    qq.primary = Backend::Z3;
    qq.z3_smt_core = true;  // integer arithmetic: never Z3's default strategy (it can hang)
    qq.assumptions = q.assumptions;
    qq.claim = q.claim;
    add_query(c, qq);
  }
  finish(c);
  return c;
}

ClaimResult t5_table() {
  using grid_index::table_index::Order;
  return grid_index::table_index::prove(
      "grid.t5-table-index.int64", "PROOF-IDX-2, ABI-T5-2", Answer::Proved,
      grid_index::table_index::KernelIndex{}, {Order::Table, Order::Transposed},
      "t5_thread's table[b][h] = t5_table_index(b, h, n_heads) and the SIMD path's transposed "
      "t5_table_index(h, b, num_buckets): in [0, num_buckets*n_heads), no int64 overflow");
}

}  // namespace

void add_grid_claims(std::vector<Claim>& out) {
  for (const auto& w : grid_index::widths()) {
    out.push_back({"grid.hqk-index." + w.label, "PROOF-IDX-1", "kernel", Answer::Proved,
                   [w] { return hqk_index(w); }});
  }
  out.push_back({"grid.t5-table-index.int64", "PROOF-IDX-2", "kernel", Answer::Proved, t5_table});
  out.push_back({"grid.launch.uint32", "PROOF-IDX-2", "kernel", Answer::Proved, launch_grid});
}

}  // namespace pecheck::proofs
