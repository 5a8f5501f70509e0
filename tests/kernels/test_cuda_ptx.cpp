// Inspects the PTX nvcc generates for the CUDA kernels (built with the library's own flags,
// src/kernels/cuda/CMakeLists.txt) and fails on what the design does not intend:
//   - approximate instructions (sin/cos/ex2/lg2/rcp/rsqrt/div .approx, div.full): the design
//     computes cos/sin by the double-double reduction and polynomials of rope_angle.hpp;
//   - fused multiply-adds on floating point (fma/mad .f32/.f64) beyond the 4 explicit
//     __fma_rn of the exact products (two_prod) in the cos/sin table kernel: any other one is
//     a contraction the compiler made.
// A negative control, the same source compiled with -fmad=true, must be flagged. The version 2
// kernels (kernels_v2.cu) are inspected the same way, and their launches are checked to keep
// kernels.cu's launch shape (the one the launch proof, PROOF-IDX-2, models).
// Clause: ABI-ROPE-2 ABI-ALIBI-2 ABI-QK-2 ABI-CACHE-3
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace {

struct KernelOps {
  int fma_f32 = 0, fma_f64 = 0, approx = 0;
};

// Counts per .entry (kernel) of the PTX text.
std::map<std::string, KernelOps> scan(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::map<std::string, KernelOps> out;
  const std::regex entry(R"(\.entry\s+([A-Za-z0-9_]+))");
  const std::regex fma32(R"(\b(fma|mad)(\.[a-z]+)*\.f32\b)");
  const std::regex fma64(R"(\b(fma|mad)(\.[a-z]+)*\.f64\b)");
  const std::regex approx(R"(\.approx\b|\bdiv\.full\b)");
  std::string line, current = "(none)";
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entry)) current = m[1];
    KernelOps& k = out[current];
    if (std::regex_search(line, fma32)) ++k.fma_f32;
    if (std::regex_search(line, fma64)) ++k.fma_f64;
    if (std::regex_search(line, approx)) ++k.approx;
  }
  return out;
}

// The explicit fused operations of the design: 4 per cos/sin evaluation (rope_angle.hpp's
// two_prod calls), only in the table kernels (version 1's rope_table_kernel and version 2's
// table_attn_kernel); none anywhere else.
std::string violations(const std::map<std::string, KernelOps>& ops) {
  std::ostringstream why;
  for (const auto& [name, k] : ops) {
    const bool table = name.find("rope_table_kernel") != std::string::npos ||
                       name.find("table_attn_kernel") != std::string::npos;
    const int allowed_f64 = table ? 4 : 0;
    if (k.approx) why << name << ": " << k.approx << " approximate instruction(s); ";
    if (k.fma_f32) why << name << ": " << k.fma_f32 << " contracted f32 multiply-add(s); ";
    if (k.fma_f64 != allowed_f64 && (k.fma_f64 > allowed_f64 || table)) {
      why << name << ": " << k.fma_f64 << " f64 fma (design: " << allowed_f64 << "); ";
    }
  }
  return why.str();
}

TEST(CudaPtx, KernelsHaveNoApproximateOrContractedArithmetic) {
  auto ops = scan(PECHECK_CUDA_PTX);
  for (const auto& [name, k] : scan(PECHECK_CUDA_PTX_V2)) ops[name] = k;
  int kernels = 0;
  for (const auto& [name, k] : ops) kernels += name != "(none)";
  // Version 1: rope table/rotate/rotate4/pass, alibi, t5 (6). Version 2: table_attn, rotate and
  // cache_row per storage format (7), alibi16 and sinusoidal16 per 16-bit format (4), t5_16,
  // learned16 (2).
  EXPECT_EQ(kernels, 19) << "expected the 6 version 1 and 13 version 2 kernels";
  EXPECT_EQ(violations(ops), "");
}

TEST(CudaPtx, NegativeControlWithContractionIsFlagged) {
  const auto ops = scan(PECHECK_CUDA_PTX_FMAD);
  EXPECT_NE(violations(ops), "") << "the inspection did not notice -fmad=true";
}

std::string read_source(const std::string& rel) {
  std::ifstream in(std::string(PECHECK_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// kernels_v2.cu launches exactly as kernels.cu does: the same block size, block count and
// 32-bit guard (textually), every launch with blocks_for(n) blocks of kBlock threads after a
// fits32 guard, every thread given its (blockIdx.x, blockDim.x, threadIdx.x).
TEST(CudaPtx, Version2KernelsKeepTheModelledLaunchShape) {
  const std::string v1 = read_source("src/kernels/cuda/kernels.cu");
  const std::string v2 = read_source("src/kernels/cuda/kernels_v2.cu");
  ASSERT_FALSE(v1.empty());
  ASSERT_FALSE(v2.empty());
  for (const char* line : {"constexpr unsigned kBlock = 256;",
                           "unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }",
                           "bool fits32(int64_t n) { return n < (int64_t{1} << 31) - static_cast<int64_t>(kBlock); }"}) {
    EXPECT_NE(v1.find(line), std::string::npos) << line;
    EXPECT_NE(v2.find(line), std::string::npos) << line;
  }
  const std::size_t launches = count(v2, "<<<");
  // 1 table, 3 rotate, 3 cache-row, 2 alibi16, 1 t5_16, 2 sinusoidal16, 1 learned16 launches.
  EXPECT_EQ(launches, 13u);
  EXPECT_EQ(launches, count(v2, "<<<blocks_for(n), kBlock>>>"));
  EXPECT_EQ(count(v2, "if (!fits32("), 7u);  // one guard per launcher
  EXPECT_EQ(count(v2, "({blockIdx.x, blockDim.x, threadIdx.x}"), 7u);
}

}  // namespace
