// The memory contract of the attention functions (ABI-ATTN-9: bounds, gaps, completeness,
// determinism) and their rejections, one check per requirement (ABI-GEN-8 tiers).
#include <cstdio>

#include "verify/attention/checks_impl.hpp"

namespace pecheck::verifier::attn {

namespace {

std::optional<Failure> eval_reject(Ctx& ctx, Fn fn, const AttnCase& c, const std::string& rid) {
  const std::string why = invalid_reason(c);
  if (why.empty() || invalid_requirement(c) != rid) return std::nullopt;
  const AttnRunResult r = run_attention(ctx.ex, fn, c);
  const std::string sym(symbol(fn));
  Failure f;
  if (!r.outcome.returned()) {
    RunResult rr;
    rr.outcome = r.outcome;
    f = *call_failure(fn, rr);
    f.message = sym + " " + r.outcome.describe() + " on an invalid call (" + why + ") instead of rejecting it";
    return f;
  }
  const std::string clause = rid == "null" ? "ABI-GEN-3" : "ABI-ATTN-1";
  if (r.outcome.rc == 0) {
    f.clause = clause;
    f.kind = "accepted-invalid";
    f.message = sym + " returned 0 for an invalid call: " + why;
    if (!r.guard_violation.empty()) f.notes.push_back("and wrote outside its buffers: " + r.guard_violation);
    f.return_code = 0;
    return f;
  }
  if (!r.unchanged || !r.guards_ok()) {
    f.clause = "ABI-GEN-3";
    f.kind = "rejected-but-wrote";
    f.message = sym + " rejected an invalid call (" + why + ") but changed its output";
    f.return_code = r.outcome.rc;
    return f;
  }
  return std::nullopt;
}

}  // namespace

void add_attention_memory_checks(std::vector<AnyCheck>& out, Fn fn) {
  const std::string p = check_prefix(fn);
  for (const RejectRequirement& req : reject_requirements_attention()) {
    const std::vector<int> branches = req.branches;
    const std::string rid = req.id;
    CheckDef<AttnCase> def{
        p + ".reject." + req.id, req.id == "null" ? "ABI-GEN-3" : "ABI-ATTN-1",
        std::string(req.safety ? "[tier A, safety] " : "[tier B, hygiene: --strict] ") + "calls breaking '" + req.rule +
            "' are rejected with a non-zero return and leave the output untouched",
        fn, req.safety ? 30 : 15,
        [branches](Rng& r, const GenParams& gp) {
          const int b = branches[static_cast<std::size_t>(r.range(0, static_cast<std::int64_t>(branches.size()) - 1))];
          return gen_attention_invalid(r, gp, b);
        },
        [fn, rid](Ctx& ctx, const AttnCase& c) { return eval_reject(ctx, fn, c, rid); }};
    def.valid_cases = false;
    AnyCheck a = make_check<AttnCase>(std::move(def));
    a.strict_only = !req.safety;
    out.push_back(std::move(a));
  }
  out.push_back(make_check<AttnCase>(
      {p + ".bounds", "ABI-GEN-4",
       "valid calls write nothing outside out and lse, nothing into the gaps of the views (ABI-VIEW-2), never into an input",
       fn, 30, gen_attention, [fn](Ctx& ctx, const AttnCase& c) -> std::optional<Failure> {
         if (ctx.domain && !inside(*ctx.domain, c)) return std::nullopt;
         return failed_call(fn, run_attention(ctx.ex, fn, c));
       }}));
  out.push_back(make_check<AttnCase>(
      {p + ".written", "ABI-GEN-5", "every element of out and lse is written (both are poisoned with a NaN payload first)",
       fn, 30, gen_attention, [fn](Ctx& ctx, const AttnCase& c) -> std::optional<Failure> {
         if (ctx.domain && !inside(*ctx.domain, c)) return std::nullopt;
         const AttnRunResult r = run_attention(ctx.ex, fn, c);
         if (auto f = failed_call(fn, r, false)) return f;
         if (r.unwritten == 0) return std::nullopt;
         Failure f;
         f.clause = "ABI-GEN-5";
         f.kind = "unwritten";
         f.message = std::string(symbol(fn)) + " left " + std::to_string(r.unwritten) + " output elements unwritten, first " +
                     r.first_unwritten;
         return f;
       }}));
  out.push_back(make_check<AttnCase>(
      {p + ".determinism", "ABI-GEN-6", "the same call twice gives the same bits", fn, 20, gen_attention,
       [fn](Ctx& ctx, const AttnCase& c) -> std::optional<Failure> {
         if (ctx.domain && !inside(*ctx.domain, c)) return std::nullopt;
         const AttnRunResult a = run_attention(ctx.ex, fn, c);
         if (auto f = failed_call(fn, a, false)) return f;
         AttnRunMode m;
         m.alt_poison = true;
         const AttnRunResult b = run_attention(ctx.ex, fn, c, m);
         if (auto f = failed_call(fn, b, false)) return f;
         for (std::size_t i = 0; i < a.out_bits.size(); ++i) {
           if (a.out_bits[i] == a.poison || b.out_bits[i] == b.poison || a.out_bits[i] == b.out_bits[i]) continue;
           Failure f;
           f.clause = "ABI-GEN-6";
           f.kind = "nondeterministic";
           f.message = std::string(symbol(fn)) + " gave different bits for the same call";
           f.worst = locate_out(c, static_cast<std::int64_t>(i));
           f.worst->expected = a.out[i];
           f.worst->actual = b.out[i];
           return f;
         }
         return std::nullopt;
       }}));
}

}  // namespace pecheck::verifier::attn
