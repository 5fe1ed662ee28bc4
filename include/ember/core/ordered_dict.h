#pragma once
// An insertion-ordered map with libtorch's OrderedDict interface: state dicts, named parameters
// and module children keep the order in which they were registered.
#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/error.h"

namespace ember {

template <typename Key, typename Value>
class OrderedDict {
 public:
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    const Key& key() const { return pair_.first; }
    Value& value() { return pair_.second; }
    const Value& value() const { return pair_.second; }
    Value& operator*() { return value(); }
    const Value& operator*() const { return value(); }
    Value* operator->() { return &value(); }
    const Value* operator->() const { return &value(); }
    const std::pair<Key, Value>& pair() const { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };

  explicit OrderedDict(std::string key_description = "Key")
      : key_description_(std::move(key_description)) {}
  OrderedDict(std::initializer_list<Item> items) {
    for (const auto& item : items) insert(item.key(), item.value());
  }

  /// Inserts a new key; a duplicate key is a ValueError (as libtorch's OrderedDict).
  Value& insert(const Key& key, Value value) {
    EMBER_CHECK_VALUE(!index_.count(key), "[OrderedDict] ", key_description_, " '", key,
                      "' already defined");
    index_.emplace(key, items_.size());
    items_.emplace_back(key, std::move(value));
    return items_.back().value();
  }
  /// Inserts or replaces.
  Value& insert_or_assign(const Key& key, Value value) {
    if (auto* v = find(key)) return *v = std::move(value);
    return insert(key, std::move(value));
  }
  Value& operator[](const Key& key) {
    auto* v = find(key);
    EMBER_CHECK_INDEX(v != nullptr, "[OrderedDict] ", key_description_, " '", key,
                      "' is not defined");
    return *v;
  }
  const Value& operator[](const Key& key) const { return const_cast<OrderedDict&>(*this)[key]; }
  Value* find(const Key& key) {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const { return const_cast<OrderedDict*>(this)->find(key); }
  bool contains(const Key& key) const { return index_.count(key) != 0; }
  /// Removes a key, keeping the order of the others; IndexError when absent.
  void erase(const Key& key) {
    auto it = index_.find(key);
    EMBER_CHECK_INDEX(it != index_.end(), "[OrderedDict] ", key_description_, " '", key,
                      "' is not defined");
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(it->second));
    rebuild_index();
  }
  void clear() {
    items_.clear();
    index_.clear();
  }

  size_t size() const { return items_.size(); }
  bool is_empty() const { return items_.empty(); }
  bool empty() const { return items_.empty(); }
  Item& front() { return items_.front(); }
  Item& back() { return items_.back(); }
  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  const std::vector<Item>& items() const { return items_; }
  std::vector<Key> keys() const {
    std::vector<Key> out;
    for (const auto& item : items_) out.push_back(item.key());
    return out;
  }
  std::vector<Value> values() const {
    std::vector<Value> out;
    for (const auto& item : items_) out.push_back(item.value());
    return out;
  }
  const std::string& key_description() const { return key_description_; }

 private:
  void rebuild_index() {
    index_.clear();
    for (size_t i = 0; i < items_.size(); ++i) index_.emplace(items_[i].key(), i);
  }

  std::string key_description_ = "Key";
  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
};

}  // namespace ember
