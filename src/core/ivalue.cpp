// IValue (ember/core/ivalue.h).
#include <algorithm>
#include <string>

#include "core/ivalue_internal.h"
#include "ember/core/error.h"

namespace ember {

using detail::IValueAccess;
using detail::PickleDict;
using detail::PickleSeq;

IValue::IValue(const std::vector<int64_t>& v) {
  std::vector<IValue> items(v.begin(), v.end());
  *this = list(std::move(items));
}

bool IValue::isIntList() const {
  if (kind_ != Kind::List) return false;
  for (const auto& e : toList()) {
    if (!e.isInt()) return false;
  }
  return true;
}

std::vector<int64_t> IValue::toIntVector() const {
  if (!isIntList()) wrong_kind("a list of ints");
  std::vector<int64_t> out;
  for (const auto& e : toList()) out.push_back(e.toInt());
  return out;
}

IValue IValue::bytes(std::string v) { return IValue(Kind::Bytes, std::move(v)); }

int detail::adopt_pickle_child(const IValue& child) {
  if (auto* seq = IValueAccess::seq(child)) {
    seq->frozen = true;
    return seq->depth;
  }
  if (auto* d = IValueAccess::dict(child)) {
    d->frozen = true;
    return d->depth;
  }
  return 0;
}

namespace {
IValue make_seq(IValue::Kind kind, std::vector<IValue> elements) {
  auto seq = std::make_shared<PickleSeq>();
  for (const auto& e : elements)
    seq->depth = std::max(seq->depth, detail::adopt_pickle_child(e) + 1);
  seq->items = std::move(elements);
  return IValueAccess::make(kind, std::move(seq));
}
}  // namespace

IValue IValue::tuple(std::vector<IValue> elements) {
  return make_seq(Kind::Tuple, std::move(elements));
}
IValue IValue::list(std::vector<IValue> elements) {
  return make_seq(Kind::List, std::move(elements));
}

IValue IValue::dict(Items items, bool ordered) {
  auto d = std::make_shared<PickleDict>();
  d->ordered = ordered;
  for (auto& [k, v] : items) {
    d->depth = std::max(d->depth, detail::adopt_pickle_child(v) + 1);
    d->set(std::move(k), std::move(v));
  }
  return IValueAccess::make(Kind::Dict, std::move(d));
}

void detail::PickleDict::set(IValue key, IValue value) {
  const std::string canonical = pickle_dict_key(key);
  if (!canonical.empty()) {
    auto [it, fresh] = index.emplace(canonical, items.size());
    if (!fresh) {  // Python: a repeated key keeps its place and takes the new value
      items[it->second].second = std::move(value);
      return;
    }
  }
  items.emplace_back(std::move(key), std::move(value));
}

std::string detail::pickle_dict_key(const IValue& key) {
  switch (key.kind()) {
    case IValue::Kind::String:
      return "s:" + key.toStringRef();
    case IValue::Kind::Bytes:
      return "b:" + key.toBytesRef();
    case IValue::Kind::Int:
      return "i:" + std::to_string(key.toInt());
    case IValue::Kind::Bool:  // Python: True == 1
      return "i:" + std::to_string(key.toBool() ? 1 : 0);
    case IValue::Kind::None:
      return "n:";
    default:
      return "";
  }
}

std::string IValue::type_name() const {
  switch (kind_) {
    case Kind::None:
      return "NoneType";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "int";
    case Kind::Double:
      return "float";
    case Kind::String:
      return "str";
    case Kind::Bytes:
      return "bytes";
    case Kind::Tensor:
      return "Tensor";
    case Kind::Tuple:
      return "tuple";
    case Kind::List:
      return "list";
    case Kind::Dict:
      return isOrderedDict() ? "OrderedDict" : "dict";
    case Kind::Object:
      return IValueAccess::object(*this)->name;
  }
  return "?";
}

void IValue::wrong_kind(const char* wanted) const {
  EMBER_THROW(TypeError, "[IValue] expected ", wanted, " but got ", type_name());
}

bool IValue::isOrderedDict() const {
  auto* d = IValueAccess::dict(*this);
  return d != nullptr && d->ordered;
}

bool IValue::toBool() const {
  if (kind_ != Kind::Bool) wrong_kind("bool");
  return std::get<bool>(value_);
}
int64_t IValue::toInt() const {
  if (kind_ != Kind::Int) wrong_kind("int");
  return std::get<int64_t>(value_);
}
double IValue::toDouble() const {
  if (kind_ == Kind::Int) return static_cast<double>(std::get<int64_t>(value_));
  if (kind_ != Kind::Double) wrong_kind("float");
  return std::get<double>(value_);
}
const std::string& IValue::toStringRef() const {
  if (kind_ != Kind::String) wrong_kind("str");
  return std::get<std::string>(value_);
}
const std::string& IValue::toBytesRef() const {
  if (kind_ != Kind::Bytes) wrong_kind("bytes");
  return std::get<std::string>(value_);
}
const Tensor& IValue::toTensor() const {
  if (kind_ != Kind::Tensor) wrong_kind("Tensor");
  return std::get<Tensor>(value_);
}
const std::vector<IValue>& IValue::toTuple() const {
  if (kind_ != Kind::Tuple) wrong_kind("tuple");
  return IValueAccess::seq(*this)->items;
}
const std::vector<IValue>& IValue::toList() const {
  if (kind_ != Kind::List) wrong_kind("list");
  return IValueAccess::seq(*this)->items;
}
const IValue::Items& IValue::toGenericDict() const {
  if (kind_ != Kind::Dict) wrong_kind("dict");
  return IValueAccess::dict(*this)->items;
}

bool IValue::contains(std::string_view key) const {
  (void)toGenericDict();  // TypeError unless a dict
  return IValueAccess::dict(*this)->index.count("s:" + std::string(key)) != 0;
}

const IValue& IValue::at(std::string_view key) const {
  const auto& items = toGenericDict();
  const auto& index = IValueAccess::dict(*this)->index;
  auto it = index.find("s:" + std::string(key));
  EMBER_CHECK_INDEX(it != index.end(), "[IValue] the ", type_name(), " has no key '", key, "'");
  return items[it->second].second;
}

OrderedDict<std::string, Tensor> IValue::to_state_dict() const {
  if (kind_ != Kind::Dict) {
    EMBER_THROW(ValueError, "[to_state_dict] expected a dict of str to Tensor, got ", type_name());
  }
  OrderedDict<std::string, Tensor> out;
  for (const auto& [k, v] : toGenericDict()) {
    EMBER_CHECK_VALUE(k.isString(),
                      "[to_state_dict] expected a dict of str to Tensor, but a key is ",
                      k.type_name());
    EMBER_CHECK_VALUE(v.isTensor(), "[to_state_dict] expected a dict of str to Tensor, but '",
                      k.toStringRef(), "' holds ", v.type_name(),
                      " (walk the value with ember::pickle_load_file instead)");
    out.insert(k.toStringRef(), v.toTensor());
  }
  return out;
}

}  // namespace ember
