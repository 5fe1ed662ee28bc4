#pragma once
// IValue: a dynamically typed value (None, bool, int, float, str, bytes, Tensor, and shared
// tuples, lists and dicts of them), libtorch's c10::IValue. What the restricted unpickler
// produces (ember/serialize/pickle.h) and what custom autograd functions keep in
// ctx->saved_data (ember/autograd/function.h).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "ember/core/ordered_dict.h"
#include "ember/core/tensor.h"

namespace ember {

namespace detail {
struct PickleObject;  // a storage or an allowed global while unpickling; never in a result
struct PickleSeq;
struct PickleDict;
struct IValueAccess;
}  // namespace detail

/// A value read from a pickle (and what custom autograd functions keep in ctx->saved_data), with
/// libtorch's IValue accessors. Containers are shared (copying an
/// IValue copies a handle, as in Python) and read-only.
class IValue {
 public:
  enum class Kind { None, Bool, Int, Double, String, Bytes, Tensor, Tuple, List, Dict, Object };
  using Items = std::vector<std::pair<IValue, IValue>>;

  IValue() = default;                               // None
  IValue(bool v) : kind_(Kind::Bool), value_(v) {}  // NOLINT: implicit as in libtorch
  template <typename I,
            std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  IValue(I v) : kind_(Kind::Int), value_(static_cast<int64_t>(v)) {}  // NOLINT
  IValue(double v) : kind_(Kind::Double), value_(v) {}                // NOLINT
  IValue(float v) : IValue(static_cast<double>(v)) {}                 // NOLINT
  /// A list of ints (libtorch's int list; read back with toIntVector).
  IValue(const std::vector<int64_t>& v);                                // NOLINT
  IValue(std::string v) : kind_(Kind::String), value_(std::move(v)) {}  // NOLINT
  IValue(const char* v) : IValue(std::string(v)) {}                     // NOLINT
  IValue(Tensor v) : kind_(Kind::Tensor), value_(std::move(v)) {}       // NOLINT
  static IValue bytes(std::string v);
  static IValue tuple(std::vector<IValue> elements);
  static IValue list(std::vector<IValue> elements);
  /// A dict; `ordered` marks a collections.OrderedDict (both keep insertion order).
  static IValue dict(Items items, bool ordered = false);

  Kind kind() const { return kind_; }
  /// Python's name of the type: "NoneType", "int", "Tensor", "OrderedDict", ...
  std::string type_name() const;

  bool isNone() const { return kind_ == Kind::None; }
  bool isBool() const { return kind_ == Kind::Bool; }
  bool isInt() const { return kind_ == Kind::Int; }
  bool isDouble() const { return kind_ == Kind::Double; }
  bool isString() const { return kind_ == Kind::String; }
  bool isBytes() const { return kind_ == Kind::Bytes; }
  bool isTensor() const { return kind_ == Kind::Tensor; }
  bool isTuple() const { return kind_ == Kind::Tuple; }
  bool isList() const { return kind_ == Kind::List; }
  bool isGenericDict() const { return kind_ == Kind::Dict; }
  bool isOrderedDict() const;

  // Accessors raise TypeError naming the actual type when the kind differs.
  bool toBool() const;
  int64_t toInt() const;
  /// A float (an int converts, as in Python arithmetic).
  double toDouble() const;
  const std::string& toStringRef() const;
  const std::string& toBytesRef() const;
  const Tensor& toTensor() const;
  const std::vector<IValue>& toTuple() const;
  const std::vector<IValue>& toList() const;
  /// A list whose elements are all ints, as a vector (TypeError otherwise).
  bool isIntList() const;
  std::vector<int64_t> toIntVector() const;
  /// The dict's (key, value) pairs in insertion order.
  const Items& toGenericDict() const;

  /// The value under a string key of a dict; IndexError naming the key when absent.
  const IValue& at(std::string_view key) const;
  bool contains(std::string_view key) const;
  /// A dict of str -> Tensor as a StateDict (what Module::load_state_dict takes); ValueError
  /// naming the first key whose value is not a tensor.
  OrderedDict<std::string, Tensor> to_state_dict() const;

 private:
  friend struct detail::IValueAccess;
  using Payload =
      std::variant<std::monostate, bool, int64_t, double, std::string, Tensor,
                   std::shared_ptr<detail::PickleSeq>, std::shared_ptr<detail::PickleDict>,
                   std::shared_ptr<const detail::PickleObject>>;
  IValue(Kind kind, Payload value) : kind_(kind), value_(std::move(value)) {}
  [[noreturn]] void wrong_kind(const char* wanted) const;

  Kind kind_ = Kind::None;
  Payload value_;
};

}  // namespace ember
