#include "primitives/index.h"

#include <string>

namespace ember {

AdvancedIndexGeometry advanced_index_geometry(const Tensor& self, const std::vector<int64_t>& dims,
                                              const std::vector<Tensor>& indices, const char* op) {
  EMBER_INTERNAL_ASSERT(!dims.empty() && dims.size() == indices.size(), "index dims");
  AdvancedIndexGeometry g;
  // Broadcast the index shapes (right-aligned).
  size_t nd = 0;
  for (const auto& t : indices) nd = std::max(nd, static_cast<size_t>(t.dim()));
  g.index_shape.assign(nd, 1);
  bool ok = true;
  for (const auto& t : indices) {
    size_t off = nd - t.dim();
    for (size_t d = 0; d < static_cast<size_t>(t.dim()); ++d) {
      int64_t s = t.sizes()[d];
      int64_t& b = g.index_shape[off + d];
      if (s == b || s == 1) continue;
      if (b == 1)
        b = s;
      else
        ok = false;
    }
  }
  if (!ok) {
    std::string shapes;
    for (size_t i = 0; i < indices.size(); ++i) {
      if (i) shapes += ", ";
      shapes += "[";
      for (int64_t d = 0; d < indices[i].dim(); ++d) {
        shapes += (d ? ", " : "") + std::to_string(indices[i].sizes()[d]);
      }
      shapes += "]";
    }
    EMBER_THROW(IndexError, "[", op,
                "] shape mismatch: indexing tensors could not be broadcast "
                "together with shapes ",
                shapes);
  }
  bool adjacent = true;
  for (size_t j = 1; j < dims.size(); ++j) adjacent = adjacent && dims[j] == dims[0] + int64_t(j);
  const auto b_strides = contiguous_strides(g.index_shape);
  auto push_index_block = [&] {
    for (size_t d = 0; d < g.index_shape.size(); ++d) {
      g.result_sizes.push_back(g.index_shape[d]);
      g.self_strides.push_back(0);
      g.index_strides.push_back(b_strides[d]);
    }
  };
  if (!adjacent) push_index_block();
  for (int64_t d = 0; d < self.dim(); ++d) {
    bool indexed = false;
    for (int64_t i : dims) indexed = indexed || i == d;
    if (indexed) {
      if (adjacent && d == dims[0]) push_index_block();
      continue;
    }
    g.result_sizes.push_back(self.sizes()[d]);
    g.self_strides.push_back(self.strides()[d]);
    g.index_strides.push_back(0);
  }
  return g;
}

}  // namespace ember
