// The C++ emitter (Note [Kernel IR]): one `extern "C"` function per kernel. A kernel without
// reduced dims is a flat loop over its elements split among threads (parallel_for with the eager
// kernels' grain), walking rows of its last dim with a Vec<T> loop and a scalar tail. A kernel
// with reduced dims gives each thread a range of kept indices; per kept index it runs one pass
// over the reduced dims per reduction (accumulating as the eager reduction kernels do: sums of
// float in double lanes, NaN-propagating max/min, softmax's sum in the element type), then one
// pass that stores the full-size values. Values are emitted where their dims are all in scope
// (hoisted out of loops they do not vary in) and computed once per scope.
#include <functional>
#include <map>

#include "backend/cpu/capability.h"
#include "compiler/kernel_ir.h"
#include "compiler/lowering_ops.h"
#include "dispatch/primitive.h"

namespace ember::compiler {
namespace {

constexpr uint64_t bit(int f) { return uint64_t(1) << f; }

// "x3": built with appends (GCC 12 reports -Wrestrict false positives on "lit" + std::string).
std::string var(const char* prefix, int64_t i) {
  std::string s = prefix;
  s += std::to_string(i);
  return s;
}

// Appends the loop over dim f (x<f> from 0 to n<f>) at indent `ind` to `open`, its closing brace
// to `close`, and indents the body.
void nest_loop(int f, int& ind, std::string& open, std::string& close) {
  const std::string x = var("x", f), n = var("n", f);
  open +=
      std::string(ind, ' ') + "for (int64_t " + x + " = 0; " + x + " < " + n + "; ++" + x + ") {\n";
  close = std::string(ind, ' ') + "}\n" + close;
  ind += 2;
}

struct Scope {
  std::string text;
  std::map<int, std::string> names;
  int indent = 0;
};

class Emitter {
 public:
  Emitter(const Kernel& k, const fx::Graph& g, std::vector<SymInt>& size_args)
      : k_(k), g_(g), size_args_(size_args) {
    nd_ = static_cast<int>(k.sizes.size());
    vector_ = vectorisable();
  }

  std::string run(const std::string& symbol) {
    std::string s = "// " + symbol + ": graph nodes";
    for (const std::string& o : k_.origins) s += " " + o;
    s += "\nextern \"C\" void " + symbol + "(char* const* bufs, const int64_t* sizes) {\n";
    s += "  (void)sizes;\n";
    for (size_t b = 0; b < k_.buffers.size(); ++b) {
      const std::string T = ctype(k_.buffer_dtypes[b]);
      const std::string c = k_.buffer_written[b] ? "" : "const ";
      s += "  [[maybe_unused]] " + c + T + "* p" + std::to_string(b) + " = reinterpret_cast<" + c +
           T + "*>(bufs[" + std::to_string(b) + "]);\n";
    }
    for (int f = 0; f < nd_; ++f) {
      s += "  [[maybe_unused]] const int64_t n" + std::to_string(f) + " = " + size(k_.sizes[f]) +
           ";\n";
    }
    if (vector_) s += "  using V [[maybe_unused]] = Vec<" + T_ + ">;\n";
    bool empty = false;  // a kept static size 0: nothing to do (and no division by it)
    for (int f = 0; f < nd_; ++f) {
      const SymInt& n = k_.sizes[f];
      empty = empty || (!(k_.reduced >> f & 1) && !n.is_symbolic() && n.hint() == 0);
    }
    if (empty) return s + "}\n";
    s += k_.reduced ? reduction_body() : pointwise_body();
    return s + "}\n";
  }

 private:
  // ---- sizes, indices and types

  std::string size(const SymInt& s) {
    if (!s.is_symbolic()) return "INT64_C(" + std::to_string(s.hint()) + ")";
    const std::string key = s.str();
    for (size_t i = 0; i < size_args_.size(); ++i) {
      if (size_args_[i].str() == key) return "sizes[" + std::to_string(i) + "]";
    }
    size_args_.push_back(s);
    return "sizes[" + std::to_string(size_args_.size() - 1) + "]";
  }

  std::string offset(const Access& a) {
    std::string e = size(a.offset);
    for (int f = 0; f < nd_; ++f) {
      const SymInt& st = a.strides[f];
      if (!st.is_symbolic() && st.hint() == 0) continue;
      e += " + x" + std::to_string(f) + " * " + size(st);
    }
    return e;
  }

