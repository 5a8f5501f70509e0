#include "report/json.hpp"

#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace pecheck::report {

using ojson = nlohmann::ordered_json;
using nlohmann::json;

ojson json_real(double v) {
  if (std::isfinite(v)) return v;
  if (std::isnan(v)) return "nan";
  return v < 0 ? "-inf" : "inf";
}

double real_from_json(const ojson& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  throw UsageError("report JSON: expected a number or \"nan\"/\"inf\"/\"-inf\", got " +
                   j.dump(-1, ' ', false, ojson::error_handler_t::replace));
}

namespace {

bool is_special_string(const ojson& j) {
  if (!j.is_string()) return false;
  const auto& s = j.get_ref<const std::string&>();
  return s == "nan" || s == "inf" || s == "-inf";
}

ojson arg_json(const ArgValue& v) {
  struct Visit {
    ojson operator()(std::monostate) const { return nullptr; }
    ojson operator()(std::int64_t i) const { return i; }
    ojson operator()(double d) const { return json_real(d); }
    ojson operator()(const std::string& s) const { return s; }
    ojson operator()(const std::vector<std::int64_t>& xs) const { return xs; }
    ojson operator()(const std::vector<double>& xs) const {
      ojson a = ojson::array();
      for (double x : xs) a.push_back(json_real(x));
      return a;
    }
  };
  return std::visit(Visit{}, v);
}

// Integers stay integers; numbers with a fraction or exponent, and the special strings,
// become doubles. An empty list reads back as an integer list.
ArgValue arg_from_json(const ojson& j) {
  if (j.is_null()) return std::monostate{};
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number() || is_special_string(j)) return real_from_json(j);
  if (j.is_string()) return j.get<std::string>();
  if (j.is_array()) {
    bool all_int = true;
    for (const auto& e : j) all_int = all_int && e.is_number_integer();
    if (all_int) return j.get<std::vector<std::int64_t>>();
    std::vector<double> xs;
    for (const auto& e : j) xs.push_back(real_from_json(e));
    return xs;
  }
  throw UsageError("report JSON: unsupported argument value");
}

ojson tensor_json(const Tensor& t) {
  ojson o;
  o["name"] = t.name;
  o["shape"] = t.shape;
  if (!t.listed()) {  // a production-size witness: its shape and count, no values
    o["values_omitted"] = t.count();
    o["note"] = t.omitted_note();
    return o;
  }
  ojson dec = ojson::array(), hex = ojson::array();
  for (float v : t.values) {
    dec.push_back(json_real(v));
    hex.push_back(format_hex(v));
  }
  o["values"] = std::move(dec);
  o["hex"] = std::move(hex);
  return o;
}

// Prefers the hex spelling (exact); falls back to the decimal values.
Tensor tensor_from_json(const ojson& j) {
  Tensor t;
  t.name = j.at("name").get<std::string>();
  t.shape = j.at("shape").get<std::vector<std::int64_t>>();
  if (j.contains("hex")) {
    for (const auto& h : j.at("hex")) {
      const auto& s = h.get_ref<const std::string&>();
      if (s == "nan" || s == "inf" || s == "-inf") {
        t.values.push_back(static_cast<float>(real_from_json(h)));
      } else {
        t.values.push_back(std::strtof(s.c_str(), nullptr));
      }
    }
  } else if (j.contains("values")) {
    for (const auto& v : j.at("values")) t.values.push_back(static_cast<float>(real_from_json(v)));
  } else if (j.contains("values_omitted")) {  // a tensor the report does not list (Tensor::kMaxListed)
    t.omitted = j.at("values_omitted").get<std::size_t>();
  }
  return t;
}

ojson worst_json(const WorstElement& w) {
  ojson o;
  o["output"] = w.output;
  o["index"] = w.index;
  o["index_names"] = w.index_names;
  o["flat_index"] = w.flat_index;
  o["position"] = w.position ? ojson(*w.position) : ojson(nullptr);
  o["expected"] = json_real(w.expected);
  o["expected_hex"] = format_hex(w.expected);
  o["actual"] = json_real(w.actual);
  o["actual_hex"] = format_hex(w.actual);
  o["abs_error"] = json_real(w.abs_error);
  o["ulps"] = json_real(w.ulps);
  o["contract_units"] = json_real(w.contract_units);
  return o;
}

