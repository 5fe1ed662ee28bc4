#pragma once
// `ember generate` and `ember eval`, on a checkpoint written by `ember train`.
#include <cstdint>
#include <cstdio>
#include <string>

namespace ember::cli {

struct GenerateRequest {
  std::string checkpoint;  // folder or file
  std::string prompt = "It is a truth";
  int64_t tokens = 300;
  double temperature = 0.8;
  int64_t top_k = 40;
  uint64_t seed = 1;
  /// Drop prompt characters the vocabulary lacks (starting from its first character when none
  /// remain) instead of raising: for the sample printed after training on arbitrary text.
  bool lenient_prompt = false;
};

/// Prints the prompt, then each sampled character as it is produced (flushed), to `out`; returns
/// the generated text (without the prompt). ValueError for bad settings, a checkpoint of an image
/// model, or a prompt with characters the model's vocabulary lacks.
std::string generate_text(const GenerateRequest& request, std::FILE* out);

/// `ember eval`: a gpt checkpoint's validation loss, an image model's accuracy and confusion
/// matrix. `data` overrides the checkpoint's data path when not empty.
std::string evaluate_checkpoint(const std::string& checkpoint, const std::string& data);

}  // namespace ember::cli
