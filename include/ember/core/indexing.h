#pragma once
// Tensor indexing with libtorch's spelling: x.index({Slice(0, 2), None, Ellipsis, 1, mask}).
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>

#include "ember/core/symint.h"

namespace ember {
class Tensor;
namespace indexing {

constexpr int64_t INDEX_MAX = std::numeric_limits<int64_t>::max();
constexpr int64_t INDEX_MIN = std::numeric_limits<int64_t>::min();

struct EllipsisIndexType {};
constexpr EllipsisIndexType Ellipsis{};
constexpr std::nullopt_t None = std::nullopt;

/// Python's start:stop:step. Missing bounds are std::nullopt (None).
class Slice {
 public:
  Slice(std::optional<SymInt> start = std::nullopt, std::optional<SymInt> stop = std::nullopt,
        std::optional<SymInt> step = std::nullopt);
  int64_t start() const { return start_; }
  int64_t stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  int64_t start_, stop_, step_;
};

/// One entry of an index list: an integer, a Slice, None, Ellipsis, a bool, or a Tensor
/// (integer indices or a bool mask).
class TensorIndex {
 public:
  enum class Kind { None, Ellipsis, Integer, Boolean, Slice, Tensor };
  TensorIndex(std::nullopt_t) : kind_(Kind::None) {}                // NOLINT
  TensorIndex(EllipsisIndexType) : kind_(Kind::Ellipsis) {}         // NOLINT
  TensorIndex(const char* s);                                       // NOLINT: "..."
  TensorIndex(int64_t i) : kind_(Kind::Integer), integer_(i) {}     // NOLINT
  TensorIndex(int i) : kind_(Kind::Integer), integer_(i) {}         // NOLINT
  TensorIndex(bool b) : kind_(Kind::Boolean), boolean_(b) {}        // NOLINT
  TensorIndex(Slice s) : kind_(Kind::Slice), slice_(s) {}           // NOLINT
  TensorIndex(const Tensor& t);                                     // NOLINT

  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return *tensor_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  std::shared_ptr<Tensor> tensor_;
};

}  // namespace indexing
using indexing::Ellipsis;
using indexing::None;
using indexing::Slice;
using indexing::TensorIndex;
}  // namespace ember
