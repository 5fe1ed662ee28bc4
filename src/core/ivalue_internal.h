#pragma once
// IValue's shared containers and the opaque objects (storages, allowed globals) that exist only
// while a pickle is being read (src/serialize). Private to src/core and src/serialize.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/core/ivalue.h"
#include "ember/core/storage.h"

namespace ember::detail {

/// Containers may nest this deep; deeper pickles are rejected (values are destroyed recursively).
constexpr int kMaxPickleDepth = 1000;

/// A tuple or a list. A container is frozen once it sits inside another one: later mutation (only
/// possible through the memo, for self-referencing objects) is rejected, which rules out cycles and
/// keeps `depth` exact.
struct PickleSeq {
  std::vector<IValue> items;
  bool frozen = false;
  bool holds_object = false;  // a tuple holding a storage or global (arguments to a call)
  int depth = 1;
};

struct PickleDict {
  IValue::Items items;
  std::unordered_map<std::string, size_t> index;  // canonical key -> position, for overwriting
  bool ordered = false;
  bool frozen = false;
  int depth = 1;
  /// d[key] = value, keeping insertion order (a repeated key keeps its place, as in Python).
  void set(IValue key, IValue value);
};

/// The globals the restricted unpickler resolves (everything else is rejected by name).
enum class PickleGlobal {
  Storage,           // torch.FloatStorage and the other typed storages, torch.UntypedStorage
  RebuildTensorV2,   // torch._utils._rebuild_tensor_v2
  RebuildParameter,  // torch._utils._rebuild_parameter
  RebuildParameterWithState,  // torch._utils._rebuild_parameter_with_state
  RebuildFromTypeV2,          // torch._tensor._rebuild_from_type_v2
  TensorType,                 // torch.Tensor / torch.nn.parameter.Parameter as a type argument
  OrderedDict,                // collections.OrderedDict
  Size,                       // torch.Size
  Set,                        // builtins.set / frozenset
  CodecsEncode,               // _codecs.encode (protocol 2's spelling of bytes)
};

/// A storage (`storage` set) or an allowed global.
struct PickleObject {
  std::string name;  // "torch.FloatStorage", "storage 0", ...
  PickleGlobal global = PickleGlobal::Storage;
  ScalarType dtype = kUInt8;  // storage globals and storages
  Storage storage;            // storages only
  uint64_t numel = 0;         // storages only: elements of dtype
};

struct IValueAccess {
  static IValue make(IValue::Kind kind, IValue::Payload payload) {
    return IValue(kind, std::move(payload));
  }
  static const IValue::Payload& payload(const IValue& v) { return v.value_; }
  static PickleSeq* seq(const IValue& v) {
    auto* p = std::get_if<std::shared_ptr<PickleSeq>>(&v.value_);
    return p ? p->get() : nullptr;
  }
  static PickleDict* dict(const IValue& v) {
    auto* p = std::get_if<std::shared_ptr<PickleDict>>(&v.value_);
    return p ? p->get() : nullptr;
  }
  static const PickleObject* object(const IValue& v) {
    auto* p = std::get_if<std::shared_ptr<const PickleObject>>(&v.value_);
    return p ? p->get() : nullptr;
  }
};

/// Freezes `child` (a container placed inside another) and returns its depth (0 for a scalar).
int adopt_pickle_child(const IValue& child);

/// The canonical form of a dict key for the index ("s:name", "i:3", ...); empty for keys that
/// are not indexed (tuples: such dicts simply keep every insertion).
std::string pickle_dict_key(const IValue& key);

}  // namespace ember::detail
