#include "core/shape.h"

#include <algorithm>

#include "ember/core/error.h"

namespace ember {

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t n = std::max<int64_t>(ndim, 1);
  EMBER_CHECK_INDEX(dim >= -n && dim < n, "[", op,
                    "] Dimension out of range (expected to be in "
                    "range of [",
                    -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

std::string shape_str(std::span<const SymInt> sizes) {
  std::string r = "[";
  for (size_t i = 0; i < sizes.size(); ++i) r += (i ? ", " : "") + sizes[i].str();
  return r + "]";
}

std::string shape_str(const std::vector<int64_t>& sizes) {
  std::string r = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) r += ", ";
    r += std::to_string(sizes[i]);
  }
  r += ']';
  return r;
}

}  // namespace ember
