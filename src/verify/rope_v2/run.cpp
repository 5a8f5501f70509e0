// Arena layout of the version 2 RoPE calls (run.hpp).
//
// Every tensor gets its own buffer [guard][lo .. hi][guard], lo/hi the smallest and largest
// element index of its view (0 and span - 1 for valid strides); inside, the view's elements hold
// the values (inputs) or the poison (outputs out of place) and every other element (the gaps
// between heads and rows: someone else's K and V) a gap pattern; the guards a canary. After the
// call: guards and gaps of every buffer intact, inputs bit-identical, outputs read densely.
#include "verify/rope_v2/run.hpp"

#include "verify/isolation/run.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace pecheck::verifier {

namespace {

constexpr std::int64_t kGuard = 64;                    // elements each side
constexpr std::int64_t kMaxBuilderElements = 1 << 22;  // an invalid builder call gets no more

std::size_t elem_size(Storage s) { return storage_bytes(s); }

// A buffer of one format in the arena: element i (lo <= i <= hi) at data + i.
struct Buf {
  unsigned char* data = nullptr;  // element 0 (may lie outside the allocation for lo > 0: never)
  Storage dtype = Storage::F32;
  std::int64_t lo = 0, hi = -1;       // the view's index range (empty when hi < lo)
  std::vector<std::uint32_t> before;  // every element of [lo - guard, hi + guard] after setup

  std::uint32_t get(std::int64_t i) const {
    if (elem_size(dtype) == 2) {
      std::uint16_t v;
      std::memcpy(&v, data + i * 2, 2);
      return v;
    }
    std::uint32_t v;
    std::memcpy(&v, data + i * 4, 4);
    return v;
  }
  void set(std::int64_t i, std::uint32_t bits) {
    if (elem_size(dtype) == 2) {
      const auto v = static_cast<std::uint16_t>(bits);
      std::memcpy(data + i * 2, &v, 2);
    } else {
      std::memcpy(data + i * 4, &bits, 4);
    }
  }
  std::int64_t first() const { return lo - kGuard; }
  std::int64_t last() const { return std::max(hi, lo - 1) + kGuard; }
  void snapshot() {
    before.clear();
    for (std::int64_t i = first(); i <= last(); ++i) before.push_back(get(i));
  }
  std::uint32_t old(std::int64_t i) const { return before[static_cast<std::size_t>(i - first())]; }
};

// `guard_name`: an input, placed against an inaccessible guard span when the case asks for one
// (Arena::allocate_input); the canary zone on that side then lies inside the span (the worker
// cannot touch it) and a read past that end of the buffer is a fault pecheck reports.
Buf allocate(Arena& a, Storage dtype, std::int64_t lo, std::int64_t hi, const std::string& guard_name = "") {
  Buf b;
  b.dtype = dtype;
  b.lo = lo;
  b.hi = hi;
  const std::int64_t n = std::max<std::int64_t>(hi - lo + 1, 0);
  const std::size_t es = elem_size(dtype);
  const std::size_t one_side = static_cast<std::size_t>(n + kGuard) * es;
  if (!guard_name.empty() && n > 0 && a.can_guard(one_side)) {
    const std::string unit = dtype == Storage::F32 ? std::string("float") : std::string(storage_name(dtype)) + " element";
    auto* p = static_cast<unsigned char*>(a.allocate_input(one_side, es, guard_name, es, unit));
    b.data = a.guard_side() == GuardSide::After ? p + static_cast<std::size_t>(kGuard - lo) * es
                                                : p - static_cast<std::ptrdiff_t>(lo) * static_cast<std::ptrdiff_t>(es);
    a.relabel_last_input(b.data + lo * static_cast<std::int64_t>(es), static_cast<std::size_t>(n));
  } else {
    auto* p =
        static_cast<unsigned char*>(a.allocate(static_cast<std::size_t>(n + 2 * kGuard) * es, 64));
    b.data = p + static_cast<std::size_t>(kGuard - lo) * es;
  }
  const std::uint32_t canary = patterns(dtype).canary;
  for (std::int64_t i = b.first(); i <= b.last(); ++i) b.set(i, canary);
  return b;
}

// A tensor [T][H][D] as a view in a Buf.
struct ViewBuf {
  std::string name;
  Buf buf;
  pec_strides s{0, 0};
  std::int64_t T = 0, H = 0, D = 0;
  std::vector<char> member;  // member[i - lo]: index i is an element of the view