  bool vectorisable() {
    // A row reduction computes the values that do not vary along its reduced dims once per kept
    // index, in scalar code (cross_entropy's target, ignore_index mask and their stores): only
    // what its loops compute needs vector lanes.
    const bool rows = k_.reduced != 0 && !columns();
    std::vector<bool> in_loops(k_.temps.size(), !rows);  // computed, or read, in the loops
    for (size_t i = 0; rows && i < k_.temps.size(); ++i) {
      const Temp& tp = k_.temps[i];
      if (tp.kind == TempKind::Reduce || (tp.deps & k_.reduced) == 0) continue;
      in_loops[i] = true;
      for (int a : tp.args) in_loops[a] = true;
    }
    ScalarType t = ScalarType::Undefined;
    for (size_t i = 0; i < k_.temps.size(); ++i) {
      const Temp& tp = k_.temps[i];
      if (tp.kind != TempKind::Reduce && !in_loops[i]) continue;
      if (tp.kind == TempKind::Reduce && tp.red == RedKind::MeanAcc) continue;
      if (tp.kind == TempKind::Op) {
        std::vector<std::string> args(tp.args.size(), "x");
        if (!pointwise_expr(*g_.nodes()[tp.node].prim, args, arg_dtypes(tp), tp.dtype, true)) {
          return false;
        }
      }
      if (tp.dtype == kBool && tp.kind != TempKind::Reduce) continue;  // lanes of 1 or 0
      if (!is_float(tp.dtype)) return false;
      if (t == ScalarType::Undefined) t = compute_dtype(tp.dtype);
      if (compute_dtype(tp.dtype) != t) return false;
    }
    if (t == ScalarType::Undefined) return false;
    T_ = ctype(t);
    return true;
  }

  std::vector<ScalarType> arg_dtypes(const Temp& t) const {
    std::vector<ScalarType> r;
    for (int a : t.args) r.push_back(k_.temps[a].dtype);
    return r;
  }

  // ---- values

  // The expression of temp `t` in the current scope (the inner one, when in a loop, for values
  // that vary along the loop's dims; the outer one otherwise).
  std::string value(int t) {
    const Temp& tp = k_.temps[t];
    if (tp.kind == TempKind::Const) return vec_ ? "V(" + tp.literal + ")" : tp.literal;
    if (inner_ && (tp.deps & loop_dims_) == 0) {
      const std::string s = in_scope(*outer_, false, t);
      return vec_ ? "V(" + s + ")" : s;
    }
    return in_scope(inner_ ? *inner_ : *outer_, vec_ && inner_, t);
  }

  std::string in_scope(Scope& sc, bool vec, int t) {
    if (auto it = sc.names.find(t); it != sc.names.end()) return it->second;
    const bool saved = vec_;
    Scope* saved_inner = inner_;
    vec_ = vec;
    if (&sc == outer_) inner_ = nullptr;
    const Temp& tp = k_.temps[t];
    // A 16-bit value is rounded as eager's kernels round each result (loads and literals are).
    const bool exact = tp.kind == TempKind::Load || tp.kind == TempKind::Const;
    const std::string e = exact ? expr(t) : rounded(tp.dtype, expr(t));
    vec_ = saved;
    inner_ = saved_inner;
    const std::string name = (vec ? "v" : "t") + std::to_string(t);
    const std::string type = vec ? "V" : vtype(tp.dtype);
    line(sc, "const " + type + " " + name + " = " + e + ";");
    sc.names[t] = name;
    return name;
  }

  // The element of dtype `dt` at `a`: a vector of the kernel's float lanes when vectorised (bool
  // as 1 or 0, 16-bit floats widened), else a scalar (16-bit floats as float).
  std::string load(const Access& a, ScalarType dt) {
    const std::string p = var("p", a.buffer);
    const std::string off = offset(a);
    const bool r16 = is_reduced_float(dt);
    if (!vec_) return r16 ? "static_cast<float>(" + p + "[" + off + "])" : p + "[" + off + "]";
    const SymInt& s = a.strides[vdim_];
    const bool unit = !s.is_symbolic() && s.hint() == 1;
    if (dt == kBool) return "ember_load_bool<" + T_ + ">(" + p + " + " + off + ", " + size(s) + ")";
    if (r16) {
      const std::string f = "ember_16<" + std::string(ctype(dt)) + ">::";
      return unit ? f + "load(" + p + " + " + off + ")"
                  : f + "gather(" + p + " + " + off + ", " + size(s) + ")";
    }
    if (unit) return "V::load(" + p + " + " + off + ")";
    return "ember_gather<" + T_ + ">(" + p + " + " + off + ", " + size(s) + ")";
  }

