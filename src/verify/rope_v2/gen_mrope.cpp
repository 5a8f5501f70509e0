// M-RoPE cases (spec/abi.md ABI-MROPE-*, spec/rope.md ROPE-MROPE-*): the axis of each frequency
// pair, valid generators (position triples as a model's get_rope_index gives them, and
// unrelated triples), the domain (ABI-MROPE-1) with its rejection requirements, and invalid
// generators breaking one rule. The geometry, views, values and frequencies come from the
// query+key generators (gen.cpp), whose cases share every field but the positions.
//
// Where the bugs of M-RoPE kernels live, and what the valid generators give:
//   sections: the models' own ([16, 24, 24] sectioned and [24, 20, 20] interleaved for 64 pairs),
//     the same proportions for other rotary sizes, random splits, empty sections ([p, 0, 0],
//     [0, p, 0]); both layouts for each. A section rotated by the wrong axis shows when the
//     axes' positions differ.
//   positions: a text run, an image grid T x H x W in raster order at (s + t, s + h, s + w), text
//     after it (ROPE-MROPE-5; 50%); unrelated rows (30%); text only, t = h = w (20%).
#include <algorithm>
#include <cmath>

#include "verify/rope_v2/cases.hpp"

namespace pecheck::verifier {

namespace {

constexpr std::int64_t kPosLimit = std::int64_t{1} << 31;

// The query+key case with the same fields, positions = the t row (for the shared rules).
RopeQkCase as_qk(const MropeCase& c) {
  RopeQkCase q;
  static_cast<QkShape&>(q) = c;
  q.theta_base = c.theta_base;
  q.position_scale = c.position_scale;
  q.attn_factor = c.attn_factor;
  q.has_inv_freq = c.has_inv_freq;
  q.inv_freq = c.inv_freq;
  return q;
}

MropeCase from_qk(const RopeQkCase& q) {
  MropeCase c;
  static_cast<QkShape&>(c) = q;
  c.theta_base = q.theta_base;
  c.position_scale = q.position_scale;
  c.attn_factor = q.attn_factor;
  c.has_inv_freq = q.has_inv_freq;
  c.inv_freq = q.inv_freq;
  c.pos_h = c.pos_w = c.positions;
  return c;
}

bool is_shape_requirement(const std::string& r) {
  return r == "sizes" || r == "rotary-range" || r == "rotary-parity" || r == "gqa" ||
         r == "layout";
}

std::string bad_row(const std::vector<std::int64_t>& p, const char* axis) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] < 0 || p[i] >= kPosLimit) {
      return std::string("positions[") + axis + "][" + std::to_string(i) +
             "] = " + std::to_string(p[i]) + " is outside [0, 2^31)";
    }
  }
  return "";
}

std::string section_text(const MropeCase& c) {
  return "mrope_section {" + std::to_string(c.section[0]) + ", " + std::to_string(c.section[1]) +
         ", " + std::to_string(c.section[2]) + "}";
}

// The mrope-specific rules, in order: layout, sections, interleaved limits ("" when valid).
std::string mrope_rule(const MropeCase& c, std::string* reason) {
  const std::int64_t half = c.rotary_dim / 2;
  if (c.mrope_layout != PEC_MROPE_SECTIONED && c.mrope_layout != PEC_MROPE_INTERLEAVED) {
    *reason = "mrope_layout " + std::to_string(c.mrope_layout) +
              " is neither PEC_MROPE_SECTIONED nor PEC_MROPE_INTERLEAVED";
    return "mrope-layout";
  }
  if (c.section[0] < 0 || c.section[1] < 0 || c.section[2] < 0 ||
      c.section[0] + c.section[1] + c.section[2] != half) {
    *reason = section_text(c) + " does not split rotary_dim/2 = " + std::to_string(half) +
              " pairs into three non-negative parts";
    return "sections";
  }
  if (c.mrope_layout == PEC_MROPE_INTERLEAVED &&
      ((c.section[1] > 0 && 3 * c.section[1] - 2 >= half) ||
       (c.section[2] > 0 && 3 * c.section[2] - 1 >= half))) {
    *reason = "interleaved " + section_text(c) + " claims pairs past rotary_dim/2 = " +
              std::to_string(half) + " (3 s_h - 2 and 3 s_w - 1 must be below it)";
    return "interleave";
  }
  return "";
}

