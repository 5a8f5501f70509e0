// Report view of a case: its arguments under the ABI's field names, in the header's order, and
// its float inputs (written in decimal and as hex floats by the report writers).
#include "verify/v1/cases.hpp"

namespace pecheck::verifier {

namespace {

using report::Arg;
using report::ArgValue;
using report::Tensor;

ArgValue ints(const std::vector<std::int64_t>& v, const CaseCommon& c, const char* name) {
  if (c.null_field == name) return std::monostate{};
  return v;
}

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

void add_common(const CaseCommon& c, std::vector<Arg>& args) {
  if (c.shift != 0) args.push_back({"shift", c.shift});
  if (!c.null_field.empty()) args.push_back({"null_argument", c.null_field});
  if (!c.note.empty()) args.push_back({"generator", c.note});
}

}  // namespace

void describe(const RopeCase& c, std::vector<Arg>& args, std::vector<Tensor>& in) {
  args = {{"n_tokens", c.n_tokens},
          {"n_heads", c.n_heads},
          {"head_dim", c.head_dim},
          {"rotary_dim", c.rotary_dim},
          {"layout", std::int64_t{c.layout}},
          {"theta_base", c.theta_base},
          {"position_scale", c.position_scale},
          {"positions", ints(c.positions, c, "positions")},
          {"inv_freq", c.has_inv_freq ? ArgValue{widen(c.inv_freq)} : ArgValue{std::monostate{}}}};
  add_common(c, args);
  const std::vector<std::int64_t> shape{c.n_tokens, c.n_heads, c.head_dim};
  if (c.null_field != "x") in.push_back({"x", shape, c.x});
  if (!c.k.empty()) in.push_back({"k", shape, c.k});
}

void describe(const AlibiCase& c, std::vector<Arg>& args, std::vector<Tensor>& in) {
  args = {{"n_heads", c.n_heads},           {"n_q", c.n_q}, {"n_k", c.n_k}, {"mode", std::int64_t{c.mode}},
          {"q_pos", ints(c.q_pos, c, "q_pos")}, {"k_pos", ints(c.k_pos, c, "k_pos")}};
  add_common(c, args);
  in.push_back({"scores", {c.n_heads, c.n_q, c.n_k}, c.scores});
}

void describe(const T5Case& c, std::vector<Arg>& args, std::vector<Tensor>& in) {
  args = {{"n_heads", c.n_heads},
          {"n_q", c.n_q},
          {"n_k", c.n_k},
          {"num_buckets", c.num_buckets},
          {"max_distance", c.max_distance},
          {"bidirectional", std::int64_t{c.bidirectional}},
          {"q_pos", ints(c.q_pos, c, "q_pos")},
          {"k_pos", ints(c.k_pos, c, "k_pos")}};
  add_common(c, args);
  if (c.null_field != "table") in.push_back({"table", {c.num_buckets, c.n_heads}, c.table});
}

void describe(const SinusoidalCase& c, std::vector<Arg>& args, std::vector<Tensor>&) {
  args = {{"n_tokens", c.n_tokens},
          {"d_model", c.d_model},
          {"base", c.base},
          {"positions", ints(c.positions, c, "positions")}};
  add_common(c, args);
}

void describe(const LearnedCase& c, std::vector<Arg>& args, std::vector<Tensor>& in) {
  args = {{"n_tokens", c.n_tokens},
          {"d_model", c.d_model},
          {"max_positions", c.max_positions},
          {"positions", ints(c.positions, c, "positions")}};
  add_common(c, args);
  if (c.null_field != "table") in.push_back({"table", {c.max_positions, c.d_model}, c.table});
}

}  // namespace pecheck::verifier
