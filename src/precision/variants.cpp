// The float implementations measured against the oracle (spec/contracts.md, PREC-VAR-*).
// Each is written the way kernels in the field are: see the description strings.
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "precision/variants.hpp"

namespace pecheck::precision {
namespace {

using oracle::Format;
using oracle::round_to;

float bf16(float x) { return static_cast<float>(round_to(x, Format::BF16)); }
float f16(float x) { return static_cast<float>(round_to(x, Format::F16)); }

}  // namespace

std::vector<Variant> variants(std::string_view scheme) {
  if (scheme == "rope") {
    return {
        {"rope", "reference", false, "reference", "f = (float)pow(base,-2i/d); angle (float)p*(float)s*f; cosf/sinf; a*c - b*s"},
        {"rope", "fma", false, "fma", "as reference, rotation with fmaf"},
        {"rope", "powf", false, "powf", "f = 1/powf(base, 2i/d) in float (Hugging Face style)"},
        {"rope", "accurate", false, "accurate", "angle formed in double from a double f; cos/sin in double, rounded to float"},
        {"rope", "ggml", false, "ggml", "theta_i = p * r^i by a running float product, r = powf(base,-2/d) (ggml)"},
        {"rope", "bf16_inv_freq", true, "reference", "inverse frequencies rounded to bf16"},
        {"rope", "fp16_positions", true, "reference", "positions rounded to fp16 before the angle"},
        {"rope", "bf16_table", true, "reference", "cos/sin table stored in bf16"},
    };
  }
  if (scheme == "sinusoidal") {
    return {
        {"sinusoidal", "reference", false, "reference", "w = powf(base, -(float)(2i)/d), angle (float)p*w, sinf/cosf"},
        {"sinusoidal", "accurate", false, "accurate", "angle in double, sin/cos in double, rounded"},
        {"sinusoidal", "bf16_inv_freq", true, "reference", "inverse frequencies rounded to bf16"},
        {"sinusoidal", "fp16_positions", true, "reference", "positions rounded to fp16"},
    };
  }
  if (scheme == "alibi") {
    return {
        {"alibi", "reference", false, "reference", "slope exp2f(e) in float, bias -slope*(float)d"},
        {"alibi", "bf16_slope", true, "reference", "slopes stored in bf16"},
        {"alibi", "fp16_distance", true, "reference", "distance |i-j| converted to fp16"},
    };
  }
  if (scheme == "t5") {
    return {
        {"t5", "reference", false, "reference", "log bucket formula in float, truncated"},
        {"t5", "fp16_distance", false, "reference", "relative position converted to fp16 first (harmless while max_distance <= 2048)"},
    };
  }
  throw UsageError("unknown scheme '" + std::string(scheme) + "' (rope, alibi, t5, sinusoidal)");
}

Variant variant(std::string_view scheme, std::string_view name) {
  const std::vector<Variant> cache = variants(scheme);
  for (const auto& v : cache) {
    if (v.name == name) return v;
  }
  std::string names;
  for (const auto& v : cache) {
    if (!names.empty()) names += ", ";
    names += v.name;
  }
  throw UsageError("unknown variant '" + std::string(name) + "' for " + std::string(scheme) +
                   " (" + names + ")");
}

// ---- RoPE -----------------------------------------------------------------------------------

void rope_variant_pair(const Variant& v, Format dtype, const RopeInputs& in, double xa, double xb,
                       double& ya, double& yb) {
  const double e = -2.0 * static_cast<double>(in.index) / static_cast<double>(in.rotary_dim);
  if (dtype == Format::F64) {  // the double reference (one variant)
    const double ang = static_cast<double>(in.position) * in.scale * std::pow(in.base, e);
    const double c = std::cos(ang), s = std::sin(ang);
    ya = xa * c - xb * s;
    yb = xb * c + xa * s;
    return;
  }
  const std::string& n = v.name;
  float f = static_cast<float>(std::pow(in.base, e));
  if (n == "powf") {
    f = 1.0f / std::pow(static_cast<float>(in.base),
                        static_cast<float>(2 * in.index) / static_cast<float>(in.rotary_dim));
  } else if (n == "bf16_inv_freq") {
    f = bf16(f);
  }
  float pf = static_cast<float>(in.position);
  if (n == "fp16_positions") pf = f16(pf);
  float ang = pf * static_cast<float>(in.scale) * f;
  if (n == "ggml") {
    const float r = std::pow(static_cast<float>(in.base), -2.0f / static_cast<float>(in.rotary_dim));
    float th = pf * static_cast<float>(in.scale);
    for (std::int64_t j = 0; j < in.index; ++j) th *= r;
    ang = th;
  }
  float c = std::cos(ang), s = std::sin(ang);
  if (n == "accurate") {
    const double a = static_cast<double>(in.position) * in.scale * std::pow(in.base, e);
    c = static_cast<float>(std::cos(a));
    s = static_cast<float>(std::sin(a));
  } else if (n == "bf16_table") {
    c = bf16(c);
    s = bf16(s);
  }
  const float fa = static_cast<float>(xa), fb = static_cast<float>(xb);
  float ra, rb;
  if (n == "fma") {
    ra = std::fma(fa, c, -(fb * s));
    rb = std::fma(fb, c, fa * s);
  } else {
    const float p1 = fa * c, p2 = fb * s, p3 = fb * c, p4 = fa * s;
    ra = p1 - p2;
    rb = p3 + p4;
  }
  ya = round_to(ra, dtype);  // bf16/f16 storage: f32 arithmetic, result stored in the format
  yb = round_to(rb, dtype);
}

// ---- sinusoidal -----------------------------------------------------------------------------

void sinusoidal_variant(const Variant& v, Format dtype, const RopeInputs& in, double& sin_out,
                        double& cos_out) {
  const double e = -2.0 * static_cast<double>(in.index) / static_cast<double>(in.rotary_dim);
  if (dtype == Format::F64 || v.name == "accurate") {
    const double a = static_cast<double>(in.position) * std::pow(in.base, e);
    sin_out = round_to(std::sin(a), dtype == Format::F64 ? Format::F64 : Format::F32);
    cos_out = round_to(std::cos(a), dtype == Format::F64 ? Format::F64 : Format::F32);
    sin_out = round_to(sin_out, dtype);
    cos_out = round_to(cos_out, dtype);
    return;
  }
  float f = std::pow(static_cast<float>(in.base),
                     -static_cast<float>(2 * in.index) / static_cast<float>(in.rotary_dim));
  if (v.name == "bf16_inv_freq") f = bf16(f);
  float pf = static_cast<float>(in.position);
  if (v.name == "fp16_positions") pf = f16(pf);
  const float a = pf * f;
  sin_out = round_to(std::sin(a), dtype);
  cos_out = round_to(std::cos(a), dtype);
}

// ---- ALiBi ----------------------------------------------------------------------------------

double alibi_variant(const Variant& v, Format dtype, std::int64_t n_heads, std::int64_t head,
                     std::int64_t distance) {
  std::int64_t p = 1;
  while (p * 2 <= n_heads) p *= 2;
  const double e = head < p ? -8.0 * static_cast<double>(head + 1) / static_cast<double>(p)
                            : -4.0 * static_cast<double>(2 * (head - p) + 1) / static_cast<double>(p);
  if (dtype == Format::F64) return -std::exp2(e) * static_cast<double>(distance);
  float slope = std::exp2(static_cast<float>(e));
  if (v.name == "bf16_slope") slope = bf16(slope);
  float d = static_cast<float>(distance);
  if (v.name == "fp16_distance") d = f16(d);
  return round_to(-slope * d, dtype);
}

// ---- T5 -------------------------------------------------------------------------------------

std::int64_t t5_variant(const Variant& v, Format dtype, std::int64_t relative,
                        std::int64_t num_buckets, std::int64_t max_distance, bool bidirectional) {
  std::int64_t nb = num_buckets, base = 0, dist;
  if (bidirectional) {
    nb /= 2;
    base = relative > 0 ? nb : 0;
    dist = relative < 0 ? -relative : relative;
  } else {
    dist = relative < 0 ? -relative : 0;
  }
  const std::int64_t ex = nb / 2;
  if (dist < ex) return base + dist;
  double val;
  if (dtype == Format::F64) {
    val = std::log(static_cast<double>(dist) / static_cast<double>(ex)) /
          std::log(static_cast<double>(max_distance) / static_cast<double>(ex)) *
          static_cast<double>(nb - ex);
  } else {
    float d = static_cast<float>(dist);
    if (v.name == "fp16_distance") d = f16(d);
    val = std::log(d / static_cast<float>(ex)) /
          std::log(static_cast<float>(max_distance) / static_cast<float>(ex)) *
          static_cast<float>(nb - ex);
  }
  const std::int64_t k = val >= static_cast<double>(nb) || std::isnan(val)
                             ? nb
                             : static_cast<std::int64_t>(val);
  const std::int64_t large = ex + k;
  return base + (large < nb - 1 ? large : nb - 1);
}

}  // namespace pecheck::precision