  // `e`, a value of dtype `dt` computed in float, rounded to dt when it is a 16-bit float.
  std::string rounded(ScalarType dt, const std::string& e) const {
    if (!is_reduced_float(dt)) return e;
    return "ember_16<" + std::string(ctype(dt)) + ">::round(" + e + ")";
  }

  std::string expr(int t) {
    const Temp& tp = k_.temps[t];
    switch (tp.kind) {
      case TempKind::Load:
        return load(tp.access, tp.dtype);
      case TempKind::Const:
        return tp.literal;
      case TempKind::Cast:
        return "static_cast<" + std::string(vtype(tp.dtype)) + ">(" + value(tp.args[0]) + ")";
      case TempKind::SoftmaxOut:
        return softmax_out(tp);
      case TempKind::Reduce:
        EMBER_INTERNAL_ASSERT(false, "[lowering] a reduction read before its pass");
      case TempKind::Op: {
        std::vector<std::string> args;
        for (int a : tp.args) args.push_back(value(a));
        return *pointwise_expr(*g_.nodes()[tp.node].prim, args, arg_dtypes(tp), tp.dtype, vec_);
      }
    }
    return "";
  }

  // softmax: exp(x - max) * (1 / sum); log_softmax: x - (max + log(sum)), as eager's rows.
  std::string softmax_out(const Temp& tp) {
    const std::string mx = outer_->names.at(tp.args[1]), sum = outer_->names.at(tp.args[2]);
    const std::string aux = (tp.log ? "lse" : "inv") + std::to_string(tp.args[2]);
    if (!outer_->names.count(-1 - tp.args[2])) {
      line(*outer_, "const " + T_ + " " + aux + " = " +
                        (tp.log ? mx + " + std::log(" + sum + ")" : T_ + "(1) / " + sum) + ";");
      outer_->names[-1 - tp.args[2]] = aux;
    }
    if (auto it = stash_.find(tp.args[2]); it != stash_.end()) {  // exp(x - max), stored
      const std::string e = load(k_.stores[it->second].access, tp.dtype);
      return vec_ ? "(" + e + " * V(" + aux + "))" : "(" + e + " * " + aux + ")";
    }
    const std::string x = value(tp.args[0]);
    if (tp.log) return vec_ ? "(" + x + " - V(" + aux + "))" : "(" + x + " - " + aux + ")";
    return vec_ ? "(vexp_nonpos(" + x + " - V(" + mx + ")) * V(" + aux + "))"
                : "(std::exp(" + x + " - " + mx + ") * " + aux + ")";
  }

  // Note [Softmax stash]: a softmax stored as it is (no pointwise op after it in the kernel) into
  // a float32/float64 buffer the kernel does not read keeps exp(x - max) there during its sum
  // pass, and the store pass scales it by 1 / sum: one exp per element, as eager's row kernel
  // (the same values as computing it twice). Softmax's vector exponential is eager's softmax's,
  // vexp_nonpos (x - max <= 0; Note [Generated exp]). Maps the SumExp temp to the store.
  void find_stashes() {
    for (size_t t = 0; t < k_.temps.size(); ++t) {
      const Temp& tp = k_.temps[t];
      if (tp.kind != TempKind::SoftmaxOut || tp.log || is_reduced_float(tp.dtype)) continue;
      int found = -1, count = 0;
      for (size_t i = 0; i < k_.stores.size(); ++i) {
        if (k_.stores[i].temp == static_cast<int>(t)) {
          found = static_cast<int>(i);
          ++count;
        }
      }
      if (count != 1 || !full_store(k_.stores[found])) continue;
      const int b = k_.stores[found].access.buffer;
      bool read = k_.buffer_dtypes[b] != tp.dtype;
      for (const Temp& o : k_.temps)
        read = read || (o.kind == TempKind::Load && o.access.buffer == b);
      if (!read) stash_[tp.args[2]] = static_cast<size_t>(found);
    }
  }

  static void line(Scope& sc, const std::string& s) {
    sc.text += std::string(sc.indent, ' ') + s + "\n";
  }

  // ---- loops

