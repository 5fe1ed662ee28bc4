#include "core/shape.h"

#include <algorithm>
#include <numeric>

#include "core/strides.h"
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

bool non_overlapping_and_dense(std::span<const int64_t> sizes, std::span<const int64_t> strides) {
  std::vector<size_t> perm(sizes.size());
  std::iota(perm.begin(), perm.end(), size_t{0});
  std::stable_sort(perm.begin(), perm.end(),
                   [&](size_t a, size_t b) { return strides[a] < strides[b]; });
  int64_t expected = 1;
  for (size_t d : perm) {
    if (sizes[d] < 2) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

}  // namespace ember
