// Writing reports: renderers (pure functions of a VerifyResult) and atomic file output.
//
// Every file is first written in full to a temporary file in the destination folder, flushed
// to disk, then renamed over the destination, so a reader never sees a partial report —
// whether the disk fills, the folder is read-only or the run is interrupted. A failure
// throws pecheck::IoError with one line naming the file and the system's reason, and leaves
// no temporary file behind.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/result.hpp"

namespace pecheck::report {

std::string render_markdown(const VerifyResult& r);  // report.md
std::string render_html(const VerifyResult& r);      // report.html: self-contained, inline SVG
std::string render_junit(const VerifyResult& r);     // JUnit XML: one testcase per check
std::string render_text(const VerifyResult& r);      // terminal summary (no colours)

// Compact forms of a counterexample (report/console.cpp), shared by the terminal and report.html:
std::string args_text(const std::vector<Arg>& args);         // `layout=neox, positions=[1]`; a NULL
                                                             // inv_freq (the default) left out
std::string inputs_text(const std::vector<Tensor>& inputs);  // `k=[0, 0, 0, 1]` (16 values at most)
std::string worst_text(const Counterexample& cx);            // `at k_out[token=0, ...]: expected ...`
std::string storage_of(const std::string& function);         // "bf16", "fp16" or "float32"

// Writes `content` to `path` atomically (temp file in the same folder + fsync + rename).
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// Writes every file to its temporary first and renames only when all were written, so a
// failure leaves none of the destinations changed.
void write_files_atomic(const std::vector<std::pair<std::filesystem::path, std::string>>& files);

struct ReportPaths {
  std::filesystem::path json, markdown, html;
};

// Creates `dir` (and parents) when missing and writes report.json, report.md and report.html.
ReportPaths write_report_dir(const std::filesystem::path& dir, const VerifyResult& r);

// Writes JUnit XML to `file`, creating its folder when missing (as write_report_dir does).
void write_junit(const std::filesystem::path& file, const VerifyResult& r);

// Escaping used by the writers, exposed for tests.
std::string xml_escape(std::string_view s);       // & < > " ' and control characters
std::string markdown_cell(std::string_view s);    // one table cell: | and newlines escaped
std::string utf8_sanitize(std::string_view s);    // invalid UTF-8 bytes -> U+FFFD

}  // namespace pecheck::report
