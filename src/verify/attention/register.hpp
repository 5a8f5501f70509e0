// The attention family's hooks into the engine (engine.cpp): its checks and the domain rules
// under which one of them cannot run.
#pragma once

#include <string>
#include <vector>

#include "verify/checks/check.hpp"
#include "verify/gen/domain.hpp"

namespace pecheck::verifier {
// Every check of pec_attention_{f32,bf16,f16} (checks.cpp).
void add_attention_checks(std::vector<AnyCheck>& out);
// Why a check of the attention family cannot run under the declared domain ("" when it can).
std::string attention_skip_reason(const Domain& d, const std::string& check_name);
}  // namespace pecheck::verifier
