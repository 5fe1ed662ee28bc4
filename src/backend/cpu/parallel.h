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

/// Note [Thread-independent runs]: an elementwise kernel (eager or generated) computes whole
/// vectors of a run with Vec<T> and its last few elements with the scalar formula, which may round
/// differently. Where threads split the index space, a split point inside a row moves down to the
/// row's start plus a multiple of kRunAlign elements (a multiple of every vector width), so every
/// element takes the same path at any thread count. The split points stay in order, so the threads'
/// ranges still tile the space.
constexpr int64_t kRunAlign = 64;
inline int64_t run_boundary(int64_t i, int64_t row, int64_t numel) {
  if (i >= numel) return numel;
  if (i == 0) return 0;  // a whole range (a tiny op's): no division
  const int64_t off = i % row;
  return i - off + off / kRunAlign * kRunAlign;
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
