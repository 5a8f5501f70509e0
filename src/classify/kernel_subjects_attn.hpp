// Internal to pecheck_classify_kernel: the output bound behind the pec_attention_* subjects of
// `classify --kernel` (kernel_subjects_attn.cpp), exposed for its consistency test against
// verify's attention oracle. Not installed.
#pragma once

#include "verify/attention/cases.hpp"

namespace pecheck::classify::kernel_detail {

// For a valid case of one query over two visible keys with one-hot values (v = e0, e1; no soft
// cap), positions and content set: every kernel within the `field` attention class of
// c.storage (spec/contracts.md PREC-ATTN-1, -3, -4) has |out_l - w_l| <= rel w_l + abs for both
// outputs, w_l the exact softmax weights. Never below the budget verify's oracle charges.
struct AttnOutputBound {
  double rel = 0, abs = 0;
};
AttnOutputBound attention_output_bound(const verifier::AttnCase& c);

}  // namespace pecheck::classify::kernel_detail
