// The corpus file format: writer, strict parser, folder loading and atomic storing.
#include "verify/corpus/corpus.hpp"

#include <signal.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "report/write.hpp"
#include "verify/corpus/corpus_builtin.hpp"
#include "verify/gen/rng.hpp"
#include "verify/shard.hpp"

namespace pecheck::verifier {

namespace fs = std::filesystem;

namespace {

// One line of text: newlines and other control characters become spaces.
std::string one_line(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return out;
}

std::string hex_bits(std::uint64_t bits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "nan(0x%" PRIx64 ")", bits);
  return buf;
}

std::string real_text(double v) {
  if (std::isnan(v)) return hex_bits(std::bit_cast<std::uint64_t>(v));
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

std::string float_text(float v) {
  if (std::isnan(v)) return hex_bits(std::bit_cast<std::uint32_t>(v));
  return real_text(static_cast<double>(v));
}

// A token must be a name: letters, digits and . _ - (check names, ABI fields, tensor names).
bool is_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& origin) : text_(text), origin_(origin) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw UsageError("corpus file " + origin_ + (line_no_ ? ", line " + std::to_string(line_no_) : "") + ": " + why);
  }

  bool next_line(std::string_view& line) {
    while (pos_ < text_.size()) {
      const auto nl = text_.find('\n', pos_);
      const auto end = nl == std::string_view::npos ? text_.size() : nl;
      line = text_.substr(pos_, end - pos_);
      pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
      ++line_no_;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.empty() || line.front() == '#') continue;
      return true;
    }
    return false;
  }

  std::int64_t integer(std::string_view s) const {
    std::int64_t v = 0;
    const char* b = s.data();
    const char* e = s.data() + s.size();
    if (b != e && *b == '+') ++b;
    const auto r = std::from_chars(b, e, v);
    if (s.empty() || r.ec != std::errc{} || r.ptr != e) fail("'" + std::string(s.substr(0, 40)) + "' is not a 64-bit integer");
    return v;
  }

  std::uint64_t unsigned_integer(std::string_view s) const {
    std::uint64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc{} || r.ptr != s.data() + s.size()) fail("'" + std::string(s.substr(0, 40)) + "' is not an unsigned 64-bit integer");
    return v;
  }

  // C99 hex float, decimal, inf, -inf, or nan(0xBITS) (`bits64` selects the NaN width).
  double real(std::string_view s, bool bits64) const {
    std::string_view t = s;
    bool neg = false;
    if (!t.empty() && (t.front() == '-' || t.front() == '+')) {
      neg = t.front() == '-';
      t.remove_prefix(1);
    }
    if (t == "inf") return neg ? -HUGE_VAL : HUGE_VAL;
    if (t.starts_with("nan(0x") && t.ends_with(")") && !neg) {
      std::uint64_t bits = 0;
      const auto digits = t.substr(6, t.size() - 7);
      const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), bits, 16);
      if (digits.empty() || r.ec != std::errc{} || r.ptr != digits.data() + digits.size()) fail("bad NaN '" + std::string(s.substr(0, 40)) + "'");
      if (bits64) {
        const double d = std::bit_cast<double>(bits);
        if (!std::isnan(d)) fail("nan(" + std::string(digits) + ") is not a NaN bit pattern");
        return d;
      }
      if (bits > 0xffffffffu || !std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(bits)))) {
        fail("nan(" + std::string(digits) + ") is not a float NaN bit pattern");
      }
      return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
    }
    double v = 0;
    std::from_chars_result r{};
    if (t.starts_with("0x") || t.starts_with("0X")) {
      const auto h = t.substr(2);
      r = std::from_chars(h.data(), h.data() + h.size(), v, std::chars_format::hex);
      if (h.empty() || r.ec != std::errc{} || r.ptr != h.data() + h.size()) fail("'" + std::string(s.substr(0, 40)) + "' is not a real");
    } else {
      r = std::from_chars(t.data(), t.data() + t.size(), v, std::chars_format::general);
      if (t.empty() || r.ec != std::errc{} || r.ptr != t.data() + t.size()) fail("'" + std::string(s.substr(0, 40)) + "' is not a real");
    }
    if (!std::isfinite(v)) fail("'" + std::string(s.substr(0, 40)) + "' is out of range");
    return neg ? -v : v;
  }

  float single(std::string_view s) const {
    if (s.starts_with("nan(")) {
      // Straight from the bits: a float -> double -> float trip would quiet a signalling NaN.
      std::uint32_t bits = 0;
      const auto d = s.substr(4, s.size() - 4);
      const auto r = std::from_chars(d.data() + std::min<std::size_t>(2, d.size()), d.data() + d.size(), bits, 16);
      if (!d.starts_with("0x") || !s.ends_with(")") || r.ptr != d.data() + d.size() - 1 || r.ec != std::errc{} ||
          !std::isnan(std::bit_cast<float>(bits))) {
        fail("'" + std::string(s.substr(0, 40)) + "' is not a float NaN bit pattern nan(0xBITS)");
      }
      return std::bit_cast<float>(bits);
    }
    const double d = real(s, false);
    const float f = static_cast<float>(d);
    if (std::isfinite(d) && static_cast<double>(f) != d) fail("'" + std::string(s.substr(0, 40)) + "' is not exactly a float");
    return f;
  }

  static std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    std::size_t p = 0;
    while (p <= s.size()) {
      const auto q = s.find(sep, p);
      const auto e = q == std::string_view::npos ? s.size() : q;
      if (e > p) out.push_back(s.substr(p, e - p));
      if (q == std::string_view::npos) break;
      p = q + 1;
    }
    return out;
  }

  std::size_t line_no() const { return line_no_; }

 private:
  std::string_view text_;
  const std::string& origin_;
  std::size_t pos_ = 0;
  std::size_t line_no_ = 0;
};

