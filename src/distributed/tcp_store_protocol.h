#pragma once
// The TCP store's wire format, shared by client and server (same host byte order: the store
// serves one job on one kind of machine). Request: u8 command, then its fields; a string or a
// value is a u64 length and the bytes. Reply: u8 status, then one value (for integers, 8 bytes).
#include <ember/distributed/store.h>

#include <cstring>
#include <string>
#include <vector>

namespace ember::distributed::detail {

enum class Command : uint8_t {
  kPing,
  kSet,
  kGet,  // key, wait in ms (0: forever)
  kAdd,
  kCompareSet,
  kDeleteKey,
  kCheck,
  kNumKeys,
  kWait,  // keys, wait in ms (0: forever)
};
enum class Status : uint8_t { kOk, kTimeout, kError };

/// Longest key or value accepted: a garbled length must not become a huge allocation.
constexpr uint64_t kMaxField = uint64_t{1} << 32;

struct Message {
  Bytes bytes;
  explicit Message(Command c) { bytes.push_back(static_cast<uint8_t>(c)); }
  Message& u64(uint64_t v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof v);
    return *this;
  }
  Message& field(const std::string& s) {
    u64(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
    return *this;
  }
  Message& field(const Bytes& b) {
    u64(b.size());
    bytes.insert(bytes.end(), b.begin(), b.end());
    return *this;
  }
  Message& keys(const std::vector<std::string>& ks) {
    u64(ks.size());
    for (const auto& k : ks) field(k);
    return *this;
  }
};

inline Bytes i64_bytes(int64_t v) {
  Bytes b(sizeof v);
  std::memcpy(b.data(), &v, sizeof v);
  return b;
}

inline int64_t bytes_i64(const Bytes& b) {
  int64_t v = 0;
  std::memcpy(&v, b.data(), std::min(b.size(), sizeof v));
  return v;
}

}  // namespace ember::distributed::detail
