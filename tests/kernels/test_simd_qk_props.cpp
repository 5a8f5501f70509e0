// pecheck_simd version 2 RoPE, every code path and storage type: the scores of every GQA group
// depend only on the offset, query+key and cached rotation are batch-invariant, streaming stores
// give the same bits, every domain rule is rejected without writing (values, views, the cache
// and the builder: test_simd_qk_cache.cpp).
// Clause: ABI-QK-1 ABI-QK-3 ABI-CACHE-1 ABI-BATCH-1 ABI-GEN-3
#include "simd_v2_fixture.hpp"

namespace pecheck::kernels::test {
namespace {

using simd::Path;

class SimdV2Props : public SimdV2 {};

// ABI-QK-3: the score of every query head with the key head of its group, formed from one
// call's outputs, moves under a common shift of all positions by no more than the score
// contract (PREC-SCORE-1, oracle::rope_score_bound at the original and the shifted angles).
TEST_P(SimdV2Props, RopeQkScoresDependOnlyOnTheOffsetForEveryGroup) {
  const std::int64_t T = 4, Hq = 6, Hk = 2, D = 64, R = 64, group = Hq / Hk, half = R / 2;
  const auto q = random_inputs(static_cast<std::size_t>(T * Hq * D), 61);
  const auto k = random_inputs(static_cast<std::size_t>(T * Hk * D), 62);
  const std::vector<std::int64_t> pos = {3, 100, 70000, std::int64_t{1} << 30};
  const oracle::Budget& row = oracle::budget("rope", "f32", "accurate");
  auto rotate = [&](const std::vector<std::int64_t>& p, std::vector<float>& qo,
                    std::vector<float>& ko) {
    qo.assign(q.size(), 0.0f);
    ko.assign(k.size(), 0.0f);
    const pec_rope_qk_args a{T,           Hq,          Hk,         D,        R,       PEC_ROPE_NEOX,
                             10000.0,     1.0,         1.0,        p.data(), nullptr, {Hq * D, D},
                             {Hk * D, D}, {Hq * D, D}, {Hk * D, D}};
    return simd::rope_qk(GetParam(), PEC_DTYPE_F32, &a, q.data(), k.data(), qo.data(), ko.data());
  };
  auto angles = [&](const std::vector<std::int64_t>& p) {
    const pec_rope_args a{T, 1, D, R, PEC_ROPE_NEOX, 10000.0, 1.0, p.data(), nullptr};
    std::vector<double> th;
    for (const auto& r : oracle::rope_block_angles(a)) th.push_back(std::fabs(r.angle.hi));
    return th;
  };
  std::vector<float> qo, ko;
  ASSERT_EQ(rotate(pos, qo, ko), 0);
  const auto th = angles(pos);
  for (std::int64_t delta : {std::int64_t{1}, std::int64_t{4096}, std::int64_t{1} << 20}) {
    std::vector<std::int64_t> shifted = pos;
    for (auto& p : shifted) p += delta;
    std::vector<float> qs, ks;
    ASSERT_EQ(rotate(shifted, qs, ks), 0);
    const auto ths = angles(shifted);
    for (std::int64_t t = 0; t < T; ++t) {
      for (std::int64_t u = 0; u < T; ++u) {
        for (std::int64_t h = 0; h < Hq; ++h) {
          const std::int64_t g = h / group;
          const std::size_t qr = static_cast<std::size_t>((t * Hq + h) * D),
                            kr = static_cast<std::size_t>((u * Hk + g) * D);
          double s0 = 0, s1 = 0;
          for (std::int64_t l = 0; l < D; ++l) {
            s0 += static_cast<double>(qo[qr + l]) * ko[kr + l];
            s1 += static_cast<double>(qs[qr + l]) * ks[kr + l];
          }
          const std::vector<double> qv(q.begin() + static_cast<std::ptrdiff_t>(qr),
                                       q.begin() + static_cast<std::ptrdiff_t>(qr + D));
          const std::vector<double> kv(k.begin() + static_cast<std::ptrdiff_t>(kr),
                                       k.begin() + static_cast<std::ptrdiff_t>(kr + D));
          auto span_of = [&](const std::vector<double>& v, std::int64_t tok) {
            return std::span<const double>(v.data() + tok * half, static_cast<std::size_t>(half));
          };
          const double bound =
              oracle::rope_score_bound(row, qv, kv, span_of(th, t), span_of(th, u)) +
              oracle::rope_score_bound(row, qv, kv, span_of(ths, t), span_of(ths, u));
          ASSERT_LE(std::fabs(s1 - s0), bound) << "delta " << delta << " q token " << t << " head "
                                               << h << " k token " << u << " head " << g;
        }
      }
    }
  }
}

// ABI-BATCH-1: a token's outputs do not depend on the other tokens of the call: a sub-batch in
// another order (the token at another place, a different remainder length) gives its bits.
TEST_P(SimdV2Props, QkAndCachedAreBatchInvariant) {
  const std::int64_t T = 13, Hq = 4, Hk = 2, D = 96, R = 64;
  for (const Fmt& f : kFormats) {
    const std::size_t es = f.dtype == PEC_DTYPE_F32 ? 4 : 2;
    std::vector<std::uint8_t> q(static_cast<std::size_t>(T * Hq * D) * es),
        k(static_cast<std::size_t>(T * Hk * D) * es);
    const auto vq = random_inputs(q.size() / es, 41), vk = random_inputs(k.size() / es, 42);
    auto put = [&](std::vector<std::uint8_t>& b, const std::vector<float>& v) {
      for (std::size_t i = 0; i < v.size(); ++i) {
        const float x = static_cast<float>(input_value(f, v[i]));
        if (es == 4)
          std::memcpy(&b[i * 4], &x, 4);
        else {
          const std::uint16_t h = f.dtype == PEC_DTYPE_BF16 ? f32_to_bf16(x) : f32_to_f16(x);
          std::memcpy(&b[i * 2], &h, 2);
        }
      }
    };
    put(q, vq);
    put(k, vk);
    const auto pos = random_positions(T, 43);
    std::vector<float> cache(static_cast<std::size_t>(64 * R));
    for (std::size_t i = 0; i < cache.size(); ++i)
      cache[i] = static_cast<float>(std::cos(0.37 * static_cast<double>(i)));
    std::vector<std::int64_t> cpos(pos.size());
    for (std::size_t t = 0; t < pos.size(); ++t) cpos[t] = pos[t] % 64;
    for (int which = 0; which < 2; ++which) {
      auto run = [&](std::int64_t n, const std::int64_t* p, const std::int64_t* cp,
                     const std::uint8_t* qi, const std::uint8_t* ki, std::uint8_t* qo,
                     std::uint8_t* ko) {
        const pec_strides sq{Hq * D, D}, sk{Hk * D, D};
        if (which == 0) {
          const pec_rope_qk_args a{n,       Hq, Hk, D,  R, PEC_ROPE_GPTJ, 10000.0, 1.0, 1.1, p,
                                   nullptr, sq, sk, sq, sk};
          return simd::rope_qk(GetParam(), f.dtype, &a, qi, ki, qo, ko);
        }
        const pec_rope_cached_args a{
            n, Hq, Hk, D, R, PEC_ROPE_NEOX, PEC_DTYPE_F32, 64, cache.data(), cp, sq, sk, sq, sk};
        return simd::rope_cached(GetParam(), f.dtype, &a, qi, ki, qo, ko);
      };
      std::vector<std::uint8_t> qo(q.size()), ko(k.size());
      ASSERT_EQ(run(T, pos.data(), cpos.data(), q.data(), k.data(), qo.data(), ko.data()), 0);
      // Tokens 11, 2, 7 as a batch of three.
      const std::int64_t pick[3] = {11, 2, 7};
      const std::size_t rq = static_cast<std::size_t>(Hq * D) * es,
                        rk = static_cast<std::size_t>(Hk * D) * es;
      std::vector<std::uint8_t> sq(3 * rq), sk(3 * rk), sqo(3 * rq), sko(3 * rk);
      std::int64_t sp[3], scp[3];
      for (int j = 0; j < 3; ++j) {
        std::memcpy(&sq[j * rq], &q[static_cast<std::size_t>(pick[j]) * rq], rq);
        std::memcpy(&sk[j * rk], &k[static_cast<std::size_t>(pick[j]) * rk], rk);
        sp[j] = pos[static_cast<std::size_t>(pick[j])];
        scp[j] = cpos[static_cast<std::size_t>(pick[j])];
      }
      ASSERT_EQ(run(3, sp, scp, sq.data(), sk.data(), sqo.data(), sko.data()), 0);
      for (int j = 0; j < 3; ++j) {
        EXPECT_EQ(std::memcmp(&sqo[j * rq], &qo[static_cast<std::size_t>(pick[j]) * rq], rq), 0)
            << f.name << " fn " << which << " q token " << pick[j];
        EXPECT_EQ(std::memcmp(&sko[j * rk], &ko[static_cast<std::size_t>(pick[j]) * rk], rk), 0)
            << f.name << " fn " << which << " k token " << pick[j];
      }
    }
  }
}

// Streaming stores (forced on; outputs 64-byte aligned, aligned strides) give the same bits.
TEST_P(SimdV2Props, StreamingStoresGiveTheSameBits) {
  const std::int64_t T = 37, Hq = 8, Hk = 2, D = 128;
  auto alloc = [](std::size_t n) {
    return std::unique_ptr<float, decltype(&std::free)>(
        static_cast<float*>(std::aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64)),
        &std::free);
  };
  const auto q = random_inputs(static_cast<std::size_t>(T * Hq * D), 1),
             k = random_inputs(static_cast<std::size_t>(T * Hk * D), 2);
  const auto pos = random_positions(T, 3);
  std::vector<float> cache(static_cast<std::size_t>((std::int64_t{1} << 12) * D));
  for (std::size_t i = 0; i < cache.size(); ++i)
    cache[i] = static_cast<float>(std::sin(0.001 * static_cast<double>(i)));
  std::vector<std::int64_t> cpos(static_cast<std::size_t>(T));
  for (std::int64_t t = 0; t < T; ++t)
    cpos[static_cast<std::size_t>(t)] = (pos[static_cast<std::size_t>(t)] & 4095);
  for (std::int32_t layout : {PEC_ROPE_NEOX, PEC_ROPE_GPTJ}) {
    auto qo = alloc(q.size()), ko = alloc(k.size()), qr = alloc(q.size()), kr = alloc(k.size());
    pec_rope_qk_args a{T,       Hq,          Hk,          D,           64,
                       layout,  10000.0,     1.0,         1.0,         pos.data(),
                       nullptr, {Hq * D, D}, {Hk * D, D}, {Hq * D, D}, {Hk * D, D}};
    pec_rope_cached_args c{
        T,    Hq,           Hk,          D,           64,          layout,      PEC_DTYPE_F32,
        4096, cache.data(), cpos.data(), {Hq * D, D}, {Hk * D, D}, {Hq * D, D}, {Hk * D, D}};
    for (int which = 0; which < 2; ++which) {
      simd::set_stream_mode(1);
      ASSERT_EQ(which == 0 ? simd::rope_qk(GetParam(), PEC_DTYPE_F32, &a, q.data(), k.data(),
                                           qo.get(), ko.get())
                           : simd::rope_cached(GetParam(), PEC_DTYPE_F32, &c, q.data(), k.data(),
                                               qo.get(), ko.get()),
                0);
      simd::set_stream_mode(0);
      ASSERT_EQ(which == 0 ? simd::rope_qk(Path::Scalar, PEC_DTYPE_F32, &a, q.data(), k.data(),
                                           qr.get(), kr.get())
                           : simd::rope_cached(Path::Scalar, PEC_DTYPE_F32, &c, q.data(), k.data(),
                                               qr.get(), kr.get()),
                0);
      simd::set_stream_mode(-1);
      EXPECT_TRUE(same_bits(qo.get(), qr.get(), q.size()))
          << "layout " << layout << " fn " << which;
      EXPECT_TRUE(same_bits(ko.get(), kr.get(), k.size()))
          << "layout " << layout << " fn " << which;
    }
  }
}

// Every rule of ABI-QK-1, ABI-VIEW-1, ABI-CACHE-1 and ABI-CACHE-3 rejected, nothing written
// (ABI-GEN-3); zero tokens with NULL tensors is valid.
TEST_P(SimdV2Props, RejectsEveryDomainRuleWithoutWriting) {
  const Path p = GetParam();
  const std::int64_t T = 3, H = 2, D = 8;
  std::int64_t pos[3] = {0, 5, 2}, neg[3] = {0, -1, 2}, big[3] = {0, std::int64_t{1} << 31, 2};
  std::vector<float> q(static_cast<std::size_t>(T * H * D), 0.5f), k = q;
  std::vector<float> cache(static_cast<std::size_t>(8 * D), 0.25f);
  auto valid_qk = [&] {
    return pec_rope_qk_args{T,          H,          H,         D,   D,       PEC_ROPE_NEOX,
                            10000.0,    1.0,        1.0,       pos, nullptr, {H * D, D},
                            {H * D, D}, {H * D, D}, {H * D, D}};
  };
  std::vector<std::function<void(pec_rope_qk_args&)>> qk_bad = {
      [](auto& a) { a.n_tokens = -1; },
      [](auto& a) { a.n_q_heads = 0; },
      [](auto& a) { a.n_kv_heads = 0; },
      [](auto& a) {
        a.n_kv_heads = 3;
        a.n_q_heads = 4;
      },
      [](auto& a) { a.head_dim = 1; },
      [](auto& a) { a.rotary_dim = 10; },
      [](auto& a) { a.rotary_dim = 5; },
      [](auto& a) { a.layout = 2; },
      [](auto& a) { a.theta_base = 1.0; },
      [](auto& a) { a.position_scale = 0; },
      [](auto& a) { a.attn_factor = 0; },
      [](auto& a) { a.attn_factor = NAN; },
      [](auto& a) { a.attn_factor = INFINITY; },
      [&](auto& a) { a.positions = neg; },
      [&](auto& a) { a.positions = big; },
      [](auto& a) { a.positions = nullptr; },
      [](auto& a) { a.q.head = D - 1; },
      [](auto& a) { a.k_out.token = D; },  // rows overlap
      [](auto& a) { a.q_out.head = -1; },
  };
  for (std::size_t i = 0; i < qk_bad.size(); ++i) {
    pec_rope_qk_args a = valid_qk();
    qk_bad[i](a);
    Guarded qo(q.size() + 64), ko(k.size() + 64);
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, &a, q.data(), k.data(), qo.data(), ko.data()), 0)
        << "qk rule " << i;
    EXPECT_EQ(qo.first_unwritten(), 0) << "qk rule " << i;
    EXPECT_EQ(ko.first_unwritten(), 0) << "qk rule " << i;
  }
  {
    // Outputs overlapping an input (one element shifted), in place with other strides, q_out
    // overlapping k_out, NULL tensors, a bad storage type.
    pec_rope_qk_args a = valid_qk();
    std::vector<float> buf(q.size() * 3, 0.5f);
    Guarded ko(k.size());
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, &a, buf.data(), k.data(), buf.data() + 1, ko.data()),
              0);
    a.q_out.token = H * D + 1;
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, &a, buf.data(), k.data(), buf.data(), ko.data()), 0);
    a = valid_qk();
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, &a, q.data(), k.data(), buf.data(), buf.data() + D),
              0);
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, &a, q.data(), k.data(), q.data(), q.data()),
              0);  // k_out over q
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, &a, nullptr, k.data(), buf.data(), ko.data()), 0);
    EXPECT_NE(simd::rope_qk(p, 3, &a, q.data(), k.data(), buf.data(), ko.data()), 0);
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, nullptr, q.data(), k.data(), buf.data(), ko.data()),
              0);
    EXPECT_EQ(ko.first_unwritten(), 0);
    // In place with a different head stride is still in place when there is one head (the
    // stride is not used); with two heads it is an overlap.
    pec_rope_qk_args one = valid_qk();
    one.n_q_heads = one.n_kv_heads = 1;
    one.q = {D, 0};
    one.q_out = {D, 5};
    EXPECT_EQ(simd::rope_qk(p, PEC_DTYPE_F32, &one, buf.data(), k.data(), buf.data(), ko.data()), 0);
    one.n_q_heads = one.n_kv_heads = 2;
    one.q = {2 * D, D};
    one.q_out = {3 * D, D + 1};  // valid on its own, but the same pointer as q
    EXPECT_NE(simd::rope_qk(p, PEC_DTYPE_F32, &one, buf.data(), k.data(), buf.data(), ko.data()), 0);
    a.n_tokens = 0;
    EXPECT_EQ(simd::rope_qk(p, PEC_DTYPE_F32, &a, nullptr, nullptr, nullptr, nullptr), 0)
        << "zero tokens is valid";
  }
  auto valid_cached = [&] {
    return pec_rope_cached_args{T,
                                H,
                                H,
                                D,
                                D,
                                PEC_ROPE_GPTJ,
                                PEC_DTYPE_F32,
                                8,
                                cache.data(),
                                pos,
                                {H * D, D},
                                {H * D, D},
                                {H * D, D},
                                {H * D, D}};
  };
  std::int64_t past[3] = {0, 8, 2};
  std::vector<std::function<void(pec_rope_cached_args&)>> cached_bad = {
      [](auto& a) { a.cache_dtype = 3; },
      [](auto& a) { a.cache_positions = 0; },
      [&](auto& a) { a.positions = past; },
      [&](auto& a) { a.positions = neg; },
      [](auto& a) { a.cos_sin_cache = nullptr; },
      [](auto& a) { a.rotary_dim = 10; },
      [](auto& a) { a.n_q_heads = 3; },
      [](auto& a) { a.layout = -1; },
      [](auto& a) { a.k.head = 2; },
  };
  for (std::size_t i = 0; i < cached_bad.size(); ++i) {
    pec_rope_cached_args a = valid_cached();
    cached_bad[i](a);
    Guarded qo(q.size()), ko(k.size());
    EXPECT_NE(simd::rope_cached(p, PEC_DTYPE_F32, &a, q.data(), k.data(), qo.data(), ko.data()), 0)
        << "cached rule " << i;
    EXPECT_EQ(qo.first_unwritten(), 0) << "cached rule " << i;
    EXPECT_EQ(ko.first_unwritten(), 0) << "cached rule " << i;
  }
  {
    pec_rope_cached_args a = valid_cached();
    Guarded ko(k.size());
    EXPECT_NE(simd::rope_cached(p, PEC_DTYPE_F32, &a, q.data(), k.data(), cache.data(), ko.data()),
              0)
        << "q_out over the cache";
    EXPECT_EQ(ko.first_unwritten(), 0);
  }
  auto valid_cache = [] { return pec_rope_cache_args{16, 8, 10000.0, 1.0, 1.0, nullptr}; };
  std::vector<std::function<void(pec_rope_cache_args&)>> cache_bad = {
      [](auto& a) { a.cache_positions = 0; },
      [](auto& a) { a.cache_positions = (std::int64_t{1} << 31) + 1; },
      [](auto& a) { a.rotary_dim = 7; },
      [](auto& a) { a.rotary_dim = 0; },
      [](auto& a) { a.theta_base = NAN; },
      [](auto& a) { a.position_scale = -1; },
      [](auto& a) { a.attn_factor = -1; },
  };
  for (std::size_t i = 0; i < cache_bad.size(); ++i) {
    pec_rope_cache_args a = valid_cache();
    cache_bad[i](a);
    Guarded out(16 * 8);
    EXPECT_NE(simd::rope_cache(p, PEC_DTYPE_F32, &a, out.data()), 0) << "cache rule " << i;
    EXPECT_EQ(out.first_unwritten(), 0) << "cache rule " << i;
  }
  pec_rope_cache_args a = valid_cache();
  EXPECT_NE(simd::rope_cache(p, PEC_DTYPE_BF16, &a, nullptr), 0);
}

INSTANTIATE_TEST_SUITE_P(Paths, SimdV2Props, ::testing::ValuesIn(simd::kAllPaths),
                         [](const auto& info) { return std::string(simd::to_string(info.param)); });

}  // namespace
}  // namespace pecheck::kernels::test
