#include "report/write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"
#include "report/json.hpp"

namespace pecheck::report {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& path, int err) {
  throw IoError("cannot write " + path.string() + ": " + std::strerror(err));
}

// A temporary file next to `path`, written in full and flushed; returns its name.
fs::path write_temp(const fs::path& path, std::string_view content) {
  fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::string name = ".";  // appended, not "." + string&& (GCC 12 -Wrestrict false positive)
  name += path.filename().string();
  name += ".tmp.";
  name.append(6, 'X');  // mkstemp replaces the six trailing X
  std::string tmpl = (dir / name).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) fail(path, errno);
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(tmpl.c_str());
      fail(path, err);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
    int err = errno;
    ::close(fd);
    ::unlink(tmpl.c_str());
    fail(path, err);
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    fail(path, err);
  }
  ::chmod(tmpl.c_str(), 0644);
  return tmpl;
}

}  // namespace

void write_file_atomic(const fs::path& path, std::string_view content) {
  write_files_atomic({{path, std::string(content)}});
}

void write_files_atomic(const std::vector<std::pair<fs::path, std::string>>& files) {
  std::vector<fs::path> temps;
  try {
    for (const auto& [path, content] : files) temps.push_back(write_temp(path, content));
  } catch (...) {
    for (const auto& t : temps) ::unlink(t.c_str());
    throw;
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (::rename(temps[i].c_str(), files[i].first.c_str()) != 0) {
      int err = errno;
      for (std::size_t k = i; k < temps.size(); ++k) ::unlink(temps[k].c_str());
      fail(files[i].first, err);
    }
  }
}

ReportPaths write_report_dir(const fs::path& dir, const VerifyResult& r) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw IoError("cannot create report folder " + dir.string() + ": " +
                  (ec ? ec.message() : std::string("not a directory")));
  }
  ReportPaths p{dir / "report.json", dir / "report.md", dir / "report.html"};
  write_files_atomic({{p.json, render_json(r)},
                      {p.markdown, render_markdown(r)},
                      {p.html, render_html(r)}});
  return p;
}

void write_junit(const fs::path& file, const VerifyResult& r) {
  // A missing parent folder is created, as --report creates its folder (issue 22, item 7).
  if (file.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    if (ec || !fs::is_directory(file.parent_path())) {
      throw IoError("cannot create the folder of " + file.string() + ": " +
                    (ec ? ec.message() : std::string("not a directory")));
    }
  }
  write_file_atomic(file, render_junit(r));
}

std::string utf8_sanitize(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = len > 0 && i + len <= s.size();
    for (std::size_t k = 1; ok && k < len; ++k) {
      ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    }
    if (ok && len == 2) ok = c >= 0xC2;  // no overlong 2-byte forms
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

std::string xml_escape(std::string_view raw) {
  const std::string s = utf8_sanitize(raw);
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // XML 1.0 forbids most control characters even as references.
        if (c < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') {
          out += '?';
        } else {
          out += ch;
        }
    }
  }
  return out;
}

std::string markdown_cell(std::string_view raw) {
  std::string out;
  for (char ch : utf8_sanitize(raw)) {
    if (ch == '|') {
      out += "\\|";
    } else if (ch == '\n' || ch == '\r' || ch == '\t') {
      out += ' ';
    } else if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) {
      out += '?';
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace pecheck::report
