// The scheduler (Note [Lowering], Note [Kernel IR]): walks the graph once, in order, and puts each
// node into a kernel (a group) or makes it a step run through dispatch. A value stays a
// register of its group until something outside the group reads it (a call run through
// dispatch, another group, the graph's output); then it is stored (materialised) and the group
// is sealed: nothing joins it afterwards, so it runs before that reader. In-place calls seal
// every open group (a group never straddles a write), except the pointwise writes of a whole
// input that Note [In-place stores] fuses.
#include <cstdio>
#include <map>
#include <set>

#include "compiler/kernel_ir.h"
#include "compiler/lowering_ops.h"
#include "dispatch/primitive.h"
#include "primitives/copy.h"
#include "primitives/reduction.h"
#include "primitives/softmax.h"
#include "primitives/view.h"

namespace ember::compiler {
namespace {

using fx::Node;
using fx::NodeKind;
using fx::ValueMeta;
using fx::ValueRef;

bool is_one(const SymInt& s) { return !s.is_symbolic() && s.hint() == 1; }
bool is_zero(const SymInt& s) { return !s.is_symbolic() && s.hint() == 0; }

template <typename A, typename B>
bool same_shape(const A& a, const B& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].same_as(b[i])) return false;
  }
  return true;
}

enum class VKind : uint8_t { Tensor, View, Const, Group, GroupView };

struct VInfo {
  VKind kind = VKind::Tensor;
  ValueRef root;     // View: the tensor whose storage it reads
  ConstValue value;  // Const
  int group = -1;    // Group, GroupView
  int temp = -1;
  std::vector<int> map;  // Group, GroupView: the kernel dim of each dim (-1: does not vary)
  bool stored = false;   // Group: an in-place write its kernel stores into the input it writes
  static VInfo of(VKind kind) {
    VInfo v;
    v.kind = kind;
    return v;
  }
};

struct Group {
  Kernel k;
  bool sealed = false;
  std::map<std::string, int> temp_keys;  // loads and literals, deduplicated
};

// The stride of dims f and f + 1 merged into one (row-major), when every access allows it.
std::optional<SymInt> merged_stride(const std::vector<SymInt>& sizes, const Access& a, int f) {
  if (is_one(sizes[f + 1])) return a.strides[f];
  if (is_one(sizes[f])) return a.strides[f + 1];
  if (a.strides[f].same_as(a.strides[f + 1] * sizes[f + 1])) return a.strides[f + 1];
  return std::nullopt;
}

// Merges adjacent dims that every access walks contiguously (both kept or both reduced), so the
// inner loop is long: a [4096, 3] pointwise kernel runs as one vectorised loop of 12288.
void merge_dims(Kernel& k) {
  for (int f = static_cast<int>(k.sizes.size()) - 2; f >= 0; --f) {
    if ((k.reduced >> f & 1) != (k.reduced >> (f + 1) & 1)) continue;
    std::vector<Access*> accesses;
    for (Temp& t : k.temps) {
      if (t.kind == TempKind::Load) accesses.push_back(&t.access);
    }
    for (Store& st : k.stores) accesses.push_back(&st.access);
    std::vector<SymInt> merged;
    for (Access* a : accesses) {
      auto m = merged_stride(k.sizes, *a, f);
      if (!m) break;
      merged.push_back(*m);
    }
    if (merged.size() != accesses.size()) continue;
    for (size_t i = 0; i < accesses.size(); ++i) {
      accesses[i]->strides[f] = merged[i];
      accesses[i]->strides.erase(accesses[i]->strides.begin() + f + 1);
    }
    k.sizes[f] = k.sizes[f] * k.sizes[f + 1];
    k.sizes.erase(k.sizes.begin() + f + 1);
    // Bit f + 1 folds into bit f; the bits above move down one.
    auto fold = [f](uint64_t m) {
      const uint64_t low = m & ((uint64_t(1) << (f + 1)) - 1), hi = m >> (f + 1);
      return low | ((hi & 1) << f) | ((hi >> 1) << (f + 1));
    };
    k.reduced = fold(k.reduced);
    for (Temp& t : k.temps) t.deps = fold(t.deps);
  }
}

