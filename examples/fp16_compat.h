/* The examples' IEEE binary16 type for their fp16 conversions (C and C++). clang 14 has no
   _Float16 on x86; its __fp16 converts with the same IEEE rounding through F16C (-mf16c, added
   for clang builds in CMake: the sanitizer build). */
#ifndef PECHECK_EXAMPLES_FP16_COMPAT_H
#define PECHECK_EXAMPLES_FP16_COMPAT_H
#if defined(__clang__) && __clang_major__ < 15
typedef __fp16 example_half;
#else
typedef _Float16 example_half;
#endif
#endif
