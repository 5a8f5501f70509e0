#include "verify/gen/domain.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace pecheck::verifier {

namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  return out;
}

std::int64_t to_int(const std::string& v, const std::string& rule, const std::string& origin, std::int64_t lo,
                    std::int64_t hi) {
  std::int64_t x = 0;
  const auto r = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || r.ec != std::errc{} || r.ptr != v.data() + v.size() || x < lo || x > hi) {
    throw UsageError(origin + ": rule '" + rule + "': '" + v + "' is not an integer in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
  }
  return x;
}

template <class T>
bool contains(const std::vector<T>& v, T x) {
  return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
}

template <class T>
T pick(const std::vector<T>& v, Rng& r) {
  return v[static_cast<std::size_t>(r.range(0, static_cast<std::int64_t>(v.size()) - 1))];
}

constexpr std::int64_t kMaxPos = (std::int64_t{1} << 31) - 1;

void clamp_positions(std::vector<std::int64_t>& p, std::optional<std::int64_t> m) {
  if (!m) return;
  for (auto& x : p) x = std::min(x, *m);
}

}  // namespace

Domain parse_domain(const std::string& text_in, const std::string& origin) {
  std::string text = text_in;
  // A path to a file holding the text form.
  if (text.find('=') == std::string::npos && text.find(' ') == std::string::npos && !text.empty()) {
    std::ifstream f(text);
    if (!f) throw UsageError(origin + ": '" + text + "' is neither a rule (key=value) nor a readable file");
    std::ostringstream ss;
    ss << f.rdbuf();
    text = ss.str();
  }
  for (char& c : text) {
    if (c == ';') c = '\n';
  }
  Domain d;
  d.declared = true;
  std::istringstream in(text);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (auto h = line.find('#'); h != std::string::npos) line = line.substr(0, h);
    line = trim(line);
    if (line.empty()) continue;
    if (first && line.starts_with("pecheck-domain")) {
      if (trim(line.substr(14)) != "1") throw UsageError(origin + ": unsupported domain version '" + line + "' (this pecheck reads version 1)");
      first = false;
      continue;
    }
    first = false;
    std::size_t cut = line.find('=');
    if (cut == std::string::npos) cut = line.find_first_of(" \t");
    if (cut == std::string::npos) throw UsageError(origin + ": rule '" + line + "' has no value (key=value)");
    const std::string key = trim(line.substr(0, cut)), val = trim(line.substr(cut + 1));
    const std::vector<std::string> vs = split(val, ',');
    const std::string rule = key + "=" + val;
    auto ints = [&](std::int64_t lo, std::int64_t hi) {
      std::vector<std::int64_t> out;
      for (const auto& v : vs) out.push_back(to_int(v, rule, origin, lo, hi));
      return out;
    };
    if (parse_attention_rule(d, key, vs, rule, origin)) {
      // attention.* (ABI-DOM-4)
    } else if (key == "rope.layout") {
      for (const auto& v : vs) {
        if (v == "neox") d.rope_layouts.push_back(0);
        else if (v == "gptj") d.rope_layouts.push_back(1);
        else throw UsageError(origin + ": rule '" + rule + "': layout must be neox or gptj");
      }
    } else if (key == "mrope.layout") {
      for (const auto& v : vs) {
        if (v == "sectioned") d.mrope_layouts.push_back(0);
        else if (v == "interleaved") d.mrope_layouts.push_back(1);
        else throw UsageError(origin + ": rule '" + rule + "': M-RoPE layout must be sectioned or interleaved");
      }
    } else if (key == "rope.head_dim") {
      d.rope_head_dims = ints(2, 1 << 16);
    } else if (key == "rope.rotary_dim") {
      if (val == "full") {
        d.rope_full_rotary = true;
      } else {
        d.rope_rotary_dims = ints(2, 1 << 16);
        for (auto x : d.rope_rotary_dims) {
          if (x % 2) throw UsageError(origin + ": rule '" + rule + "': rotary_dim must be even");
        }
      }
    } else if (key == "rope.inv_freq") {
      if (val != "yes" && val != "no") throw UsageError(origin + ": rule '" + rule + "': yes or no");
      d.rope_inv_freq = val == "yes";
    } else if (key == "rope.max_position" || key == "alibi.max_position" || key == "t5.max_position" ||
               key == "sinusoidal.max_position") {
      const std::int64_t m = to_int(val, rule, origin, 1, kMaxPos);
      (key[0] == 'r' ? d.rope_max_position : key[0] == 'a' ? d.alibi_max_position : key[0] == 't' ? d.t5_max_position
                                                                                             : d.sin_max_position) = m;
    } else if (key == "rope.position_scale" || key == "rope.attn_factor") {
      // A kernel that does not take the parameter (GPT-J-style and HF-class kernels): calls keep it at 1.
      if (val != "1") throw UsageError(origin + ": rule '" + rule + "': only 1 (a parameter the kernel does not take)");
      (key == "rope.attn_factor" ? d.rope_unit_attn_factor : d.rope_unit_position_scale) = true;
    } else if (key == "rope_cached.cache_dtype") {
      for (const auto& v : vs) {
        if (v == "own") d.cached_dtypes.push_back(Domain::kOwnDtype);
        else if (v == "f32") d.cached_dtypes.push_back(0);
        else if (v == "bf16") d.cached_dtypes.push_back(1);
        else if (v == "f16") d.cached_dtypes.push_back(2);
        else throw UsageError(origin + ": rule '" + rule + "': cache dtypes are own, f32, bf16 or f16");
      }
    } else if (key == "alibi.mode") {
      for (const auto& v : vs) {
        if (v == "symmetric") d.alibi_modes.push_back(0);
        else if (v == "causal") d.alibi_modes.push_back(1);
        else throw UsageError(origin + ": rule '" + rule + "': mode must be symmetric or causal");
      }
    } else if (key == "t5.bidirectional") {
      for (auto x : ints(0, 1)) d.t5_bidirectional.push_back(static_cast<std::int32_t>(x));
    } else if (key == "t5.num_buckets") {
      d.t5_num_buckets = ints(2, 1024);
    } else if (key == "t5.max_distance") {
      d.t5_max_distance = ints(2, std::int64_t{1} << 31);
    } else if (key == "sinusoidal.d_model") {
      d.sin_d_model = ints(2, 1 << 16);
      for (auto x : d.sin_d_model) {
        if (x % 2) throw UsageError(origin + ": rule '" + rule + "': d_model must be even");
      }
    } else {
      static const std::vector<std::string> kRules = {
          "rope.layout", "rope.head_dim", "rope.rotary_dim", "rope.inv_freq", "rope.position_scale", "rope.attn_factor",
          "rope_cached.cache_dtype", "mrope.layout", "rope.max_position", "alibi.max_position", "t5.max_position",
          "sinusoidal.max_position", "alibi.mode", "t5.bidirectional", "t5.num_buckets", "t5.max_distance",
          "sinusoidal.d_model", "attention.positions", "attention.encoding", "attention.alibi_form",
          "attention.decode", "attention.max_position"};
      std::string all;
      for (const auto& k : kRules) all += (all.empty() ? "" : ", ") + k;
      throw UsageError(origin + ": unknown rule '" + key + "'" + did_you_mean(key, kRules) + " (" + all + ")");
    }
    d.text += (d.text.empty() ? "" : ";") + rule;
  }
  if (!d.rope_head_dims.empty() && !d.rope_rotary_dims.empty()) {
    const auto hmax = *std::max_element(d.rope_head_dims.begin(), d.rope_head_dims.end());
    const auto rmin = *std::min_element(d.rope_rotary_dims.begin(), d.rope_rotary_dims.end());
    if (rmin > hmax) throw UsageError(origin + ": no declared rotary_dim fits a declared head_dim");
  }
  return d;
}