// Sections of `half` pairs: the models' own, their proportions, random, one axis only.
void gen_sections(Rng& r, MropeCase& c) {
  const std::int64_t half = c.rotary_dim / 2;
  const bool inter = c.mrope_layout == PEC_MROPE_INTERLEAVED;
  const int k = static_cast<int>(r.range(0, 9));
  std::int64_t sh = 0, sw = 0;
  if (k < 4) {  // the models' proportions: 24/64 h and w sectioned, 20/64 interleaved
    sh = sw = inter ? (half * 20) / 64 : (half * 24) / 64;
  } else if (k < 8) {
    sh = r.range(0, inter ? (half + 1) / 3 : half);
    sw = r.range(0, inter ? half / 3 : half - sh);
  } else if (k == 8) {
    sh = sw = 0;  // t only: plain RoPE on the t row
  } else {
    sh = inter ? (half + 1) / 3 : half;  // h only (sectioned), as many as the layout allows
  }
  if (inter) sh = std::min(sh, (half + 1) / 3), sw = std::min(sw, half / 3);
  sw = std::min(sw, half - sh);
  c.section[0] = half - sh - sw;
  c.section[1] = sh;
  c.section[2] = sw;
}

void gen_rows(Rng& r, MropeCase& c, std::int64_t max_pos) {
  const std::size_t n = c.positions.size();
  c.pos_h = c.pos_w = c.positions;
  const int k = static_cast<int>(r.range(0, 9));
  if (n == 0 || k < 2) {
    c.note = "text tokens (t = h = w)";
    return;
  }
  if (k < 5) {  // unrelated rows
    for (auto* row : {&c.pos_h, &c.pos_w})
      for (auto& e : *row) e = r.chance(50) ? r.range(0, max_pos) : r.range(0, std::min<std::int64_t>(max_pos, 4096));
    c.note = "unrelated t, h, w rows";
    return;
  }
  // Text, an image grid T x H x W in raster order, text (ROPE-MROPE-5); clamped to max_pos.
  const std::int64_t T = r.range(1, 2), H = r.range(1, 4), W = r.range(1, 6);
  const std::int64_t text = r.range(0, std::min<std::int64_t>(4, static_cast<std::int64_t>(n)));
  std::int64_t s = r.chance(70) ? r.range(0, 64) : r.range(0, std::max<std::int64_t>(0, max_pos - 64));
  std::size_t t = 0;
  const auto put = [&](std::int64_t a, std::int64_t b, std::int64_t w) {
    c.positions[t] = std::min(a, max_pos);
    c.pos_h[t] = std::min(b, max_pos);
    c.pos_w[t] = std::min(w, max_pos);
    ++t;
  };
  for (std::int64_t i = 0; i < text && t < n; ++i) put(s, s, s), ++s;
  std::int64_t top = s - 1;
  for (std::int64_t a = 0; a < T && t < n; ++a)
    for (std::int64_t b = 0; b < H && t < n; ++b)
      for (std::int64_t w = 0; w < W && t < n; ++w) {
        put(s + a, s + b, s + w);
        top = std::max({top, s + a, s + b, s + w});
      }
  s = top + 1;
  while (t < n) put(s, s, s), ++s;
  c.note = "text, a " + std::to_string(T) + "x" + std::to_string(H) + "x" + std::to_string(W) +
           " image grid, text";
}

}  // namespace

int mrope_axis(const MropeCase& c, std::int64_t i) {
  const std::int64_t st = c.section[0], sh = c.section[1], sw = c.section[2];
  if (i < 0 || st < 0 || sh < 0 || sw < 0 || i >= st + sh + sw) return -1;
  if (c.mrope_layout == PEC_MROPE_INTERLEAVED) {  // ROPE-MROPE-3 (Qwen3-VL)
    if (i % 3 == 1 && i < 3 * sh) return 1;
    if (i % 3 == 2 && i < 3 * sw) return 2;
    return 0;
  }
  return i < st ? 0 : i < st + sh ? 1 : 2;  // ROPE-MROPE-2 (Qwen2-VL, Qwen2.5-VL)
}

std::int64_t mrope_position(const MropeCase& c, int a, std::int64_t t) {
  const std::vector<std::int64_t>& row = a == 0 ? c.positions : a == 1 ? c.pos_h : c.pos_w;
  return row[static_cast<std::size_t>(t)];
}

void fit_storage(MropeCase& c) {
  RopeQkCase q = as_qk(c);
  fit_storage(q);
  c.q = std::move(q.q);
  c.k = std::move(q.k);
}

MropeCase gen_mrope(Rng& r, const GenParams& p) {
  MropeCase c = from_qk(gen_rope_qk(r, p));
  const std::string freq_note = c.note;
  c.mrope_layout = r.chance(50) ? PEC_MROPE_SECTIONED : PEC_MROPE_INTERLEAVED;
  gen_sections(r, c);
  gen_rows(r, c, p.max_position);
  if (!freq_note.empty()) c.note += "; " + freq_note;
  return c;
}

