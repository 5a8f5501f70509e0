#include "python/bridge.hpp"

#include <pybind11/numpy.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace pecheck::python {

using verifier::Fn;
using verifier::kAllFns;
using verifier::kFnCount;
using verifier::Storage;
using U16 = std::uint16_t;

namespace {

// What the trampolines call. Deliberately never destroyed: it lives as long as the process
// (a worker ends with _exit, and an interpreter may be gone at static destruction).
struct Bound {
  py::object obj;
  std::array<py::object, kFnCount> fns;
  py::object ns;         // types.SimpleNamespace
  py::object describe;   // pecheck._provider.describe_exception
  py::object after_fork; // pecheck._provider.after_fork
  pid_t pid = 0;         // the process that bound (or last entered) it
  std::string failure;
  bool failed = false;
};
Bound* g = nullptr;

const char* failure() { return g && g->failed ? g->failure.c_str() : nullptr; }

void fail(std::string what) {
  g->failed = true;
  g->failure = std::move(what);
}

// The first call in a process forked from the binding one (a worker): the interpreter's
// after-fork bookkeeping, then one intra-op thread for torch (pecheck._provider.after_fork).
void enter() {
  const pid_t p = getpid();
  if (p == g->pid) return;
  g->pid = p;
  PyOS_AfterFork_Child();
  g->after_fork();
}

py::dtype dtype_of(Storage s) { return s == Storage::F32 ? py::dtype::of<float>() : py::dtype::of<U16>(); }
Storage storage_of_code(std::int32_t cache_dtype) {
  return cache_dtype == PEC_DTYPE_BF16 ? Storage::BF16 : cache_dtype == PEC_DTYPE_F16 ? Storage::F16 : Storage::F32;
}

// A numpy array over `p` (no copy, writeable) with `shape` and element strides `strides`; None
// when p is NULL or a size is negative or unrepresentable (an invalid call: the callable sees
// None and should return non-zero).
py::object view(const void* p, const py::dtype& dt, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides) {
  if (p == nullptr) return py::none();
  const auto es = static_cast<std::int64_t>(dt.itemsize());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0 || shape[i] > (std::int64_t{1} << 40)) return py::none();
    if (strides[i] > (std::int64_t{1} << 40) || strides[i] < -(std::int64_t{1} << 40)) return py::none();
    strides[i] *= es;
  }
  try {
    return py::array(dt, std::vector<py::ssize_t>(shape.begin(), shape.end()),
                     std::vector<py::ssize_t>(strides.begin(), strides.end()), p, py::none());
  } catch (const py::error_already_set&) {
    return py::none();
  }
}

// A contiguous view of `shape`.
py::object dense(const void* p, const py::dtype& dt, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> st(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) st[i - 1] = st[i] * std::max<std::int64_t>(shape[i], 1);
  return view(p, dt, shape, st);
}

py::object ints(const std::int64_t* p, std::int64_t n) { return dense(p, py::dtype::of<std::int64_t>(), {n}); }
py::object f32s(const float* p, std::int64_t n) { return dense(p, py::dtype::of<float>(), {n}); }
py::object inv_freq(const float* p, std::int64_t rotary_dim) { return f32s(p, rotary_dim / 2); }

py::object strides_obj(const pec_strides& s) { return g->ns(py::arg("token") = s.token, py::arg("head") = s.head); }

// [n_tokens][heads][head_dim] with the ABI's strides (ABI-VIEW-1).
py::object qk_view(const void* p, Storage s, std::int64_t n_tokens, std::int64_t heads, std::int64_t head_dim,
                   const pec_strides& st) {
  return view(p, dtype_of(s), {n_tokens, heads, head_dim}, {st.token, st.head, 1});
}

// Calls the callable of `f` with what `build` returns; the status, or -1 with the failure noted.
template <class Build>
int call(Fn f, Build build) {
  g->failed = false;
  enter();
  try {
    const py::tuple t = build();
    const py::object r = g->fns[static_cast<int>(f)](*t);
    if (r.is_none()) return 0;
    if (PyBool_Check(r.ptr()) || !PyIndex_Check(r.ptr())) {
      fail("returned a " + std::string(py::str(r.get_type().attr("__name__"))) +
           " instead of the status (an int: 0 done, non-zero rejected)");
      return -1;
    }
    const long long v = py::int_(r).cast<long long>();
    if (v < INT32_MIN || v > INT32_MAX) {
      fail("returned " + std::to_string(v) + ", a status outside the C int range");
      return -1;
    }
    return static_cast<int>(v);
  } catch (py::error_already_set& e) {
    std::string what;
    try {
      what = "raised " + std::string(py::str(g->describe(e.type(), e.value(), e.trace())));
    } catch (const std::exception&) {
      what = std::string("raised ") + e.what();
    }
    fail(what);
    return -1;
  } catch (const std::exception& e) {
    fail(std::string("failed in pecheck's Python bridge: ") + e.what());  // not the kernel's fault
    return -1;
  }
}