  std::int64_t index(std::int64_t t, std::int64_t h, std::int64_t l) const {
    return t * s.token + h * s.head + l;
  }
  bool is_member(std::int64_t i) const {
    return i >= buf.lo && i <= buf.hi && member[static_cast<std::size_t>(i - buf.lo)] != 0;
  }
};

ViewBuf make_view(Arena& a, const std::string& name, Storage dtype, const pec_strides& s,
                  std::int64_t T, std::int64_t H, std::int64_t D, bool guarded = false) {
  ViewBuf v;
  v.name = name;
  v.s = s;
  v.T = std::max<std::int64_t>(T, 0);
  v.H = std::max<std::int64_t>(H, 0);
  v.D = std::max<std::int64_t>(D, 0);
  std::int64_t lo = 0, hi = -1;
  if (v.T > 0 && v.H > 0 && v.D > 0) {
    lo = INT64_MAX, hi = INT64_MIN;
    for (std::int64_t t : {std::int64_t{0}, v.T - 1})
      for (std::int64_t h : {std::int64_t{0}, v.H - 1})
        for (std::int64_t l : {std::int64_t{0}, v.D - 1}) {
          const std::int64_t i = t * s.token + h * s.head + l;
          lo = std::min(lo, i), hi = std::max(hi, i);
        }
  }
  v.buf = allocate(a, dtype, lo, hi, guarded ? name : std::string());
  v.member.assign(static_cast<std::size_t>(std::max<std::int64_t>(hi - lo + 1, 0)), 0);
  const std::uint32_t gap = patterns(dtype).gap;
  for (std::int64_t i = lo; i <= hi; ++i) v.buf.set(i, gap);
  for (std::int64_t t = 0; t < v.T; ++t)
    for (std::int64_t h = 0; h < v.H; ++h)
      for (std::int64_t l = 0; l < v.D; ++l)
        v.member[static_cast<std::size_t>(v.index(t, h, l) - lo)] = 1;
  return v;
}

void fill_values(ViewBuf& v, const std::vector<float>& dense) {
  for (std::int64_t t = 0; t < v.T; ++t)
    for (std::int64_t h = 0; h < v.H; ++h)
      for (std::int64_t l = 0; l < v.D; ++l) {
        const std::size_t k = static_cast<std::size_t>((t * v.H + h) * v.D + l);
        v.buf.set(v.index(t, h, l), to_storage(k < dense.size() ? dense[k] : 0.0f, v.buf.dtype));
      }
}

void fill_bits(ViewBuf& v, std::uint32_t bits) {
  for (std::int64_t t = 0; t < v.T; ++t)
    for (std::int64_t h = 0; h < v.H; ++h)
      for (std::int64_t l = 0; l < v.D; ++l) v.buf.set(v.index(t, h, l), bits);
}

// Where index i of a view's buffer lies, for a gap: "the gap after head 3 of token 5".
std::string where(const ViewBuf& v, std::int64_t i) {
  const pec_strides& s = v.s;
  const bool head_major = v.H > 1 && v.T > 1 && !(s.head >= v.D && s.token >= v.H * s.head);
  std::int64_t t = 0, h = 0, off = i - v.buf.lo;
  if (!head_major) {
    if (v.T > 1 && s.token > 0) t = std::min(off / s.token, v.T - 1), off -= t * s.token;
    if (v.H > 1 && s.head > 0) h = std::min(off / s.head, v.H - 1), off -= h * s.head;
  } else {
    if (v.H > 1 && s.head > 0) h = std::min(off / s.head, v.H - 1), off -= h * s.head;
    if (v.T > 1 && s.token > 0) t = std::min(off / s.token, v.T - 1), off -= t * s.token;
  }
  const std::int64_t past = off - v.D + 1;
  return "the gap after lane " + std::to_string(v.D - 1) + " of head " + std::to_string(h) +
         " of token " + std::to_string(t) + " (" + std::to_string(past) + " element" +
         (past == 1 ? "" : "s") + " past it, buffer index " + std::to_string(i) +
         ", strides {token " + std::to_string(s.token) + ", head " + std::to_string(s.head) + "})";
}

// Inputs (beyond the views) whose bits must survive the call.
struct Watch {
  struct Item {
    std::string name;
    const void* p;
    std::vector<unsigned char> copy;
  };
  std::vector<Item> items;
  template <class T>
  const T* put(Arena& a, const std::string& name, const std::vector<T>& v) {
    T* p = static_cast<T*>(
        a.allocate_input(v.size() * sizeof(T), 64, name, sizeof(T), sizeof(T) == 8 ? "int64" : "float"));
    if (!v.empty()) std::memcpy(p, v.data(), v.size() * sizeof(T));
    items.push_back({name,
                     p,
                     {reinterpret_cast<const unsigned char*>(v.data()),
                      reinterpret_cast<const unsigned char*>(v.data()) + v.size() * sizeof(T)}});
    return p;
  }
  // The argument struct's slot, taken before the tensors so that a write past the last buffer
  // lands in free arena memory (seen by the guards), not in the arguments (a crash instead).
  template <class A>
  A* reserve_args(Arena& a) {
    return static_cast<A*>(a.allocate(sizeof(A), 64));
  }
  template <class A>
  const A* put_args(A* slot, const A& value) {
    *slot = value;
    items.push_back({"args",
                     slot,
                     {reinterpret_cast<const unsigned char*>(&value),
                      reinterpret_cast<const unsigned char*>(&value) + sizeof(A)}});
    return slot;
  }
  std::string changed() const {
    for (const auto& it : items)
      if (!it.copy.empty() && std::memcmp(it.p, it.copy.data(), it.copy.size()) != 0)
        return it.name;
    return "";
  }
};

// Compares a buffer with its snapshot: guards (ABI-GEN-4) and gaps (ABI-VIEW-2) always, view
// elements only for inputs (an output's elements are the kernel's to write).
void judge(const ViewBuf& v, bool input, ViewRunResult& r) {
  const Buf& b = v.buf;
  for (std::int64_t i = b.first(); i <= b.last(); ++i) {
    if (b.get(i) == b.old(i)) continue;
    if (i < b.lo || i > b.hi) {
      if (r.guard_violation.empty()) {
        const std::int64_t n = i < b.lo ? b.lo - i : i - std::max(b.hi, b.lo - 1);
        r.guard_violation = v.name + ": wrote " + std::to_string(n) + " element" +
                            (n == 1 ? "" : "s") +
                            (i < b.lo ? " before its first element" : " after its last element");
      }
    } else if (!v.is_member(i)) {
      if (r.gap_violation.empty()) r.gap_violation = v.name + ": wrote into " + where(v, i);
    } else if (input && r.input_changed.empty()) {
      r.input_changed = v.name;
    }
  }
}

OutRead read_out(const ViewBuf& v, std::uint32_t poison, bool count_poison) {
  OutRead o;
  o.name = v.name;
  const std::size_t n = static_cast<std::size_t>(v.T * v.H * v.D);
  o.values.resize(n);
  o.bits.resize(n);
  for (std::int64_t t = 0; t < v.T; ++t)
    for (std::int64_t h = 0; h < v.H; ++h)
      for (std::int64_t l = 0; l < v.D; ++l) {
        const std::size_t k = static_cast<std::size_t>((t * v.H + h) * v.D + l);
        o.bits[k] = v.buf.get(v.index(t, h, l));
        o.values[k] = from_storage(o.bits[k], v.buf.dtype);
        if (count_poison && o.bits[k] == poison) {
          if (o.first_unwritten < 0) o.first_unwritten = static_cast<std::int64_t>(k);
          ++o.unwritten;
        }
      }
  return o;
}

std::vector<std::int64_t> shifted_positions(const std::vector<std::int64_t>& p, std::int64_t s) {
  std::vector<std::int64_t> q(p);
  for (auto& e : q) e += s;
  return q;
}

// q, k and the outputs of a query+key call; returns the four views (q, k, q_out, k_out) with
// q_out/k_out aliasing q/k when in place.
struct QkViews {
  ViewBuf q, k, qo, ko;
  bool q_in_place = false, k_in_place = false;
};

QkViews lay_out(Arena& a, const QkShape& c, const ViewRunMode& m) {
  QkViews v;
  const int ip = m.in_place >= 0 ? m.in_place : (c.q_in_place ? 1 : 0) | (c.k_in_place ? 2 : 0);
  v.q_in_place = (ip & 1) != 0 && c.null_field.empty();
  v.k_in_place = (ip & 2) != 0 && c.null_field.empty();
  const std::uint32_t poison =
      m.alt_poison ? patterns(c.storage).poison_alt : patterns(c.storage).poison;
  const auto outputs = [&] {
    if (!v.q_in_place) {
      v.qo = make_view(a, "q_out", c.storage, view_strides(c, c.q_out_view, c.n_q_heads),
                       c.n_tokens, c.n_q_heads, c.head_dim);
      fill_bits(v.qo, poison);
    }
    if (!v.k_in_place) {
      v.ko = make_view(a, "k_out", c.storage, view_strides(c, c.k_out_view, c.n_kv_heads),
                       c.n_tokens, c.n_kv_heads, c.head_dim);
      fill_bits(v.ko, poison);
    }
  };
  if (c.placement & 1) outputs();
  v.q = make_view(a, "q", c.storage, view_strides(c, c.q_view, c.n_q_heads), c.n_tokens,
                  c.n_q_heads, c.head_dim, !v.q_in_place);
  fill_values(v.q, c.q);
  v.k = make_view(a, "k", c.storage, view_strides(c, c.k_view, c.n_kv_heads), c.n_tokens,
                  c.n_kv_heads, c.head_dim, !v.k_in_place);
  fill_values(v.k, c.k);
  if (!(c.placement & 1)) outputs();
  if (v.q_in_place) v.qo = v.q, v.qo.name = "q_out (== q)";
  if (v.k_in_place) v.ko = v.k, v.ko.name = "k_out (== k)";
  return v;
}

// The shape fields and the four views' strides, common to the query+key argument structs.
template <class A>
void set_shape(A& args, const QkShape& c) {
  args.n_tokens = c.n_tokens;
  args.n_q_heads = c.n_q_heads;
  args.n_kv_heads = c.n_kv_heads;
  args.head_dim = c.head_dim;
  args.rotary_dim = c.rotary_dim;
  args.layout = c.layout;
}
template <class A>
void set_views(A& args, const QkViews& v) {
  args.q = v.q.s;
  args.k = v.k.s;
  args.q_out = v.q_in_place ? v.q.s : v.qo.s;
  args.k_out = v.k_in_place ? v.k.s : v.ko.s;
}

ViewRunResult finish(Executor& ex, Fn fn, const QkShape& c, QkViews& v, const void* args,
                     const Watch& w, const ViewRunMode& m,
                     const std::vector<const Buf*>& extra_inputs) {
  for (ViewBuf* b : {&v.q, &v.k}) b->buf.snapshot();
  if (!v.q_in_place) v.qo.buf.snapshot();
  if (!v.k_in_place) v.ko.buf.snapshot();
  const void* qp = c.null_field == "q" ? nullptr : v.q.buf.data;
  const void* kp = c.null_field == "k" ? nullptr : v.k.buf.data;
  void* qop = c.null_field == "q_out" ? nullptr : (v.q_in_place ? v.q.buf.data : v.qo.buf.data);
  void* kop = c.null_field == "k_out" ? nullptr : (v.k_in_place ? v.k.buf.data : v.ko.buf.data);
  ViewRunResult r;
  r.outcome = ex.call(fn, args, qp, qop, kp, kop);  // x = q, y = q_out, x2 = k, y2 = k_out
  // The views of the outputs alias the inputs when in place: judge them as outputs there.
  judge(v.q, !v.q_in_place, r);
  judge(v.k, !v.k_in_place, r);
  if (!v.q_in_place) judge(v.qo, false, r);
  if (!v.k_in_place) judge(v.ko, false, r);
  for (const Buf* b : extra_inputs) {
    for (std::int64_t i = b->first(); i <= b->last(); ++i) {
      if (b->get(i) != b->old(i)) {
        if (i < b->lo || i > b->hi) {
          if (r.guard_violation.empty())
            r.guard_violation = "cos_sin_cache: wrote outside the cache";
        } else if (r.input_changed.empty()) {
          r.input_changed = "cos_sin_cache";
        }
        break;
      }
    }
  }
  if (r.input_changed.empty()) r.input_changed = w.changed();
  const std::uint32_t poison =
      m.alt_poison ? patterns(c.storage).poison_alt : patterns(c.storage).poison;
  const ViewBuf& qo = v.q_in_place ? v.q : v.qo;
  const ViewBuf& ko = v.k_in_place ? v.k : v.ko;
  r.outs.push_back(read_out(qo, poison, !v.q_in_place));
  r.outs.push_back(read_out(ko, poison, !v.k_in_place));
  r.outs[0].name = "q_out";
  r.outs[1].name = "k_out";
  // Unchanged: every element of both output buffers as before the call.
  r.unchanged = true;
  for (const ViewBuf* b : {&qo, &ko}) {
    for (std::int64_t i = b->buf.first(); i <= b->buf.last() && r.unchanged; ++i)
      r.unchanged = b->buf.get(i) == b->buf.old(i);
  }
  return r;
}

}  // namespace

