#include "ops/util.h"

#include <algorithm>

#include "primitives/copy.h"

namespace ember::ops {

std::vector<int64_t> wrap_dims(const IntList& dims, int64_t ndim, const char* op) {
  std::vector<int64_t> r;
  std::vector<bool> seen(std::max<int64_t>(ndim, 1), false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim, op);
    EMBER_CHECK(!seen[w], "[", op, "] dim ", w, " appears multiple times in the list of dims");
    seen[w] = true;
    r.push_back(w);
  }
  return r;
}

Tensor with_grad(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_();
  return t;
}

Tensor empty_tensor(const std::vector<int64_t>& sizes, ScalarType dtype, const char* op,
                    Device device) {
  check_implemented(dtype, op);
  int64_t n = checked_numel(sizes, op);
  const int64_t nbytes = checked_mul(n, element_size(dtype), op, "the requested size in bytes");
  auto storage = std::make_shared<StorageImpl>(static_cast<size_t>(nbytes), device);
  return Tensor(
      std::make_shared<TensorImpl>(std::move(storage), dtype, sizes, contiguous_strides(sizes), 0));
}

Tensor scalar_tensor(const Scalar& s, ScalarType dtype) {
  // Filled through dispatch, so that a tracer sees the number (as Fill's parameter) instead of
  // a tensor whose memory was written behind its back (Note [Functional randomness] has the
  // generator's state, the one other value that enters from outside).
  return dispatch(Fill(s, {}, dtype, kCPU), {})[0];
}

Tensor wrapped_scalar(const Scalar& s) {
  Tensor t = scalar_tensor(s, s.type());
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

namespace {
// Visits each dim of the broadcast of a and b (right-aligned, missing dims 1), after checking it.
template <typename T, typename F>
void for_each_broadcast_dim(const std::vector<T>& a, const std::vector<T>& b, const char* op,
                            F&& f) {
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const T da = i < n - a.size() ? T(1) : a[i - (n - a.size())];
    const T db = i < n - b.size() ? T(1) : b[i - (n - b.size())];
    if constexpr (std::is_same_v<T, SymInt>) {
      if (const auto settled = broadcast_settled(da, db)) {
        f(i, *settled);
        continue;
      }
    }
    EMBER_CHECK(da == db || da == 1 || db == 1, "[", op, "] The size of tensor a (", da,
                ") must match the size of tensor b (", db, ") at non-singleton dimension ", i);
    f(i, da == 1 ? db : da);
  }
}
}  // namespace

std::vector<int64_t> broadcast_pair(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                    const char* op) {
  std::vector<int64_t> r(std::max(a.size(), b.size()));
  for_each_broadcast_dim(a, b, op, [&](size_t i, int64_t d) { r[i] = d; });
  return r;
}

std::vector<SymInt> broadcast_pair(const std::vector<SymInt>& a, const std::vector<SymInt>& b,
                                   const char* op) {
  std::vector<SymInt> r(std::max(a.size(), b.size()));
  for_each_broadcast_dim(a, b, op, [&](size_t i, const SymInt& d) { r[i] = d; });
  return r;
}

void check_broadcastable(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                         const char* op) {
  if (a == b) return;  // the common case, and the tiny op's
  for_each_broadcast_dim(a, b, op, [](size_t, int64_t) {});
}

void check_broadcastable(const Tensor& a, const Tensor& b, const char* op) {
  if (a.unsafeGetTensorImpl()->is_symbolic() || b.unsafeGetTensorImpl()->is_symbolic()) {
    for_each_broadcast_dim(a.sym_sizes(), b.sym_sizes(), op, [](size_t, const SymInt&) {});
  } else {
    check_broadcastable(a.sizes(), b.sizes(), op);
  }
}

void check_implemented(ScalarType t, const char* op) {
  EMBER_CHECK_TYPE(is_implemented(t), "[", op, "] dtype ", dtype_name(t), " is not supported yet");
}

}  // namespace ember::ops

namespace ember::ops {

void check_no_internal_overlap(const Tensor& t, const char* op) {
  // SymInt comparisons: a dynamic size is compared by its range, not specialised.
  const std::vector<SymInt> strides = t.sym_strides();
  for (int64_t d = 0; d < t.dim(); ++d) {
    EMBER_CHECK(!(strides[d] == 0 && t.sym_size(d) > 1), "[", op,
                "] unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation.");
  }
}

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined() || a.impl()->storage() != b.impl()->storage()) return false;
  if (a.sym_numel() == 0 || b.sym_numel() == 0) return false;
  auto span = [](const Tensor& t) {
    int64_t lo = t.storage_offset(), hi = t.storage_offset();
    for (int64_t d = 0; d < t.dim(); ++d) {
      int64_t ext = (t.sizes()[d] - 1) * t.strides()[d];
      (ext < 0 ? lo : hi) += ext;
    }
    return std::pair<int64_t, int64_t>{lo * t.element_size(), (hi + 1) * t.element_size()};
  };
  auto [alo, ahi] = span(a);
  auto [blo, bhi] = span(b);
  return alo < bhi && blo < ahi;
}

}  // namespace ember::ops