  // Emits, into the outer scope, a loop nest over `dims` whose innermost dim runs vectorised
  // (when the kernel is) with a scalar tail: body(vector) fills the innermost scope; `run_pre`,
  // `run_mid` and `run_post` go around one innermost run (before the vector loop, between the
  // loops and after the tail).
  void loop_nest(uint64_t dims, const std::function<void(bool)>& body, const std::string& run_pre,
                 const std::string& run_mid, const std::string& run_post) {
    std::vector<int> ds;
    for (int f = 0; f < nd_; ++f) {
      if (dims >> f & 1) ds.push_back(f);
    }
    const int last = ds.back();
    std::string open, close;
    int ind = outer_->indent;
    for (size_t i = 0; i + 1 < ds.size(); ++i) nest_loop(ds[i], ind, open, close);
    const std::string x = var("x", last), n = var("n", last);
    auto inner = [&](bool vec) {
      Scope sc;
      sc.indent = ind + 4;
      inner_ = &sc;
      vec_ = vec;
      vdim_ = last;
      loop_dims_ = dims;
      body(vec);
      inner_ = nullptr;
      vec_ = false;
      return sc.text;
    };
    std::string s = open + std::string(ind, ' ') + "{\n";
    const std::string pad(ind + 2, ' ');
    if (!run_pre.empty()) s += pad + run_pre + "\n";
    s += pad + "int64_t " + x + " = 0;\n" + pad + "(void)" + x + ";\n";
    // A static size says which loops run (no tail for a multiple of the lanes): GCC warns about
    // loops it can prove never run (-Waggressive-loop-optimizations).
    const SymInt& size_n = k_.sizes[last];
    const int64_t lanes =
        vector_ ? cpu::vec_bytes(cpu::capability()) / static_cast<int64_t>(T_ == "float" ? 4 : 8)
                : 1;
    const bool fixed = !size_n.is_symbolic();
    if (vector_) {
      if (!fixed || size_n.hint() >= lanes) {
        const std::string vbody = inner(true);
        s += pad + "for (; " + x + " + V::size <= " + n + "; " + x + " += V::size) {\n" + vbody +
             pad + "}\n";
      }
      if (!run_mid.empty()) s += pad + run_mid + "\n";
    }
    if (!vector_ || !fixed || size_n.hint() % lanes != 0) {
      const std::string sbody = inner(false);
      s += pad + "for (; " + x + " < " + n + "; ++" + x + ") {\n" + sbody + pad + "}\n";
    }
    if (!run_post.empty()) s += pad + run_post + "\n";
    s += std::string(ind, ' ') + "}\n" + close;
    outer_->text += s;
  }

  void store(const Store& st) { store_to(st.access, k_.temps[st.temp].dtype, value(st.temp)); }

  // Writes `v` (of dtype dt, a vector when vectorised) at `a` in the current scope.
  void store_to(const Access& a, ScalarType dt, const std::string& v) {
    const std::string p = var("p", a.buffer);
    const std::string off = offset(a);
    Scope& sc = inner_ ? *inner_ : *outer_;
    if (!vec_) {
      line(sc, p + "[" + off + "] = " + v + ";");
      return;
    }
    const SymInt& s = a.strides[vdim_];
    if (dt == kBool) {
      line(sc,
           "ember_store_bool<" + T_ + ">(" + v + ", " + p + " + " + off + ", " + size(s) + ");");
    } else if (is_reduced_float(dt)) {
      const std::string f = "ember_16<" + std::string(ctype(dt)) + ">::";
      line(sc, !s.is_symbolic() && s.hint() == 1
                   ? f + "store(" + v + ", " + p + " + " + off + ");"
                   : f + "scatter(" + v + ", " + p + " + " + off + ", " + size(s) + ");");
    } else if (!s.is_symbolic() && s.hint() == 1) {
      line(sc, streams() ? "ember_put(" + v + ", " + p + " + " + off + ", stream_);"
                         : v + ".store(" + p + " + " + off + ");");
    } else {
      line(sc, "ember_scatter<" + T_ + ">(" + v + ", " + p + " + " + off + ", " + size(s) + ");");
    }
  }

  // Every stored value is computed before the first store: a kernel that writes an input in
  // place reads each element before it writes it (Note [In-place stores]).
  void store_all() {
    for (const Store& st : k_.stores) value(st.temp);
    for (const Store& st : k_.stores) store(st);
  }

  // A vectorised pointwise kernel's contiguous stores may stream (Note [Streaming stores]).
  bool streams() const { return vector_ && k_.reduced == 0; }

