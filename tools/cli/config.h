#pragma once
// `ember train`'s settings: defaults, range checks, and their JSON form (stored in checkpoints,
// so that `generate`, `eval` and `--resume` rebuild exactly the model that was trained).
#include <cstdint>
#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace ember::cli {

/// "Not given: use the model's default" for the settings whose default depends on --model (no
/// value a user would type).
inline constexpr int64_t kUnset = std::numeric_limits<int64_t>::min();
inline constexpr double kUnsetReal = -std::numeric_limits<double>::infinity();

struct TrainConfig {
  std::string model = "gpt";  // gpt, mlp, cnn
  std::string data;  // empty: the embedded data for the model (data/austen, data/fashion-mnist)
  int64_t steps = kUnset;
  int64_t batch_size = kUnset;
  int64_t context = 64;
  int64_t layers = 4;
  int64_t heads = 4;
  int64_t dim = 128;
  double lr = kUnsetReal;
  int64_t warmup = kUnset;
  double weight_decay = kUnsetReal;
  double clip = 1.0;  // global gradient-norm clip
  uint64_t seed = 1337;
  int64_t threads = 0;  // 0: Ember's default
  std::string out;      // empty: runs/<model>
  int64_t eval_every = kUnset;
  int64_t save_every = kUnset;
  int64_t eval_windows = 64;      // gpt: validation windows per evaluation
  int64_t log_every = 25;         // plain progress line every N steps when not on a terminal
  std::string dtype = "float32";  // float32, bfloat16
  int64_t vocab_size = 0;         // gpt: set from the data

  /// Fills the unset (kUnset, kUnsetReal) fields with `model`'s defaults.
  void apply_defaults();
  /// ValueError ("[ember train] --heads must divide --dim (got 128 and 5)") for out-of-range
  /// values.
  void validate() const;
  /// The fields that decide the model's shape; a checkpoint must match them to be resumed.
  nlohmann::json architecture() const;
};

nlohmann::json to_json(const TrainConfig& c);
TrainConfig config_from_json(const nlohmann::json& j);

/// The repository's data folder (where the embedded datasets live) as seen from the running
/// binary: EMBER_DATA_DIR if set, else the source tree's data/ compiled in, else ./data.
std::string default_data_root();

}  // namespace ember::cli
