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
  explicit Message(Command c) {
    bytes.reserve(64);
    bytes.push_back(static_cast<uint8_t>(c));
  }
  // resize + memcpy rather than insert: GCC 12 misreads insert into a one-byte vector as an
  // out-of-bounds copy (-Warray-bounds).
  Message& raw(const void* p, size_t n) {
    const size_t at = bytes.size();
    bytes.resize(at + n);
    if (n) std::memcpy(bytes.data() + at, p, n);
    return *this;
  }
  Message& u64(uint64_t v) { return raw(&v, sizeof v); }
  Message& field(const std::string& s) { return u64(s.size()).raw(s.data(), s.size()); }
  Message& field(const Bytes& b) { return u64(b.size()).raw(b.data(), b.size()); }
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
