// report.json: the machine-readable form of a VerifyResult, and its reader.
//
// Encoding rules (also in src/report/README.md):
//  - Key order is stable (ordered_json), so the same result gives the same bytes.
//  - Non-finite reals are written as the strings "nan", "inf" and "-inf" (JSON has no
//    literal for them); the reader turns those strings back into doubles.
//  - Text that is not valid UTF-8 (e.g. a message quoting kernel bytes) is written with
//    U+FFFD replacement characters instead of failing.
//  - Float inputs carry a parallel "hex" array (C99 %a) so a counterexample replays bit-exact.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "report/result.hpp"

namespace pecheck::report {

inline constexpr int kJsonSchemaVersion = 1;

nlohmann::ordered_json to_json(const VerifyResult& r);
nlohmann::ordered_json to_json(const CheckResult& c);
nlohmann::ordered_json to_json(const Counterexample& cx);

// Inverse of to_json. Throws pecheck::UsageError with a one-line reason on malformed input.
// Parse with nlohmann::ordered_json (or use verify_result_from_text) to keep the order of
// the ABI arguments; a plain nlohmann::json sorts object keys.
VerifyResult verify_result_from_json(const nlohmann::ordered_json& j);
VerifyResult verify_result_from_json(const nlohmann::json& j);
VerifyResult verify_result_from_text(std::string_view report_json_text);
Counterexample counterexample_from_json(const nlohmann::ordered_json& j);
Counterexample counterexample_from_json(const nlohmann::json& j);

// Serialise with 2-space indentation; never throws on odd text.
std::string render_json(const VerifyResult& r);

// A real as JSON: a number when finite, else "nan" / "inf" / "-inf".
nlohmann::ordered_json json_real(double v);
// Accepts a number or one of the three special strings; throws UsageError otherwise.
double real_from_json(const nlohmann::ordered_json& j);
double real_from_json(const nlohmann::json& j);

}  // namespace pecheck::report
