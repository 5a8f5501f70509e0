// The output bound behind `classify --kernel`'s pec_attention_* subjects
// (src/classify/kernel_subjects_attn.cpp) against verify's attention oracle (PREC-ATTN-1..6):
// on the subjects' two-key rows it is never below the budget the oracle charges in the field
// class of the storage type — so a kernel that passes attention.oracle is never called
// position-dependent for its rounding — and, where an output is measurable at all, not needlessly
// wider (a factor 4 at most: the pair norms replace the rotated lanes).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "classify/kernel_subjects_attn.hpp"
#include "verify/attention/oracle.hpp"
#include "verify/isolation/storage.hpp"

namespace pecheck::classify::kernel_detail {
namespace {

using verifier::AttnCase;
using verifier::Storage;

// A row as the subjects build it: one query at m, keys at n (v = e0) and m (v = e1).
AttnCase row(std::mt19937_64& g, Storage sto, std::int32_t encoding) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<std::int64_t> half(1, 64);
  auto pos = [&g]() {  // small, medium and large positions
    const int scale = static_cast<int>(g() % 3);
    return static_cast<std::int64_t>(g() % (scale == 0   ? 64
                                            : scale == 1 ? 65536
                                                         : (std::int64_t{1} << 31)));
  };
  AttnCase c;
  c.storage = sto;
  c.q_len = {1}, c.k_len = {2};
  c.head_dim = 2 * half(g);
  c.head_dim_v = 2;
  c.v = {1.0f, 0.0f, 0.0f, 1.0f};
  c.scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim));
  c.encoding = encoding;
  const std::int64_t m = pos(), n = g() % 2 ? pos()
                                            : std::max<std::int64_t>(
                                                  0, m - static_cast<std::int64_t>(g() % 600));
  c.q_pos = {m};
  c.k_pos = {n, m};
  c.q.resize(static_cast<std::size_t>(c.head_dim));
  c.k.resize(static_cast<std::size_t>(2 * c.head_dim));
  for (auto* v : {&c.q, &c.k})
    for (auto& e : *v) e = verifier::round_to_storage(unit(g), sto);
  c.rotary_dim =
      g() % 2
          ? c.head_dim
          : 2 * (1 + static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(c.head_dim / 2)));
  c.rope_layout = static_cast<std::int32_t>(g() % 2);
  c.theta_base = g() % 2 ? 10000.0 : 500000.0;
  c.alibi_form = static_cast<std::int32_t>(g() % 3);
  c.slopes = {static_cast<float>(std::exp2(-4.0 - 6.0 * (0.5 + 0.5 * unit(g))))};
  c.t5_bidirectional = static_cast<std::int32_t>(g() % 2);
  c.t5_table.resize(32);
  for (auto& e : c.t5_table) e = static_cast<float>(unit(g));
  return c;
}

// Clause: CLASSIFY-9 PREC-ATTN-1 PREC-ATTN-3 PREC-ATTN-4
TEST(ClassifyAttentionBound, CoversTheOracleBudgetOfTheFieldClassAndIsNotMuchWider) {
  std::mt19937_64 g(20261202);
  int rows = 0, measured = 0;
  for (Storage sto : {Storage::F32, Storage::BF16, Storage::F16}) {
    for (std::int32_t enc : {PEC_ATTN_NONE, PEC_ATTN_ROPE, PEC_ATTN_ALIBI, PEC_ATTN_T5}) {
      for (int i = 0; i < 40; ++i) {
        const AttnCase c = row(g, sto, enc);
        const AttnOutputBound b = attention_output_bound(c);
        const verifier::AttnExact e =
            verifier::attention_exact(c, 0, verifier::attn_field_class(sto));
        ASSERT_EQ(e.out.size(), 2u);
        for (std::size_t l = 0; l < 2; ++l) {
          const double mine = b.rel * e.out[l] + b.abs, oracle = e.out_bound[l];
          ASSERT_GE(mine, oracle) << "storage " << verifier::storage_name(sto) << " encoding "
                                  << enc << " m " << c.q_pos[0] << " n " << c.k_pos[0] << " lane "
                                  << l;
          // Where the output is measured at all (a budget below half the weight), not much wider.
          if (oracle < 0.5 * e.out[l]) {
            EXPECT_LE(mine, 4.0 * oracle)
                << "storage " << verifier::storage_name(sto) << " encoding " << enc;
            ++measured;
          }
        }
        ++rows;
      }
    }
  }
  EXPECT_EQ(rows, 480);
  EXPECT_GT(measured, 600);  // of 960 outputs: most rows are measurable
}

}  // namespace
}  // namespace pecheck::classify::kernel_detail