  bool full_store(const Store& st) const {
    for (int f = 0; f < nd_; ++f) {
      const SymInt& s = st.access.strides[f];
      if ((k_.reduced >> f & 1) && (s.is_symbolic() || s.hint() != 0)) return true;
    }
    return false;
  }

  // ---- pointwise kernels

  std::string pointwise_body() {
    Scope top;
    top.indent = 2;
    if (nd_ == 0) {
      outer_ = &top;
      store_all();
      return "  {\n" + top.text + "  }\n";
    }
    std::string s = "  const int64_t numel = n0";
    for (int f = 1; f < nd_; ++f) s += " * n" + std::to_string(f);
    s += ";\n  if (numel == 0) return;\n";
    // Note [Streaming stores]: an output this big is streamed where its rows are aligned.
    if (streams()) {
      s += "  const bool stream_ = streams_output<" + T_ + ">(numel);\n  (void)stream_;\n";
    }
    // Note [Thread-independent runs]: split points at the same vector boundaries at any count.
    s += "  parallel_for(0, numel, kGrainSize, [&](int64_t begin, int64_t end) {\n";
    s += "    begin = run_boundary(begin, " + var("n", nd_ - 1) + ", numel);\n";
    s += "    end = run_boundary(end, " + var("n", nd_ - 1) + ", numel);\n";
    s += "    int64_t rem = begin;\n";
    for (int f = nd_ - 1; f >= 0; --f) {
      const std::string x = var("x", f), n = var("n", f);
      s += "    int64_t " + x + " = rem % " + n + ";\n    rem /= " + n + ";\n";
    }
    s += "    (void)rem;\n";
    const int last = nd_ - 1;
    const std::string xl = var("x", last), nl = var("n", last);
    s += "    for (int64_t pos = begin; pos < end;) {\n";
    s += "      const int64_t start = " + xl + ", stop = std::min(" + nl +
         ", start + (end - pos));\n";
    Scope row;
    row.indent = 6;
    outer_ = &row;
    // The row loop: the last dim from start to stop.
    std::string loop;
    auto inner = [&](bool vec) {
      Scope sc;
      sc.indent = 8;
      inner_ = &sc;
      vec_ = vec;
      vdim_ = last;
      loop_dims_ = bit(last);
      store_all();
      inner_ = nullptr;
      vec_ = false;
      return sc.text;
    };
    if (vector_) {
      loop += "      for (; " + xl + " + V::size <= stop; " + xl + " += V::size) {\n" +
              inner(true) + "      }\n";
    }
    loop += "      for (; " + xl + " < stop; ++" + xl + ") {\n" + inner(false) + "      }\n";
    s += row.text + loop;
    s += "      pos += stop - start;\n      " + xl + " = 0;\n";
    if (nd_ > 1) {
      s += "      for (int d = 0; d < 1; ++d) {\n";  // carry into the outer dims
      for (int f = nd_ - 2; f >= 0; --f) {
        const std::string x = var("x", f), n = var("n", f);
        s += "        if (++" + x + " < " + n + ") break;\n        " + x + " = 0;\n";
      }
      s += "      }\n";
    }
    s += "    }\n";
    if (streams()) s += "    if (stream_) stream_fence();\n";
    s += "  });\n";
    return s;
  }

  // ---- reduction kernels

  // nk and rn: the numbers of kept and reduced indices.
  std::string counts() const {
    std::string kept_n = "INT64_C(1)", red_n = "INT64_C(1)";
    for (int f = 0; f < nd_; ++f) {
      ((k_.reduced >> f & 1) ? red_n : kept_n) += " * n" + std::to_string(f);
    }
    return "  const int64_t nk = " + kept_n + ", rn = " + red_n + ";\n  (void)rn;\n";
  }

  // The kept dims below `end` from `rem` (a flat index over them, last dim fastest).
  std::string kept_indices(int end) const {
    std::string s;
    for (int f = end - 1; f >= 0; --f) {
      if (k_.reduced >> f & 1) continue;
      const std::string x = var("x", f), n = var("n", f);
      s += "      const int64_t " + x + " = rem % " + n + ";\n      rem /= " + n +
           ";\n      (void)" + x + ";\n";
    }
    return s + "      (void)rem;\n";
  }