WorstElement worst_from_json(const ojson& j) {
  WorstElement w;
  w.output = j.at("output").get<std::string>();
  w.index = j.at("index").get<std::vector<std::int64_t>>();
  w.index_names = j.at("index_names").get<std::vector<std::string>>();
  w.flat_index = j.at("flat_index").get<std::int64_t>();
  if (!j.at("position").is_null()) w.position = j.at("position").get<std::int64_t>();
  w.expected = real_from_json(j.at("expected"));
  w.actual = real_from_json(j.at("actual"));
  w.abs_error = real_from_json(j.at("abs_error"));
  w.ulps = real_from_json(j.at("ulps"));
  w.contract_units = real_from_json(j.at("contract_units"));
  return w;
}

ojson series_json(const ErrorSeries& s) {
  ojson o;
  o["label"] = s.label;
  o["unit"] = s.unit;
  o["budget"] = s.budget ? json_real(*s.budget) : ojson(nullptr);
  ojson pts = ojson::array();
  for (const auto& p : s.points) pts.push_back(ojson::array({json_real(p.position), json_real(p.error)}));
  o["points"] = std::move(pts);
  return o;
}

ErrorSeries series_from_json(const ojson& j) {
  ErrorSeries s;
  s.label = j.at("label").get<std::string>();
  s.unit = j.at("unit").get<std::string>();
  if (!j.at("budget").is_null()) s.budget = real_from_json(j.at("budget"));
  for (const auto& p : j.at("points")) {
    s.points.push_back({real_from_json(p.at(0)), real_from_json(p.at(1))});
  }
  return s;
}

template <class T>
ojson opt(const std::optional<T>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

}  // namespace

ojson to_json(const Counterexample& cx) {
  ojson o;
  o["clause"] = cx.clause;
  o["kind"] = cx.kind;
  o["message"] = cx.message;
  o["function"] = cx.function;
  ojson args = ojson::object();
  for (const auto& a : cx.args) args[a.name] = arg_json(a.value);
  o["args"] = std::move(args);
  ojson inputs = ojson::array();
  for (const auto& t : cx.inputs) inputs.push_back(tensor_json(t));
  o["inputs"] = std::move(inputs);
  o["worst"] = cx.worst ? worst_json(*cx.worst) : ojson(nullptr);
  o["return_code"] = opt(cx.return_code);
  o["signal"] = opt(cx.signal);
  o["reproduce"] = cx.reproduce;
  o["notes"] = cx.notes;
  o["shrink_steps"] = cx.shrink_steps;
  return o;
}

Counterexample counterexample_from_json(const ojson& j) try {
  Counterexample cx;
  cx.clause = j.at("clause").get<std::string>();
  cx.kind = j.at("kind").get<std::string>();
  cx.message = j.at("message").get<std::string>();
  cx.function = j.at("function").get<std::string>();
  for (const auto& [k, v] : j.at("args").items()) cx.args.push_back({k, arg_from_json(v)});
  for (const auto& t : j.at("inputs")) cx.inputs.push_back(tensor_from_json(t));
  if (!j.at("worst").is_null()) cx.worst = worst_from_json(j.at("worst"));
  if (!j.at("return_code").is_null()) cx.return_code = j.at("return_code").get<int>();
  if (!j.at("signal").is_null()) cx.signal = j.at("signal").get<int>();
  cx.reproduce = j.at("reproduce").get<std::string>();
  cx.notes = j.at("notes").get<std::vector<std::string>>();
  cx.shrink_steps = j.at("shrink_steps").get<std::int64_t>();
  return cx;
} catch (const ojson::exception& e) {
  throw UsageError(std::string("report JSON: counterexample: ") + e.what());
}

