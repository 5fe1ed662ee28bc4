// The restricted unpickler: pickle protocols 2 to 5 as torch.save writes them. It interprets the
// opcodes with a stack, a mark stack and a memo, like Python's pickle.Unpickler, but resolves only
// the globals a checkpoint needs and applies them itself: no code from the file ever runs.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor_impl.h"
#include "serialize/pickle_internal.h"

namespace ember::detail {
namespace {

using Kind = IValue::Kind;

struct AllowedGlobal {
  const char* module;
  const char* name;
  PickleGlobal global;
  ScalarType dtype;
};

// protocol 2 writes builtins as __builtin__ (Python 2's name); both are accepted.
const AllowedGlobal kAllowed[] = {
    {"torch", "FloatStorage", PickleGlobal::Storage, kFloat32},
    {"torch", "DoubleStorage", PickleGlobal::Storage, kFloat64},
    {"torch", "HalfStorage", PickleGlobal::Storage, kFloat16},
    {"torch", "BFloat16Storage", PickleGlobal::Storage, kBFloat16},
    {"torch", "LongStorage", PickleGlobal::Storage, kInt64},
    {"torch", "IntStorage", PickleGlobal::Storage, kInt32},
    {"torch", "ShortStorage", PickleGlobal::Storage, kInt16},
    {"torch", "CharStorage", PickleGlobal::Storage, kInt8},
    {"torch", "ByteStorage", PickleGlobal::Storage, kUInt8},
    {"torch", "BoolStorage", PickleGlobal::Storage, kBool},
    {"torch", "UntypedStorage", PickleGlobal::Storage, kUInt8},
    {"torch.storage", "UntypedStorage", PickleGlobal::Storage, kUInt8},
    {"torch._utils", "_rebuild_tensor_v2", PickleGlobal::RebuildTensorV2, kUInt8},
    {"torch._utils", "_rebuild_parameter", PickleGlobal::RebuildParameter, kUInt8},
    {"torch._utils", "_rebuild_parameter_with_state", PickleGlobal::RebuildParameterWithState,
     kUInt8},
    {"torch._tensor", "_rebuild_from_type_v2", PickleGlobal::RebuildFromTypeV2, kUInt8},
    {"torch._tensor", "Tensor", PickleGlobal::TensorType, kUInt8},
    {"torch", "Tensor", PickleGlobal::TensorType, kUInt8},
    {"torch.nn.parameter", "Parameter", PickleGlobal::TensorType, kUInt8},
    {"collections", "OrderedDict", PickleGlobal::OrderedDict, kUInt8},
    {"torch", "Size", PickleGlobal::Size, kUInt8},
    {"builtins", "set", PickleGlobal::Set, kUInt8},
    {"builtins", "frozenset", PickleGlobal::Set, kUInt8},
    {"__builtin__", "set", PickleGlobal::Set, kUInt8},
    {"__builtin__", "frozenset", PickleGlobal::Set, kUInt8},
    {"_codecs", "encode", PickleGlobal::CodecsEncode, kUInt8},
};

// Storage types that exist in PyTorch but have no Ember dtype: a clear NotImplementedError.
const char* const kUnsupportedStorages[] = {"ComplexFloatStorage", "ComplexDoubleStorage",
                                            "QInt8Storage",        "QUInt8Storage",
                                            "QInt32Storage",       "QUInt4x2Storage"};

class Unpickler {
 public:
  Unpickler(std::string_view bytes, const StorageLoader& loader, const std::string& source)
      : p_(reinterpret_cast<const uint8_t*>(bytes.data())),
        begin_(p_),
        end_(p_ + bytes.size()),
        loader_(loader),
        source_(source) {}

  IValue run();

 private:
  template <typename... Args>
  [[noreturn]] void fail(const Args&... args) const {
    EMBER_THROW(ValueError, "[torch.load] ", source_, ": bad pickle at byte ", pos_, ": ", args...);
  }