std::pair<std::string_view, std::string_view> key_value(std::string_view line) {
  const auto sp = line.find(' ');
  if (sp == std::string_view::npos) return {line, {}};
  return {line.substr(0, sp), line.substr(sp + 1)};
}

report::ArgValue parse_arg_value(const Parser& p, std::string_view type, std::string_view rest) {
  if (type == "null") {
    if (!rest.empty()) p.fail("a null argument has no value");
    return std::monostate{};
  }
  if (type == "int") return p.integer(rest);
  if (type == "real") return p.real(rest, true);
  if (type == "text") return std::string(rest);
  const auto items = Parser::split(rest, ' ');
  if (items.size() > kCorpusMaxElements) p.fail("more than " + std::to_string(kCorpusMaxElements) + " values");
  if (type == "ints") {
    std::vector<std::int64_t> v;
    v.reserve(items.size());
    for (auto s : items) v.push_back(p.integer(s));
    return v;
  }
  if (type == "reals") {
    std::vector<double> v;
    v.reserve(items.size());
    for (auto s : items) v.push_back(p.real(s, true));
    return v;
  }
  p.fail("unknown argument type '" + std::string(type.substr(0, 20)) + "' (null, int, real, text, ints, reals)");
}

std::string arg_line(const report::Arg& a) {
  std::string s = "arg " + a.name + " ";
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          s += "null";
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          s += "int " + std::to_string(v);
        } else if constexpr (std::is_same_v<T, double>) {
          s += "real " + real_text(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          s += "text " + one_line(v);
        } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
          s += "ints";
          for (auto x : v) s += " " + std::to_string(x);
        } else {
          s += "reals";
          for (auto x : v) s += " " + real_text(x);
        }
      },
      a.value);
  return s;
}

std::string tensor_line(const report::Tensor& t) {
  std::string s = "tensor " + t.name + " ";
  if (t.shape.empty()) s += "-";
  for (std::size_t i = 0; i < t.shape.size(); ++i) s += (i ? "," : "") + std::to_string(t.shape[i]);
  for (float v : t.values) s += " " + float_text(v);
  return s;
}

// Arguments and inputs, the part of a file that identifies the case.
std::string case_body(const CorpusEntry& e) {
  std::string s;
  for (const auto& a : e.args) s += arg_line(a) + "\n";
  for (const auto& t : e.inputs) s += tensor_line(t) + "\n";
  return s;
}

}  // namespace

std::string CorpusEntry::file_name() const {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, fnv1a(check + "\n" + case_body(*this)));
  return check + "-" + buf + ".case";
}

