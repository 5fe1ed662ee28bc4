// What every primitive gets from its params visitor (Note [Primitive params]): equality, hash,
// description and the JSON form, with the visitors that implement them.
#include "dispatch/primitive.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace ember {

using json = nlohmann::json;

void ParamVisitor::sym_list(const char* name, std::vector<SymInt>& v) {
  std::vector<int64_t> ints(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    EMBER_CHECK_NOT_IMPL(!v[i].is_symbolic(), "[params] parameter '", name, "' holds the symbolic ",
                         "size ", v[i].str(), ", which this visitor cannot handle");
    ints[i] = v[i].hint();
  }
  i64_list(name, ints);
  v.assign(ints.begin(), ints.end());
}

namespace detail {
const SymIntReader*& sym_int_reader() {
  thread_local const SymIntReader* reader = nullptr;
  return reader;
}

std::vector<std::string> split_field_names(std::string_view list) {
  std::vector<std::string> names;
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    names.emplace_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return names;
}
}  // namespace detail

namespace {

// The shortest decimal form that reads back as the same double.
std::string double_str(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  for (int precision = 1; precision <= 17; ++precision) {
    std::ostringstream os;
    os.precision(precision);
    os << v;
    if (std::stod(os.str()) == v) return os.str();
  }
  return std::to_string(v);
}

// A canonical byte string: equal params give equal bytes (doubles by bit pattern).
class Encoder final : public ParamVisitor {
 public:
  std::string out;
  template <typename T>
  void put(const T& v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  void i64(const char*, int64_t& v) override { put(v); }
  void u64(const char*, uint64_t& v) override { put(v); }
  void f64(const char*, double& v) override { put(std::bit_cast<uint64_t>(v)); }
  void boolean(const char*, bool& v) override { put(static_cast<char>(v)); }
  void scalar(const char*, Scalar& v) override {
    put(static_cast<int8_t>(v.type()));
    if (v.isFloatingPoint()) {
      put(std::bit_cast<uint64_t>(v.toDouble()));
    } else {
      put(v.toLong());
    }
  }
  void enumeration(const char*, int& v, const EnumInfo&) override { put(v); }
  void text(const char*, std::string& v) override {
    put(v.size());
    out += v;
  }
  void i64_list(const char*, std::vector<int64_t>& v) override {
    put(v.size());
    for (int64_t x : v) put(x);
  }
  void sym_list(const char*, std::vector<SymInt>& v) override {
    put(v.size());
    for (const SymInt& x : v) {
      put(static_cast<char>(x.is_symbolic()));
      if (!x.is_symbolic()) {
        put(x.hint());
        continue;
      }
      const std::string t = x.str();
      put(t.size());
      out += t;
    }
  }
  bool optional(const char*, bool present) override {
    put(static_cast<char>(present));
    return present;
  }
};

// "dim=1, keepdim=True": Python's spelling of the values.
class Describer final : public ParamVisitor {
 public:
  std::string out;
  void add(const char* name, const std::string& value) {
    if (!out.empty()) out += ", ";
    out += name;
    out += '=';
    out += value;
  }
  void i64(const char* n, int64_t& v) override { add(n, std::to_string(v)); }
  void u64(const char* n, uint64_t& v) override { add(n, std::to_string(v)); }
  void f64(const char* n, double& v) override { add(n, double_str(v)); }
  void boolean(const char* n, bool& v) override { add(n, v ? "True" : "False"); }
  void scalar(const char* n, Scalar& v) override {
    if (v.isBoolean()) return add(n, v.toBool() ? "True" : "False");
    add(n, v.isFloatingPoint() ? double_str(v.toDouble()) : std::to_string(v.toLong()));
  }
  void enumeration(const char* n, int& v, const EnumInfo& info) override {
    add(n, v >= 0 && v < info.count ? info.name(v) : std::to_string(v));
  }
  void text(const char* n, std::string& v) override { add(n, "'" + v + "'"); }
  void i64_list(const char* n, std::vector<int64_t>& v) override {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    add(n, s + "]");
  }
  void sym_list(const char* n, std::vector<SymInt>& v) override {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].str();
    add(n, s + "]");
  }
  bool optional(const char* n, bool present) override {
    if (!present) add(n, "None");
    return present;
  }
};

json double_json(double v) { return std::isfinite(v) ? json(v) : json(double_str(v)); }

class JsonWriter final : public ParamVisitor {
 public:
  json out = json::object();
  void i64(const char* n, int64_t& v) override { out[n] = v; }
  void u64(const char* n, uint64_t& v) override { out[n] = v; }
  void f64(const char* n, double& v) override { out[n] = double_json(v); }
  void boolean(const char* n, bool& v) override { out[n] = v; }
  void scalar(const char* n, Scalar& v) override {
    if (v.isBoolean()) {
      out[n] = v.toBool();
    } else if (v.isFloatingPoint()) {
      // A float scalar keeps its type through JSON: non-finite ones as {"float": "inf"}.
      const double d = v.toDouble();
      out[n] = std::isfinite(d) ? json(d) : json{{"float", double_str(d)}};
    } else {
      out[n] = v.toLong();
    }
  }
  void enumeration(const char* n, int& v, const EnumInfo& info) override { out[n] = info.name(v); }
  void text(const char* n, std::string& v) override { out[n] = v; }
  void i64_list(const char* n, std::vector<int64_t>& v) override { out[n] = v; }
  void sym_list(const char* n, std::vector<SymInt>& v) override {  // expressions as text
    json a = json::array();
    for (const SymInt& x : v) a.push_back(x.is_symbolic() ? json(x.str()) : json(x.hint()));
    out[n] = std::move(a);
  }
  bool optional(const char* n, bool present) override {
    if (!present) out[n] = nullptr;
    return present;
  }
};

[[noreturn]] void bad_json(const std::string& what) {
  EMBER_THROW(ValueError, "[primitive_from_json] ", what);
}

[[noreturn]] void bad_param(const char* name, const std::string& what) {
  bad_json(std::string("parameter '") + name + "' " + what);
}

double parse_double(const json& j, const char* n) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "nan") return std::nan("");
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
  }
  bad_param(n, "expected a number, got " + j.dump());
}