// ---- The argument structs as Python objects ------------------------------------------------

template <class A>
py::object rope_args(const A* a) {
  return g->ns(py::arg("n_tokens") = a->n_tokens, py::arg("n_heads") = a->n_heads, py::arg("head_dim") = a->head_dim,
               py::arg("rotary_dim") = a->rotary_dim, py::arg("layout") = a->layout,
               py::arg("theta_base") = a->theta_base, py::arg("position_scale") = a->position_scale,
               py::arg("positions") = ints(a->positions, a->n_tokens),
               py::arg("inv_freq") = inv_freq(a->inv_freq, a->rotary_dim));
}

py::object qk_args(const pec_rope_qk_args* a) {
  return g->ns(py::arg("n_tokens") = a->n_tokens, py::arg("n_q_heads") = a->n_q_heads,
               py::arg("n_kv_heads") = a->n_kv_heads, py::arg("head_dim") = a->head_dim,
               py::arg("rotary_dim") = a->rotary_dim, py::arg("layout") = a->layout,
               py::arg("theta_base") = a->theta_base, py::arg("position_scale") = a->position_scale,
               py::arg("attn_factor") = a->attn_factor, py::arg("positions") = ints(a->positions, a->n_tokens),
               py::arg("inv_freq") = inv_freq(a->inv_freq, a->rotary_dim), py::arg("q") = strides_obj(a->q),
               py::arg("k") = strides_obj(a->k), py::arg("q_out") = strides_obj(a->q_out),
               py::arg("k_out") = strides_obj(a->k_out));
}

py::object cached_args(const pec_rope_cached_args* a) {
  const Storage cs = storage_of_code(a->cache_dtype);
  return g->ns(py::arg("n_tokens") = a->n_tokens, py::arg("n_q_heads") = a->n_q_heads,
               py::arg("n_kv_heads") = a->n_kv_heads, py::arg("head_dim") = a->head_dim,
               py::arg("rotary_dim") = a->rotary_dim, py::arg("layout") = a->layout,
               py::arg("cache_dtype") = a->cache_dtype, py::arg("cache_positions") = a->cache_positions,
               py::arg("cos_sin_cache") = dense(a->cos_sin_cache, dtype_of(cs), {a->cache_positions, a->rotary_dim}),
               py::arg("positions") = ints(a->positions, a->n_tokens), py::arg("q") = strides_obj(a->q),
               py::arg("k") = strides_obj(a->k), py::arg("q_out") = strides_obj(a->q_out),
               py::arg("k_out") = strides_obj(a->k_out));
}

py::object mrope_args(const pec_mrope_args* a) {
  return g->ns(py::arg("n_tokens") = a->n_tokens, py::arg("n_q_heads") = a->n_q_heads,
               py::arg("n_kv_heads") = a->n_kv_heads, py::arg("head_dim") = a->head_dim,
               py::arg("rotary_dim") = a->rotary_dim, py::arg("layout") = a->layout,
               py::arg("mrope_layout") = a->mrope_layout,
               py::arg("mrope_section") = py::make_tuple(a->mrope_section[0], a->mrope_section[1], a->mrope_section[2]),
               py::arg("theta_base") = a->theta_base, py::arg("position_scale") = a->position_scale,
               py::arg("attn_factor") = a->attn_factor,
               py::arg("positions") = dense(a->positions, py::dtype::of<std::int64_t>(), {3, a->n_tokens}),
               py::arg("inv_freq") = inv_freq(a->inv_freq, a->rotary_dim), py::arg("q") = strides_obj(a->q),
               py::arg("k") = strides_obj(a->k), py::arg("q_out") = strides_obj(a->q_out),
               py::arg("k_out") = strides_obj(a->k_out));
}

// ---- Trampolines, one per function and signature -----------------------------------------

template <Fn F, class T>
int rope_t(const pec_rope_args* a, const T* x, T* y) {
  return call(F, [&] {
    if (!a) return py::make_tuple(py::none(), py::none(), py::none());
    const std::vector<std::int64_t> sh{a->n_tokens, a->n_heads, a->head_dim};
    return py::make_tuple(rope_args(a), dense(x, dtype_of(storage(F)), sh), dense(y, dtype_of(storage(F)), sh));
  });
}

