// AVX-512 path (x86-64-v4), bfloat16 rounded by the integer rule: avx512_unit.inc.
#define PEC_AVX512_NS avx512
#define PEC_AVX512_BF16_HW 0
#include "kernels/simd/avx512_unit.inc"