// An integer that fits int64 (nlohmann reads large positive numbers as unsigned).
bool is_int64(const json& j) {
  return j.is_number_integer() && !(j.is_number_unsigned() && j.get<uint64_t>() > INT64_MAX);
}

class JsonReader final : public ParamVisitor {
 public:
  explicit JsonReader(const json& in) : in_(in) {}
  void i64(const char* n, int64_t& v) override {
    const json& j = at(n);
    if (!is_int64(j)) bad_param(n, "expected an int64, got " + j.dump());
    v = j.get<int64_t>();
  }
  void u64(const char* n, uint64_t& v) override {
    const json& j = at(n);
    if (!j.is_number_unsigned()) bad_param(n, "expected a non-negative integer");
    v = j.get<uint64_t>();
  }
  void f64(const char* n, double& v) override { v = parse_double(at(n), n); }
  void boolean(const char* n, bool& v) override {
    const json& j = at(n);
    if (!j.is_boolean()) bad_param(n, "expected a boolean");
    v = j.get<bool>();
  }
  void scalar(const char* n, Scalar& v) override {
    const json& j = at(n);
    if (j.is_boolean()) {
      v = Scalar(j.get<bool>());
    } else if (is_int64(j)) {
      v = Scalar(j.get<int64_t>());
    } else if (j.is_number_float()) {
      v = Scalar(j.get<double>());
    } else if (j.is_object() && j.size() == 1 && j.contains("float")) {
      v = Scalar(parse_double(j["float"], n));
    } else {
      bad_param(n, "expected a number or boolean, got " + j.dump());
    }
  }
  void enumeration(const char* n, int& v, const EnumInfo& info) override {
    const json& j = at(n);
    for (int i = 0; j.is_string() && i < info.count; ++i) {
      if (j.get_ref<const std::string&>() == info.name(i)) {
        v = i;
        return;
      }
    }
    bad_param(n, "has no value " + j.dump());
  }
  void text(const char* n, std::string& v) override {
    const json& j = at(n);
    if (!j.is_string()) bad_param(n, "expected a string");
    v = j.get<std::string>();
  }
  void i64_list(const char* n, std::vector<int64_t>& v) override {
    const json& j = at(n);
    if (!j.is_array()) bad_param(n, "expected a list");
    v.clear();
    for (const json& e : j) {
      if (!is_int64(e)) bad_param(n, "expected a list of int64");
      v.push_back(e.get<int64_t>());
    }
  }
  void sym_list(const char* n, std::vector<SymInt>& v) override {
    const json& j = at(n);
    if (!j.is_array()) bad_param(n, "expected a list");
    v.clear();
    for (const json& e : j) {
      if (is_int64(e)) {
        v.emplace_back(e.get<int64_t>());
      } else if (e.is_string() && detail::sym_int_reader()) {
        v.push_back((*detail::sym_int_reader())(e.get<std::string>()));
      } else {
        bad_param(n, "expected a list of int64 (or of size expressions, in a graph with symbols)");
      }
    }
  }
  bool optional(const char* n, bool) override {
    if (!find(n).is_null()) return true;  // the value's own visit counts it
    ++seen_;
    return false;
  }
  size_t seen() const { return seen_; }