Domain merge_domains(const Domain& lib, const Domain& cli) {
  if (!cli.declared) return lib;
  if (!lib.declared) return cli;
  Domain d = lib;
  auto take = [](auto& into, const auto& from) {
    if (!from.empty()) into = from;
  };
  take(d.rope_layouts, cli.rope_layouts);
  take(d.mrope_layouts, cli.mrope_layouts);
  take(d.rope_head_dims, cli.rope_head_dims);
  take(d.rope_rotary_dims, cli.rope_rotary_dims);
  d.rope_full_rotary = d.rope_full_rotary || cli.rope_full_rotary;
  d.rope_unit_position_scale = d.rope_unit_position_scale || cli.rope_unit_position_scale;
  d.rope_unit_attn_factor = d.rope_unit_attn_factor || cli.rope_unit_attn_factor;
  take(d.cached_dtypes, cli.cached_dtypes);
  if (cli.rope_inv_freq) d.rope_inv_freq = cli.rope_inv_freq;
  for (auto [into, from] : {std::pair{&d.rope_max_position, &cli.rope_max_position},
                            std::pair{&d.alibi_max_position, &cli.alibi_max_position},
                            std::pair{&d.t5_max_position, &cli.t5_max_position},
                            std::pair{&d.sin_max_position, &cli.sin_max_position}}) {
    if (*from) *into = *from;
  }
  take(d.alibi_modes, cli.alibi_modes);
  take(d.t5_bidirectional, cli.t5_bidirectional);
  take(d.t5_num_buckets, cli.t5_num_buckets);
  take(d.t5_max_distance, cli.t5_max_distance);
  take(d.sin_d_model, cli.sin_d_model);
  merge_attention_rules(d, cli);
  d.text = lib.text + ";" + cli.text;
  return d;
}

