// pec_attention_f32 of pecheck_simd (online softmax, scalar) against a plain three-pass float32
// attention (all scores, then softmax, then P.V) in the same run: GFLOP/s of each per shape
// (FLOPs = 2 Lq Lk H (head_dim + head_dim_v), the two matrix products), and their ratio.
// A measurement, never a timed test (`cmake --build build --target bench`).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include "pecheck_kernel.h"

namespace {

struct Shape {
  std::int64_t seqs, lq, lk, heads, kv_heads, dim;
};
const Shape kShapes[] = {
    {1, 256, 256, 8, 8, 64},   // prefill, MHA
    {1, 256, 256, 8, 2, 64},   // prefill, GQA 4
    {8, 1, 2048, 8, 2, 128},   // decode: one query per sequence against a long cache
};

// Three passes in float32: scores [lq][lk], softmax per row, P.V.
void three_pass(const Shape& s, const float* q, const float* k, const float* v, float* out, std::vector<float>& p) {
  const std::int64_t G = s.heads / s.kv_heads, D = s.dim;
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  p.resize(static_cast<std::size_t>(s.lq * s.lk));
  for (std::int64_t b = 0; b < s.seqs; ++b)
    for (std::int64_t h = 0; h < s.heads; ++h) {
      const std::int64_t g = h / G;
      for (std::int64_t i = 0; i < s.lq; ++i) {
        const float* qi = q + ((b * s.lq + i) * s.heads + h) * D;
        const std::int64_t qp = s.lk - s.lq + i;
        float m = -INFINITY;
        for (std::int64_t j = 0; j < s.lk; ++j) {
          float dot = 0;
          const float* kj = k + ((b * s.lk + j) * s.kv_heads + g) * D;
          for (std::int64_t l = 0; l < D; ++l) dot += qi[l] * kj[l];
          const float x = j <= qp ? dot * scale : -INFINITY;
          p[static_cast<std::size_t>(i * s.lk + j)] = x;
          m = std::fmax(m, x);
        }
        float sum = 0;
        for (std::int64_t j = 0; j < s.lk; ++j) sum += (p[static_cast<std::size_t>(i * s.lk + j)] = std::exp(p[static_cast<std::size_t>(i * s.lk + j)] - m));
        float* o = out + ((b * s.lq + i) * s.heads + h) * D;
        for (std::int64_t l = 0; l < D; ++l) o[l] = 0;
        for (std::int64_t j = 0; j < s.lk; ++j) {
          const float w = p[static_cast<std::size_t>(i * s.lk + j)] / sum;
          const float* vj = v + ((b * s.lk + j) * s.kv_heads + g) * D;
          for (std::int64_t l = 0; l < D; ++l) o[l] += w * vj[l];
        }
      }
    }
}

void BM_Attention(benchmark::State& st) {
  const Shape& s = kShapes[st.range(0)];
  const std::int64_t D = s.dim, Tq = s.seqs * s.lq, Tk = s.seqs * s.lk;
  std::vector<float> q(static_cast<std::size_t>(Tq * s.heads * D)), k(static_cast<std::size_t>(Tk * s.kv_heads * D)),
      v(k.size()), out(q.size()), out2(q.size()), lse(static_cast<std::size_t>(Tq * s.heads)), p;
  std::uint32_t x = 12345;
  for (auto* t : {&q, &k, &v})
    for (auto& e : *t) e = static_cast<float>((x = x * 1664525u + 1013904223u) >> 8) * 0x1p-24f - 0.5f;
  std::vector<std::int64_t> qs, ks, qp, kp;
  for (std::int64_t b = 0; b <= s.seqs; ++b) qs.push_back(b * s.lq), ks.push_back(b * s.lk);
  for (std::int64_t b = 0; b < s.seqs; ++b) {
    for (std::int64_t i = 0; i < s.lq; ++i) qp.push_back(s.lk - s.lq + i);
    for (std::int64_t j = 0; j < s.lk; ++j) kp.push_back(j);
  }
  pec_attention_args a{};
  a.n_seqs = s.seqs, a.q_start = qs.data(), a.k_start = ks.data(), a.q_pos = qp.data(), a.k_pos = kp.data();
  a.n_q_heads = s.heads, a.n_kv_heads = s.kv_heads, a.head_dim = D, a.head_dim_v = D;
  a.q = a.out = pec_strides{s.heads * D, D};
  a.k = a.v = pec_strides{s.kv_heads * D, D};
  a.scale = 1.0 / std::sqrt(static_cast<double>(D)), a.causal = 1, a.window_left = a.window_right = -1;
  a.encoding = PEC_ATTN_NONE;
  double t_kernel = 0, t_plain = 0;
  for (auto _ : st) {
    const auto c0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(pec_attention_f32(&a, q.data(), k.data(), v.data(), out.data(), lse.data()));
    const auto c1 = std::chrono::steady_clock::now();
    three_pass(s, q.data(), k.data(), v.data(), out2.data(), p);
    benchmark::DoNotOptimize(out2.data());
    const auto c2 = std::chrono::steady_clock::now();
    t_kernel += std::chrono::duration<double>(c1 - c0).count();
    t_plain += std::chrono::duration<double>(c2 - c1).count();
    st.SetIterationTime(std::chrono::duration<double>(c1 - c0).count());
  }
  const double flops = 2.0 * static_cast<double>(s.seqs * s.lq * s.lk * s.heads) * static_cast<double>(2 * D);
  const double n = static_cast<double>(st.iterations());
  st.counters["GFLOPs_kernel"] = flops * n / t_kernel * 1e-9;
  st.counters["GFLOPs_three_pass"] = flops * n / t_plain * 1e-9;
  st.counters["kernel_over_three_pass"] = t_plain / t_kernel;
}

BENCHMARK(BM_Attention)->ArgName("shape")->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