std::string render_corpus_entry(const CorpusEntry& e) {
  std::ostringstream o;
  o << "# pecheck failure corpus: one counterexample, replayed by `pecheck verify --corpus DIR`\n"
    << "# before any random search (README, \"CI gate\"). Reals are C99 hex floats (bit-exact).\n"
    << "pecheck-corpus " << kCorpusFormat << "\n"
    << "check " << e.check << "\n"
    << "function " << e.function << "\n"
    << "clause " << one_line(e.clause) << "\n"
    << "kind " << one_line(e.kind) << "\n"
    << "message " << one_line(e.message) << "\n"
    << "seed " << e.seed << "\n"
    << "case-index " << e.case_index << "\n"
    << "kernel " << one_line(e.kernel) << "\n"
    << "kernel-id " << one_line(e.kernel_id) << "\n"
    << "pecheck-version " << one_line(e.pecheck_version) << "\n"
    << "contract " << one_line(e.contract) << "\n"
    << "max-position " << e.max_position << "\n"
    << case_body(e) << "end\n";
  return o.str();
}

CorpusEntry parse_corpus_entry(std::string_view text, const std::string& origin) {
  Parser p(text, origin);
  if (text.size() > kCorpusMaxFileBytes) p.fail("larger than " + std::to_string(kCorpusMaxFileBytes >> 20) + " MiB");
  CorpusEntry e;
  e.source = origin;
  std::string_view line;
  if (!p.next_line(line)) p.fail("empty (expected 'pecheck-corpus " + std::to_string(kCorpusFormat) + "')");
  {
    auto [k, v] = key_value(line);
    if (k != "pecheck-corpus") p.fail("not a pecheck corpus file (it must start with 'pecheck-corpus 1')");
    if (p.integer(v) != kCorpusFormat) p.fail("format " + std::string(v.substr(0, 20)) + " is not supported (this pecheck reads format 1)");
  }
  bool ended = false, have_check = false, have_function = false;
  while (p.next_line(line)) {
    if (ended) p.fail("text after 'end'");
    auto [k, v] = key_value(line);
    if (k == "end") {
      if (!v.empty()) p.fail("'end' takes no value");
      ended = true;
    } else if (k == "check") {
      if (!is_name(v)) p.fail("bad check name");
      e.check = v, have_check = true;
    } else if (k == "function") {
      if (!is_name(v)) p.fail("bad function name");
      e.function = v, have_function = true;
    } else if (k == "clause") {
      e.clause = v;
    } else if (k == "kind") {
      e.kind = v;
    } else if (k == "message") {
      e.message = v;
    } else if (k == "seed") {
      e.seed = p.unsigned_integer(v);
    } else if (k == "case-index") {
      e.case_index = p.integer(v);
    } else if (k == "kernel") {
      e.kernel = v;
    } else if (k == "kernel-id") {
      e.kernel_id = v;
    } else if (k == "pecheck-version") {
      e.pecheck_version = v;
    } else if (k == "contract") {
      e.contract = v;
    } else if (k == "max-position") {
      e.max_position = p.integer(v);
    } else if (k == "arg") {
      auto [name, rest] = key_value(v);
      auto [type, value] = key_value(rest);
      if (!is_name(name)) p.fail("bad argument name");
      for (const auto& a : e.args) {
        if (a.name == name) p.fail("argument '" + std::string(name) + "' given twice");
      }
      e.args.push_back({std::string(name), parse_arg_value(p, type, value)});
    } else if (k == "tensor") {
      auto [name, rest] = key_value(v);
      auto [shape, values] = key_value(rest);
      if (!is_name(name)) p.fail("bad tensor name");
      for (const auto& t : e.inputs) {
        if (t.name == name) p.fail("tensor '" + std::string(name) + "' given twice");
      }
      report::Tensor t;
      t.name = name;
      if (shape != "-") {
        const auto dims = Parser::split(shape, ',');
        if (dims.empty() || dims.size() > 8) p.fail("a tensor shape has 1 to 8 comma-separated dimensions");
        for (auto d : dims) t.shape.push_back(p.integer(d));
      }
      const auto items = Parser::split(values, ' ');
      if (items.size() > kCorpusMaxElements) p.fail("more than " + std::to_string(kCorpusMaxElements) + " values");
      t.values.reserve(items.size());
      for (auto s : items) t.values.push_back(p.single(s));
      e.inputs.push_back(std::move(t));
    } else {
      p.fail("unknown key '" + std::string(k.substr(0, 30)) + "'");
    }
  }
  if (!ended) p.fail("no final 'end' line (the file is truncated)");
  if (!have_check || !have_function) p.fail("'check' and 'function' are required");
  return e;
}