std::int64_t max_position_for(const Domain& d, const std::string& scheme, std::int64_t option) {
  const std::optional<std::int64_t>& m = scheme == "rope"    ? d.rope_max_position
                                         : scheme == "alibi" ? d.alibi_max_position
                                         : scheme == "t5"    ? d.t5_max_position
                                         : scheme == "attention" ? d.attn_max_position
                                                             : d.sin_max_position;
  return m && scheme != "learned" ? std::min(option, *m) : option;
}

void constrain(const Domain& d, RopeCase& c, Rng& r) {
  if (!d.declared) return;
  bool resized = false;
  if (!contains(d.rope_layouts, c.layout)) c.layout = pick(d.rope_layouts, r);
  if (!contains(d.rope_head_dims, c.head_dim)) {
    c.head_dim = pick(d.rope_head_dims, r);
    resized = true;
  }
  if (d.rope_full_rotary) {
    if (c.rotary_dim != c.head_dim) c.rotary_dim = c.head_dim, resized = true;
  } else if (!d.rope_rotary_dims.empty() && (!contains(d.rope_rotary_dims, c.rotary_dim) || c.rotary_dim > c.head_dim)) {
    std::vector<std::int64_t> fit;
    for (auto x : d.rope_rotary_dims) {
      if (x <= c.head_dim) fit.push_back(x);
    }
    c.rotary_dim = fit.empty() ? c.head_dim - c.head_dim % 2 : pick(fit, r);
    resized = true;
  } else if (c.rotary_dim > c.head_dim) {
    c.rotary_dim = c.head_dim - c.head_dim % 2;
    resized = true;
  }
  if (d.rope_inv_freq && !*d.rope_inv_freq) {
    c.has_inv_freq = false;
    c.inv_freq.clear();
  }
  if (c.has_inv_freq && c.inv_freq.size() != static_cast<std::size_t>(c.rotary_dim / 2)) {
    const std::size_t old = c.inv_freq.size();
    c.inv_freq.resize(static_cast<std::size_t>(c.rotary_dim / 2));
    for (std::size_t i = old; i < c.inv_freq.size(); ++i) {
      c.inv_freq[i] = static_cast<float>(std::pow(c.theta_base, -2.0 * static_cast<double>(i) / static_cast<double>(c.rotary_dim)));
    }
  }
  clamp_positions(c.positions, d.rope_max_position);
  if (d.rope_unit_position_scale) c.position_scale = 1.0;
  if (resized) {
    const std::size_t n = static_cast<std::size_t>(output_size(c));
    c.x.resize(n);
    for (auto& v : c.x) v = r.signed_unit();
    if (!c.k.empty()) {
      c.k.resize(n);
      for (auto& v : c.k) v = r.signed_unit();
    }
  }
}

void constrain(const Domain& d, AlibiCase& c, Rng&) {
  if (!d.declared) return;
  if (!contains(d.alibi_modes, c.mode)) c.mode = d.alibi_modes.front();
  clamp_positions(c.q_pos, d.alibi_max_position);
  clamp_positions(c.k_pos, d.alibi_max_position);
}

void constrain(const Domain& d, T5Case& c, Rng& r) {
  if (!d.declared) return;
  if (!contains(d.t5_bidirectional, c.bidirectional)) c.bidirectional = d.t5_bidirectional.front();
  if (!contains(d.t5_num_buckets, c.num_buckets)) {
    c.num_buckets = pick(d.t5_num_buckets, r);
    c.table.resize(static_cast<std::size_t>(c.num_buckets * c.n_heads));
    for (auto& v : c.table) v = r.signed_unit();
  }
  if (!contains(d.t5_max_distance, c.max_distance)) c.max_distance = pick(d.t5_max_distance, r);
  clamp_positions(c.q_pos, d.t5_max_position);
  clamp_positions(c.k_pos, d.t5_max_position);
}

