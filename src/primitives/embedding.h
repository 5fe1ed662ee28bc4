#pragma once
// Note [Embedding bags]: PyTorch's _embedding_bag. Each bag reduces (sum, mean or max) the rows
// of `weight` its indices select, on the kernel's side, so the builder reads no index or offset
// on the host (meta and traced inputs work; the kernel raises for bad offsets or indices).
//   inputs:  weight [n, D], indices [total] (int64), offsets [k] (int64)[, per_sample_weights
//            [total] (weight's dtype), sum mode only]
//   outputs: out [bags, D] (weight's dtype; computed in opmath_type and rounded once),
//            offset2bag [total] (int64: each index's bag, -1 for an index in no bag or equal to
//            padding_idx), bag_size [bags] (int64: the indices that count), max_indices [bags, D]
//            (int64: the row each maximum came from, -1 for an empty bag; [0] unless mode max)
// with bags = k, or k - 1 with include_last_offset (the last offset then ends the last bag;
// otherwise the last bag runs to the end of the indices). Indices equal to padding_idx (-1:
// none) are skipped; an empty bag gives zeros. The vjp (weight and per_sample_weights) is
// written with index_select / index_add from offset2bag, bag_size and max_indices.
#include <cstdint>

#include "dispatch/primitive.h"

namespace ember {

EMBER_ENUM(EmbeddingBagMode, uint8_t, Sum, Mean, Max);

struct EmbeddingBagParams {
  EmbeddingBagMode mode = EmbeddingBagMode::Sum;
  int64_t padding_idx = -1;
  bool include_last_offset = false;
  bool has_per_sample_weights = false;
  EMBER_FIELDS(mode, padding_idx, include_last_offset, has_per_sample_weights)
};

class EmbeddingBag
    : public PrimitiveOf<EmbeddingBag, EmbeddingBagParams, PrimitiveKind::EmbeddingBag> {
 public:
  using PrimitiveOf::PrimitiveOf;
  EMBER_INFER
  EMBER_VJP
  bool saves_input(size_t i) const override { return i != 2; }  // not the offsets
  bool saves_output(size_t i) const override { return i >= 1; }
  const char* default_name() const override { return "_embedding_bag"; }
  void eval_cpu(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const;
};

}  // namespace ember