CorpusEntry corpus_entry_from(const report::CheckResult& check, const report::RunOptions& options,
                              const std::string& kernel, const std::string& kernel_id) {
  CorpusEntry e;
  e.check = check.name;
  e.function = check.function;
  e.seed = options.seed;
  e.kernel = kernel;
  e.kernel_id = kernel_id;
  e.pecheck_version = PECHECK_VERSION;
  e.contract = options.contract;
  e.max_position = options.max_position;
  if (check.counterexample) {
    const auto& cx = *check.counterexample;
    e.clause = cx.clause;
    e.kind = cx.kind;
    e.message = cx.message;
    for (const auto& a : cx.args) {
      if (a.name == "case_index") {
        if (const auto* i = std::get_if<std::int64_t>(&a.value)) e.case_index = *i;
      } else {
        e.args.push_back(a);
      }
    }
    e.inputs = cx.inputs;
    if (e.case_index < 0) e.case_index = case_index_of(cx);
  }
  return e;
}

std::string kernel_identity(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::uint64_t h = 0xcbf29ce484222325ull, n = 0;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h ^= static_cast<unsigned char>(buf[i]);
      h *= 0x100000001b3ull;
    }
    n += static_cast<std::uint64_t>(in.gcount());
  }
  char out[64];
  std::snprintf(out, sizeof out, "fnv1a64=%016" PRIx64 " bytes=%" PRIu64, h, n);
  return out;
}

std::vector<CorpusEntry> load_corpus_dir(const fs::path& dir) {
  std::vector<CorpusEntry> out;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return out;
  if (!fs::is_directory(dir, ec)) throw UsageError("--corpus " + dir.string() + " is not a folder");
  std::vector<fs::path> files;
  fs::directory_iterator it(dir, ec);
  if (ec) throw UsageError("cannot read corpus folder " + dir.string() + ": " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw UsageError("cannot read corpus folder " + dir.string() + ": " + ec.message());
    if (it->path().extension() == ".case") files.push_back(it->path());
  }
  if (ec) throw UsageError("cannot read corpus folder " + dir.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) throw UsageError("cannot read corpus file " + f.string() + ": " + std::strerror(errno));
    std::string text;
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
      text.append(buf, static_cast<std::size_t>(in.gcount()));
      if (text.size() > kCorpusMaxFileBytes) break;
    }
    if (in.bad()) throw UsageError("cannot read corpus file " + f.string() + ": read error");
    out.push_back(parse_corpus_entry(text, f.string()));
  }
  return out;
}

fs::path store_corpus_entry(const fs::path& dir, const CorpusEntry& e) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw IoError("cannot create corpus folder " + dir.string() + ": " + (ec ? ec.message() : std::string("not a directory")));
  }
  const fs::path path = dir / e.file_name();
  if (fs::exists(path, ec)) return path;
  // SIGINT/SIGTERM wait until the file is complete (the CLI exits 130 right after).
  sigset_t hold, old;
  sigemptyset(&hold);
  sigaddset(&hold, SIGINT);
  sigaddset(&hold, SIGTERM);
  sigprocmask(SIG_BLOCK, &hold, &old);
  try {
    report::write_file_atomic(path, render_corpus_entry(e));
  } catch (...) {
    sigprocmask(SIG_SETMASK, &old, nullptr);
    throw;
  }
  sigprocmask(SIG_SETMASK, &old, nullptr);
  return path;
}

std::vector<CorpusEntry> builtin_regressions() {
  std::vector<CorpusEntry> out;
  for (std::size_t i = 0; i < builtin::kRegressionCount; ++i) {
    out.push_back(parse_corpus_entry(builtin::kRegressions[i].text,
                                     std::string("regressions/") + builtin::kRegressions[i].name));
  }
  return out;
}

}  // namespace pecheck::verifier