MropeCase gen_mrope_large(Rng& r, const GenParams& p) {
  MropeCase c = from_qk(gen_rope_qk_large(r, p));  // the query+key production shapes
  const std::string freq_note = c.note;
  c.mrope_layout = r.chance(50) ? PEC_MROPE_SECTIONED : PEC_MROPE_INTERLEAVED;
  gen_sections(r, c);
  gen_rows(r, c, p.max_position);
  if (!freq_note.empty()) c.note += "; " + freq_note;
  return c;
}

std::string invalid_reason(const MropeCase& c) {
  const RopeQkCase q = as_qk(c);
  const std::string qreq = invalid_requirement(q);
  if (is_shape_requirement(qreq)) return invalid_reason(q);
  std::string why;
  if (!mrope_rule(c, &why).empty()) return why;
  if (!qreq.empty()) return invalid_reason(q);
  if (c.null_field.empty()) {
    if (auto s = bad_row(c.pos_h, "h"); !s.empty()) return s;
    if (auto s = bad_row(c.pos_w, "w"); !s.empty()) return s;
  }
  return "";
}

std::string invalid_requirement(const MropeCase& c) {
  const RopeQkCase q = as_qk(c);
  const std::string qreq = invalid_requirement(q);
  if (is_shape_requirement(qreq)) return qreq;
  std::string why;
  if (auto m = mrope_rule(c, &why); !m.empty()) return m;
  if (!qreq.empty()) return qreq;
  if (c.null_field.empty() && (!bad_row(c.pos_h, "h").empty() || !bad_row(c.pos_w, "w").empty()))
    return "positions";
  return "";
}

// Branches 0-9 as gen_rope_qk_invalid (the shared rules; branch 6 puts the bad position in any
// row), 10 sections, 11 mrope_layout, 12 interleaved limits.
MropeCase gen_mrope_invalid(Rng& r, const GenParams& p, int branch) {
  if (branch <= 9) {
    MropeCase c = from_qk(gen_rope_qk_invalid(r, p, branch));
    c.mrope_layout = r.chance(50) ? PEC_MROPE_SECTIONED : PEC_MROPE_INTERLEAVED;
    const std::int64_t half = std::max<std::int64_t>(c.rotary_dim / 2, 0);
    if (c.mrope_layout == PEC_MROPE_INTERLEAVED)
      c.section[1] = (half + 1) / 3, c.section[2] = std::min(half / 3, half - c.section[1]);
    else
      c.section[1] = half / 3, c.section[2] = half / 3;
    c.section[0] = half - c.section[1] - c.section[2];
    if (branch == 6 && r.chance(67)) {  // move the bad position to the h or the w row
      std::vector<std::int64_t>& row = r.chance(50) ? c.pos_h : c.pos_w;
      for (std::size_t t = 0; t < c.positions.size(); ++t) {
        if (c.positions[t] < 0 || c.positions[t] >= kPosLimit) {
          row[t] = c.positions[t];
          c.positions[t] = 0;
        }
      }
    }
    return c;
  }
  GenParams q = p;
  q.max_position = std::min<std::int64_t>(p.max_position, 4096);
  MropeCase c;
  do {
    c = gen_mrope(r, q);
  } while (c.n_tokens * (c.n_q_heads + c.n_kv_heads) * c.head_dim > 2048 || c.n_tokens == 0);
  const std::int64_t half = c.rotary_dim / 2;
  switch (branch) {
    case 10: {  // sections: a sum past or short of rotary_dim/2, or a negative part
      const int k = static_cast<int>(r.range(0, 3));
      if (k == 0) {
        c.section[r.range(0, 2)] += r.range(1, 8);  // more pairs than the head has
      } else if (k == 1) {
        c.section[0] = half, c.section[1] = half, c.section[2] = 0;
      } else if (k == 2) {
        c.section[0] = half + 1, c.section[1] = -1, c.section[2] = 0;
      } else {  // one pair short
        for (int a = 0; a < 3; ++a)
          if (c.section[a] > 0) {
            c.section[a] -= 1;
            break;
          }
      }
      break;
    }
    case 11:
      c.mrope_layout = r.chance(50) ? 2 : -1;
      break;
    default: {  // interleaved with h or w claiming pairs past the last one
      c.mrope_layout = PEC_MROPE_INTERLEAVED;
      if (r.chance(50) || half < 2) {
        c.section[1] = (half + 4) / 3, c.section[2] = 0;  // 3 s_h - 2 >= half
      } else {
        c.section[1] = 0, c.section[2] = (half + 3) / 3;  // 3 s_w - 1 >= half
      }
      c.section[1] = std::min(c.section[1], half), c.section[2] = std::min(c.section[2], half);
      c.section[0] = half - c.section[1] - c.section[2];
      break;
    }
  }
  return c;
}

}  // namespace pecheck::verifier
