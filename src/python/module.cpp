// pecheck._pecheck: the pybind11 module behind the Python package (src/python/pecheck/,
// docs/python.md). _verify(obj, options) binds obj's kernel callables (bridge.hpp) and runs
// pecheck::verify on them in this process's interpreter: every call runs in a worker forked
// from here (isolate, the default), so an exception, a crash in an extension or a hang is a
// reported failure of that call. The GIL stays held by this thread for the whole run: the
// workers are forked holding it and continue in their own copy of the interpreter.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "python/bridge.hpp"
#include "report/json.hpp"
#include "report/write.hpp"
#include "verify/checks/accuracy.hpp"
#include "verify/shard.hpp"
#include "verify/verify.hpp"

namespace py = pybind11;

namespace {

template <class T>
void take(const py::dict& d, const char* key, T* out) {
  if (d.contains(key) && !d[key].is_none()) *out = d[key].cast<T>();
}

pecheck::VerifyOptions options_of(const py::dict& d) {
  pecheck::VerifyOptions o;
  o.call_timeout_seconds = 5.0;  // a Python call: the interpreter, and torch's first op in a worker
  o.jobs = 2;
  take(d, "seed", &o.seed);
  take(d, "budget_seconds", &o.budget_seconds);
  take(d, "max_position", &o.max_position);
  take(d, "contract", &o.contract);
  take(d, "only", &o.only);
  take(d, "isolate", &o.isolate);
  take(d, "call_timeout", &o.call_timeout_seconds);
  take(d, "case_scale", &o.case_scale);
  take(d, "strict", &o.strict);
  take(d, "case", &o.only_case);
  take(d, "domain", &o.domain);
  take(d, "jobs", &o.jobs);
  take(d, "corpus", &o.corpus_dir);
  take(d, "regressions", &o.regressions);
  take(d, "label", &o.kernel_label);
  std::vector<std::string> acc;
  take(d, "accuracy", &acc);
  for (const auto& spec : acc) {
    for (const auto& [scheme, cls] : pecheck::verifier::parse_accuracy(spec)) o.accuracy[scheme] = cls;
  }
  std::string shard;
  take(d, "shard", &shard);
  if (!shard.empty()) {
    const auto s = pecheck::verifier::parse_shard(shard);
    o.shard_index = s.index, o.shard_count = s.count;
  }
  if (!o.kernel_label.empty()) o.kernel_flag = "--python";
  return o;
}

// Runs the verification; a dict with the JSON report, the console summary, the exit status and
// the paths written.
py::dict verify(const py::object& obj, const py::dict& opts) {
  pecheck::VerifyOptions o = options_of(opts);
  if (o.domain.empty()) o.domain = pecheck::python::domain_of(obj);
  std::string report_dir, junit;
  take(opts, "report", &report_dir);
  take(opts, "junit", &junit);
  const pecheck::KernelTable t = pecheck::python::bind(obj);
  pecheck::VerifyResult r;
  try {
    r = pecheck::verify(t, o);
  } catch (...) {
    pecheck::python::unbind();
    throw;
  }
  pecheck::python::unbind();
  py::dict out;
  out["json"] = pecheck::report::render_json(r);
  out["text"] = pecheck::report::render_text(r);
  out["exit_status"] = r.exit_status();
  if (!report_dir.empty()) {
    const auto p = pecheck::report::write_report_dir(report_dir, r);
    out["report_json"] = p.json.string();
    out["report_md"] = p.markdown.string();
    out["report_html"] = p.html.string();
  }
  if (!junit.empty()) {
    pecheck::report::write_junit(junit, r);
    out["junit"] = junit;
  }
  return out;
}

// Seconds per call of obj.rope_cached_f32 through the bridge, in this process (no fork), on one
// fixed valid call (4 tokens, 2 query and 1 key head of 8 lanes, a 16-row float32 cache): the
// per-call overhead of a Python kernel (the argument object, five views, the call) plus its own
// work. docs/python.md prints it with examples/python/measure.py.
double bench_call(const py::object& obj, int n) {
  const pecheck::KernelTable t = pecheck::python::bind(obj);
  if (!t.rope_cached_f32) throw std::invalid_argument("bench_call needs rope_cached_f32");
  constexpr int T = 4, H = 2, KV = 1, D = 8, P = 16;
  std::vector<float> q(T * H * D, 0.5f), k(T * KV * D, 0.25f), qo(q.size()), ko(k.size()), cache(P * D);
  for (int p = 0; p < P; ++p)
    for (int i = 0; i < D / 2; ++i) cache[p * D + i] = 1.0f, cache[p * D + D / 2 + i] = 0.0f;
  const std::int64_t pos[T] = {0, 3, 7, 15};
  pec_rope_cached_args a{};
  a.n_tokens = T, a.n_q_heads = H, a.n_kv_heads = KV, a.head_dim = D, a.rotary_dim = D;
  a.layout = PEC_ROPE_NEOX, a.cache_dtype = PEC_DTYPE_F32, a.cache_positions = P;
  a.cos_sin_cache = cache.data(), a.positions = pos;
  a.q = {H * D, D}, a.k = {KV * D, D}, a.q_out = {H * D, D}, a.k_out = {KV * D, D};
  const auto t0 = std::chrono::steady_clock::now();
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += t.rope_cached_f32(&a, q.data(), k.data(), qo.data(), ko.data()) != 0;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const char* why = t.failure ? t.failure() : nullptr;
  const std::string what = why ? why : "";
  pecheck::python::unbind();
  if (bad) throw std::runtime_error("bench_call: the call did not return 0: " + what);
  return s / n;
}

}  // namespace

PYBIND11_MODULE(_pecheck, m) {
  m.doc() = "pecheck's verifier, for Python kernels (docs/python.md); use the pecheck package";
  py::register_exception<pecheck::UsageError>(m, "UsageError", PyExc_ValueError);
  py::register_exception<pecheck::InvalidArgument>(m, "InvalidArgument", PyExc_ValueError);
  m.def("_verify", &verify, py::arg("obj"), py::arg("options"));
  m.def("check_names", &pecheck::check_names);
  m.def("_bench_call", &bench_call, py::arg("obj"), py::arg("n"));
}