// Poison and canary of verify/isolation/storage.hpp; the gap pattern is another negative-signed
// NaN (distinct from the canary, so a report tells a gap from a guard zone); the cache's unread
// rows hold a quiet NaN that propagates through any arithmetic into the output.
const FormatPatterns& patterns(Storage s) {
  static const FormatPatterns f32{poison_bits(Storage::F32), poison_bits(Storage::F32, true),
                                  canary_bits(Storage::F32), 0xffa11ce5u, 0x7fc0deadu};
  static const FormatPatterns bf16{poison_bits(Storage::BF16), poison_bits(Storage::BF16, true),
                                   canary_bits(Storage::BF16), 0xffa1u, 0x7fdeu};
  static const FormatPatterns f16{poison_bits(Storage::F16), poison_bits(Storage::F16, true),
                                  canary_bits(Storage::F16), 0xfd1eu, 0x7edeu};
  return s == Storage::BF16 ? bf16 : s == Storage::F16 ? f16 : f32;
}

ViewRunResult run_view_case(Executor& ex, Fn fn, const RopeQkCase& c, const ViewRunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  a.set_guard_side(guard_side_of(c.placement));
  Watch w;
  auto* slot = w.reserve_args<pec_rope_qk_args>(a);
  pec_rope_qk_args args{};
  set_shape(args, c);
  args.theta_base = c.theta_base;
  args.position_scale = c.position_scale;
  args.attn_factor = c.attn_factor;
  args.positions = c.null_field == "positions"
                       ? nullptr
                       : w.put(a, "positions", shifted_positions(c.positions, m.shift));
  args.inv_freq = c.has_inv_freq ? w.put(a, "inv_freq", c.inv_freq) : nullptr;
  QkViews v = lay_out(a, c, m);
  set_views(args, v);
  const auto* ap = w.put_args(slot, args);
  return finish(ex, fn, c, v, ap, w, m, {});
}