  // Whether the kernel reduces over outer dims only into kept-level values, with one pass (no
  // reduction reads another): then blocks of adjacent outputs along the last dim are reduced
  // together, reading rows contiguously, as eager's "vertical" reductions do.
  bool columns() const {
    if (nd_ < 2 || (k_.reduced >> (nd_ - 1) & 1)) return false;
    for (const Store& st : k_.stores) {
      if (full_store(st)) return false;
    }
    for (const Temp& t : k_.temps) {
      if (t.kind != TempKind::Reduce) continue;
      if (t.red != RedKind::Sum && t.red != RedKind::Mean && t.red != RedKind::Max &&
          t.red != RedKind::Min) {
        return false;
      }
      if (reads_reduction(t.args[0])) return false;
    }
    return true;
  }

  bool reads_reduction(int t) const {
    const Temp& tp = k_.temps[t];
    if (tp.kind == TempKind::Reduce) return true;
    for (int a : tp.args) {
      if (reads_reduction(a)) return true;
    }
    return false;
  }

  std::string column_body() {
    const int last = nd_ - 1;
    const std::string xl = var("x", last), nl = var("n", last);
    std::string s = counts() + "  if (nk == 0) return;\n  constexpr int64_t kBlock = 256;\n";
    s += "  const int64_t nb = (" + nl + " + kBlock - 1) / kBlock;\n";
    s += "  parallel_for(0, nk / " + nl +
         " * nb, std::max<int64_t>(1, kGrainSize / "
         "std::max<int64_t>(1, rn * kBlock)), [&](int64_t begin, int64_t end) {\n";
    s += "    for (int64_t o = begin; o < end; ++o) {\n      int64_t rem = o / nb;\n";
    s += "      const int64_t j0 = (o % nb) * kBlock, j1 = std::min(" + nl + ", j0 + kBlock);\n";
    s += kept_indices(last);
    Scope block;
    block.indent = 6;
    outer_ = &block;
    std::vector<int> reds;
    for (size_t t = 0; t < k_.temps.size(); ++t) {
      if (k_.temps[t].kind != TempKind::Reduce) continue;
      const Temp& tp = k_.temps[t];
      reds.push_back(static_cast<int>(t));
      const bool sum = tp.red == RedKind::Sum || tp.red == RedKind::Mean;
      const std::string T = vtype(tp.dtype), A = sum ? "double" : T, acc = var("a", t);
      const std::string init = sum ? "0"
                                   : std::string(tp.red == RedKind::Max ? "-" : "") +
                                         "std::numeric_limits<" + T + ">::infinity()";
      line(block, A + " " + acc + "[kBlock];");
      line(block, "for (int64_t j = 0; j < j1 - j0; ++j) " + acc + "[j] = " + init + ";");
    }
    // One pass over the reduced dims; the innermost loop runs along the block.
    std::string open, close;
    int ind = 6;
    for (int f = 0; f < last; ++f) {
      if (k_.reduced >> f & 1) nest_loop(f, ind, open, close);
    }
    auto body = [&](bool vec) {
      Scope sc;
      sc.indent = ind + 4;
      inner_ = &sc;
      vec_ = vec;
      vdim_ = last;
      loop_dims_ = k_.reduced | bit(last);
      for (int t : reds) {
        const Temp& tp = k_.temps[t];
        const std::string v = value(tp.args[0]), acc = var("a", t);
        const std::string E = vtype(k_.temps[tp.args[0]].dtype);
        const bool sum = tp.red == RedKind::Sum || tp.red == RedKind::Mean;
        const std::string step = tp.red == RedKind::Max ? "ember_max_step" : "ember_min_step";
        auto update = [&](const std::string& at, const std::string& x) {
          return sum ? acc + "[" + at + "] += double(" + x + ");"
                     : acc + "[" + at + "] = " + step + "(" + acc + "[" + at + "], " + x + ");";
        };
        if (vec && sum && E == T_) {
          line(sc, "ember_col_add(" + acc + " + (" + xl + " - j0), " + v + ");");
          continue;
        }
        line(sc, vec ? "{ alignas(64) " + E + " e_[V::size]; (" + v +
                           ").store(e_); for (int q = 0; q < V::size; ++q) { " +
                           update(xl + " - j0 + q", "e_[q]") + " } }"
                     : update(xl + " - j0", v));
      }
      inner_ = nullptr;
      vec_ = false;
      return sc.text;
    };
    const std::string pad(ind + 2, ' ');
    std::string loops = open + std::string(ind, ' ') + "{\n" + pad + "int64_t " + xl + " = j0;\n";
    if (vector_) {
      loops += pad + "for (; " + xl + " + V::size <= j1; " + xl + " += V::size) {\n" + body(true) +
               pad + "}\n";
    }
    loops += pad + "for (; " + xl + " < j1; ++" + xl + ") {\n" + body(false) + pad + "}\n";
    loops += std::string(ind, ' ') + "}\n" + close;
    block.text += loops;
    // Per output of the block: the reductions' values, what follows them, the stores.
    Scope fin;
    fin.indent = 8;
    fin.names = block.names;
    outer_ = &fin;
    for (int t : reds) {
      const Temp& tp = k_.temps[t];
      const std::string acc = var("a", t) + "[" + xl + " - j0]";
      line(fin, "const " + std::string(vtype(tp.dtype)) + " " + var("t", t) + " = " +
                    rounded(tp.dtype, finalize(tp, acc, "")) + ";");
      fin.names[t] = var("t", t);
    }
    for (const Store& st : k_.stores) store(st);
    block.text += "      for (int64_t " + xl + " = j0; " + xl + " < j1; ++" + xl + ") {\n" +
                  fin.text + "      }\n";
    return s + block.text + "    }\n  });\n";
  }

