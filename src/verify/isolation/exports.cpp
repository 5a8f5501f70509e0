#include "verify/isolation/exports.hpp"

#include <cxxabi.h>
#include <elf.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>

#include "core/suggest.hpp"
#include "verify/isolation/kernel_table.hpp"

namespace pecheck::verifier {

namespace {

// Every read is bounds-checked: the file is untrusted and may be truncated or crafted.
template <class T>
bool read_at(const std::string& f, std::uint64_t off, T* out) {
  if (off > f.size() || f.size() - off < sizeof(T)) return false;
  std::memcpy(out, f.data() + off, sizeof(T));
  return true;
}

std::vector<std::string> abi_names() {
  std::vector<std::string> v;
  for (Fn f : kAllFns) v.emplace_back(symbol(f));
  v.emplace_back("pec_abi_version");
  v.emplace_back("pec_domain");
  return v;
}

// The tokens of a name between underscores, sorted: pec_rope_bf16_qk and pec_rope_qk_bf16 agree.
std::vector<std::string> tokens(const std::string& s) {
  std::vector<std::string> t;
  std::stringstream in(s);
  for (std::string p; std::getline(in, p, '_');) {
    if (!p.empty()) t.push_back(p);
  }
  std::sort(t.begin(), t.end());
  return t;
}

std::string nearest_abi(const std::string& name) {
  const auto names = abi_names();
  for (const auto& n : names) {
    if (tokens(n) == tokens(name)) return n;
  }
  std::string best = names.front();
  std::size_t best_d = edit_distance(name, best);
  for (const auto& n : names) {
    const std::size_t d = edit_distance(name, n);
    if (d < best_d) best = n, best_d = d;
  }
  return best;
}

// The identifier of a demangled function name: "pec_rope_qk_bf16" of
// "ns::pec_rope_qk_bf16(pec_rope_qk_args const*, ...)".
std::string identifier_of(const std::string& demangled) {
  std::string s = demangled.substr(0, demangled.find('('));
  const auto colon = s.rfind("::");
  if (colon != std::string::npos) s = s.substr(colon + 2);
  return s;
}

}  // namespace

std::vector<std::string> dynamic_symbols(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  const std::string f((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf64_Ehdr eh;
  if (!read_at(f, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) {
    return out;
  }
  if (eh.e_shentsize != sizeof(Elf64_Shdr)) return out;
  for (std::uint32_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    if (!read_at(f, eh.e_shoff + std::uint64_t{i} * sizeof(Elf64_Shdr), &sh)) return out;
    if (sh.sh_type != SHT_DYNSYM || sh.sh_entsize != sizeof(Elf64_Sym)) continue;
    Elf64_Shdr strtab;
    if (sh.sh_link >= eh.e_shnum || !read_at(f, eh.e_shoff + std::uint64_t{sh.sh_link} * sizeof(Elf64_Shdr), &strtab)) {
      return out;
    }
    if (strtab.sh_offset > f.size() || f.size() - strtab.sh_offset < strtab.sh_size) return out;
    const std::uint64_t n = sh.sh_size / sizeof(Elf64_Sym);
    for (std::uint64_t k = 1; k < n && k < (1u << 20); ++k) {
      Elf64_Sym s;
      if (!read_at(f, sh.sh_offset + k * sizeof(Elf64_Sym), &s)) break;
      const unsigned bind = ELF64_ST_BIND(s.st_info);
      if (s.st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK) || s.st_name >= strtab.sh_size) continue;
      const char* name = f.data() + strtab.sh_offset + s.st_name;
      out.emplace_back(name, strnlen(name, strtab.sh_size - s.st_name));
    }
  }
  return out;
}

std::string StrayExport::describe() const {
  if (mangled) {
    return symbol + " (" + readable + ": a C++ name; declare it extern \"C\" so that it is exported as " + meant + ")";
  }
  return symbol + " (not an ABI name; did you mean " + meant + "?)";
}

std::vector<StrayExport> stray_exports(const std::vector<std::string>& symbols) {
  const auto names = abi_names();
  std::vector<StrayExport> out;
  for (const auto& s : symbols) {
    if (std::find(names.begin(), names.end(), s) != names.end()) continue;
    StrayExport e;
    e.symbol = s;
    e.readable = s;
    if (s.starts_with("_Z")) {
      int st = 0;
      std::unique_ptr<char, decltype(&std::free)> d(abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &st), &std::free);
      if (st != 0 || !d) continue;
      e.readable = d.get();
      const std::string id = identifier_of(e.readable);
      if (!id.starts_with("pec_")) continue;
      e.mangled = true;
      e.meant = nearest_abi(id);
    } else {
      std::string lower = s;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      if (!lower.starts_with("pec_")) continue;
      e.meant = nearest_abi(s);
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace pecheck::verifier
