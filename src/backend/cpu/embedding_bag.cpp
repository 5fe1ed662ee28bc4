// EmbeddingBag's CPU kernel (Note [Embedding bags] in primitives/embedding.h): the offsets and
// indices are read and checked here, where the data is, and each bag's rows are reduced in the
// weight's opmath type, bags in parallel.
#include <algorithm>
#include <type_traits>

#include "backend/cpu/compute.h"
#include "backend/cpu/parallel.h"
#include "primitives/embedding.h"

namespace ember {

namespace {

// The bounds of the bags: bag b spans [starts[b], starts[b + 1]). RuntimeError naming the first
// offset that is out of order or outside the indices.
std::vector<int64_t> bag_starts(const Tensor& offsets, int64_t total, bool include_last) {
  const int64_t k = offsets.size(0), stride = k > 0 ? offsets.stride(0) : 0;
  const int64_t* o = static_cast<const int64_t*>(offsets.data_ptr());
  std::vector<int64_t> starts(static_cast<size_t>(k));
  for (int64_t b = 0; b < k; ++b) starts[b] = o[b * stride];
  if (!include_last) starts.push_back(total);
  EMBER_CHECK(starts.front() == 0,
              "[embedding_bag] offsets[0] has to be 0, i.e., the first "
              "sequence in the mini-batch has to start from position 0. However, got ",
              starts.front());
  for (size_t b = 1; b < starts.size(); ++b) {
    EMBER_CHECK(starts[b] >= starts[b - 1] && starts[b] <= total,
                "[embedding_bag] offsets must "
                "be non-decreasing and within the input, but got offsets[",
                b, "] = ", starts[b]);
  }
  return starts;
}

}  // namespace

void EmbeddingBag::eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor &weight = inputs[0], &indices = inputs[1];
  const int64_t n = weight.size(0), width = weight.size(1), total = indices.size(0);
  const std::vector<int64_t> starts = bag_starts(inputs[2], total, p_.include_last_offset);
  const int64_t bags = static_cast<int64_t>(starts.size()) - 1;
  EMBER_INTERNAL_ASSERT(bags == outputs[0].size(0), "embedding_bag: bags vs inferred output");
  const int64_t ist = total > 0 ? indices.stride(0) : 0;
  const int64_t* idx = static_cast<const int64_t*>(indices.data_ptr());
  for (int64_t i = 0; i < total; ++i) {
    EMBER_CHECK_INDEX(idx[i * ist] >= 0 && idx[i * ist] < n,
                      "[embedding_bag] index out of range in self");
  }
  int64_t* offset2bag = static_cast<int64_t*>(outputs[1].data_ptr());
  int64_t* bag_size = static_cast<int64_t*>(outputs[2].data_ptr());
  std::fill(offset2bag, offset2bag + total, int64_t{-1});
  const bool max = p_.mode == EmbeddingBagMode::Max, mean = p_.mode == EmbeddingBagMode::Mean;
  int64_t* from = max ? static_cast<int64_t*>(outputs[3].data_ptr()) : nullptr;
  const int64_t ws0 = weight.stride(0), ws1 = weight.stride(1);
  cpu::visit_floating(weight.dtype(), name(), "embedding_bag_cpu", [&](auto* tag) {
    using T = std::remove_pointer_t<decltype(tag)>;
    using A = cpu::compute_t<T>;
    const T* w = static_cast<const T*>(weight.data_ptr());
    const T* psw =
        p_.has_per_sample_weights ? static_cast<const T*>(inputs[3].data_ptr()) : nullptr;
    const int64_t pst = psw && total > 0 ? inputs[3].stride(0) : 0;
    T* out = static_cast<T*>(outputs[0].data_ptr());
    const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(width, 1));
    cpu::parallel_for(0, bags, grain, [&](int64_t b0, int64_t b1) {
      std::vector<A> acc(static_cast<size_t>(width));
      for (int64_t b = b0; b < b1; ++b) {
        std::fill(acc.begin(), acc.end(), A(0));  // a maximum starts at its first row
        int64_t* arg = max ? from + b * width : nullptr;
        if (max) std::fill(arg, arg + width, int64_t{-1});
        int64_t count = 0;
        for (int64_t i = starts[b]; i < starts[b + 1]; ++i) {
          const int64_t row = idx[i * ist];
          if (row == p_.padding_idx) continue;
          offset2bag[i] = b;
          ++count;
          const T* r = w + row * ws0;
          if (max) {
            for (int64_t d = 0; d < width; ++d) {
              const A v = static_cast<A>(r[d * ws1]);
              if (arg[d] < 0 || v > acc[d]) {  // the first maximum keeps its row
                acc[d] = v;
                arg[d] = row;
              }
            }
          } else {
            const A s = psw ? static_cast<A>(psw[i * pst]) : A(1);
            for (int64_t d = 0; d < width; ++d) acc[d] += static_cast<A>(r[d * ws1]) * s;
          }
        }
        bag_size[b] = count;
        const A divisor = mean && count > 0 ? static_cast<A>(count) : A(1);
        T* o = out + b * width;
        for (int64_t d = 0; d < width; ++d)
          o[d] = count == 0 ? T(0) : static_cast<T>(acc[d] / divisor);
      }
    });
  });
}

}  // namespace ember