class Scheduler {
 public:
  explicit Scheduler(const fx::Graph& g) : g_(g), nodes_(g.nodes()) {
    info_.resize(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) info_[i].resize(nodes_[i].outputs.size());
    // Where each value's memory comes from: an input or attribute, or the call that made it.
    storage_.resize(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const Node& n = nodes_[i];
      storage_[i].assign(n.outputs.size(), static_cast<int>(i));
      if (n.kind != NodeKind::Call) continue;
      for (size_t k = 0; k < n.outputs.size(); ++k) {
        if (k == 0 && n.inplace_target) {
          storage_[i][k] = storage_of(*n.inplace_target);
        } else if (auto in = n.prim->aliased_input(k);
                   in && *in < n.args.size() && !n.args[*in].is_none()) {
          storage_[i][k] = storage_of(n.args[*in]);
        }
      }
    }
    pending_.assign(nodes_.size(), -1);
    written_root_.assign(nodes_.size(), -1);
    // The values an in-place call writes, and what they are views of, are not constants.
    mutated_.assign(nodes_.size(), false);
    for (const Node& n : nodes_) {
      if (n.kind != NodeKind::Call || !n.inplace_target) continue;
      for (int v = n.inplace_target->node; v >= 0 && !mutated_[v];) {
        mutated_[v] = true;
        const Node& src = nodes_[v];
        v = src.kind == NodeKind::Call && src.prim->is_view() && !src.args.empty()
                ? src.args[0].node
                : -1;
      }
    }
  }

