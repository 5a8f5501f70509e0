// M-RoPE cases (ABI-MROPE-*, spec/rope.md ROPE-MROPE-*): the axis of each frequency pair, valid
// and invalid generators, shrinking and the report's description of a pec_mrope_* call.
#include <algorithm>
#include <cmath>

#include "verify/gen/cases_qk.hpp"

namespace pecheck::verifier {

int mrope_axis(const MropeCase& c, std::int64_t i) {
  const std::int64_t st = c.section[0], sh = c.section[1], sw = c.section[2];
  if (i < 0 || st < 0 || sh < 0 || sw < 0 || i >= st + sh + sw) return -1;
  if (c.mrope_layout == PEC_MROPE_INTERLEAVED) {  // ROPE-MROPE-3 (Qwen3-VL)
    if (i % 3 == 1 && i < 3 * sh) return 1;
    if (i % 3 == 2 && i < 3 * sw) return 2;
    return 0;
  }
  return i < st ? 0 : i < st + sh ? 1 : 2;  // ROPE-MROPE-2 (Qwen2-VL, Qwen2.5-VL)
}

std::int64_t mrope_position(const MropeCase& c, int a, std::int64_t t) {
  const std::vector<std::int64_t>& row = a == 0 ? c.positions : a == 1 ? c.pos_h : c.pos_w;
  return row[static_cast<std::size_t>(t)];
}

}  // namespace pecheck::verifier