  // ---- reading the byte stream
  const uint8_t* take(uint64_t n) {
    if (static_cast<uint64_t>(end_ - p_) < n) fail("the data ends early (truncated file?)");
    const uint8_t* at = p_;
    p_ += n;
    return at;
  }
  uint64_t le(int n) {
    const uint8_t* b = take(n);
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | b[i];
    return v;
  }
  std::string str(uint64_t n) {
    const uint8_t* b = take(n);
    return std::string(reinterpret_cast<const char*>(b), n);
  }
  std::string line() {
    const uint8_t* nl = static_cast<const uint8_t*>(std::memchr(p_, '\n', end_ - p_));
    if (nl == nullptr) fail("the data ends inside a text line");
    std::string s(reinterpret_cast<const char*>(p_), nl - p_);
    p_ = nl + 1;
    return s;
  }

  // ---- the stacks
  void push(IValue v) { stack_.push_back(std::move(v)); }
  IValue pop() {
    if (stack_.size() <= base()) fail("stack underflow");
    IValue v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  IValue& top() {
    if (stack_.size() <= base()) fail("stack underflow");
    return stack_.back();
  }
  size_t base() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<IValue> pop_mark() {
    if (marks_.empty()) fail("MARK expected");
    const size_t at = marks_.back();
    marks_.pop_back();
    std::vector<IValue> items(std::make_move_iterator(stack_.begin() + at),
                              std::make_move_iterator(stack_.end()));
    stack_.resize(at);
    return items;
  }
  void put(uint64_t index) { memo_[index] = top(); }
  void get(uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end()) fail("memo key ", index, " was never stored");
    push(it->second);
  }

  // ---- values
  IValue make_tuple(std::vector<IValue> items);
  void append(IValue& list, std::vector<IValue> items);
  void set_items(IValue& dict, std::vector<IValue> items);
  int adopt(const IValue& container, const IValue& child);
  IValue global(const std::string& module, const std::string& name);
  IValue persistent_load(const IValue& pid);
  IValue call(const IValue& callable, const IValue& args);
  IValue rebuild_tensor(const std::vector<IValue>& a);
  IValue long_int(uint64_t n);
  void build(IValue state);
  bool dispatch(uint8_t op);

