#pragma once
// `ember train`'s checkpoint: one safetensors file holding the model ("model.<name>"), the
// optimizer ("optimizer.<key>"), the vocabulary of a text model ("vocab", uint8), and in its
// metadata the format tag, the configuration (JSON), the number of finished steps and the
// default generator's state. Written atomically (a failed write leaves the previous file intact).
#include <ember/serialize.h>

#include <array>
#include <cstdint>
#include <string>

#include "cli/config.h"

namespace ember::cli {

struct Checkpoint {
  TrainConfig config;
  int64_t step = 0;
  StateDict model, optimizer;
  Tensor vocab;  // undefined for image models
  std::array<uint64_t, 2> rng{};
};

/// DIR/checkpoint.safetensors for a folder, the path itself for a file.
std::string checkpoint_path(const std::string& dir_or_file);

void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);

/// ValueError naming the path for a missing file, a file that is not safetensors or not an Ember
/// training checkpoint, or one whose contents are inconsistent.
Checkpoint read_checkpoint(const std::string& dir_or_file);

}  // namespace ember::cli