ojson accuracy_json(const Accuracy& a) {
  ojson o;
  o["class"] = a.accuracy_class;
  ojson g = ojson::array();
  for (const auto& x : a.grades) g.push_back(ojson{{"class", x.name}, {"max_units", json_real(x.max_units)}, {"met", x.met()}});
  o["grades"] = std::move(g);
  o["pin"] = a.pin;
  if (a.worst) {
    ojson w;
    ojson args = ojson::object();  // ordered_json: ABI order kept, as in counterexamples
    for (const auto& ar : a.worst->args) args[ar.name] = arg_json(ar.value);
    ojson inputs = ojson::array();
    for (const auto& t : a.worst->inputs) inputs.push_back(tensor_json(t));
    w["element"] = worst_json(a.worst->element);
    w["args"] = std::move(args);
    w["inputs"] = std::move(inputs);
    w["case_index"] = a.worst->case_index;
    w["reproduce"] = a.worst->reproduce;
    o["worst"] = std::move(w);
  }
  ojson prof = ojson::array();
  for (const auto& p : a.profile) {
    prof.push_back(ojson{{"octave", p.octave}, {"max_units", json_real(p.max_units)}, {"max_ulps", json_real(p.max_ulps)},
                         {"position_error", p.position_error ? json_real(*p.position_error) : ojson(nullptr)},
                         {"elements", p.elements}});
  }
  o["profile"] = std::move(prof);
  o["largest_position"] = a.largest_position ? ojson(*a.largest_position) : ojson(nullptr);
  o["resolved_up_to"] = a.resolved_up_to ? ojson(*a.resolved_up_to) : ojson(nullptr);
  ojson held = ojson::object();
  for (const auto& [k, v] : a.class_held_up_to) held[k] = v;
  o["class_held_up_to"] = std::move(held);
  return o;
}

Accuracy accuracy_from_json(const ojson& j) {
  Accuracy a;
  a.accuracy_class = j.at("class").get<std::string>();
  for (const auto& g : j.at("grades")) a.grades.push_back({g.at("class").get<std::string>(), real_from_json(g.at("max_units"))});
  a.pin = j.at("pin").get<std::string>();
  if (j.contains("worst")) {
    const auto& w = j.at("worst");
    WorstCase wc;
    wc.element = worst_from_json(w.at("element"));
    for (const auto& [k, v] : w.at("args").items()) wc.args.push_back({k, arg_from_json(v)});
    for (const auto& t : w.at("inputs")) wc.inputs.push_back(tensor_from_json(t));
    wc.case_index = w.at("case_index").get<std::int64_t>();
    wc.reproduce = w.at("reproduce").get<std::string>();
    a.worst = std::move(wc);
  }
  for (const auto& p : j.at("profile")) {
    OctaveRow r;
    r.octave = p.at("octave").get<std::int64_t>();
    r.max_units = real_from_json(p.at("max_units"));
    r.max_ulps = real_from_json(p.at("max_ulps"));
    if (!p.at("position_error").is_null()) r.position_error = real_from_json(p.at("position_error"));
    r.elements = p.at("elements").get<std::int64_t>();
    a.profile.push_back(r);
  }
  if (!j.at("largest_position").is_null()) a.largest_position = j.at("largest_position").get<std::int64_t>();
  if (!j.at("resolved_up_to").is_null()) a.resolved_up_to = j.at("resolved_up_to").get<std::int64_t>();
  for (const auto& [k, v] : j.at("class_held_up_to").items()) a.class_held_up_to.emplace_back(k, v.get<std::int64_t>());
  return a;
}

ojson to_json(const CheckResult& c) {
  ojson o;
  o["name"] = c.name;
  o["scheme"] = c.scheme;
  o["function"] = c.function;
  o["clause"] = c.clause;
  o["description"] = c.description;
  o["status"] = std::string(to_string(c.status));
  o["reason"] = c.reason;
  o["cases"] = c.cases;
  o["planned_cases"] = c.planned;
  o["elements"] = c.elements;
  o["seconds"] = json_real(c.seconds);
  o["max_ulps"] = c.max_ulps ? json_real(*c.max_ulps) : ojson(nullptr);
  if (c.counterexample) {
    o["counterexample"] = to_json(*c.counterexample);
    o["reproduce"] = c.counterexample->reproduce;
  }
  ojson series = ojson::array();
  for (const auto& s : c.series) series.push_back(series_json(s));
  o["series"] = std::move(series);
  if (c.accuracy) o["accuracy"] = accuracy_json(*c.accuracy);
  return o;
}

