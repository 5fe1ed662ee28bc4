#include "cli/config.h"

#include <ember/core/error.h>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace ember::cli {

void TrainConfig::apply_defaults() {
  const bool gpt = model == "gpt";
  if (data.empty()) data = default_data_root() + (gpt ? "/austen" : "/fashion-mnist");
  if (steps == kUnset) steps = gpt ? 1000 : (model == "cnn" ? 300 : 1000);
  if (batch_size == kUnset) batch_size = gpt ? 32 : 128;
  if (lr == kUnsetReal) lr = model == "mlp" ? 2e-3 : 3e-3;
  if (warmup == kUnset) warmup = 50;
  if (weight_decay == kUnsetReal) weight_decay = gpt ? 0.1 : 0.01;
  if (eval_every == kUnset) eval_every = 100;
  if (save_every == kUnset) save_every = gpt ? 250 : 100;
  if (out.empty()) out = "runs/" + model;
}

void TrainConfig::validate() const {
  const char* ctx = "[ember train]";
  EMBER_CHECK_VALUE(model == "gpt" || model == "mlp" || model == "cnn", ctx,
                    " --model must be gpt, mlp or cnn (got '", model, "')");
  EMBER_CHECK_VALUE(dtype == "float32" || dtype == "bfloat16", ctx,
                    " --dtype must be float32 or bfloat16 (got '", dtype, "')");
  auto in_range = [&](const char* flag, double v, double lo, double hi) {
    EMBER_CHECK_VALUE(v >= lo && v <= hi, ctx, " ", flag, " must be in [", lo, ", ", hi, "] (got ",
                      v, ")");
  };
  in_range("--steps", static_cast<double>(steps), 1, 1e9);
  in_range("--batch-size", static_cast<double>(batch_size), 1, 65536);
  in_range("--lr", lr, 1e-9, 10);
  in_range("--warmup", static_cast<double>(warmup), 0, 1e9);
  in_range("--weight-decay", weight_decay, 0, 10);
  in_range("--threads", static_cast<double>(threads), 0, 1024);
  in_range("--eval-every", static_cast<double>(eval_every), 1, 1e9);
  in_range("--save-every", static_cast<double>(save_every), 1, 1e9);
  if (model == "gpt") {
    in_range("--context", static_cast<double>(context), 1, 8192);
    in_range("--layers", static_cast<double>(layers), 1, 64);
    in_range("--heads", static_cast<double>(heads), 1, 256);
    in_range("--dim", static_cast<double>(dim), 1, 8192);
    EMBER_CHECK_VALUE(dim % heads == 0, ctx, " --heads must divide --dim (got --dim ", dim,
                      " and --heads ", heads, ")");
  }
}

nlohmann::json TrainConfig::architecture() const {
  nlohmann::json j = {{"model", model}};
  if (model == "gpt")
    j.update({{"context", context},
              {"layers", layers},
              {"heads", heads},
              {"dim", dim},
              {"vocab_size", vocab_size}});
  return j;
}

// The settings a checkpoint records (not --out or the log interval), under their field names.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TrainConfig, model, data, steps, batch_size, context, layers,
                                   heads, dim, lr, warmup, weight_decay, clip, seed, threads,
                                   eval_every, save_every, eval_windows, dtype, vocab_size)

nlohmann::json to_json(const TrainConfig& c) { return c; }

TrainConfig config_from_json(const nlohmann::json& j) {
  try {
    return j.get<TrainConfig>();
  } catch (const nlohmann::json::exception& e) {
    EMBER_CHECK_VALUE(false, "[ember] the checkpoint's configuration is incomplete: ", e.what());
  }
  return {};
}

std::string default_data_root() {
  if (const char* env = std::getenv("EMBER_DATA_DIR")) return env;
#ifdef EMBER_SOURCE_DATA_DIR
  if (std::filesystem::is_directory(EMBER_SOURCE_DATA_DIR)) return EMBER_SOURCE_DATA_DIR;
#endif
  return "data";
}

}  // namespace ember::cli