template <Fn F, class T>
int alibi_t(const pec_alibi_args* a, T* out) {
  return call(F, [&] {
    if (!a) return py::make_tuple(py::none(), py::none());
    const py::object args = g->ns(py::arg("n_heads") = a->n_heads, py::arg("n_q") = a->n_q, py::arg("n_k") = a->n_k,
                                  py::arg("mode") = a->mode, py::arg("q_pos") = ints(a->q_pos, a->n_q),
                                  py::arg("k_pos") = ints(a->k_pos, a->n_k));
    return py::make_tuple(args, dense(out, dtype_of(storage(F)), {a->n_heads, a->n_q, a->n_k}));
  });
}

template <Fn F, class A, class T>
int t5_t(const A* a, T* out) {
  return call(F, [&] {
    if (!a) return py::make_tuple(py::none(), py::none());
    const py::object args =
        g->ns(py::arg("n_heads") = a->n_heads, py::arg("n_q") = a->n_q, py::arg("n_k") = a->n_k,
              py::arg("num_buckets") = a->num_buckets, py::arg("max_distance") = a->max_distance,
              py::arg("bidirectional") = a->bidirectional, py::arg("q_pos") = ints(a->q_pos, a->n_q),
              py::arg("k_pos") = ints(a->k_pos, a->n_k),
              py::arg("table") = dense(a->table, dtype_of(storage(F)), {a->num_buckets, a->n_heads}));
    return py::make_tuple(args, dense(out, dtype_of(storage(F)), {a->n_heads, a->n_q, a->n_k}));
  });
}

template <Fn F, class T>
int sinusoidal_t(const pec_sinusoidal_args* a, T* out) {
  return call(F, [&] {
    if (!a) return py::make_tuple(py::none(), py::none());
    const py::object args = g->ns(py::arg("n_tokens") = a->n_tokens, py::arg("d_model") = a->d_model,
                                  py::arg("base") = a->base, py::arg("positions") = ints(a->positions, a->n_tokens));
    return py::make_tuple(args, dense(out, dtype_of(storage(F)), {a->n_tokens, a->d_model}));
  });
}

template <Fn F, class A, class T>
int learned_t(const A* a, T* out) {
  return call(F, [&] {
    if (!a) return py::make_tuple(py::none(), py::none());
    const py::object args =
        g->ns(py::arg("n_tokens") = a->n_tokens, py::arg("d_model") = a->d_model,
              py::arg("max_positions") = a->max_positions, py::arg("positions") = ints(a->positions, a->n_tokens),
              py::arg("table") = dense(a->table, dtype_of(storage(F)), {a->max_positions, a->d_model}));
    return py::make_tuple(args, dense(out, dtype_of(storage(F)), {a->n_tokens, a->d_model}));
  });
}

// The query+key forms: (args, q, k, q_out, k_out) as strided views.
template <Fn F, class A, class T, py::object (*Args)(const A*)>
int qk_t(const A* a, const T* q, const T* k, T* qo, T* ko) {
  return call(F, [&] {
    if (!a) return py::make_tuple(py::none(), py::none(), py::none(), py::none(), py::none());
    const Storage s = storage(F);
    return py::make_tuple(Args(a), qk_view(q, s, a->n_tokens, a->n_q_heads, a->head_dim, a->q),
                          qk_view(k, s, a->n_tokens, a->n_kv_heads, a->head_dim, a->k),
                          qk_view(qo, s, a->n_tokens, a->n_q_heads, a->head_dim, a->q_out),
                          qk_view(ko, s, a->n_tokens, a->n_kv_heads, a->head_dim, a->k_out));
  });
}

template <Fn F, class T>
int cache_t(const pec_rope_cache_args* a, T* cache) {
  return call(F, [&] {
    if (!a) return py::make_tuple(py::none(), py::none());
    const py::object args =
        g->ns(py::arg("cache_positions") = a->cache_positions, py::arg("rotary_dim") = a->rotary_dim,
              py::arg("theta_base") = a->theta_base, py::arg("position_scale") = a->position_scale,
              py::arg("attn_factor") = a->attn_factor, py::arg("inv_freq") = inv_freq(a->inv_freq, a->rotary_dim));
    return py::make_tuple(args, dense(cache, dtype_of(storage(F)), {a->cache_positions, a->rotary_dim}));
  });
}