  std::string reduction_body() {
    if (columns()) return column_body();
    find_stashes();
    std::string s = counts() + "  if (nk == 0) return;\n";
    s += "  parallel_for(0, nk, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, rn)), "
         "[&](int64_t begin, int64_t end) {\n";
    s += "    for (int64_t o = begin; o < end; ++o) {\n      int64_t rem = o;\n";
    s += kept_indices(nd_);
    Scope top;
    top.indent = 6;
    outer_ = &top;
    for (size_t t = 0; t < k_.temps.size(); ++t) {
      if (k_.temps[t].kind == TempKind::Reduce) pass(static_cast<int>(t));
    }
    bool any_full = false;
    for (const Store& st : k_.stores) any_full = any_full || full_store(st);
    if (any_full) {
      loop_nest(
          k_.reduced,
          [&](bool) {
            for (const Store& st : k_.stores) {
              if (full_store(st)) store(st);
            }
          },
          "", "", "");
    }
    for (const Store& st : k_.stores) {
      if (!full_store(st)) store(st);
    }
    return s + top.text + "    }\n  });\n";
  }

  // One pass over the reduced dims computing reduction temp t into the outer scope.
  void pass(int t) {
    const Temp& tp = k_.temps[t];
    const std::string id = std::to_string(t), acc = "a" + id, T = vtype(tp.dtype);
    const std::string E =
        is_float(k_.temps[tp.args[0]].dtype) ? vtype(k_.temps[tp.args[0]].dtype) : "double";
    const std::string aux = tp.aux >= 0 ? outer_->names.at(tp.aux) : "";
    auto x = [&] { return value(tp.args[0]); };
    // Lanes of a vector `v` as the element type, for the widening accumulations.
    auto lanes = [&](const std::string& v, const std::string& each) {
      return "{ alignas(64) " + E + " e_[V::size]; (" + v + ").store(e_); for (int q = 0; q < " +
             "V::size; ++q) { " + each + " } }";
    };
    std::string pre, mid, post;
    std::function<void(bool)> body;
    switch (tp.red) {
      case RedKind::Sum:
      case RedKind::Mean:
      case RedKind::MeanAcc:
      case RedKind::Var:
      case RedKind::Std:
      case RedKind::LogSumExp: {
        // Eight (V::size) double lanes per contiguous run, summed in order, then the tail.
        const bool dev = tp.red == RedKind::Var || tp.red == RedKind::Std;
        const bool lse = tp.red == RedKind::LogSumExp;  // exp(x - max), in the element type
        line(*outer_, "double " + acc + " = 0;");
        pre = vector_ ? "ember_dsum<" + T_ + "> l_; double s_ = 0;" : "double s_ = 0;";
        mid = "s_ += l_.sum();";
        post = acc + " += s_;";
        body = [&, dev, lse](bool vec) {
          const std::string v = x();
          Scope& sc = *inner_;
          if (lse) {
            line(sc, vec ? "l_.add(vexp(" + v + " - V(" + aux + ")));"
                         : "s_ += double(std::exp(" + v + " - " + aux + "));");
          } else if (vec) {
            line(sc, dev ? "l_.add_sq_dev(" + v + ", " + aux + ");" : "l_.add(" + v + ");");
          } else if (dev) {
            line(sc, "{ const double d_ = double(" + v + ") - " + aux + "; s_ += d_ * d_; }");
          } else {
            line(sc, "s_ += double(" + v + ");");
          }
        };
        break;
      }
      case RedKind::Prod:
        line(*outer_, "double " + acc + " = 1;");
        body = [&](bool vec) {
          const std::string v = x();
          line(*inner_,
               vec ? lanes(v, acc + " *= double(e_[q]);") : acc + " *= double(" + v + ");");
        };
        break;
      case RedKind::Max:
      case RedKind::Min: {
        const bool is_max = tp.red == RedKind::Max;
        const std::string step = is_max ? "ember_max_step" : "ember_min_step";
        line(*outer_, T + " " + acc + " = " + (is_max ? "-" : "") + "std::numeric_limits<" + T +
                          ">::infinity();");
        if (vector_) {
          pre = "V m_(" + acc + ");";
          mid = lanes("m_", acc + " = " + step + "(" + acc + ", e_[q]);");
        }
        body = [&, is_max, step](bool vec) {
          const std::string v = x();
          line(*inner_, vec ? "m_ = " + std::string(is_max ? "vmax" : "vmin") + "(m_, " + v + ");"
                            : acc + " = " + step + "(" + acc + ", " + v + ");");
        };
        break;
      }
      case RedKind::SumExp:
        line(*outer_, T + " " + acc + " = 0;");
        if (vector_) {
          pre = "V s_(" + T + "(0));";
          mid = lanes("s_", acc + " += e_[q];");
        }
        body = [&, t](bool vec) {
          const std::string v = x();
          std::string e =
              vec ? "vexp_nonpos(" + v + " - V(" + aux + "))" : "std::exp(" + v + " - " + aux + ")";
          const auto stash = stash_.find(t);
          if (stash != stash_.end()) {  // Note [Softmax stash]: kept in the output
            const std::string name = "e" + std::to_string(t);
            line(*inner_, (vec ? "const V " : "const " + T + " ") + name + " = " + e + ";");
            store_to(k_.stores[stash->second].access, tp.dtype, name);
            e = name;
          }
          line(*inner_, vec ? "s_ = s_ + " + e + ";" : acc + " += " + e + ";");
        };
        break;
    }
    loop_nest(k_.reduced, body, pre, mid, post);
    const std::string fin = rounded(tp.dtype, finalize(tp, acc, aux));
    line(*outer_, "const " + T + " t" + id + " = " + fin + ";");
    outer_->names[t] = "t" + id;
  }