  const uint8_t* p_;
  const uint8_t* begin_;
  const uint8_t* end_;
  uint64_t pos_ = 0;
  const StorageLoader& loader_;
  const std::string& source_;
  std::vector<IValue> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, IValue> memo_;
};

std::string describe_object(const IValue& v) {
  if (const auto* o = IValueAccess::object(v)) return o->name;
  return v.type_name();
}

// Containers other than argument tuples may not hold storages or globals.
bool holds_object(const IValue& v) {
  if (IValueAccess::object(v) != nullptr) return true;
  const auto* seq = IValueAccess::seq(v);
  return seq != nullptr && seq->holds_object;
}

int Unpickler::adopt(const IValue& container, const IValue& child) {
  if (IValueAccess::seq(container) == IValueAccess::seq(child) &&
      IValueAccess::dict(container) == IValueAccess::dict(child)) {
    fail("a container that holds itself (recursive objects are not supported)");
  }
  const int depth = adopt_pickle_child(child) + 1;
  if (depth > kMaxPickleDepth) fail("containers nest deeper than ", kMaxPickleDepth, " levels");
  return depth;
}

IValue Unpickler::make_tuple(std::vector<IValue> items) {
  auto seq = std::make_shared<PickleSeq>();
  for (const auto& item : items) {
    seq->holds_object = seq->holds_object || holds_object(item);
    const int depth = adopt_pickle_child(item) + 1;
    if (depth > kMaxPickleDepth) fail("containers nest deeper than ", kMaxPickleDepth, " levels");
    seq->depth = std::max(seq->depth, depth);
  }
  seq->items = std::move(items);
  return IValueAccess::make(Kind::Tuple, std::move(seq));
}

void Unpickler::append(IValue& list, std::vector<IValue> items) {
  PickleSeq* seq = IValueAccess::seq(list);
  if (seq == nullptr || list.kind() != Kind::List) {
    fail("APPEND to a ", describe_object(list), " (only lists and sets are supported)");
  }
  if (seq->frozen) fail("a list is modified after being stored in another container");
  for (auto& item : items) {
    if (holds_object(item)) fail("a list holds a bare ", describe_object(item));
    seq->depth = std::max(seq->depth, adopt(list, item));
    seq->items.push_back(std::move(item));
  }
}

void Unpickler::set_items(IValue& target, std::vector<IValue> items) {
  PickleDict* d = IValueAccess::dict(target);
  if (d == nullptr) fail("SETITEM on a ", describe_object(target), " (only dicts are supported)");
  if (d->frozen) fail("a dict is modified after being stored in another container");
  if (items.size() % 2 != 0) fail("SETITEMS with an odd number of items");
  for (size_t i = 0; i < items.size(); i += 2) {
    IValue& k = items[i];
    IValue& v = items[i + 1];
    if (holds_object(k) || holds_object(v)) {
      fail("a dict holds a bare ", describe_object(holds_object(k) ? k : v));
    }
    if (k.isList() || k.isGenericDict()) fail("unhashable dict key of type ", k.type_name());
    d->depth = std::max({d->depth, adopt(target, k), adopt(target, v)});
    d->set(std::move(k), std::move(v));
  }
}

IValue Unpickler::global(const std::string& module, const std::string& name) {
  for (const auto& g : kAllowed) {
    if (module == g.module && name == g.name) {
      auto o = std::make_shared<PickleObject>();
      o->name = module + "." + name;
      o->global = g.global;
      o->dtype = g.dtype;
      return IValueAccess::make(Kind::Object, std::shared_ptr<const PickleObject>(std::move(o)));
    }
  }
  if (module == "torch") {
    for (const char* s : kUnsupportedStorages) {
      if (name == s) {
        EMBER_THROW(NotImplementedError, "[torch.load] ", source_, ": tensors of torch.", name,
                    "'s dtype are not supported by Ember");
      }
    }
  }
  // PyTorch's weights_only unpickler words it the same way.
  EMBER_THROW(ValueError, "[torch.load] ", source_, ": Unsupported global: GLOBAL ", module, ".",
              name,
              " is not an allowed global: Ember's restricted unpickler loads only tensors, "
              "state dicts and plain containers of int, float, bool, str and None");
}

IValue Unpickler::persistent_load(const IValue& pid) {
  // ('storage', storage_type, key, location, numel)
  if (!pid.isTuple() || pid.toTuple().size() != 5) {
    fail("a persistent id must be ('storage', type, key, location, numel), got ",
         describe_object(pid));
  }
  const auto& t = pid.toTuple();
  const auto* type = IValueAccess::object(t[1]);
  if (!t[0].isString() || t[0].toStringRef() != "storage" || type == nullptr ||
      type->global != PickleGlobal::Storage || !t[2].isString() || !t[3].isString() ||
      !t[4].isInt() || t[4].toInt() < 0) {
    fail("a persistent id must be ('storage', type, key, location, numel)");
  }
  auto storage = loader_(type->dtype, t[2].toStringRef(), static_cast<uint64_t>(t[4].toInt()));
  return IValueAccess::make(Kind::Object, std::move(storage));
}

std::vector<int64_t> int_tuple(const IValue& v, const char* what, const std::string& source) {
  EMBER_CHECK_VALUE(v.isTuple(), "[torch.load] ", source, ": a tensor's ", what,
                    " must be a tuple of ints, got ", describe_object(v));
  std::vector<int64_t> out;
  for (const auto& e : v.toTuple()) {
    EMBER_CHECK_VALUE(e.isInt() && e.toInt() >= 0, "[torch.load] ", source, ": a tensor's ", what,
                      " must hold non-negative ints");
    out.push_back(e.toInt());
  }
  return out;
}

// _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, meta])
IValue Unpickler::rebuild_tensor(const std::vector<IValue>& a) {
  if (a.size() != 6 && a.size() != 7) fail("_rebuild_tensor_v2 takes 6 or 7 arguments");
  const auto* st = IValueAccess::object(a[0]);
  if (st == nullptr || !st->storage) fail("_rebuild_tensor_v2 expects a storage first");
  if (!a[1].isInt() || a[1].toInt() < 0) fail("a tensor's storage offset must be an int >= 0");
  if (!a[4].isBool()) fail("a tensor's requires_grad must be a bool");
  const int64_t offset = a[1].toInt();
  auto sizes = int_tuple(a[2], "size", source_);
  auto strides = int_tuple(a[3], "stride", source_);
  if (sizes.size() != strides.size()) fail("a tensor's size and stride differ in length");
  // The last element reached must lie inside the storage (with overflow checks throughout).
  uint64_t numel = 1, last = static_cast<uint64_t>(offset);
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    uint64_t reach = 0;
    overflow |= __builtin_mul_overflow(numel, static_cast<uint64_t>(sizes[i]), &numel);
    if (sizes[i] > 0) {
      overflow |= __builtin_mul_overflow(static_cast<uint64_t>(sizes[i] - 1),
                                         static_cast<uint64_t>(strides[i]), &reach);
      overflow |= __builtin_add_overflow(last, reach, &last);
    }
  }
  if (overflow || numel > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    fail("a tensor of size ", a[2].toTuple().size(), "-d overflows 64-bit element counts");
  }
  if (numel > 0 && last >= st->numel) {
    EMBER_THROW(ValueError, "[torch.load] ", source_, ": a tensor reaches element ", last,
                " of its storage, which holds only ", st->numel, " elements");
  }
  Tensor t(std::make_shared<TensorImpl>(st->storage, st->dtype, std::move(sizes),
                                        std::move(strides), offset));
  if (a[4].toBool()) t.requires_grad_(true);
  return IValue(std::move(t));
}

IValue Unpickler::call(const IValue& callable, const IValue& args_value) {
  const auto* fn = IValueAccess::object(callable);
  if (fn == nullptr || fn->storage) fail("REDUCE calls a ", describe_object(callable));
  if (!args_value.isTuple()) fail("REDUCE arguments must be a tuple");
  const auto& a = args_value.toTuple();
  switch (fn->global) {
    case PickleGlobal::RebuildTensorV2:
      return rebuild_tensor(a);
    case PickleGlobal::RebuildParameter:
    case PickleGlobal::RebuildParameterWithState:
      // (data, requires_grad, backward_hooks[, state])
      if (a.size() < 3 || !a[0].isTensor() || !a[1].isBool()) fail(fn->name, ": bad arguments");
      {
        Tensor t = a[0].toTensor();
        t.requires_grad_(a[1].toBool());
      }
      return a[0];
    case PickleGlobal::RebuildFromTypeV2: {
      // (func, type, args, state): a tensor subclass or a tensor with Python attributes.
      if (a.size() != 4 || !a[2].isTuple()) fail(fn->name, ": bad arguments");
      const auto* type = IValueAccess::object(a[1]);
      if (type == nullptr || type->global != PickleGlobal::TensorType) {
        fail(fn->name, " rebuilds a ", describe_object(a[1]), ", not a tensor");
      }
      return call(a[0], a[2]);
    }
    case PickleGlobal::OrderedDict: {
      IValue d = IValue::dict({}, true);
      if (a.size() == 1 && a[0].isList()) {  // OrderedDict([(k, v), ...])
        std::vector<IValue> kv;
        for (const auto& pair : a[0].toList()) {
          if (!pair.isTuple() && !pair.isList()) fail("OrderedDict items must be pairs");
          const auto& e = pair.isTuple() ? pair.toTuple() : pair.toList();
          if (e.size() != 2) fail("OrderedDict items must be pairs");
          kv.push_back(e[0]);
          kv.push_back(e[1]);
        }
        set_items(d, std::move(kv));
      } else if (!a.empty()) {
        fail("collections.OrderedDict takes no arguments or a list of pairs");
      }
      return d;
    }
    case PickleGlobal::Size: {
      if (a.size() != 1 || !a[0].isTuple()) fail("torch.Size takes a tuple");
      for (const auto& e : a[0].toTuple()) {
        if (!e.isInt()) fail("torch.Size holds ints only");
      }
      return a[0];
    }
    case PickleGlobal::Set: {
      IValue out = IValue::list({});
      if (a.size() == 1 && a[0].isList()) {
        append(out, a[0].toList());
      } else if (!a.empty()) {
        fail(fn->name, " takes no arguments or a list");
      }
      return out;
    }
    case PickleGlobal::CodecsEncode: {
      // _codecs.encode(text, 'latin1'): each code point below 256 is one byte.
      if (a.size() != 2 || !a[0].isString() || !a[1].isString() ||
          (a[1].toStringRef() != "latin1" && a[1].toStringRef() != "latin-1")) {
        fail("_codecs.encode is supported only as (str, 'latin1')");
      }
      const std::string& s = a[0].toStringRef();
      std::string out;
      for (size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<uint8_t>(s[i]);
        if (c < 0x80) {
          out.push_back(static_cast<char>(c));
        } else if ((c & 0xE0) == 0xC0 && c <= 0xC3 && i + 1 < s.size()) {
          out.push_back(static_cast<char>(((c & 0x03) << 6) | (s[++i] & 0x3F)));
        } else {
          fail("_codecs.encode: text is not latin-1");
        }
      }
      return IValue::bytes(std::move(out));
    }
    case PickleGlobal::Storage:
    case PickleGlobal::TensorType:
      break;
  }
  fail("REDUCE calls ", fn->name, ", which Ember does not call");
}

void Unpickler::build(IValue state) {
  IValue& obj = top();
  // An OrderedDict's attributes (a state dict's `_metadata`) and a tensor's Python state carry
  // nothing Ember uses.
  if (obj.isGenericDict() || obj.isTensor()) {
    if (holds_object(state)) fail("BUILD state holds a bare ", describe_object(state));
    return;
  }
  fail("BUILD on a ", describe_object(obj));
}

IValue Unpickler::long_int(uint64_t n) {
  if (n > 8) fail("an integer of ", n, " bytes does not fit in 64 bits");
  const uint8_t* b = take(n);
  uint64_t v = 0;
  for (uint64_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(b[i]) << (8 * i);
  if (n > 0 && n < 8 && (b[n - 1] & 0x80)) v |= ~uint64_t{0} << (8 * n);  // sign-extend
  return IValue(static_cast<int64_t>(v));
}

IValue Unpickler::run() {
  while (true) {
    pos_ = static_cast<uint64_t>(p_ - begin_);
    const uint8_t op = static_cast<uint8_t>(le(1));
    if (op == '.') {  // STOP
      IValue result = pop();
      if (holds_object(result)) fail("the pickled object is a bare ", describe_object(result));
      return result;
    }
    if (!dispatch(op)) fail("unsupported pickle opcode 0x", std::hex, static_cast<int>(op));
  }
}

bool Unpickler::dispatch(uint8_t op) {
  switch (op) {
    case 0x80:  // PROTO
      if (const auto v = le(1); v < 2 || v > 5) fail("pickle protocol ", v, " (supported: 2 to 5)");
      return true;
    case 0x95:  // FRAME: framing only
      (void)le(8);
      return true;
    case '(':  // MARK
      marks_.push_back(stack_.size());
      return true;
    case '0':  // POP
      (void)pop();
      return true;
    case '1':  // POP_MARK
      (void)pop_mark();
      return true;
    case '2':  // DUP
      push(top());
      return true;
    case 'N':
      push(IValue());
      return true;
    case 0x88:  // NEWTRUE
      push(IValue(true));
      return true;
    case 0x89:  // NEWFALSE
      push(IValue(false));
      return true;
    case 'J':  // BININT
      push(IValue(static_cast<int64_t>(static_cast<int32_t>(le(4)))));
      return true;
    case 'K':  // BININT1
      push(IValue(static_cast<int64_t>(le(1))));
      return true;
    case 'M':  // BININT2
      push(IValue(static_cast<int64_t>(le(2))));
      return true;
    case 0x8a:  // LONG1
      push(long_int(le(1)));
      return true;
    case 0x8b:  // LONG4
      push(long_int(le(4)));
      return true;
    case 'G': {  // BINFLOAT, big-endian
      const uint8_t* b = take(8);
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits = (bits << 8) | b[i];
      double d;
      std::memcpy(&d, &bits, 8);
      push(IValue(d));
      return true;
    }
    case 'X':  // BINUNICODE
      push(IValue(str(le(4))));
      return true;
    case 0x8c:  // SHORT_BINUNICODE
      push(IValue(str(le(1))));
      return true;
    case 0x8d:  // BINUNICODE8
      push(IValue(str(le(8))));
      return true;
    case 'T':  // BINSTRING (Python 2 str): text
      push(IValue(str(le(4))));
      return true;
    case 'U':  // SHORT_BINSTRING
      push(IValue(str(le(1))));
      return true;
    case 'B':  // BINBYTES
      push(IValue::bytes(str(le(4))));
      return true;
    case 'C':  // SHORT_BINBYTES
      push(IValue::bytes(str(le(1))));
      return true;
    case 0x8e:  // BINBYTES8
    case 0x96:  // BYTEARRAY8
      push(IValue::bytes(str(le(8))));
      return true;
    case ')':  // EMPTY_TUPLE
      push(make_tuple({}));
      return true;
    case 0x85:    // TUPLE1
    case 0x86:    // TUPLE2
    case 0x87: {  // TUPLE3
      const size_t n = op - 0x84;
      if (stack_.size() < base() + n) fail("stack underflow");
      std::vector<IValue> items(std::make_move_iterator(stack_.end() - n),
                                std::make_move_iterator(stack_.end()));
      stack_.resize(stack_.size() - n);
      push(make_tuple(std::move(items)));
      return true;
    }
    case 't':  // TUPLE
      push(make_tuple(pop_mark()));
      return true;
    case ']':   // EMPTY_LIST
    case 0x8f:  // EMPTY_SET: a list in Ember
      push(IValue::list({}));
      return true;
    case 'l':     // LIST
    case 0x91: {  // FROZENSET: a list in Ember
      IValue l = IValue::list({});
      append(l, pop_mark());
      push(std::move(l));
      return true;
    }
    case 'a': {  // APPEND
      IValue v = pop();
      append(top(), {std::move(v)});
      return true;
    }
    case 'e':     // APPENDS
    case 0x90: {  // ADDITEMS
      auto items = pop_mark();
      append(top(), std::move(items));
      return true;
    }
    case '}':  // EMPTY_DICT
      push(IValue::dict({}));
      return true;
    case 'd': {  // DICT
      IValue d = IValue::dict({});
      set_items(d, pop_mark());
      push(std::move(d));
      return true;
    }
    case 's': {  // SETITEM
      IValue v = pop();
      IValue k = pop();
      set_items(top(), {std::move(k), std::move(v)});
      return true;
    }
    case 'u': {  // SETITEMS
      auto items = pop_mark();
      set_items(top(), std::move(items));
      return true;
    }
    case 'c': {  // GLOBAL
      std::string module = line();
      std::string name = line();
      push(global(module, name));
      return true;
    }
    case 0x93: {  // STACK_GLOBAL
      IValue name = pop();
      IValue module = pop();
      if (!name.isString() || !module.isString()) fail("STACK_GLOBAL expects two strings");
      push(global(module.toStringRef(), name.toStringRef()));
      return true;
    }
    case 'Q': {  // BINPERSID
      IValue pid = pop();
      push(persistent_load(pid));
      return true;
    }
    case 'R':     // REDUCE
    case 0x81: {  // NEWOBJ: cls(*args), the same for the allowed globals
      IValue args = pop();
      IValue fn = pop();
      push(call(fn, args));
      return true;
    }
    case 'b':  // BUILD
      build(pop());
      return true;
    case 'q':  // BINPUT
      put(le(1));
      return true;
    case 'r':  // LONG_BINPUT
      put(le(4));
      return true;
    case 0x94:  // MEMOIZE
      put(memo_.size());
      return true;
    case 'h':  // BINGET
      get(le(1));
      return true;
    case 'j':  // LONG_BINGET
      get(le(4));
      return true;
    default:
      return false;
  }
}

}  // namespace

IValue unpickle(std::string_view bytes, const StorageLoader& load_storage,
                const std::string& source) {
  return Unpickler(bytes, load_storage, source).run();
}

}  // namespace ember::detail
