// Accuracy classes of the oracle checks (spec/contracts.md "Accuracy classes", spec/budgets.tsv):
// which class a run judges by (--accuracy), the error of every element in units of every class
// of its scheme, the run's worst element with its case, and the profile per position octave.
//
// A class is a budgets.tsv row of dtype f32 (scheme, variant). The verdict of `<scheme>.oracle`
// and `<scheme>.shift` uses the chosen class (default `field`: every standard float32 formula of
// the field); the other classes only grade the kernel, they never change the verdict.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/result.hpp"
#include "verify/isolation/storage.hpp"

namespace pecheck::oracle {
struct Budget;
}

namespace pecheck::verifier {

inline constexpr const char* kDefaultClass = "field";
// A class is advised as a CI pin only when the run's worst is at most this fraction of its bound.
inline constexpr double kPinMargin = 0.8;
// The key of a bare --accuracy CLASS: every scheme and storage type that has the class.
inline constexpr const char* kEveryScheme = "*";

// The schemes that have classes (rope, alibi, sinusoidal, rope_qk, rope_cached, rope_cache, mrope).
const std::vector<std::string>& accuracy_schemes();
bool has_accuracy_class(const std::string& scheme, const std::string& cls, Storage storage);
std::optional<Storage> storage_of_name(const std::string& name);  // "f32", "bf16", "f16"

// The classes of a scheme for a storage type, tightest first (rope f32: accurate, reference,
// fma, powf, ggml, field): the float32 classes whose budgets.tsv row exists for that dtype
// (spec/contracts.md derives the bf16/f16 rows); empty for schemes judged exactly (t5: bucket
// decisions, learned: bit-exact).
const std::vector<std::string>& accuracy_classes(const std::string& scheme, Storage storage = Storage::F32);

// Parses --accuracy: "CLASS" (key kEveryScheme: every scheme and storage type that has it), or "KEY=CLASS[,KEY=CLASS...]" with KEY
// a scheme ("rope": every storage type of it that has the class) or a scheme and storage type
// ("rope.bf16": that function only). Throws UsageError naming the bad part.
std::map<std::string, std::string> parse_accuracy(const std::string& spec);
// Whether an --accuracy entry names an existing class for its key (the engine validates
// VerifyOptions::accuracy built without parse_accuracy).
bool accuracy_entry_valid(const std::string& key, const std::string& cls);

// The class name a run uses for a scheme's function of a storage type: the entry for
// "scheme.storage", else the entry for "scheme" when that storage type has the class, else the
// default class; and its budget row (budgets.tsv dtype = the storage type).
std::string chosen_class(const std::map<std::string, std::string>& accuracy, const std::string& scheme,
                         Storage storage = Storage::F32);
const oracle::Budget& class_row(const std::string& scheme, const std::string& cls, Storage storage = Storage::F32);

// What the oracle checks accumulate over the recorded (not shrinking) cases.
class AccuracyTrack {
 public:
  AccuracyTrack() = default;
  AccuracyTrack(const std::string& scheme, const std::string& chosen, Storage storage = Storage::F32);
  bool active() const { return !names_.empty(); }
  std::size_t size() const { return names_.size(); }
  const std::string& name(std::size_t i) const { return names_[i]; }
  // The budgets.tsv row of class i (every scheme but attention, whose budgets are per case).
  const oracle::Budget& row(std::size_t i) const { return *rows_[i]; }
  std::size_t chosen_index() const { return chosen_; }

  // One compared element: its error in units of each class (units.size() == size()).
  void observe(std::int64_t position, double ulps, const std::vector<double>& units);
  // RoPE: the error at the fastest pair in positions (angle error / angular step).
  void observe_position_error(std::int64_t position, double positions);
  // A case whose worst element (chosen class) is `units`: kept when it is the run's worst.
  bool is_new_worst(double units) const { return units > worst_units_; }
  void set_worst(double units, report::WorstCase w);

  // `pin_key`: the --accuracy key of the pin line ("rope", "rope.bf16"); the pin is the tightest
  // class met with margin (worst <= kPinMargin of its bound), none when no class is.
  report::Accuracy finish(const std::string& pin_key) const;

 private:
  std::vector<const oracle::Budget*> rows_;
  std::vector<std::string> names_;
  std::size_t chosen_ = 0;
  std::vector<double> max_units_;
  struct Octave {
    double units = 0, ulps = 0;
    std::optional<double> pos_err;
    std::int64_t elements = 0;
  };
  std::map<std::int64_t, Octave> octaves_;
  // position -> per class max units (for "class held up to"), and -> position error
  std::map<std::int64_t, std::vector<double>> by_position_;
  std::map<std::int64_t, double> pos_err_;
  double worst_units_ = -1;
  std::optional<report::WorstCase> worst_;
};

// ALiBi's slope power k of head h among n heads (PREC-ALIBI-3): h + 1 below the largest power
// of two p <= n, else 2 (h - p) + 1.
double alibi_slope_power(std::int64_t h, std::int64_t n_heads);

}  // namespace pecheck::verifier
