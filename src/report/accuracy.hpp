// Writers of the accuracy part of a check (report::Accuracy): the grade line, the worst case,
// the profile per position octave and the long-context figures, in text, Markdown and HTML.
// JSON is written by json.cpp with the rest of the check.
#pragma once

#include <string>

#include "report/result.hpp"

namespace pecheck::report {

std::string octave_label(std::int64_t octave);              // "0", "2^0", ..., "2^31"
std::string grade_line(const Accuracy& a);                   // "meets powf 0.34, ...; exceeds ..."
void accuracy_text(std::string& o, const CheckResult& c);    // indented lines under the check
void accuracy_markdown(std::string& o, const VerifyResult& r);  // "## Accuracy" section
void accuracy_html(std::string& o, const CheckResult& c);    // tables + profile plot (inline SVG)

}  // namespace pecheck::report