ojson to_json(const VerifyResult& r) {
  ojson o;
  o["tool"] = "pecheck";
  o["schema"] = kJsonSchemaVersion;
  o["version"] = r.tool_version;
  o["verdict"] = std::string(r.verdict());
  o["verdict_sentence"] = r.verdict_sentence();
  o["kernel"] = r.kernel;
  o["abi_version"] = opt(r.abi_version);
  o["seed"] = r.options.seed;
  ojson opts;
  opts["seed"] = r.options.seed;
  opts["budget_seconds"] = json_real(r.options.budget_seconds);
  opts["max_position"] = r.options.max_position;
  opts["contract"] = r.options.contract;
  opts["only"] = r.options.only;
  opts["shard"] = r.options.shard;
  ojson extra = ojson::object();
  for (const auto& [k, v] : r.options.extra) extra[k] = v;
  opts["extra"] = std::move(extra);
  o["options"] = std::move(opts);
  o["exported"] = r.exported;
  o["missing"] = r.missing;
  ojson summary;
  summary["checks"] = r.checks.size();
  for (CheckStatus s : {CheckStatus::Pass, CheckStatus::Fail, CheckStatus::Skipped,
                        CheckStatus::Unknown, CheckStatus::Timeout, CheckStatus::Error, CheckStatus::Incomplete}) {
    summary[std::string(to_string(s))] = r.count(s);
  }
  o["summary"] = std::move(summary);
  o["seconds"] = json_real(r.seconds);
  o["notes"] = r.notes;
  ojson checks = ojson::array();
  for (const auto& c : r.checks) checks.push_back(to_json(c));
  o["checks"] = std::move(checks);
  return o;
}

VerifyResult verify_result_from_json(const ojson& j) {
  try {
    VerifyResult r;
    r.tool_version = j.at("version").get<std::string>();
    r.kernel = j.at("kernel").get<std::string>();
    if (!j.at("abi_version").is_null()) r.abi_version = j.at("abi_version").get<int>();
    const auto& o = j.at("options");
    r.options.seed = o.at("seed").get<std::uint64_t>();
    r.options.budget_seconds = real_from_json(o.at("budget_seconds"));
    r.options.max_position = o.at("max_position").get<std::int64_t>();
    r.options.contract = o.at("contract").get<std::string>();
    r.options.only = o.at("only").get<std::vector<std::string>>();
    r.options.shard = o.at("shard").get<std::string>();
    for (const auto& [k, v] : o.at("extra").items()) r.options.extra.emplace_back(k, v.get<std::string>());
    r.exported = j.at("exported").get<std::vector<std::string>>();
    r.missing = j.at("missing").get<std::vector<std::string>>();
    r.seconds = real_from_json(j.at("seconds"));
    r.notes = j.at("notes").get<std::vector<std::string>>();
    for (const auto& c : j.at("checks")) {
      CheckResult cr;
      cr.name = c.at("name").get<std::string>();
      cr.scheme = c.at("scheme").get<std::string>();
      cr.function = c.at("function").get<std::string>();
      cr.clause = c.at("clause").get<std::string>();
      cr.description = c.at("description").get<std::string>();
      auto st = check_status_from_string(c.at("status").get<std::string>());
      if (!st) throw UsageError("report JSON: unknown check status " + c.at("status").dump());
      cr.status = *st;
      cr.reason = c.at("reason").get<std::string>();
      cr.cases = c.at("cases").get<std::int64_t>();
      cr.planned = c.value("planned_cases", std::int64_t{0});
      cr.elements = c.at("elements").get<std::int64_t>();
      cr.seconds = real_from_json(c.at("seconds"));
      if (!c.at("max_ulps").is_null()) cr.max_ulps = real_from_json(c.at("max_ulps"));
      if (c.contains("counterexample")) cr.counterexample = counterexample_from_json(c.at("counterexample"));
      for (const auto& s : c.at("series")) cr.series.push_back(series_from_json(s));
      if (c.contains("accuracy")) cr.accuracy = accuracy_from_json(c.at("accuracy"));
      r.checks.push_back(std::move(cr));
    }
    return r;
  } catch (const ojson::exception& e) {
    throw UsageError(std::string("report JSON: ") + e.what());
  }
}

double real_from_json(const json& j) { return real_from_json(ojson::parse(j.dump())); }

VerifyResult verify_result_from_json(const json& j) {
  return verify_result_from_json(ojson::parse(j.dump(-1, ' ', false, json::error_handler_t::replace)));
}

Counterexample counterexample_from_json(const json& j) {
  return counterexample_from_json(ojson::parse(j.dump(-1, ' ', false, json::error_handler_t::replace)));
}

VerifyResult verify_result_from_text(std::string_view text) {
  ojson j;
  try {
    j = ojson::parse(text);
  } catch (const ojson::exception& e) {
    throw UsageError(std::string("report JSON: ") + e.what());
  }
  return verify_result_from_json(j);
}

std::string render_json(const VerifyResult& r) {
  return to_json(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace pecheck::report