  Schedule run() {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const Node& n = nodes_[i];
      if (n.kind == NodeKind::Placeholder || n.kind == NodeKind::GetAttr) continue;
      if (n.kind == NodeKind::Output) {
        for (ValueRef a : n.args) need_tensor(a);
        continue;
      }
      if (try_const(static_cast<int>(i)) || try_view(static_cast<int>(i)) ||
          try_fuse(static_cast<int>(i))) {
        continue;
      }
      for (ValueRef a : n.args) need_tensor(a);
      if (n.inplace_target) need_tensor(*n.inplace_target);
      run_extern(static_cast<int>(i));
    }
    for (size_t gi = 0; gi < groups_.size(); ++gi) seal(static_cast<int>(gi));
    return finish();
  }

 private:
  VInfo& info(ValueRef v) { return info_[v.node][v.output]; }
  const ValueMeta& meta(ValueRef v) const { return g_.meta(v); }

  // ---- steps

  void run_extern(int i) {
    if (nodes_[i].prim->inplace() || nodes_[i].inplace_target) {
      for (size_t gi = 0; gi < groups_.size(); ++gi) seal(static_cast<int>(gi));
    }
    steps_.push_back({false, i});
    for (VInfo& vi : info_[i]) vi = VInfo{};
  }

  void seal(int gi) {
    if (groups_[gi].sealed) return;
    groups_[gi].sealed = true;
    steps_.push_back({true, gi});
  }

  Schedule finish() {
    Schedule s;
    std::map<int, int> kernel_of;
    for (const Step& st : steps_) {
      if (!st.is_kernel) {
        s.steps.push_back(st);
        continue;
      }
      Kernel& k = groups_[st.index].k;
      if (k.stores.empty()) continue;  // every value it computed was needed elsewhere as a call
      s.steps.push_back({true, static_cast<int>(s.kernels.size())});
      merge_dims(k);
      s.kernels.push_back(std::move(k));
    }
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (written_root_[i] >= 0)
        s.aliases.push_back({{static_cast<int>(i), 0}, {written_root_[i], 0}});
    }
    return s;
  }

  // Makes `v` a tensor at run time, at this point of the steps.
  void need_tensor(ValueRef v) {
    if (v.is_none()) return;
    VInfo& vi = info(v);
    switch (vi.kind) {
      case VKind::Tensor:
        order_after_writes(storage_of(v), -1);
        return;
      case VKind::View:
      case VKind::Const:
      case VKind::GroupView:
        for (ValueRef a : nodes_[v.node].args) need_tensor(a);
        if (nodes_[v.node].inplace_target) need_tensor(*nodes_[v.node].inplace_target);
        run_extern(v.node);
        return;
      case VKind::Group:
        if (vi.stored) {  // already in the input it writes
          seal(vi.group);
          vi = VInfo{};
          return;
        }
        if (store(v)) {
          seal(vi.group);
          vi = VInfo{};
          return;
        }
        // Not storable from its kernel's loops (it does not cover them): computed again by
        // its own call.
        for (ValueRef a : nodes_[v.node].args) need_tensor(a);
        run_extern(v.node);
        return;
    }
  }

  // Adds a store of group value `v` to its kernel when the kernel's loops visit each of its
  // elements exactly once.
  bool store(ValueRef v) {
    const VInfo& vi = info(v);
    Kernel& k = groups_[vi.group].k;
    const ValueMeta& m = meta(v);
    const size_t nd = k.sizes.size();
    Access acc{buffer(vi.group, v, true), 0, std::vector<SymInt>(nd, SymInt(0))};
    uint64_t covered = 0;
    for (size_t j = 0; j < m.sizes.size(); ++j) {
      if (is_one(m.sizes[j])) continue;
      const int f = vi.map[j];
      if (f < 0 || (covered >> f & 1)) return false;
      covered |= uint64_t(1) << f;
      acc.strides[f] = m.strides[j];
    }
    uint64_t all = 0;
    for (size_t f = 0; f < nd; ++f) all |= is_one(k.sizes[f]) ? 0 : uint64_t(1) << f;
    const uint64_t kept = all & ~k.reduced;
    const bool full = covered == all, at_kept = covered == kept;
    if (!full && !(at_kept && (k.temps[vi.temp].deps & k.reduced) == 0)) return false;
    k.stores.push_back({vi.temp, std::move(acc)});
    return true;
  }

  int buffer(int gi, ValueRef root, bool written) {
    Kernel& k = groups_[gi].k;
    for (size_t b = 0; b < k.buffers.size(); ++b) {
      if (k.buffers[b] == root) {
        k.buffer_written[b] = k.buffer_written[b] || written;
        return static_cast<int>(b);
      }
    }
    k.buffers.push_back(root);
    k.buffer_dtypes.push_back(meta(root).dtype);
    k.buffer_written.push_back(written);
    return static_cast<int>(k.buffers.size()) - 1;
  }

  // ---- constants and views

  bool try_const(int i) {
    const Node& n = nodes_[i];
    if (n.prim->inplace() || n.inplace_target || mutated_[i]) return false;
    std::optional<ConstValue> c;
    if (n.prim->kind() == PrimitiveKind::Fill && n.args.empty()) {
      c = fill_value(static_cast<const Fill&>(*n.prim).value(), n.outputs[0].dtype);
    } else if (n.prim->kind() == PrimitiveKind::Copy && n.args.size() == 1 &&
               info(n.args[0]).kind == VKind::Const) {
      c = convert(info(n.args[0]).value, n.outputs[0].dtype);
    } else if (n.prim->is_view() && n.args.size() == 1 && !n.args[0].is_none() &&
               info(n.args[0]).kind == VKind::Const && n.prim->kind() != PrimitiveKind::ViewDtype) {
      c = info(n.args[0]).value;
    }
    if (!c) return false;
    info_[i][0] = VInfo::of(VKind::Const);
    info_[i][0].value = *c;
    return true;
  }

  bool try_view(int i) {
    const Node& n = nodes_[i];
    if (!n.prim->is_view() || n.args.size() != 1 || n.args[0].is_none() ||
        n.prim->kind() == PrimitiveKind::ViewDtype) {
      return false;
    }
    const ValueRef in = n.args[0];
    const VInfo& src = info(in);
    // A view of an in-place write reads the input's memory (later writes included), not the
    // register of the value written.
    if (src.kind == VKind::Tensor || src.kind == VKind::View || src.stored) {
      const ValueRef root = src.kind == VKind::View ? src.root : buffer_of(in);
      info_[i][0] = VInfo::of(VKind::View);
      info_[i][0].root = root;
      return true;
    }
    if (src.kind != VKind::Group && src.kind != VKind::GroupView) return false;
    if (groups_[src.group].sealed) return false;
    auto map = view_map(n, src.map);
    if (!map) return false;
    VInfo vi = VInfo::of(VKind::GroupView);
    vi.group = src.group;
    vi.temp = src.temp;
    vi.map = std::move(*map);
    info_[i][0] = std::move(vi);
    return true;
  }

  // The dims of a view of a group value, for the views that move whole dims.
  std::optional<std::vector<int>> view_map(const Node& n, const std::vector<int>& in) const {
    const ValueMeta& im = meta(n.args[0]);
    const ValueMeta& om = n.outputs[0];
    std::vector<int> out;
    switch (n.prim->kind()) {
      case PrimitiveKind::Alias:
        return in;
      case PrimitiveKind::Unsqueeze: {
        out = in;
        const int64_t d = static_cast<const Unsqueeze&>(*n.prim).params().dim;
        out.insert(out.begin() + d, -1);
        return out;
      }
      case PrimitiveKind::Permute: {
        for (int64_t d : static_cast<const Permute&>(*n.prim).params().dims) out.push_back(in[d]);
        return out;
      }
      case PrimitiveKind::Squeeze:
      case PrimitiveKind::Reshape: {
        // Only size-1 dims come and go: the other dims keep their order and sizes.
        std::vector<size_t> src;
        for (size_t j = 0; j < im.sizes.size(); ++j) {
          if (!is_one(im.sizes[j])) src.push_back(j);
        }
        size_t next = 0;
        for (size_t j = 0; j < om.sizes.size(); ++j) {
          if (is_one(om.sizes[j])) {
            out.push_back(-1);
            continue;
          }
          if (next >= src.size() || !om.sizes[j].same_as(im.sizes[src[next]])) return std::nullopt;
          out.push_back(in[src[next++]]);
        }
        if (next != src.size()) return std::nullopt;
        return out;
      }
      case PrimitiveKind::Expand: {
        const size_t lead = om.sizes.size() - im.sizes.size();
        out.assign(lead, -1);
        for (size_t j = 0; j < im.sizes.size(); ++j) {
          out.push_back(is_one(im.sizes[j]) ? -1 : in[j]);
        }
        return out;
      }
      default:
        return std::nullopt;
    }
  }

  // ---- Note [In-place stores]

  int storage_of(ValueRef v) const { return storage_[v.node][v.output]; }

  // The tensor that holds `v` at run time: the input a fused in-place call wrote stands for the
  // call's value.
  ValueRef buffer_of(ValueRef v) const {
    return written_root_[v.node] >= 0 ? ValueRef{written_root_[v.node], 0} : v;
  }

  // An in-place call that writes the whole of an input or attribute, each element once, with
  // the input's own geometry.
  bool writes_whole_input(const Node& n) const {
    if (!n.prim->inplace() || !n.inplace_target || n.outputs.size() != 1) return false;
    const int r = storage_of(*n.inplace_target);
    if (nodes_[r].kind != NodeKind::Placeholder && nodes_[r].kind != NodeKind::GetAttr) {
      return false;
    }
    const ValueMeta &m = n.outputs[0], &rm = nodes_[r].outputs[0];
    if (m.dtype != rm.dtype || !m.storage_offset.same_as(rm.storage_offset) ||
        !same_shape(m.sizes, rm.sizes) || !same_shape(m.strides, rm.strides)) {
      return false;
    }
    for (size_t j = 0; j < m.sizes.size(); ++j) {
      if (!is_one(m.sizes[j]) && is_zero(m.strides[j])) return false;  // an expanded input
    }
    return true;
  }

  // A read of memory that an open group writes in place: that group runs first (sealed now),
  // or, when the reader is in that group, false (the kernel cannot read it after its write).
  bool order_after_writes(int storage, int gi) {
    const int w = pending_[storage];
    if (w < 0 || groups_[w].sealed) return true;
    if (w == gi) return false;
    seal(w);
    return true;
  }

  // Makes temp `ti` of group gi, the value of in-place call i, a store into the input it writes
  // (instead of a fresh buffer and a copy): safe when every element the kernel reads of that
  // input is read where it is written, as the emitter computes all stored values before it
  // stores any (an element is read, then written, by the same iteration).
  bool store_in_place(int gi, int i, int ti, const std::vector<int>& omap) {
    Kernel& k = groups_[gi].k;
    if (k.reduced != 0) return false;
    const int r = storage_of(*nodes_[i].inplace_target);
    const ValueRef root{r, 0};
    const ValueMeta& m = nodes_[i].outputs[0];
    const size_t nd = k.sizes.size();
    std::vector<SymInt> strides(nd, SymInt(0));
    uint64_t covered = 0, all = 0;
    for (size_t j = 0; j < m.sizes.size(); ++j) {
      if (is_one(m.sizes[j])) continue;
      const int f = omap[j];
      if (f < 0 || (covered >> f & 1)) return false;
      covered |= uint64_t(1) << f;
      strides[f] = m.strides[j];
    }
    for (size_t f = 0; f < nd; ++f) all |= is_one(k.sizes[f]) ? 0 : uint64_t(1) << f;
    if (covered != all) return false;
    for (const Temp& t : k.temps) {
      if (t.kind != TempKind::Load || storage_of(k.buffers[t.access.buffer]) != r) continue;
      if (!(k.buffers[t.access.buffer] == root) || !is_zero(t.access.offset) ||
          !same_shape(t.access.strides, strides)) {
        return false;
      }
    }
    // Open groups that read the input's values from before this write run before it.
    for (size_t h = 0; h < groups_.size(); ++h) {
      if (static_cast<int>(h) == gi || groups_[h].sealed) continue;
      for (ValueRef b : groups_[h].k.buffers) {
        if (storage_of(b) == r) {
          seal(static_cast<int>(h));
          break;
        }
      }
    }
    const int b = buffer(gi, root, true);
    bool replaced = false;  // a later write of the same input in the kernel replaces the earlier
    for (Store& st : k.stores) {
      if (st.access.buffer == b) {
        st.temp = ti;
        replaced = true;
      }
    }
    if (!replaced) k.stores.push_back({ti, Access{b, 0, std::move(strides)}});
    k.inplace_writes.push_back(root);
    pending_[r] = gi;
    written_root_[i] = r;
    set_group_value({i, 0}, gi, ti, omap);
    info({i, 0}).stored = true;
    return true;
  }

  // ---- fusion

  enum class Role : uint8_t { Pointwise, Reduce, Softmax };

  std::optional<Role> role(const Node& n) const {
    if (n.outputs.empty()) return std::nullopt;
    const bool inplace = n.prim->inplace() || n.inplace_target;
    if (inplace && !writes_whole_input(n)) return std::nullopt;
    for (ValueRef a : n.args) {
      if (a.is_none()) return std::nullopt;
    }
    std::vector<ScalarType> in;
    for (ValueRef a : n.args) in.push_back(meta(a).dtype);
    if (pointwise_supported(*n.prim, in, n.outputs[0].dtype)) return Role::Pointwise;
    if (inplace) return std::nullopt;
    if (n.prim->kind() == PrimitiveKind::Reduce && reduce_supported(*n.prim, in[0]) &&
        !meta(n.args[0]).sizes.empty()) {
      return Role::Reduce;
    }
    if (n.prim->kind() == PrimitiveKind::Softmax && is_float(in[0]) &&
        !meta(n.args[0]).sizes.empty()) {
      return Role::Softmax;
    }
    return std::nullopt;
  }

  bool in_open_group(ValueRef a) {
    const VInfo& vi = info(a);
    return (vi.kind == VKind::Group || vi.kind == VKind::GroupView) && !groups_[vi.group].sealed;
  }

  bool try_fuse(int i) {
    const Node& n = nodes_[i];
    const auto r = role(n);
    if (!r) return false;
    int gi = -1;
    for (ValueRef a : n.args) {
      if (in_open_group(a)) {
        gi = info(a).group;
        break;
      }
    }
    for (ValueRef a : n.args) {
      if (in_open_group(a) && info(a).group != gi) need_tensor(a);
    }
    if (gi >= 0 && groups_[gi].sealed) gi = -1;  // sealed by a store above
    if (gi >= 0 && add(gi, i, *r)) return true;
    if (gi >= 0) {
      for (ValueRef a : n.args) need_tensor(a);
    } else if (*r == Role::Pointwise && !groups_.empty() && !groups_.back().sealed &&
               add(static_cast<int>(groups_.size()) - 1, i, *r)) {
      // Reads nothing of an open group: it joins the latest one when it has that kernel's full
      // or kept shape (one loop instead of two; cross_entropy's target mask and log_softmax).
      return true;
    }
    // A new group over the node's own space.
    const ValueMeta& space = *r == Role::Pointwise ? n.outputs[0] : meta(n.args[0]);
    if (space.sizes.size() > 62) return false;
    Group g;
    g.k.sizes.assign(space.sizes.begin(), space.sizes.end());
    groups_.push_back(std::move(g));
    const int ng = static_cast<int>(groups_.size()) - 1;
    if (add(ng, i, *r)) return true;
    groups_.back().sealed = true;  // empty: nothing stored, dropped by finish()
    return false;
  }

  // The temp of argument `a` in group gi, read at output dims with kernel dims `omap` (a's dims
  // aligned to the output's last ones); -1 when it cannot be.
  int arg_temp(int gi, ValueRef a, const std::vector<int>& omap,
               const SmallVector<SymInt, 6>& osz) {
    VInfo& vi = info(a);
    Kernel& k = groups_[gi].k;
    const ValueMeta& m = meta(a);
    const size_t off = osz.size() - m.sizes.size();
    switch (vi.kind) {
      case VKind::Const:
        return const_temp(gi, vi.value);
      case VKind::Group:
      case VKind::GroupView: {
        if (vi.group != gi) return -1;
        for (size_t j = 0; j < m.sizes.size(); ++j) {
          if (is_one(m.sizes[j]) || vi.map[j] < 0) continue;
          if (vi.map[j] != omap[off + j]) return -1;
        }
        return vi.temp;
      }
      case VKind::Tensor:
      case VKind::View: {
        const ValueRef root = vi.kind == VKind::View ? vi.root : buffer_of(a);
        if (!order_after_writes(storage_of(root), gi)) return -1;
        const size_t nd = k.sizes.size();
        std::vector<SymInt> strides(nd, SymInt(0));
        for (size_t j = 0; j < m.sizes.size(); ++j) {
          if (is_one(m.sizes[j]) || is_zero(m.strides[j])) continue;
          const int f = omap[off + j];
          if (f < 0 || !is_zero(strides[f])) return -1;
          strides[f] = m.strides[j];
        }
        const SymInt offset = m.storage_offset - meta(root).storage_offset;
        std::string key = "load ";
        key += std::to_string(root.node);
        key += ':';
        key += std::to_string(root.output);
        key += '@';
        key += offset.str();
        for (const SymInt& s : strides) {
          key += ',';
          key += s.str();
        }
        if (auto it = groups_[gi].temp_keys.find(key); it != groups_[gi].temp_keys.end()) {
          return it->second;
        }
        Temp t;
        t.kind = TempKind::Load;
        t.dtype = m.dtype;
        for (size_t f = 0; f < nd; ++f) t.deps |= is_zero(strides[f]) ? 0 : uint64_t(1) << f;
        t.access = Access{buffer(gi, root, false), offset, std::move(strides)};
        return groups_[gi].temp_keys[key] = push(gi, std::move(t));
      }
    }
    return -1;
  }

  int const_temp(int gi, const ConstValue& c) {
    Temp t;
    t.kind = TempKind::Const;
    t.dtype = c.dtype;
    t.literal = literal(c);
    std::string key = "const ";
    key += std::to_string(static_cast<int>(c.dtype));
    key += t.literal;
    if (auto it = groups_[gi].temp_keys.find(key); it != groups_[gi].temp_keys.end()) {
      return it->second;
    }
    return groups_[gi].temp_keys[key] = push(gi, std::move(t));
  }

  int push(int gi, Temp t) {
    groups_[gi].k.temps.push_back(std::move(t));
    return static_cast<int>(groups_[gi].k.temps.size()) - 1;
  }

  // The kernel dims of a pointwise node's output in group gi: the identity when it has the
  // kernel's full shape, else what its group arguments say.
  std::optional<std::vector<int>> output_map(int gi, const Node& n) {
    const Kernel& k = groups_[gi].k;
    const auto& osz = n.outputs[0].sizes;
    std::vector<int> omap(osz.size(), -1);
    if (same_shape(osz, k.sizes)) {
      for (size_t f = 0; f < osz.size(); ++f) omap[f] = static_cast<int>(f);
      return omap;
    }
    for (ValueRef a : n.args) {
      const VInfo& vi = info(a);
      if ((vi.kind != VKind::Group && vi.kind != VKind::GroupView) || vi.group != gi) continue;
      const auto& asz = meta(a).sizes;
      const size_t off = osz.size() - asz.size();
      for (size_t j = 0; j < asz.size(); ++j) {
        if (is_one(asz[j]) || vi.map[j] < 0) continue;
        if (omap[off + j] >= 0 && omap[off + j] != vi.map[j]) return std::nullopt;
        omap[off + j] = vi.map[j];
      }
    }
    bool from_group = false;
    for (int f : omap) from_group = from_group || f >= 0;
    if (!from_group && k.reduced != 0) {
      // No group argument says: the kept dims, when it has exactly the kept shape.
      std::vector<int> kept;
      for (size_t f = 0; f < k.sizes.size(); ++f) {
        if (!(k.reduced >> f & 1)) kept.push_back(static_cast<int>(f));
      }
      if (kept.size() != osz.size()) return std::nullopt;
      for (size_t j = 0; j < osz.size(); ++j) {
        if (!osz[j].same_as(k.sizes[kept[j]])) return std::nullopt;
        omap[j] = kept[j];
      }
      return omap;
    }
    std::set<int> seen;
    for (int f : omap) {
      if (f >= 0 && !seen.insert(f).second) return std::nullopt;
    }
    return omap;
  }

  bool add(int gi, int i, Role r) {
    const Node& n = nodes_[i];
    const size_t ntemps = groups_[gi].k.temps.size(), nbuf = groups_[gi].k.buffers.size();
    const size_t nstores = groups_[gi].k.stores.size();
    const auto keys = groups_[gi].temp_keys;
    const uint64_t reduced = groups_[gi].k.reduced;
    const bool ok = r == Role::Pointwise ? add_pointwise(gi, i) : add_reduction(gi, i, r);
    if (!ok) {  // roll back what the attempt added
      Kernel& k = groups_[gi].k;
      k.temps.resize(ntemps);
      k.stores.resize(nstores);
      k.buffers.resize(nbuf);
      k.buffer_dtypes.resize(nbuf);
      k.buffer_written.resize(nbuf);
      k.reduced = reduced;
      groups_[gi].temp_keys = keys;
      return false;
    }
    groups_[gi].k.origins.push_back(n.name);
    return true;
  }

  bool add_pointwise(int gi, int i) {
    const Node& n = nodes_[i];
    const auto omap = output_map(gi, n);
    if (!omap) return false;
    Temp t;
    t.kind = TempKind::Op;
    t.node = i;
    t.dtype = n.outputs[0].dtype;
    for (ValueRef a : n.args) {
      const int at = arg_temp(gi, a, *omap, n.outputs[0].sizes);
      if (at < 0) return false;
      t.args.push_back(at);
      t.deps |= groups_[gi].k.temps[at].deps;
    }
    const int ti = push(gi, std::move(t));
    if (n.inplace_target) return store_in_place(gi, i, ti, *omap);
    set_group_value({i, 0}, gi, ti, *omap);
    return true;
  }

  void set_group_value(ValueRef v, int gi, int ti, std::vector<int> map) {
    VInfo vi = VInfo::of(VKind::Group);
    vi.group = gi;
    vi.temp = ti;
    vi.map = std::move(map);
    info(v) = std::move(vi);
  }

  bool add_reduction(int gi, int i, Role r) {
    const Node& n = nodes_[i];
    Kernel& k = groups_[gi].k;
    const ValueRef x = n.args[0];
    const ValueMeta& xm = meta(x);
    const int64_t rank = static_cast<int64_t>(xm.sizes.size());
    if (!same_shape(xm.sizes, k.sizes) || !k.inplace_writes.empty()) return false;
    uint64_t dims = 0;
    if (r == Role::Softmax) {
      const int64_t d = static_cast<const Softmax&>(*n.prim).dim();
      dims = uint64_t(1) << ((d % rank + rank) % rank);
    } else {
      for (int64_t d : static_cast<const Reduce&>(*n.prim).dims()) {
        dims |= uint64_t(1) << ((d % rank + rank) % rank);
      }
    }
    if (dims == 0 || (k.reduced != 0 && k.reduced != dims)) return false;
    std::vector<int> identity(rank);
    for (int64_t f = 0; f < rank; ++f) identity[f] = static_cast<int>(f);
    const int xt = arg_temp(gi, x, identity, xm.sizes);
    if (xt < 0) return false;
    k.reduced = dims;
    const uint64_t xdeps = k.temps[xt].deps;
    auto reduce = [&](RedKind red, ScalarType dtype, int aux) {
      Temp t;
      t.kind = TempKind::Reduce;
      t.red = red;
      t.dtype = dtype;
      t.args = {xt};
      t.aux = aux;
      t.deps = xdeps & ~dims;
      if (aux >= 0) t.deps |= k.temps[aux].deps;
      t.node = i;
      return push(gi, std::move(t));
    };
    const ScalarType dt = xm.dtype;
    // Values only the kernel reads stay in the compute type (a 16-bit softmax's sum is a float,
    // as eager's); the results are rounded to dt (Note [16-bit kernels]).
    const ScalarType inner = compute_dtype(dt);
    if (r == Role::Softmax) {
      const int mx = reduce(RedKind::Max, inner, -1);
      const int sum = reduce(RedKind::SumExp, inner, mx);
      Temp t;
      t.kind = TempKind::SoftmaxOut;
      t.dtype = dt;
      t.args = {xt, mx, sum};
      t.log = static_cast<const Softmax&>(*n.prim).log();
      t.deps = xdeps | k.temps[mx].deps | k.temps[sum].deps;
      t.node = i;
      set_group_value({i, 0}, gi, push(gi, std::move(t)), identity);
      return true;
    }
    const auto& rp = static_cast<const Reduce&>(*n.prim);
    std::vector<int> omap;
    for (int64_t f = 0; f < rank; ++f) {
      if (!(dims >> f & 1)) {
        omap.push_back(static_cast<int>(f));
      } else if (rp.keepdim()) {
        omap.push_back(-1);
      }
    }
    std::vector<int> outs;
    switch (rp.op()) {
      case ReduceOp::Sum:
        outs = {reduce(RedKind::Sum, dt, -1)};
        break;
      case ReduceOp::Mean:
        outs = {reduce(RedKind::Mean, dt, -1)};
        break;
      case ReduceOp::Prod:
        outs = {reduce(RedKind::Prod, dt, -1)};
        break;
      case ReduceOp::AMax:
        outs = {reduce(RedKind::Max, dt, -1)};
        break;
      case ReduceOp::AMin:
        outs = {reduce(RedKind::Min, dt, -1)};
        break;
      case ReduceOp::LogSumExp:
        outs = {reduce(RedKind::LogSumExp, dt, reduce(RedKind::Max, inner, -1))};
        break;
      default: {  // the variance family
        const bool is_std = rp.op() == ReduceOp::Std || rp.op() == ReduceOp::StdMean;
        const int mean = reduce(RedKind::MeanAcc, kFloat64, -1);
        const int var = reduce(is_std ? RedKind::Std : RedKind::Var, dt, mean);
        k.temps[var].param = rp.param();
        outs = {var};
        if (rp.op() == ReduceOp::VarMean || rp.op() == ReduceOp::StdMean) {
          Temp c;
          c.kind = TempKind::Cast;
          c.dtype = dt;
          c.args = {mean};
          c.deps = k.temps[mean].deps;
          outs.push_back(push(gi, std::move(c)));
        }
      }
    }
    for (size_t o = 0; o < outs.size(); ++o) {
      set_group_value({i, static_cast<int>(o)}, gi, outs[o], omap);
    }
    return true;
  }

  const fx::Graph& g_;
  const std::vector<Node>& nodes_;
  std::vector<std::vector<VInfo>> info_;
  std::vector<Group> groups_;
  std::vector<Step> steps_;    // kernel steps index groups_ until finish()
  std::vector<bool> mutated_;  // by node: written in place, directly or through a view
  // Note [In-place stores]: by value, the input, attribute or call whose memory it is; by input
  // or attribute node, the open group that writes it in place (-1: none); by in-place call fused
  // into a kernel, the input it wrote (-1: none).
  std::vector<std::vector<int>> storage_;
  std::vector<int> pending_;
  std::vector<int> written_root_;
};

}  // namespace

Schedule schedule(const fx::Graph& graph) { return Scheduler(graph).run(); }

}  // namespace ember::compiler