void constrain(const Domain& d, SinusoidalCase& c, Rng& r) {
  if (!d.declared) return;
  if (!contains(d.sin_d_model, c.d_model)) c.d_model = pick(d.sin_d_model, r);
  clamp_positions(c.positions, d.sin_max_position);
}

void constrain(const Domain&, LearnedCase&, Rng&) {}

namespace {
bool below(const std::vector<std::int64_t>& p, std::optional<std::int64_t> m) {
  return !m || std::all_of(p.begin(), p.end(), [&](std::int64_t x) { return x <= *m; });
}
}  // namespace

bool inside(const Domain& d, const RopeCase& c) {
  if (!d.declared) return true;
  return contains(d.rope_layouts, c.layout) && contains(d.rope_head_dims, c.head_dim) &&
         (!d.rope_full_rotary || c.rotary_dim == c.head_dim) && contains(d.rope_rotary_dims, c.rotary_dim) &&
         !(d.rope_inv_freq && !*d.rope_inv_freq && c.has_inv_freq) && below(c.positions, d.rope_max_position) &&
         !(d.rope_unit_position_scale && c.position_scale != 1.0);
}
bool inside(const Domain& d, const AlibiCase& c) {
  return !d.declared || (contains(d.alibi_modes, c.mode) && below(c.q_pos, d.alibi_max_position) &&
                         below(c.k_pos, d.alibi_max_position));
}
bool inside(const Domain& d, const T5Case& c) {
  return !d.declared || (contains(d.t5_bidirectional, c.bidirectional) && contains(d.t5_num_buckets, c.num_buckets) &&
                         contains(d.t5_max_distance, c.max_distance) && below(c.q_pos, d.t5_max_position) &&
                         below(c.k_pos, d.t5_max_position));
}
bool inside(const Domain& d, const SinusoidalCase& c) {
  return !d.declared || (contains(d.sin_d_model, c.d_model) && below(c.positions, d.sin_max_position));
}
bool inside(const Domain&, const LearnedCase&) { return true; }

std::vector<std::string> untested(const Domain& d) {
  std::vector<std::string> out;
  if (!d.declared) return out;
  if (d.rope_layouts.size() == 1) out.push_back(std::string("rope: layout ") + (d.rope_layouts[0] == 0 ? "gptj" : "neox") + " untested");
  if (!d.rope_head_dims.empty()) out.push_back("rope: head_dim outside the declared list untested (odd head_dim included)");
  if (d.rope_full_rotary) out.push_back("rope: partial rotary untested (rope.passthrough has no case)");
  if (!d.rope_rotary_dims.empty()) out.push_back("rope: rotary_dim outside the declared list untested");
  if (d.rope_inv_freq && !*d.rope_inv_freq) out.push_back("rope: inv_freq tables (scaled frequencies) untested");
  if (d.rope_max_position) out.push_back("rope: positions above " + std::to_string(*d.rope_max_position) + " untested");
  if (d.rope_unit_position_scale) out.push_back("rope: position_scale other than 1 untested (not taken by the kernel)");
  if (d.rope_unit_attn_factor) out.push_back("rope: attn_factor other than 1 untested (not taken by the kernel)");
  if (!d.cached_dtypes.empty()) out.push_back("rope_cached: cache dtypes outside the declared list untested");
  if (d.mrope_layouts.size() == 1) out.push_back(std::string("mrope: layout ") + (d.mrope_layouts[0] == 0 ? "interleaved" : "sectioned") + " untested");
  if (d.alibi_modes.size() == 1) out.push_back(std::string("alibi: mode ") + (d.alibi_modes[0] == 0 ? "causal" : "symmetric") + " untested");
  if (d.alibi_max_position) out.push_back("alibi: positions above " + std::to_string(*d.alibi_max_position) + " untested");
  if (d.t5_bidirectional.size() == 1) out.push_back(std::string("t5: ") + (d.t5_bidirectional[0] ? "causal" : "bidirectional") + " mode untested");
  if (!d.t5_num_buckets.empty()) out.push_back("t5: num_buckets outside the declared list untested");
  if (!d.t5_max_distance.empty()) out.push_back("t5: max_distance outside the declared list untested");
  if (d.t5_max_position) out.push_back("t5: positions above " + std::to_string(*d.t5_max_position) + " untested");
  if (!d.sin_d_model.empty()) out.push_back("sinusoidal: d_model outside the declared list untested");
  if (d.sin_max_position) out.push_back("sinusoidal: positions above " + std::to_string(*d.sin_max_position) + " untested");
  untested_attention(d, out);
  return out;
}

}  // namespace pecheck::verifier