ViewRunResult run_view_case(Executor& ex, Fn fn, const RopeCachedCase& c, const ViewRunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  a.set_guard_side(guard_side_of(c.placement));
  Watch w;
  auto* slot = w.reserve_args<pec_rope_cached_args>(a);
  pec_rope_cached_args args{};
  set_shape(args, c);
  args.cache_dtype = c.cache_dtype;
  args.cache_positions = c.cache_positions;
  args.positions = c.null_field == "positions"
                       ? nullptr
                       : w.put(a, "positions", shifted_positions(c.positions, m.shift));
  // The cache: rows the call may read from row_vals, every other row a NaN pattern.
  const Storage cd = dtype_storage(c.cache_dtype);  // an invalid cache_dtype gets float32 rows
  const std::int64_t rows = std::max<std::int64_t>(c.cache_positions, 0),
                     rd = std::max<std::int64_t>(c.rotary_dim, 0);
  Buf cache = allocate(a, cd, 0, rows * rd - 1, "cos_sin_cache");
  const std::uint32_t nan = patterns(cd).cache_nan;
  for (std::int64_t i = 0; i < rows * rd; ++i) cache.set(i, nan);
  for (std::size_t j = 0; j < c.row_pos.size(); ++j) {
    const std::int64_t p = c.row_pos[j];
    if (p < 0 || p >= rows) continue;
    for (std::int64_t l = 0; l < rd && (j * rd + l) < c.row_vals.size(); ++l) {
      cache.set(
          p * rd + l,
          to_storage(c.row_vals[j * static_cast<std::size_t>(rd) + static_cast<std::size_t>(l)],
                     cd));
    }
  }
  cache.snapshot();
  args.cos_sin_cache = c.null_field == "cos_sin_cache" ? nullptr : cache.data;
  QkViews v = lay_out(a, c, m);
  set_views(args, v);
  const auto* ap = w.put_args(slot, args);
  return finish(ex, fn, c, v, ap, w, m, {&cache});
}