void* trampoline(Fn f) {
  using QK = pec_rope_qk_args;
  using CA = pec_rope_cached_args;
  using MR = pec_mrope_args;
  switch (f) {
    case Fn::Rope: return reinterpret_cast<void*>(&rope_t<Fn::Rope, float>);
    case Fn::RopeBf16: return reinterpret_cast<void*>(&rope_t<Fn::RopeBf16, U16>);
    case Fn::RopeF16: return reinterpret_cast<void*>(&rope_t<Fn::RopeF16, U16>);
    case Fn::Alibi: return reinterpret_cast<void*>(&alibi_t<Fn::Alibi, float>);
    case Fn::AlibiBf16: return reinterpret_cast<void*>(&alibi_t<Fn::AlibiBf16, U16>);
    case Fn::AlibiF16: return reinterpret_cast<void*>(&alibi_t<Fn::AlibiF16, U16>);
    case Fn::T5: return reinterpret_cast<void*>(&t5_t<Fn::T5, pec_t5_args, float>);
    case Fn::T5Bf16: return reinterpret_cast<void*>(&t5_t<Fn::T5Bf16, pec_t5_args16, U16>);
    case Fn::T5F16: return reinterpret_cast<void*>(&t5_t<Fn::T5F16, pec_t5_args16, U16>);
    case Fn::Sinusoidal: return reinterpret_cast<void*>(&sinusoidal_t<Fn::Sinusoidal, float>);
    case Fn::SinusoidalBf16: return reinterpret_cast<void*>(&sinusoidal_t<Fn::SinusoidalBf16, U16>);
    case Fn::SinusoidalF16: return reinterpret_cast<void*>(&sinusoidal_t<Fn::SinusoidalF16, U16>);
    case Fn::Learned: return reinterpret_cast<void*>(&learned_t<Fn::Learned, pec_learned_args, float>);
    case Fn::LearnedBf16: return reinterpret_cast<void*>(&learned_t<Fn::LearnedBf16, pec_learned_args16, U16>);
    case Fn::LearnedF16: return reinterpret_cast<void*>(&learned_t<Fn::LearnedF16, pec_learned_args16, U16>);
    case Fn::RopeQkF32: return reinterpret_cast<void*>(&qk_t<Fn::RopeQkF32, QK, float, qk_args>);
    case Fn::RopeQkBf16: return reinterpret_cast<void*>(&qk_t<Fn::RopeQkBf16, QK, U16, qk_args>);
    case Fn::RopeQkF16: return reinterpret_cast<void*>(&qk_t<Fn::RopeQkF16, QK, U16, qk_args>);
    case Fn::RopeCachedF32: return reinterpret_cast<void*>(&qk_t<Fn::RopeCachedF32, CA, float, cached_args>);
    case Fn::RopeCachedBf16: return reinterpret_cast<void*>(&qk_t<Fn::RopeCachedBf16, CA, U16, cached_args>);
    case Fn::RopeCachedF16: return reinterpret_cast<void*>(&qk_t<Fn::RopeCachedF16, CA, U16, cached_args>);
    case Fn::RopeCacheF32: return reinterpret_cast<void*>(&cache_t<Fn::RopeCacheF32, float>);
    case Fn::RopeCacheBf16: return reinterpret_cast<void*>(&cache_t<Fn::RopeCacheBf16, U16>);
    case Fn::RopeCacheF16: return reinterpret_cast<void*>(&cache_t<Fn::RopeCacheF16, U16>);
    case Fn::MropeF32: return reinterpret_cast<void*>(&qk_t<Fn::MropeF32, MR, float, mrope_args>);
    case Fn::MropeBf16: return reinterpret_cast<void*>(&qk_t<Fn::MropeBf16, MR, U16, mrope_args>);
    case Fn::MropeF16: return reinterpret_cast<void*>(&qk_t<Fn::MropeF16, MR, U16, mrope_args>);
  }
  return nullptr;
}

}  // namespace

KernelTable bind(const py::object& obj) {
  if (!g) g = new Bound;
  const py::module_ prov = py::module_::import("pecheck._provider");
  KernelTable t;
  Bound b;
  b.obj = obj;
  b.ns = py::module_::import("types").attr("SimpleNamespace");
  b.describe = prov.attr("describe_exception");
  b.after_fork = prov.attr("after_fork");
  for (Fn f : kAllFns) {
    const std::string name(verifier::symbol(f).substr(4));  // without "pec_"
    if (!py::hasattr(obj, name.c_str())) continue;
    py::object c = obj.attr(name.c_str());
    if (c.is_none()) continue;
    if (!PyCallable_Check(c.ptr())) throw std::invalid_argument(name + " is not callable");
    b.fns[static_cast<int>(f)] = std::move(c);
    t.set_entry(f, trampoline(f));
  }
  if (t.mask() == 0) {
    throw std::invalid_argument("it has none of the kernel callables (rope_f32, rope_qk_bf16, rope_cached_f32, "
                                "alibi_bias_f32, t5_bias_f32, ...: the pec_* names without the prefix)");
  }
  b.pid = getpid();
  *g = std::move(b);
  t.failure = &failure;
  return t;
}

void unbind() {
  if (g) *g = Bound{};
}

std::string domain_of(const py::object& obj) {
  if (!py::hasattr(obj, "domain")) return "";
  py::object d = obj.attr("domain");
  if (PyCallable_Check(d.ptr())) d = d();
  if (d.is_none()) return "";
  return py::str(d);
}

}  // namespace pecheck::python
