#include "verify/checks/accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "oracle/budget.hpp"

namespace pecheck::verifier {

namespace {

const std::vector<std::string>& f32_classes(const std::string& scheme) {
  static const std::map<std::string, std::vector<std::string>> k = {
      {"rope", {"accurate", "reference", "fma", "powf", "ggml", "field"}},
      {"alibi", {"reference", "powf", "field"}},
      {"sinusoidal", {"accurate", "reference", "field"}},
      // Version 2 (spec/contracts.md PREC-QK-1, PREC-CACHE-1): the query+key form and the cache
      // builder are graded in the RoPE classes (rows of scheme rope), the cached rotation in its own.
      {"rope_qk", {"accurate", "reference", "fma", "powf", "ggml", "field"}},
      {"mrope", {"accurate", "reference", "fma", "powf", "ggml", "field"}},  // ABI-MROPE-2: as rope_qk
      {"rope_cache", {"accurate", "reference", "fma", "powf", "ggml", "field"}},
      {"rope_cached", {"reference", "field"}},
      // Attention (spec/contracts.md PREC-ATTN-2..4): derived budgets, not budgets.tsv rows;
      // field is online for float32 (and p16 for bf16 and f16, accuracy_classes).
      {"attention", {"eager", "online", "field"}},
  };
  static const std::vector<std::string> none;
  auto it = k.find(scheme);
  return it == k.end() ? none : it->second;
}

// The budgets.tsv scheme whose rows a scheme's classes are (rope_qk, rope_cache, mrope: rope's).
std::string row_scheme(const std::string& scheme) {
  return scheme == "rope_qk" || scheme == "rope_cache" || scheme == "mrope" ? std::string("rope") : scheme;
}

bool row_exists(const std::string& scheme, std::string_view dtype, const std::string& variant) {
  for (const auto& b : oracle::budgets()) {
    if (b.scheme == row_scheme(scheme) && b.dtype == dtype && b.variant == variant) return true;
  }
  return false;
}

const std::vector<std::string> kSchemes = {"rope",      "alibi",       "sinusoidal", "rope_qk",
                                           "rope_cached", "rope_cache", "mrope",      "attention"};

}  // namespace

const std::vector<std::string>& accuracy_classes(const std::string& scheme, Storage storage) {
  if (storage == Storage::F32) return f32_classes(scheme);
  if (scheme == "attention") {
    static const std::vector<std::string> attn16 = {"eager", "online", "p16", "field"};
    return attn16;
  }
  static const auto table = [] {
    std::map<std::pair<std::string, Storage>, std::vector<std::string>> t;
    for (const auto& s : kSchemes) {
      if (s == "attention") continue;
      for (Storage st : {Storage::BF16, Storage::F16}) {
        auto& v = t[{s, st}];
        for (const auto& c : f32_classes(s)) {
          if (row_exists(s, storage_name(st), c)) v.push_back(c);
        }
      }
    }
    return t;
  }();
  static const std::vector<std::string> none;
  auto it = table.find({scheme, storage});
  return it == table.end() ? none : it->second;
}

namespace {

bool has_class(const std::string& scheme, const std::string& cls, Storage st) {
  const auto& c = accuracy_classes(scheme, st);
  return std::find(c.begin(), c.end(), cls) != c.end();
}

bool any_storage_has(const std::string& scheme, const std::string& cls) {
  for (Storage st : kAllStorages) {
    if (has_class(scheme, cls, st)) return true;
  }
  return false;
}

std::string list(const std::string& scheme, Storage st = Storage::F32) {
  std::string s;
  for (const auto& c : accuracy_classes(scheme, st)) s += (s.empty() ? "" : ", ") + c;
  return s;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

std::optional<Storage> storage_of_name(const std::string& n) {
  for (Storage st : kAllStorages) {
    if (storage_name(st) == n) return st;
  }
  return std::nullopt;
}

const std::vector<std::string>& accuracy_schemes() { return kSchemes; }

bool has_accuracy_class(const std::string& scheme, const std::string& cls, Storage st) { return has_class(scheme, cls, st); }

bool accuracy_entry_valid(const std::string& key, const std::string& cls) {
  if (key == kEveryScheme) {
    return std::any_of(kSchemes.begin(), kSchemes.end(), [&](const std::string& s) { return any_storage_has(s, cls); });
  }
  const auto dot = key.find('.');
  if (dot == std::string::npos) return any_storage_has(key, cls);
  const auto st = storage_of_name(key.substr(dot + 1));
  return st && has_class(key.substr(0, dot), cls, *st);
}

std::map<std::string, std::string> parse_accuracy(const std::string& spec) {
  std::map<std::string, std::string> out;
  if (spec.empty()) throw UsageError("--accuracy: empty value (a class such as powf, or rope=ggml,alibi=powf)");
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t end = std::min(spec.find(',', start), spec.size());
    const std::string part = spec.substr(start, end - start);
    const std::size_t eq = part.find('=');
    if (eq == std::string::npos) {
      bool any = false;
      for (const auto& s : kSchemes) any = any || any_storage_has(s, part);
      if (!any) {
        std::vector<std::string> all;
        for (const auto& s : kSchemes) {
          for (const auto& c : f32_classes(s)) {
            if (std::find(all.begin(), all.end(), c) == all.end()) all.push_back(c);
          }
        }
        throw UsageError("--accuracy: unknown class '" + part + "'" + did_you_mean(part, all) + " (rope: " + list("rope") +
                         "; alibi: " + list("alibi") + "; sinusoidal: " + list("sinusoidal") + "; rope_cached: " +
                         list("rope_cached") + "; rope_qk, rope_cache, mrope: as rope; attention: " +
                         list("attention", Storage::BF16) + ")");
      }
      out[kEveryScheme] = part;  // every scheme and storage type that has the class
    } else {
      const std::string key = part.substr(0, eq), c = part.substr(eq + 1);
      const auto dot = key.find('.');
      const std::string s = key.substr(0, dot);
      if (s == "t5" || s == "learned") {
        throw UsageError("--accuracy: " + s + " has no accuracy classes (" +
                         (s == "t5" ? std::string("buckets are decided exactly, PREC-T5-1")
                                    : std::string("lookups are bit-exact")) + ")");
      }
      if (f32_classes(s).empty()) {
        throw UsageError("--accuracy: unknown scheme '" + s + "'" + did_you_mean(s, kSchemes) + " (schemes with classes: " +
                         join(kSchemes) + "; a scheme.dtype key such as rope_qk.bf16 names one function)");
      }
      if (dot != std::string::npos) {
        const auto st = storage_of_name(key.substr(dot + 1));
        if (!st) throw UsageError("--accuracy: unknown storage type in '" + key + "' (f32, bf16, f16)");
        if (!has_class(s, c, *st)) {
          throw UsageError("--accuracy: " + key + " has no class '" + c + "'" + did_you_mean(c, accuracy_classes(s, *st)) +
                           " (" + list(s, *st) + ")");
        }
      } else if (!any_storage_has(s, c)) {
        throw UsageError("--accuracy: " + s + " has no class '" + c + "'" + did_you_mean(c, f32_classes(s)) + " (" + list(s) +
                         ")");
      }
      out[key] = c;
    }
    start = end + 1;
  }
  return out;
}

std::string chosen_class(const std::map<std::string, std::string>& accuracy, const std::string& scheme,
                         Storage storage) {
  if (auto it = accuracy.find(scheme + "." + std::string(storage_name(storage))); it != accuracy.end()) {
    return it->second;
  }
  auto it = accuracy.find(scheme);
  if (it != accuracy.end() && has_class(scheme, it->second, storage)) return it->second;
  it = accuracy.find(kEveryScheme);
  if (it != accuracy.end() && has_class(scheme, it->second, storage)) return it->second;
  return std::string(kDefaultClass);
}

const oracle::Budget& class_row(const std::string& scheme, const std::string& cls, Storage storage) {
  return oracle::budget(row_scheme(scheme), storage_name(storage), cls);
}

AccuracyTrack::AccuracyTrack(const std::string& scheme, const std::string& chosen, Storage storage) {
  const bool rows = scheme != "attention";  // attention's budgets are derived per case (PREC-ATTN-*)
  for (const auto& c : accuracy_classes(scheme, storage)) {
    if (c == chosen) chosen_ = names_.size();
    if (rows) rows_.push_back(&class_row(scheme, c, storage));
    names_.push_back(c);
  }
  max_units_.assign(names_.size(), 0.0);
}

namespace {
std::int64_t octave_of(std::int64_t p) {
  if (p <= 0) return -1;
  std::int64_t k = 0;
  while (k < 62 && (std::int64_t{2} << k) <= p) ++k;
  return k;
}
double worse(double a, double b) { return std::isnan(b) ? INFINITY : std::max(a, b); }
}  // namespace

void AccuracyTrack::observe(std::int64_t position, double ulps, const std::vector<double>& units) {
  if (!active()) return;
  for (std::size_t i = 0; i < names_.size(); ++i) max_units_[i] = worse(max_units_[i], units[i]);
  Octave& o = octaves_[octave_of(position)];
  o.units = worse(o.units, units[chosen_]);
  o.ulps = worse(o.ulps, ulps);  // a NaN output counts as infinitely many ulp
  ++o.elements;
  auto [it, fresh] = by_position_.try_emplace(position);
  if (fresh) it->second.assign(names_.size(), 0.0);
  for (std::size_t i = 0; i < names_.size(); ++i) it->second[i] = worse(it->second[i], units[i]);
}

void AccuracyTrack::observe_position_error(std::int64_t position, double positions) {
  Octave& o = octaves_[octave_of(position)];
  o.pos_err = worse(o.pos_err.value_or(0.0), positions);
  auto [it, fresh] = pos_err_.try_emplace(position, 0.0);
  it->second = worse(it->second, positions);
}

void AccuracyTrack::set_worst(double units, report::WorstCase w) {
  worst_units_ = units;
  worst_ = std::move(w);
}

report::Accuracy AccuracyTrack::finish(const std::string& pin_key) const {
  report::Accuracy a;
  a.accuracy_class = names_.empty() ? "" : names_[chosen_];
  for (std::size_t i = 0; i < names_.size(); ++i) a.grades.push_back({names_[i], max_units_[i]});
  // Pin advice only for a class met with a margin (issue 20, finding 6): a class met at 0.9996
  // by one seed fails another; the tightest class whose worst is <= kPinMargin of its bound.
  for (const auto& g : a.grades) {
    if (g.max_units <= kPinMargin) {
      a.pin = "--accuracy " + pin_key + "=" + g.name;
      break;
    }
  }
  a.worst = worst_;
  for (const auto& [oct, o] : octaves_) a.profile.push_back({oct, o.units, o.ulps, o.pos_err, o.elements});
  if (!by_position_.empty()) a.largest_position = by_position_.rbegin()->first;
  for (std::size_t i = 0; i < names_.size(); ++i) {
    std::int64_t held = -1;
    for (const auto& [p, u] : by_position_) {
      if (!(u[i] <= 1.0)) break;
      held = p;
    }
    if (held >= 0) a.class_held_up_to.emplace_back(names_[i], held);
  }
  if (!pos_err_.empty()) {
    std::int64_t held = -1;
    for (const auto& [p, e] : pos_err_) {
      if (!(e < 0.5)) break;
      held = p;
    }
    if (held >= 0) a.resolved_up_to = held;
  }
  return a;
}

double alibi_slope_power(std::int64_t h, std::int64_t n_heads) {
  std::int64_t p = 1;
  while (p * 2 <= n_heads) p *= 2;
  return h < p ? static_cast<double>(h + 1) : static_cast<double>(2 * (h - p) + 1);
}

}  // namespace pecheck::verifier