ViewRunResult run_view_case(Executor& ex, Fn fn, const MropeCase& c, const ViewRunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  a.set_guard_side(guard_side_of(c.placement));
  Watch w;
  auto* slot = w.reserve_args<pec_mrope_args>(a);
  pec_mrope_args args{};
  set_shape(args, c);
  args.mrope_layout = c.mrope_layout;
  for (int ax = 0; ax < 3; ++ax) args.mrope_section[ax] = c.section[ax];
  args.theta_base = c.theta_base;
  args.position_scale = c.position_scale;
  args.attn_factor = c.attn_factor;
  if (c.null_field != "positions") {
    // [3][n_tokens]: the t row, the h row, the w row (rows shorter than n_tokens in an invalid
    // case are what the case holds; the guard zones catch a read past them only as reads of
    // garbage, never as writes).
    std::vector<std::int64_t> rows;
    const std::vector<std::int64_t>* axes[3] = {&c.positions, &c.pos_h, &c.pos_w};
    for (int ax = 0; ax < 3; ++ax)
      for (std::int64_t p : *axes[ax]) rows.push_back(p + m.shift + m.axis_shift[ax]);
    args.positions = w.put(a, "positions", rows);
  }
  args.inv_freq = c.has_inv_freq ? w.put(a, "inv_freq", c.inv_freq) : nullptr;
  QkViews v = lay_out(a, c, m);
  set_views(args, v);
  const auto* ap = w.put_args(slot, args);
  return finish(ex, fn, c, v, ap, w, m, {});
}

