// What a plug-in library exports beyond the ABI (issue 20, finding 2): the dynamic symbols of
// its ELF file, read from the file itself (nothing is loaded), and each `pec_*`-looking export
// that is not a function of spec/pecheck_kernel.h, with the ABI name it was probably meant to be
// and whether it is a C++ mangled name (the declaration lacks extern "C").
#pragma once

#include <string>
#include <vector>

namespace pecheck::verifier {

// Names of the defined global or weak symbols in the file's .dynsym; empty when the file is not
// a readable ELF object of this host's class (check_library_file reports that).
std::vector<std::string> dynamic_symbols(const std::string& path);

struct StrayExport {
  std::string symbol;     // as exported, e.g. "pec_rope_bf16_qk" or "_Z16pec_rope_qk_bf16PK..."
  std::string readable;   // demangled when mangled, else the symbol
  std::string meant;      // the closest ABI name ("pec_rope_qk_bf16")
  bool mangled = false;   // a C++ name: extern "C" is missing
  std::string describe() const;  // "pec_rope_bf16_qk (did you mean pec_rope_qk_bf16?)", ...
};

// Exports that look like ABI functions (a pec_ name, mangled or not) but are not one of the
// header's names (the functions, pec_abi_version, pec_domain).
std::vector<StrayExport> stray_exports(const std::vector<std::string>& symbols);

}  // namespace pecheck::verifier
