#include "xml_check.hpp"

#include <cctype>
#include <set>
#include <vector>

namespace pecheck::testing {

namespace {

bool entity_ok(std::string_view doc, std::size_t amp) {
  static const std::set<std::string> known = {"amp", "lt", "gt", "quot", "apos", "#39"};
  auto semi = doc.find(';', amp);
  if (semi == std::string_view::npos || semi - amp > 8) return false;
  return known.count(std::string(doc.substr(amp + 1, semi - amp - 1))) > 0;
}

std::string check_text(std::string_view doc, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to; ++i) {
    unsigned char c = static_cast<unsigned char>(doc[i]);
    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') return "control character at " + std::to_string(i);
    if (doc[i] == '&' && !entity_ok(doc, i)) return "bare '&' at " + std::to_string(i);
  }
  return "";
}

}  // namespace

std::string xml_problem(std::string_view doc, bool html) {
  static const std::set<std::string> voids = {"meta", "br", "hr", "img", "input", "link"};
  std::vector<std::string> stack;
  std::size_t i = 0;
  while (i < doc.size()) {
    auto lt = doc.find('<', i);
    if (auto p = check_text(doc, i, lt == std::string_view::npos ? doc.size() : lt); !p.empty()) return p;
    if (lt == std::string_view::npos) break;
    auto gt = doc.find('>', lt);
    if (gt == std::string_view::npos) return "unclosed tag at " + std::to_string(lt);
    std::string_view tag = doc.substr(lt + 1, gt - lt - 1);
    // A '>' inside a quoted attribute value would end the tag early: find the real end.
    bool in_quote = false;
    std::size_t k = lt + 1;
    for (; k < doc.size(); ++k) {
      if (doc[k] == '"') in_quote = !in_quote;
      if (doc[k] == '<' && !in_quote) return "'<' inside tag at " + std::to_string(k);
      if (doc[k] == '>' && !in_quote) break;
    }
    if (k >= doc.size()) return "unterminated tag at " + std::to_string(lt);
    gt = k;
    tag = doc.substr(lt + 1, gt - lt - 1);
    i = gt + 1;
    if (tag.starts_with("?") || tag.starts_with("!")) {
      if (!html && tag.starts_with("!")) return "declaration in XML at " + std::to_string(lt);
      continue;
    }
    if (auto p = check_text(doc, lt + 1, gt); !p.empty()) return "in tag: " + p;
    bool closing = tag.starts_with("/");
    bool self = tag.ends_with("/");
    std::size_t start = closing ? 1 : 0;
    std::size_t end = start;
    while (end < tag.size() && (std::isalnum(static_cast<unsigned char>(tag[end])) || tag[end] == '-' ||
                                tag[end] == ':' || tag[end] == '_')) {
      ++end;
    }
    std::string name(tag.substr(start, end - start));
    if (name.empty()) return "empty tag name at " + std::to_string(lt);
    // Attributes: name="value" pairs only.
    std::string_view rest = tag.substr(end, tag.size() - end - (self ? 1 : 0));
    std::size_t q = 0;
    while (q < rest.size()) {
      while (q < rest.size() && std::isspace(static_cast<unsigned char>(rest[q]))) ++q;
      if (q >= rest.size()) break;
      auto eq = rest.find('=', q);
      if (eq == std::string_view::npos || eq + 1 >= rest.size() || rest[eq + 1] != '"') {
        return "unquoted attribute in <" + name + "> at " + std::to_string(lt);
      }
      auto close = rest.find('"', eq + 2);
      if (close == std::string_view::npos) return "unterminated attribute at " + std::to_string(lt);
      q = close + 1;
    }
    if (closing) {
      if (stack.empty() || stack.back() != name) {
        return "mismatched </" + name + "> at " + std::to_string(lt) +
               (stack.empty() ? "" : " (open: <" + stack.back() + ">)");
      }
      stack.pop_back();
    } else if (!self && !(html && voids.count(name))) {
      stack.push_back(name);
    }
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  return "";
}

}  // namespace pecheck::testing
