// Output of `pecheck classify`: the JSON document other tools read (shape in issue 2 and
// README "Encodings and classification") and the human table.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "classify/engine.hpp"

namespace pecheck::classify {

// {"seed": N, "encodings": [{name, family, applied_at, depends_on, softmax_row_invariant,
//   cases, witness: null | {property, instance_seed, config, first: {m, n, score},
//   second: {m, n, score}, offset, shift, tolerance, shrink_steps}, evidence: [...]}]}
nlohmann::json to_json(const std::vector<Classification>& cs, std::uint64_t seed);
std::string to_table(const std::vector<Classification>& cs, std::uint64_t seed);

}  // namespace pecheck::classify
