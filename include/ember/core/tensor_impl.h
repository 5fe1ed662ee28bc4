#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/core/storage.h"
#include "ember/core/symint.h"

namespace ember {

/// Autograd's per-tensor state; defined by the autograd layer.
struct AutogradMeta;

namespace detail {
/// Whether an InferenceMode guard is active on this thread (ember/autograd.h sets it).
bool& inference_mode_tls();
}  // namespace detail

/// Note [Symbolic tensors]: the geometry of a tensor traced with dynamic shapes, as SymInt
/// expressions. Only meta tensors (no storage to address) have one.
struct SymGeometry {
  std::vector<SymInt> sizes, strides;
  SymInt storage_offset, numel;
};

/// Note [Version counters]: a tensor starts with its storage's counter (an aliasing shared_ptr
/// into the StorageImpl: no allocation per tensor), so every tensor on one storage sees the
/// writes of every other, as views must. Autograd's aliases and views share their source's
/// counter explicitly (share_version_counter); set_data, which moves a tensor to another
/// storage, gives it a counter of its own that keeps the value it had.
///
/// The strided view of a Storage that a Tensor handle points to. Sizes and strides are in
/// elements; storage_offset too.
///
/// Sizes and strides are SymInts (Note [SymInt]) with a fast path: a concrete geometry, every
/// eager tensor's, is stored as plain integers; a symbolic one (Note [Symbolic tensors]) is kept
/// beside them, which then hold the values for the traced example inputs. Asking a symbolic
/// tensor for a concrete size (sizes(), numel(), ...) is a guard on each symbolic entry
/// (SymInt::guard_int): the tracer records it or raises for a declared-dynamic dim, so code
/// that handles dynamic shapes reads sym_geometry().
class TensorImpl {
 public:
  /// The tensor is on its storage's device.
  TensorImpl(Storage storage, ScalarType dtype, std::vector<int64_t> sizes,
             std::vector<int64_t> strides, int64_t storage_offset);
  /// A geometry that may be symbolic (then the storage must be on the meta device).
  TensorImpl(Storage storage, ScalarType dtype, std::span<const SymInt> sizes,
             std::span<const SymInt> strides, const SymInt& storage_offset);

  const std::vector<int64_t>& sizes() const {
    if (sym_) [[unlikely]]
      specialize();
    return sizes_;
  }
  const std::vector<int64_t>& strides() const {
    if (sym_) [[unlikely]]
      specialize();
    return strides_;
  }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const {
    if (sym_) [[unlikely]]
      specialize();
    return numel_;
  }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return device_; }
  int64_t storage_offset() const {
    if (sym_) [[unlikely]]
      specialize();
    return storage_offset_;
  }
  /// The symbolic geometry; null for a concrete tensor (every eager one).
  const SymGeometry* sym_geometry() const { return sym_.get(); }
  bool is_symbolic() const { return sym_ != nullptr; }
  const Storage& storage() const { return storage_; }
  bool is_contiguous() const { return is_contiguous_; }
  /// Address of the first element. A tensor without elements gets its storage's start (its
  /// offset may lie anywhere, as PyTorch allows, and is never read); a meta tensor null.
  void* data() const {
    char* base = static_cast<char*>(storage_->data());
    return base && numel_ > 0 ? base + storage_offset_ * element_size(dtype_) : base;
  }
  /// The geometry as given, symbolic or not, without guards.
  std::vector<SymInt> sym_sizes() const;
  std::vector<SymInt> sym_strides() const;
  SymInt sym_numel() const { return sym_ ? sym_->numel : SymInt(numel_); }
  SymInt sym_storage_offset() const { return sym_ ? sym_->storage_offset : SymInt(storage_offset_); }

  /// Makes this impl hold `other`'s storage, dtype, device and geometry, keeping its identity
  /// (and autograd state): Module::to converts parameters this way (PyTorch's set_data).
  void set_data(const TensorImpl& other);
  /// Replaces the geometry (used by resize-like internals and view creation).
  void set_geometry(std::vector<int64_t> sizes, std::vector<int64_t> strides, int64_t offset);
  void set_sym_geometry(std::span<const SymInt> sizes, std::span<const SymInt> strides,
                        const SymInt& offset);

  const std::shared_ptr<VersionCounter>& version_counter() const { return version_; }
  void share_version_counter(std::shared_ptr<VersionCounter> v) { version_ = std::move(v); }
  uint32_t version() const { return version_->version.load(std::memory_order_relaxed); }
  void bump_version() { version_->version.fetch_add(1, std::memory_order_relaxed); }

  /// A C++ number converted to a 0-d tensor for type promotion (PyTorch's "wrapped number").
  bool is_wrapped_number() const { return wrapped_number_; }
  void set_wrapped_number(bool w) { wrapped_number_ = w; }

  /// Created under InferenceMode.
  bool is_inference() const { return inference_; }

  std::shared_ptr<AutogradMeta> autograd_meta;  // null until autograd touches the tensor

 private:
  void refresh();
  void specialize() const;  // guards every symbolic entry (Note [Symbolic tensors])

  Storage storage_;
  ScalarType dtype_;
  Device device_;
  std::vector<int64_t> sizes_, strides_;
  int64_t storage_offset_;
  int64_t numel_ = 1;
  bool is_contiguous_ = true;
  bool wrapped_number_ = false;
  bool inference_ = false;
  std::shared_ptr<VersionCounter> version_;
  std::unique_ptr<SymGeometry> sym_;
};

/// Contiguous (row-major) strides for sizes.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& sizes);
/// Product of sizes, raising RuntimeError naming `op` on negative sizes or int64 overflow.
int64_t checked_numel(const std::vector<int64_t>& sizes, const char* op);
/// Bytes a strided layout spans, (1 + sum (size - 1) * stride) elements (0 when empty), raising
/// RuntimeError naming `op` on mismatched lengths, negative sizes or strides, or int64 overflow.
size_t strided_nbytes(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                      ScalarType dtype, const char* op);

}  // namespace ember
