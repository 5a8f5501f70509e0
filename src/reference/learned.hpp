// Reference learned absolute position embedding (BERT, GPT-2), templated on T.
//
// Spec: spec/learned.md. A table of max_positions rows of d_model values; row p is added to
// the token embedding at position p (LEARNED-AXIS-1). A position outside the table is an
// error (LEARNED-ARG-2), never a wrap-around or a clamp.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/error.hpp"

namespace pecheck::reference {

struct LearnedConfig {
  std::int64_t max_positions = 512;  // >= 1 (LEARNED-ARG-1)
  std::int64_t d_model = 768;        // >= 1 (LEARNED-ARG-1)
};

void validate(const LearnedConfig& c);
// Throws pecheck::InvalidArgument (LEARNED-ARG-2) unless 0 <= position < max_positions.
void validate_learned_position(const LearnedConfig& c, std::int64_t position);

// Row `position` of the row-major table [max_positions][d_model] (LEARNED-LOOKUP-1).
template <class T>
std::vector<T> learned_encode(const LearnedConfig& c, std::span<const T> table,
                              std::int64_t position) {
  validate(c);
  if (static_cast<std::int64_t>(table.size()) != c.max_positions * c.d_model) {
    throw InvalidArgument("LEARNED-ARG-1", "table size differs from max_positions * d_model");
  }
  validate_learned_position(c, position);
  const auto row = table.subspan(static_cast<std::size_t>(position * c.d_model),
                                 static_cast<std::size_t>(c.d_model));
  return std::vector<T>(row.begin(), row.end());
}

}  // namespace pecheck::reference