ViewRunResult run_view_case(Executor& ex, Fn fn, const RopeCacheCase& c, const ViewRunMode& m) {
  Arena& a = ex.arena();
  a.reset();
  a.set_guard_side(guard_side_of(c.placement));
  Watch w;
  auto* slot = w.reserve_args<pec_rope_cache_args>(a);
  pec_rope_cache_args args{c.cache_positions, c.rotary_dim,  c.theta_base,
                           c.position_scale,  c.attn_factor, nullptr};
  const std::int64_t n = std::min(output_size(c), kMaxBuilderElements);
  const std::uint32_t poison =
      m.alt_poison ? patterns(c.storage).poison_alt : patterns(c.storage).poison;
  const auto out = [&] {
    Buf b = allocate(a, c.storage, 0, n - 1);
    for (std::int64_t i = 0; i < n; ++i) b.set(i, poison);
    return b;
  };
  Buf cache;
  if (c.placement & 1) cache = out();
  if (c.has_inv_freq) args.inv_freq = w.put(a, "inv_freq", c.inv_freq);
  if (!(c.placement & 1)) cache = out();
  cache.snapshot();
  const auto* ap = w.put_args(slot, args);
  ViewRunResult r;
  r.outcome = ex.call(fn, ap, nullptr, c.null_field == "cache" ? nullptr : cache.data);
  ViewBuf v;
  v.name = "cache";
  v.buf = cache;
  v.s = {c.rotary_dim, 0};
  v.T = std::max<std::int64_t>(c.cache_positions, 0);
  v.H = 1;
  v.D = std::max<std::int64_t>(c.rotary_dim, 0);
  if (v.T * v.D > n) v.T = 0, v.D = 0;  // an invalid call larger than the buffer: nothing to read
  v.member.assign(static_cast<std::size_t>(std::max<std::int64_t>(n, 0)), 1);
  judge(v, false, r);
  r.input_changed = w.changed();
  r.outs.push_back(read_out(v, poison, c.null_field.empty()));
  r.unchanged = true;
  for (std::int64_t i = cache.first(); i <= cache.last() && r.unchanged; ++i)
    r.unchanged = cache.get(i) == cache.old(i);
  return r;
}

}  // namespace pecheck::verifier
