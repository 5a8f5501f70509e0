// What a run selects, judged against the library it runs on (issue 20 finding 1, issue 22 item
// 7): --only and --accuracy use one naming scheme for every function — `scheme[.dtype][.check]`
// ("rope.oracle", "rope_qk.bf16.oracle", "mrope.f16"; float32's checks carry no dtype part, and
// "rope.f32.oracle" names rope.oracle) — and an entry that names nothing the library
// exports, or a run in which no check would run, is a usage error that names what exists.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verify/checks/check.hpp"
#include "verify/gen/domain.hpp"
#include "verify/isolation/worker.hpp"
#include "verify/verify.hpp"

namespace pecheck::verifier {

// --only S selects check `name`: its name, a prefix of dotted parts ("rope", "rope.reject") or a
// family (".reject", ".bounds": every check with that part). "scheme.f32[...]" names the float32
// function's checks (whose names carry no dtype part).
bool only_matches(const std::string& s, const std::string& name);

// Every --only entry names a check of the catalogue (else: usage error with "did you mean").
void validate_only_names(const std::vector<std::string>& only, const std::vector<AnyCheck>& catalogue);

// Against the library's exports (mask): every --only entry selects a check of an exported
// function, every --accuracy key applies to an exported function that has the class. Throws
// UsageError naming what the library does export. Returns notes for keys that apply to some of
// the functions they name but not all (those are judged by their default class).
std::vector<std::string> validate_for_library(const VerifyOptions& o, std::uint32_t mask,
                                              const std::vector<AnyCheck>& catalogue);

// The --accuracy keys of one function ("rope_qk", "rope_qk.bf16") and its classes.
std::string accuracy_keys_of(Fn f);

// One line per check of an exported function: name, function, clause, and when it runs.
std::vector<std::string> list_checks(std::uint32_t mask, const std::vector<AnyCheck>& catalogue);

// Whether the run's options select a check (--only), and let it run without --strict.
bool selected(const VerifyOptions& o, const AnyCheck& c);
bool strict_allows(const VerifyOptions& o, const AnyCheck& c);
// The RoPE families whose oracle checks measure the position error (--require-resolved).
bool is_rope_like(Fn f);

// Why a selection that runs no check runs none (the text of the usage error; a run that checks
// nothing must never pass, issue 20 finding 1), naming what would make checks run.
std::string nothing_runs(const VerifyOptions& o, const LibraryInfo& info, const std::vector<AnyCheck>& checks,
                         const Domain& domain);

// Exports that look like ABI functions but are not (info.stray_exports; issue 20, finding 2): a
// "warning: " note by default, and under --strict also a failing check `abi.exports`.
void add_stray_exports(VerifyResult& res, const LibraryInfo& info, const VerifyOptions& o);

// --require-resolved P (issue 20, finding 7; spec/contracts.md PREC-CLASS-4): every RoPE oracle
// check that passed fails when a tested position <= P is not resolved.
void require_resolved(VerifyResult& res, const VerifyOptions& o);

}  // namespace pecheck::verifier
