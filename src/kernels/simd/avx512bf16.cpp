// AVX-512 path with AVX512_BF16 (x86-64-v4 + avx512bf16): avx512_unit.inc with bfloat16
// rounded by vcvtneps2bf16. Every other instruction is the avx512 path's, so the bits are too.
#define PEC_AVX512_NS avx512bf16
#define PEC_AVX512_BF16_HW 1
#include "kernels/simd/avx512_unit.inc"
