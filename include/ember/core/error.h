#pragma once
// Typed errors mirroring PyTorch's Python exceptions, and the checking macros every op uses.
#include <sstream>
#include <stdexcept>
#include <string>

namespace ember {

/// Base of every exception Ember throws. Derives from std::runtime_error.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

#define EMBER_DEFINE_ERROR(Name)                          \
  class Name : public Error {                             \
   public:                                                \
    explicit Name(const std::string& msg) : Error(msg) {} \
  };
EMBER_DEFINE_ERROR(RuntimeError)
EMBER_DEFINE_ERROR(ValueError)
EMBER_DEFINE_ERROR(TypeError)
EMBER_DEFINE_ERROR(IndexError)
EMBER_DEFINE_ERROR(NotImplementedError)
EMBER_DEFINE_ERROR(OutOfMemoryError)
EMBER_DEFINE_ERROR(DistBackendError)
EMBER_DEFINE_ERROR(DistTimeoutError)
EMBER_DEFINE_ERROR(AssertionError)
#undef EMBER_DEFINE_ERROR

/// torch.distributed.DistStoreError: a store operation failed or timed out.
struct DistStoreError : DistBackendError {
  using DistBackendError::DistBackendError;
};

/// torch.linalg.LinAlgError: a RuntimeError (singular or non-positive-definite input).
class LinAlgError : public RuntimeError {
 public:
  explicit LinAlgError(const std::string& msg) : RuntimeError(msg) {}
};

namespace detail {
template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream ss;
  (ss << ... << args);
  return ss.str();
}
}  // namespace detail

}  // namespace ember

/// Throws ErrorType with the concatenated message when cond is false. Messages start with the op
/// in brackets: EMBER_CHECK(dim < n, "[sum] Dimension out of range (expected ...)").
#define EMBER_CHECK_T(ErrorType, cond, ...)                            \
  do {                                                                 \
    if (!(cond)) [[unlikely]] {                                        \
      throw ::ember::ErrorType(::ember::detail::str_cat(__VA_ARGS__)); \
    }                                                                  \
  } while (0)

#define EMBER_CHECK(cond, ...) EMBER_CHECK_T(RuntimeError, cond, __VA_ARGS__)
#define EMBER_CHECK_VALUE(cond, ...) EMBER_CHECK_T(ValueError, cond, __VA_ARGS__)
#define EMBER_CHECK_TYPE(cond, ...) EMBER_CHECK_T(TypeError, cond, __VA_ARGS__)
#define EMBER_CHECK_INDEX(cond, ...) EMBER_CHECK_T(IndexError, cond, __VA_ARGS__)
#define EMBER_CHECK_NOT_IMPL(cond, ...) EMBER_CHECK_T(NotImplementedError, cond, __VA_ARGS__)
#define EMBER_THROW(ErrorType, ...) throw ::ember::ErrorType(::ember::detail::str_cat(__VA_ARGS__))

/// For Ember's own invariants: a failure is a bug in Ember, reported as an exception, not abort().
#define EMBER_INTERNAL_ASSERT(cond, ...)                                                   \
  EMBER_CHECK_T(RuntimeError, cond, "Internal assert failed at ", __FILE__, ":", __LINE__, \
                ": " #cond ". " __VA_OPT__(, ) __VA_ARGS__)
