// The ALiBi and T5 kernels' element index map (PROOF-IDX-1; ABI-ALIBI-2, ABI-T5-2: the
// [n_heads][n_q][n_k] layout; ABI-GEN-4, ABI-GEN-5: every element written, nothing outside):
// the kernels' own hqk_total and hqk_split (src/kernels/shared/grid.hpp), instantiated with
// SymIdx over the SMT Int sort, for every size the host accepts (ABI-ALIBI-1, ABI-T5-1:
// n_heads >= 1, n_q, n_k >= 0, product_ok) and every global index g in [0, total), in each
// index type: int64 (all accepted sizes, n_heads*n_q*n_k <= 2^60), uint32 (what the CUDA
// launch and the host emulation instantiate, n < 2^31) and int32. See grid_index.hpp.
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
}  // namespace

void add_grid_claims(std::vector<Claim>& out) {
  for (const auto& w : grid_index::widths()) {
    out.push_back({"grid.hqk-index." + w.label, "PROOF-IDX-1", "kernel", Answer::Proved,
                   [w] { return hqk_index(w); }});
  }
}

}  // namespace pecheck::proofs