  // The value of reduction `tp` from its accumulator (and `aux`, its max or mean).
  static std::string finalize(const Temp& tp, const std::string& acc, const std::string& aux) {
    const std::string T = vtype(tp.dtype);
    switch (tp.red) {
      case RedKind::Sum:
      case RedKind::Prod:
        return "static_cast<" + T + ">(" + acc + ")";
      case RedKind::Mean:
        return "static_cast<" + T + ">(" + acc + " / static_cast<double>(rn))";
      case RedKind::MeanAcc:
        return acc + " / static_cast<double>(rn)";
      case RedKind::Var:
      case RedKind::Std: {
        std::string v = acc + " / std::max(0.0, static_cast<double>(rn) - " +
                        literal(ConstValue{kFloat64, tp.param, 0, false}) + ")";
        if (tp.red == RedKind::Std) v = "std::sqrt(" + v + ")";
        return "static_cast<" + T + ">(" + v + ")";
      }
      case RedKind::Max:
      case RedKind::Min:
      case RedKind::SumExp:
        return acc;
      case RedKind::LogSumExp:  // as eager's: a NaN or infinite maximum is the result
        return "static_cast<" + T + ">((std::isnan(" + aux + ") || std::isinf(" + aux +
               ")) ? double(" + aux + ") : double(" + aux + ") + std::log(" + acc + "))";
    }
    return acc;
  }

  const Kernel& k_;
  const fx::Graph& g_;
  std::vector<SymInt>& size_args_;
  int nd_ = 0;
  bool vector_ = false;
  std::string T_ = "float";
  Scope* outer_ = nullptr;
  Scope* inner_ = nullptr;
  bool vec_ = false;
  int vdim_ = 0;
  uint64_t loop_dims_ = 0;
  std::map<int, size_t> stash_;  // Note [Softmax stash]: SumExp temp -> store
};

}  // namespace

std::string emit_kernel(const Kernel& kernel, const fx::Graph& graph, const std::string& symbol,
                        std::vector<SymInt>& size_args) {
  return Emitter(kernel, graph, size_args).run(symbol);
}

}  // namespace ember::compiler
