#pragma once
// The text side of `ember train --model gpt`: a byte-level character vocabulary, a 90/10
// train/validation split, and a batch order that depends only on (seed, step), so a resumed run
// sees exactly the batches an uninterrupted one would, and the PyTorch peer
// (bench/peers/gpt_peer.py) can replay it.
#include <ember/core/tensor.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ember::cli {

struct CharCorpus {
  std::vector<uint8_t> vocab;  // the distinct bytes of the text, ascending; token id = index
  Tensor train, val;           // int64 token ids: the first 90% of the text and the last 10%

  int64_t vocab_size() const { return static_cast<int64_t>(vocab.size()); }
  /// Bytes -> token ids; ValueError naming the first byte that is not in the vocabulary.
  std::vector<int64_t> encode(const std::string& text) const;
  std::string decode(const std::vector<int64_t>& ids) const;
};

/// Reads `path` (any text file; a folder is read as its *.txt files in name order, joined) and
/// splits it. ValueError (one line, naming the path) when it is missing, unreadable, empty, or
/// when either split is not longer than `context` tokens.
CharCorpus load_corpus(const std::string& path, int64_t context);

/// splitmix64, the batch order's hash.
uint64_t splitmix64(uint64_t x);

/// Row b of training step `step` starts at splitmix64(seed ^ ((step*batch + b) * golden)) %
/// (len(train) - context), golden = 0x9E3779B97F4A7C15.
Tensor train_offsets(const CharCorpus& corpus, uint64_t seed, int64_t step, int64_t batch,
                     int64_t context);

/// Input and target windows [B, context] (targets shifted by one) at the given offsets.
std::pair<Tensor, Tensor> windows(const Tensor& tokens, const Tensor& offsets, int64_t context);

/// The fixed validation windows: `count` offsets spread evenly, i * n / count for
/// n = len(val) - context.
Tensor val_offsets(const CharCorpus& corpus, int64_t count, int64_t context);

}  // namespace ember::cli
