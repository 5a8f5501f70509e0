// Shared pieces of the attention checks (checks.cpp, checks_memory.cpp).
#pragma once

#include <optional>
#include <string>

#include "verify/attention/cases.hpp"
#include "verify/attention/oracle.hpp"
#include "verify/attention/run.hpp"
#include "verify/checks/check_impl.hpp"

namespace pecheck::verifier::attn {

// The failure of a call that did not return 0 (ABI-GEN-2, ABI-GEN-7), or a write outside the
// views (ABI-GEN-4, ABI-VIEW-2); nullopt when it returned 0 and stayed inside.
std::optional<Failure> failed_call(Fn fn, const AttnRunResult& r, bool check_memory = true);

// The report location of output element k ([total_q][n_q_heads][head_dim_v]).
report::WorstElement locate_out(const AttnCase& c, std::int64_t k, std::int64_t shift = 0);

// The class a run judges attention by: --accuracy attention[.dtype]=CLASS, default field.
AttnClass chosen_attn_class(const Ctx& ctx, Storage s);

// Compares a run with the oracle (ABI-ATTN-2): out and lse within their budgets, a number where
// one is due. `clause` is cited on failure.
std::optional<Failure> compare_oracle(Ctx& ctx, Fn fn, const AttnCase& c, const AttnRunResult& r, const AttnExact& e,
                                      const std::string& clause, std::int64_t shift = 0);

// Checks of the memory contract and the rejections (checks_memory.cpp).
void add_attention_memory_checks(std::vector<AnyCheck>& out, Fn fn);

}  // namespace pecheck::verifier::attn

#include "verify/attention/register.hpp"
