// The launch-grid proof (claim grid.launch.uint32, PROOF-IDX-2) models kernels.cu's host side
// (block size, block count, fits32, the launches' guards and index type): kernels.cu is CUDA
// host code that the proofs cannot include. This test fails when those lines change, so the
// model cannot silently drift from the launch it describes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// Clause: PROOF-IDX-2
TEST(LaunchModel, KernelsCuIsWhatTheProofModels) {
  const std::string cu = read(std::string(PECHECK_SOURCE_DIR) + "/src/kernels/cuda/kernels.cu");
  ASSERT_FALSE(cu.empty()) << "cannot read kernels.cu";
  EXPECT_NE(cu.find("constexpr unsigned kBlock = 256;"), std::string::npos);
  EXPECT_NE(cu.find("unsigned blocks_for(int64_t n) { return static_cast<unsigned>((n + kBlock - 1) "
                    "/ kBlock); }"),
            std::string::npos);
  EXPECT_NE(cu.find("bool fits32(int64_t n) { return n < (int64_t{1} << 31) - "
                    "static_cast<int64_t>(kBlock); }"),
            std::string::npos);
  // ALiBi and T5: the count, the empty and fits32 guards, then one launch with uint32_t.
  EXPECT_EQ(count(cu, "const int64_t n = p.n_heads * p.n_q * p.n_k;\n  if (n == 0) return kOk;\n"
                      "  if (!fits32(n)) return kInvalidArgument;\n"),
            2u);
  EXPECT_NE(cu.find("alibi_kernel<uint32_t><<<blocks_for(n), kBlock>>>"), std::string::npos);
  EXPECT_NE(cu.find("t5_kernel<uint32_t><<<blocks_for(n), kBlock>>>"), std::string::npos);
  // Every launch uses blocks_for and kBlock (no other grid shape).
  EXPECT_EQ(count(cu, "<<<"), count(cu, "<<<blocks_for("));
  EXPECT_EQ(count(cu, "<<<"), count(cu, "), kBlock>>>"));
  // Every kernel thread gets (blockIdx.x, blockDim.x, threadIdx.x) as its Dim.
  EXPECT_EQ(count(cu, "({blockIdx.x, blockDim.x, threadIdx.x}"), 6u);
}

}  // namespace
