// The Store interface's helpers, HashStore and PrefixStore.
#include <ember/distributed/store.h>

#include <charconv>

#include "distributed/store_util.h"

namespace ember::distributed {

Bytes to_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }
std::string to_string(const Bytes& b) { return std::string(b.begin(), b.end()); }

namespace detail {

int64_t parse_int(const Bytes& value, const char* op, const std::string& key) {
  const auto* first = reinterpret_cast<const char*>(value.data());
  const auto* last = first + value.size();
  int64_t out = 0;
  auto [end, ec] = std::from_chars(first, last, out);
  EMBER_CHECK_T(ValueError, ec == std::errc() && end == last && !value.empty(), "[", op,
                "] the value of key '", key, "' is not an integer: '", to_string(value), "'");
  return out;
}

Bytes int_bytes(int64_t v) { return to_bytes(std::to_string(v)); }

std::string join_keys(const std::vector<std::string>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", " : "") + keys[i];
  return out;
}

void throw_wait_timeout(const char* op, std::chrono::milliseconds timeout,
                        const std::vector<std::string>& keys) {
  EMBER_THROW(DistStoreError, "[", op, "] wait timeout after ", timeout.count(),
              "ms, keys: ", join_keys(keys));
}

}  // namespace detail

// ---- HashStore ----

void HashStore::do_set(const std::string& key, const Bytes& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  map_[key] = value;
  cv_.notify_all();
}

Bytes HashStore::do_get(const std::string& key) {
  do_wait({key}, timeout_);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = map_.find(key);
  // Deleted between the wait and now: report it as the wait would have.
  if (it == map_.end()) detail::throw_wait_timeout("HashStore.get", timeout_, {key});
  return it->second;
}

int64_t HashStore::do_add(const std::string& key, int64_t value) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = map_.find(key);
  int64_t sum = value;
  if (it != map_.end()) sum += detail::parse_int(it->second, "HashStore.add", key);
  map_[key] = detail::int_bytes(sum);
  cv_.notify_all();
  return sum;
}

Bytes HashStore::do_compare_set(const std::string& key, const Bytes& expected,
                                const Bytes& desired) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = map_.find(key);
  if (it == map_.end()) {
    if (!expected.empty()) return expected;
  } else if (it->second != expected) {
    return it->second;
  }
  map_[key] = desired;
  cv_.notify_all();
  return desired;
}

bool HashStore::do_delete_key(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  return map_.erase(key) == 1;
}

bool HashStore::do_check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& k : keys)
    if (!map_.count(k)) return false;
  return true;
}

int64_t HashStore::do_num_keys() {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(map_.size());
}

void HashStore::do_wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto ready = [&] {
    for (const auto& k : keys)
      if (!map_.count(k)) return false;
    return true;
  };
  if (timeout == kNoTimeout) {
    cv_.wait(lock, ready);
  } else if (!cv_.wait_for(lock, timeout, ready)) {
    detail::throw_wait_timeout("HashStore.wait", timeout, keys);
  }
}

// ---- PrefixStore ----

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store ? store->timeout() : kDefaultTimeout),
      prefix_(std::move(prefix)),
      store_(std::move(store)) {
  EMBER_CHECK_VALUE(store_ != nullptr, "[PrefixStore] expected a store to wrap, got null");
}

std::vector<std::string> PrefixStore::join(const std::vector<std::string>& keys) const {
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (const auto& k : keys) out.push_back(join(k));
  return out;
}

void PrefixStore::set_timeout(std::chrono::milliseconds timeout) {
  timeout_ = timeout;
  store_->set_timeout(timeout);
}

void PrefixStore::do_set(const std::string& key, const Bytes& value) {
  store_->set(join(key), value);
}
Bytes PrefixStore::do_get(const std::string& key) { return store_->get(join(key)); }
int64_t PrefixStore::do_add(const std::string& key, int64_t value) {
  return store_->add(join(key), value);
}
Bytes PrefixStore::do_compare_set(const std::string& key, const Bytes& expected,
                                  const Bytes& desired) {
  return store_->compare_set(join(key), expected, desired);
}
bool PrefixStore::do_delete_key(const std::string& key) { return store_->delete_key(join(key)); }
bool PrefixStore::do_check(const std::vector<std::string>& keys) {
  return store_->check(join(keys));
}
// c10d's PrefixStore also reports the underlying store's count.
int64_t PrefixStore::do_num_keys() { return store_->num_keys(); }
void PrefixStore::do_wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  store_->wait(join(keys), timeout);
}

}  // namespace ember::distributed