 private:
  const json& find(const char* n) {
    auto it = in_.find(n);
    if (it == in_.end()) bad_json(std::string("missing parameter '") + n + "'");
    return *it;
  }
  const json& at(const char* n) {
    ++seen_;
    return find(n);
  }

  const json& in_;
  size_t seen_ = 0;
};

std::string encode(const Primitive& p) {
  Encoder e;
  p.visit_params(e);
  return e.out;
}

// Display names read from JSON live as long as the process (primitives hold const char*).
const char* intern(const std::string& s) {
  static std::mutex mu;
  static auto* names = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(mu);
  return names->insert(s).first->c_str();
}

}  // namespace

const char* primitive_kind_name(PrimitiveKind kind) {
  switch (kind) {
#define EMBER_KIND_NAME(Name) \
  case PrimitiveKind::Name:   \
    return #Name;
    EMBER_PRIMITIVE_KINDS(EMBER_KIND_NAME)
#undef EMBER_KIND_NAME
  }
  return "?";
}

const std::vector<PrimitiveKind>& all_primitive_kinds() {
  static const std::vector<PrimitiveKind> kinds = {
#define EMBER_KIND_LIST(Name) PrimitiveKind::Name,
      EMBER_PRIMITIVE_KINDS(EMBER_KIND_LIST)
#undef EMBER_KIND_LIST
  };
  return kinds;
}

bool TensorMeta::operator==(const TensorMeta& o) const {
  return same_as(sizes, o.sizes) && same_as(strides, o.strides) && dtype == o.dtype &&
         device == o.device;
}

std::string TensorMeta::str() const {
  std::ostringstream os;
  auto list = [&](const SymShape& v) {
    os << "[";
    for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
    os << "]";
  };
  os << dtype_name(dtype);
  list(sizes);
  os << " strides ";
  list(strides);
  os << " on " << device;
  return os.str();
}

MetaList Primitive::infer(std::span<const TensorMeta>) const {
  EMBER_THROW(NotImplementedError, "[", name(), "] has no shape inference yet");
}

std::vector<Tensor> Primitive::decompose(const std::vector<Tensor>&) const {
  EMBER_THROW(NotImplementedError, "[", name(), "] has no decomposition: it is a core primitive");
}

bool Primitive::equals(const Primitive& other) const {
  return kind() == other.kind() && inplace_ == other.inplace_ && encode(*this) == encode(other);
}

size_t Primitive::hash() const {
  return (std::hash<std::string>()(encode(*this)) * 31 + static_cast<size_t>(kind())) * 2 +
         (inplace_ ? 1 : 0);
}

std::string Primitive::describe() const {
  Describer d;
  visit_params(d);
  return d.out;
}

std::string Primitive::to_json() const {
  JsonWriter w;
  visit_params(w);
  json j = {{"kind", primitive_kind_name(kind())}, {"params", std::move(w.out)}};
  if (display_name_) j["name"] = display_name_;
  if (inplace_) j["inplace"] = true;
  return j.dump();
}

std::shared_ptr<Primitive> primitive_from_json(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) bad_json("not valid JSON");
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string() || !j.contains("params") ||
      !j["params"].is_object()) {
    bad_json("expected {\"kind\": <string>, \"params\": {...}}, got " + j.dump().substr(0, 200));
  }
  for (const auto& [key, value] : j.items()) {
    if (key != "kind" && key != "params" && key != "name" && key != "inplace") {
      bad_json("unexpected key '" + key + "'");
    }
  }
  const std::string& kind = j["kind"].get_ref<const std::string&>();
  std::shared_ptr<Primitive> prim;
  for (PrimitiveKind k : all_primitive_kinds()) {
    if (kind == primitive_kind_name(k)) prim = make_primitive(k);
  }
  if (!prim) bad_json("unknown primitive kind '" + kind + "'");
  JsonReader reader(j["params"]);
  prim->visit_params(reader);
  if (reader.seen() != j["params"].size()) {
    bad_json("unexpected parameters for " + kind + ": " + j["params"].dump().substr(0, 200));
  }
  if (j.contains("name")) {
    if (!j["name"].is_string()) bad_json("'name' expected a string");
    prim->set_display_name(intern(j["name"].get<std::string>()));
  }
  if (j.contains("inplace")) {
    if (!j["inplace"].is_boolean()) bad_json("'inplace' expected a boolean");
    prim->set_inplace(j["inplace"].get<bool>());
  }
  return prim;
}

}  // namespace ember
