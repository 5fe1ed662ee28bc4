#include "cli/checkpoint.h"

#include <ember/core/error.h>

#include <filesystem>
#include <nlohmann/json.hpp>

namespace ember::cli {
namespace {

constexpr const char* kFormat = "ember-train-checkpoint/1";

// Splits "prefix.rest" entries of `all` into `into`, keyed by rest.
void take_prefixed(const StateDict& all, const std::string& prefix, StateDict& into) {
  for (const auto& item : all)
    if (item.key().rfind(prefix, 0) == 0)
      into.insert(item.key().substr(prefix.size()), item.value());
}

}  // namespace

std::string checkpoint_path(const std::string& dir_or_file) {
  std::error_code ec;
  if (std::filesystem::is_directory(dir_or_file, ec))
    return (std::filesystem::path(dir_or_file) / "checkpoint.safetensors").string();
  return dir_or_file;
}

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  StateDict all;
  for (const auto& item : c.model) all.insert("model." + item.key(), item.value());
  for (const auto& item : c.optimizer) all.insert("optimizer." + item.key(), item.value());
  if (c.vocab.defined()) all.insert("vocab", c.vocab);
  safetensors::Metadata meta{{"format", kFormat},
                             {"config", to_json(c.config).dump()},
                             {"step", std::to_string(c.step)},
                             {"rng", std::to_string(c.rng[0]) + "," + std::to_string(c.rng[1])}};
  safetensors::save_file(all, path, meta);
}

Checkpoint read_checkpoint(const std::string& dir_or_file) {
  const std::string path = checkpoint_path(dir_or_file);
  std::error_code ec;
  EMBER_CHECK_VALUE(std::filesystem::is_regular_file(path, ec), "[ember] no checkpoint at ", path);
  StateDict all;
  safetensors::Metadata meta;
  try {
    safetensors::SafeOpen file(path);
    meta = file.metadata();
    for (const auto& key : file.keys()) all.insert(key, file.get_tensor(key).clone());
  } catch (const Error& e) {
    EMBER_CHECK_VALUE(false, "[ember] the checkpoint ", path, " is corrupt: ", e.what());
  }
  auto field = [&](const char* key) -> const std::string& {
    auto it = meta.find(key);
    EMBER_CHECK_VALUE(it != meta.end(), "[ember] ", path,
                      " is not an Ember training checkpoint (no '", key, "' in its metadata)");
    return it->second;
  };
  EMBER_CHECK_VALUE(field("format") == kFormat, "[ember] ", path, " has checkpoint format '",
                    field("format"), "', expected '", kFormat, "'");
  Checkpoint c;
  try {
    c.config = config_from_json(nlohmann::json::parse(field("config")));
    c.step = std::stoll(field("step"));
    const std::string& rng = field("rng");
    const auto comma = rng.find(',');
    c.rng = {std::stoull(rng.substr(0, comma)), std::stoull(rng.substr(comma + 1))};
  } catch (const std::exception& e) {
    EMBER_CHECK_VALUE(false, "[ember] the checkpoint ", path, " has bad metadata: ", e.what());
  }
  take_prefixed(all, "model.", c.model);
  take_prefixed(all, "optimizer.", c.optimizer);
  if (all.contains("vocab")) c.vocab = all["vocab"];
  EMBER_CHECK_VALUE(c.step >= 0 && !c.model.is_empty(), "[ember] the checkpoint ", path,
                    " holds no model weights");
  EMBER_CHECK_VALUE(c.config.model != "gpt" || (c.vocab.defined() && c.vocab.dim() == 1 &&
                                                c.vocab.numel() == c.config.vocab_size),
                    "[ember] the checkpoint ", path, " has no vocabulary matching its model");
  return c;
}

}  // namespace ember::cli
