// PEC_HD marks functions shared by CUDA device code, host code and the symbolic (SMT)
// instantiation in proofs/. Nothing in src/kernels/shared may depend on a particular
// number type: arithmetic goes through operators and the unqualified calls fmul/fadd/ffma
// etc. resolved per type, so that proofs/ can instantiate the very same source.
#pragma once

#if defined(__CUDACC__)
#define PEC_HD __host__ __device__
#else
#define PEC_HD
#endif
