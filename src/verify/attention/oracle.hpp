// The attention oracle (spec/contracts.md PREC-ATTN-*): the exact softmax attention of a case and
// the budget of every output element in an accuracy class.
//
// Exact-enough path (PREC-ATTN-6): rotated q and k from the RoPE oracle in double-double (within
// 2^-100 (|xa| + |xb|)), dot products compensated in double-double, bias exact in double, the
// softmax and the weighted sum in x87 long double (64-bit significand). For rows of at most
// 2^12 keys the value is within 2^-50 sum_j w_j |v_j| of the exact output; that bound is added to
// every budget, so a kernel is never failed by the oracle's own error.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "verify/attention/cases.hpp"

namespace pecheck::verifier {

// Accuracy classes (PREC-ATTN-2..4); `field` is the widest that applies to the storage type
// (online for float32, p16 for bf16 and f16).
enum class AttnClass { Eager = 0, Online = 1, P16 = 2 };
const char* attn_class_name(AttnClass c);
AttnClass attn_field_class(Storage s);
// A class by its --accuracy name (eager, online, p16, or field: attn_field_class of the storage).
AttnClass attn_class_named(const std::string& name, Storage s);

struct AttnExact {
  std::vector<double> out, out_bound;  // [total_q][n_q_heads][head_dim_v]; out_bound: class `cls`
  std::array<std::vector<double>, 3> class_bound;  // the budget of each class (AttnClass order)
  std::vector<double> lse, lse_bound;  // [total_q][n_q_heads]; -inf for an empty row
  std::vector<char> empty;             // [total_q][n_q_heads]: no visible key
  std::vector<double> weight_sum;      // sum_j w_j |v_j| per output element (the row's yardstick)
  std::int64_t ambiguous_t5 = 0;       // T5 buckets decided within float rounding of a boundary
};

// The exact attention of a valid case with every position moved by `shift`, and the budget of
// class `cls` (which must apply to c.storage).
AttnExact attention_exact(const AttnCase& c, std::int64_t shift, AttnClass cls);

}  // namespace pecheck::verifier
