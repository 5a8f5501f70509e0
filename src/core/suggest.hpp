// "Did you mean": the closest of a list of known names to a name the user typed (an option, a
// check, a scheme, an exported symbol), by edit distance with transpositions, or nothing when
// none is close enough to be a plausible misspelling.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pecheck {

// Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (std::size_t j = 0; j <= m; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    prev2 = prev;
    prev.swap(cur);
  }
  return prev[m];
}

// The known name nearest to `typed`, when it is within a third of the longer name's length (at
// least 2 edits allowed); ties go to the earlier name in `known`.
inline std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string>& known,
                                               std::size_t max_distance = 0) {
  std::optional<std::string> best;
  std::size_t best_d = 0;
  for (const auto& k : known) {
    const std::size_t d = edit_distance(typed, k);
    const std::size_t limit = max_distance ? max_distance : std::max<std::size_t>(2, std::max(typed.size(), k.size()) / 3);
    if (d > limit || d == 0) continue;
    if (!best || d < best_d) best = k, best_d = d;
  }
  return best;
}

// "; did you mean 'X'?" or "".
inline std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known) {
  const auto c = closest_name(typed, known);
  return c ? "; did you mean '" + *c + "'?" : std::string();
}

}  // namespace pecheck
