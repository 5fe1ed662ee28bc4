#include "ember/core/tensor_impl.h"

#include <limits>

namespace ember {

bool& detail::inference_mode_tls() {
  thread_local bool enabled = false;
  return enabled;
}

void TensorImpl::set_data(const TensorImpl& other) {
  if (version_.get() == &storage_->version_counter()) {
    // The counter lives in the old storage: keep its value without keeping that memory alive.
    auto own = std::make_shared<VersionCounter>();
    own->version.store(version(), std::memory_order_relaxed);
    version_ = std::move(own);
  }
  storage_ = other.storage_;
  dtype_ = other.dtype_;
  device_ = other.device_;
  if (other.sym_) {
    set_sym_geometry(other.sym_->sizes, other.sym_->strides, other.sym_->storage_offset);
  } else {
    set_geometry(other.sizes_, other.strides_, other.storage_offset_);
  }
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, std::vector<int64_t> sizes,
                       std::vector<int64_t> strides, int64_t storage_offset)
    : storage_(std::move(storage)),
      dtype_(dtype),
      device_(storage_->device()),
      storage_offset_(storage_offset),
      inference_(detail::inference_mode_tls()),
      version_(storage_, &storage_->version_counter()) {
  set_geometry(std::move(sizes), std::move(strides), storage_offset);
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, std::span<const SymInt> sizes,
                       std::span<const SymInt> strides, const SymInt& storage_offset)
    : storage_(std::move(storage)),
      dtype_(dtype),
      device_(storage_->device()),
      storage_offset_(0),
      inference_(detail::inference_mode_tls()),
      version_(storage_, &storage_->version_counter()) {
  set_sym_geometry(sizes, strides, storage_offset);
}

void TensorImpl::set_geometry(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                              int64_t offset) {
  EMBER_INTERNAL_ASSERT(sizes.size() == strides.size(), "sizes and strides differ in length");
  sizes_ = std::move(sizes);
  strides_ = std::move(strides);
  storage_offset_ = offset;
  sym_.reset();
  refresh();
}

void TensorImpl::set_sym_geometry(std::span<const SymInt> sizes, std::span<const SymInt> strides,
                                  const SymInt& offset) {
  EMBER_INTERNAL_ASSERT(sizes.size() == strides.size(), "sizes and strides differ in length");
  auto hints = [](std::span<const SymInt> v) {
    std::vector<int64_t> r(v.size());
    for (size_t i = 0; i < v.size(); ++i) r[i] = v[i].hint();
    return r;
  };
  bool symbolic = offset.is_symbolic();
  for (const SymInt& s : sizes) symbolic = symbolic || s.is_symbolic();
  for (const SymInt& s : strides) symbolic = symbolic || s.is_symbolic();
  set_geometry(hints(sizes), hints(strides), offset.hint());
  if (!symbolic) return;
  EMBER_CHECK(device_.is_meta(), "[tensor] a tensor with symbolic sizes holds no data, so it must ",
              "be on the meta device, got ", device_.str());
  sym_ = std::make_unique<SymGeometry>();
  sym_->sizes.assign(sizes.begin(), sizes.end());
  sym_->strides.assign(strides.begin(), strides.end());
  sym_->storage_offset = offset;
  SymInt numel = 1;
  for (const SymInt& s : sizes) numel = numel * s;
  sym_->numel = std::move(numel);
  // Contiguity from the expressions themselves (canonical, so equal expressions compare equal
  // without a guard): a dim of size 1 does not count, every other stride is the product of the
  // sizes after it.
  is_contiguous_ = true;
  SymInt expected = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d].same_as(1)) continue;
    if (!strides[d].same_as(expected)) {
      is_contiguous_ = false;
      return;
    }
    expected = expected * sizes[d];
  }
}

void TensorImpl::specialize() const {
  for (const SymInt& s : sym_->sizes) (void)s.guard_int("Tensor.sizes()");
  for (const SymInt& s : sym_->strides) (void)s.guard_int("Tensor.strides()");
  (void)sym_->storage_offset.guard_int("Tensor.storage_offset()");
}

std::vector<SymInt> TensorImpl::sym_sizes() const {
  if (sym_) return sym_->sizes;
  return {sizes_.begin(), sizes_.end()};
}

std::vector<SymInt> TensorImpl::sym_strides() const {
  if (sym_) return sym_->strides;
  return {strides_.begin(), strides_.end()};
}

void TensorImpl::refresh() {
  numel_ = checked_numel(sizes_, "tensor");  // ops check first, naming themselves
  is_contiguous_ = true;
  if (numel_ == 0) return;
  int64_t expected = 1;
  for (int64_t d = dim() - 1; d >= 0; --d) {
    if (sizes_[d] == 1) continue;
    if (strides_[d] != expected) {
      is_contiguous_ = false;
      return;
    }
    expected *= sizes_[d];
  }
}

namespace {
// "[2, 3]"
std::string list_str(const std::vector<int64_t>& v) {
  std::string r = "[";
  for (size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
  return r + "]";
}
}  // namespace

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> st(sizes.size());
  int64_t acc = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    st[d] = acc;
    // Checked: with a size-0 dim the product of the others may exceed int64 while numel is 0.
    if (d > 0 && __builtin_mul_overflow(acc, std::max<int64_t>(sizes[d], 1), &acc)) {
      EMBER_THROW(RuntimeError, "[contiguous_strides] the strides of sizes ", list_str(sizes),
                  " overflow int64");
    }
  }
  return st;
}

int64_t checked_numel(const std::vector<int64_t>& sizes, const char* op) {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) {
    if (s < 0) {
      EMBER_THROW(RuntimeError, "[", op, "] Trying to create tensor with negative dimension ", s,
                  ": ", list_str(sizes));
    }
    overflow = overflow || __builtin_mul_overflow(n, s, &n);
  }
  EMBER_CHECK(!overflow, "[", op, "] numel of the requested size overflows int64");
  return n;
}

size_t strided_nbytes(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                      ScalarType dtype, const char* op) {
  EMBER_CHECK(sizes.size() == strides.size(), "[", op,
              "] mismatch in length of strides and shape (got sizes ", list_str(sizes),
              " and strides ", list_str(strides), ")");
  const int64_t numel = checked_numel(sizes, op);
  for (int64_t s : strides) {
    EMBER_CHECK(
        s >= 0, "[", op,
        "] Negative strides are not supported at the moment, got strides: ", list_str(strides));
  }
  if (numel == 0) return 0;
  int64_t last = 0;  // offset of the last element
  bool overflow = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    int64_t span = 0;
    overflow = overflow || __builtin_mul_overflow(sizes[d] - 1, strides[d], &span) ||
               __builtin_add_overflow(last, span, &last);
  }
  int64_t nbytes = 0;
  overflow = overflow || __builtin_mul_overflow(last + 1, element_size(dtype), &nbytes);
  EMBER_CHECK(!overflow, "[", op, "] the requested storage size overflows int64");
  return static_cast<size_t>(nbytes);
}

}  // namespace ember
