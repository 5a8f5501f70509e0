// Clause traceability (spec/README.md): every clause defined in any spec/*.md — a line that
// starts with `- **ID**` — must be cited by at least one file under tests/, properties/ or
// proofs/, and must have a row `| ID | file(s) |` in spec/README.md's traceability table whose
// files exist and cite it. The unchecked clauses are printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
const fs::path kRoot = PECHECK_SOURCE_DIR;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool is_id_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

// True when `id` occurs in `text` as a whole token (ROPE-ARG-1 does not match ROPE-ARG-10).
bool cites(const std::string& text, const std::string& id) {
  for (std::size_t pos = text.find(id); pos != std::string::npos; pos = text.find(id, pos + 1)) {
    const bool left = pos == 0 || !is_id_char(text[pos - 1]);
    const std::size_t end = pos + id.size();
    const bool right = end >= text.size() || !is_id_char(text[end]);
    if (left && right) return true;
  }
  return false;
}

struct Clause {
  std::string id;
  std::string doc;
};

std::vector<Clause> defined_clauses() {
  static const std::regex def(R"(^- \*\*([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)\*\*)");
  std::vector<Clause> out;
  for (const auto& e : fs::directory_iterator(kRoot / "spec")) {
    if (e.path().extension() != ".md") continue;
    std::ifstream in(e.path());
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (std::regex_search(line, m, def))
        out.push_back({m[1].str(), e.path().filename().string()});
    }
  }
  std::sort(out.begin(), out.end(), [](const Clause& a, const Clause& b) { return a.id < b.id; });
  return out;
}

// Files that may cite a clause: tests/, properties/, proofs/ (text sources only).
std::map<std::string, std::string> citing_files() {
  static const std::set<std::string> exts = {".cpp", ".hpp", ".h",   ".c",     ".cc",
                                             ".cu",  ".cuh", ".txt", ".cmake", ".md",
                                             ".tsv", ".py",  ".sh",  ".smt2",  ".json"};
  std::map<std::string, std::string> out;
  for (const char* dir : {"tests", "properties", "proofs"}) {
    if (!fs::exists(kRoot / dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(kRoot / dir)) {
      if (!e.is_regular_file() || !exts.count(e.path().extension().string())) continue;
      if (e.path().filename() == "traceability_test.cpp") continue;  // this checker cites nothing
      out[fs::relative(e.path(), kRoot).string()] = slurp(e.path());
    }
  }
  return out;
}

// spec/README.md's table after "## Traceability": ID -> listed files.
std::map<std::string, std::vector<std::string>> table_rows() {
  static const std::regex row(R"(^\|\s*([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)\s*\|([^|]*)\|)");
  std::map<std::string, std::vector<std::string>> out;
  std::ifstream in(kRoot / "spec" / "README.md");
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) in_table = line.find("Traceability") != std::string::npos;
    std::smatch m;
    if (!in_table || !std::regex_search(line, m, row)) continue;
    std::istringstream files(m[2].str());
    auto& v = out[m[1].str()];
    for (std::string f; files >> f;) {
      f.erase(std::remove(f.begin(), f.end(), '`'), f.end());
      if (!f.empty() && f != ",") v.push_back(f.back() == ',' ? f.substr(0, f.size() - 1) : f);
    }
  }
  return out;
}

TEST(SpecTraceability, ClausesAreDefinedOnce) {
  const auto cl = defined_clauses();
  ASSERT_FALSE(cl.empty()) << "no clauses found under " << (kRoot / "spec");
  for (std::size_t i = 1; i < cl.size(); ++i) {
    EXPECT_NE(cl[i].id, cl[i - 1].id)
        << cl[i].id << " defined twice (" << cl[i - 1].doc << ", " << cl[i].doc << ")";
  }
}

TEST(SpecTraceability, EveryClauseIsCitedByATestPropertyOrProof) {
  const auto files = citing_files();
  std::vector<std::string> unchecked;
  for (const auto& c : defined_clauses()) {
    const bool cited = std::any_of(files.begin(), files.end(),
                                   [&](const auto& f) { return cites(f.second, c.id); });
    if (!cited) unchecked.push_back(c.id + " (" + c.doc + ")");
  }
  std::string list;
  for (const auto& u : unchecked) list += "  " + u + "\n";
  EXPECT_TRUE(unchecked.empty()) << unchecked.size()
                                 << " clause(s) not cited under tests/, properties/ or proofs/:\n"
                                 << list;
}

TEST(SpecTraceability, EveryClauseHasARowWhoseFilesCiteIt) {
  const auto rows = table_rows();
  const auto files = citing_files();
  std::vector<std::string> problems;
  for (const auto& c : defined_clauses()) {
    const auto it = rows.find(c.id);
    if (it == rows.end() || it->second.empty()) {
      std::string suggestion;  // the files that cite it today, as a ready-made row
      for (const auto& [path, text] : files) {
        if (cites(text, c.id)) suggestion += (suggestion.empty() ? "" : " ") + path;
      }
      problems.push_back(c.id + " (" + c.doc + "): no row in spec/README.md's traceability table" +
                         (suggestion.empty()
                              ? std::string(" and no citing file")
                              : "; suggested row: | " + c.id + " | " + suggestion + " |"));
      continue;
    }
    for (const auto& f : it->second) {
      if (!fs::exists(kRoot / f)) {
        problems.push_back(c.id + ": listed file " + f + " does not exist");
      } else if (!cites(slurp(kRoot / f), c.id)) {
        problems.push_back(c.id + ": listed file " + f + " does not cite it");
      }
    }
  }
  std::set<std::string> defined;
  for (const auto& c : defined_clauses()) defined.insert(c.id);
  for (const auto& [id, files] : rows) {
    if (!defined.count(id)) problems.push_back(id + ": row for a clause no spec/*.md defines");
  }
  std::string list;
  for (const auto& p : problems) list += "  " + p + "\n";
  EXPECT_TRUE(problems.empty()) << problems.size() << " traceability problem(s):\n" << list;
}

}  // namespace
