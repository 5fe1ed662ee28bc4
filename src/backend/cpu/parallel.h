#pragma once
// parallel_for over an index range with a grain size: ranges smaller than `grain` (or calls from
// inside a parallel region) run on the calling thread.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <exception>

namespace ember::cpu {

constexpr int64_t kGrainSize = 32768;

/// Items per parallel chunk for items of `item_elems` elements each: about kGrainSize
/// elements, at least one item.
inline int64_t row_grain(int64_t item_elems) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, item_elems));
}

/// f(begin, end) is called on disjoint sub-ranges covering [begin, end). Exceptions thrown by f
/// are rethrown on the calling thread.
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  int64_t n = end - begin;
  if (n <= 0) return;
  if (n <= grain) {  // before asking OpenMP anything: a tiny op's whole cost is a few calls
    f(begin, end);
    return;
  }
  int max_threads = omp_get_max_threads();
  if (max_threads <= 1 || omp_in_parallel()) {
    f(begin, end);
    return;
  }
  int64_t nthreads = std::min<int64_t>(max_threads, (n + grain - 1) / grain);
  std::exception_ptr error;
#pragma omp parallel num_threads(static_cast <int>(nthreads))
  {
    int64_t tid = omp_get_thread_num(), nt = omp_get_num_threads();
    int64_t chunk = (n + nt - 1) / nt;
    int64_t b = begin + tid * chunk, e = std::min(end, b + chunk);
    if (b < e) {
      try {
        f(b, e);
      } catch (...) {
#pragma omp critical(ember_parallel_error)
        if (!error) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace ember::cpu
