#pragma once
// Helpers shared by the stores: integer values for add, timeout errors in c10d's words.
#include <ember/core/error.h>
#include <ember/distributed/store.h>

#include <chrono>
#include <string>
#include <vector>

namespace ember::distributed::detail {

/// The integer a value holds (values written by add are decimal text, as in c10d).
int64_t parse_int(const Bytes& value, const char* op, const std::string& key);
Bytes int_bytes(int64_t v);
std::string join_keys(const std::vector<std::string>& keys);
[[noreturn]] void throw_wait_timeout(const char* op, std::chrono::milliseconds timeout,
                                     const std::vector<std::string>& keys);

}  // namespace ember::distributed::detail
