#pragma once
// torch.save archives, for ember::load's format detection. Private to src/serialize.
#include <cstdint>
#include <string>

#include "ember/serialize.h"

namespace ember::detail {

/// A zip archive (what torch.save writes since PyTorch 1.6).
bool is_zip_archive(const uint8_t* data, uint64_t size);
/// The legacy torch.save format: a pickled magic number (LONG1 of 10 bytes) first.
bool is_legacy_torch_file(const uint8_t* data, uint64_t size);
/// ValueError explaining that the legacy format is not read.
[[noreturn]] void reject_legacy_torch_file(const std::string& source);
/// The state dict a torch.save archive holds (ValueError when it holds anything else).
StateDict load_torch_archive(const uint8_t* data, uint64_t size, const std::string& source);

}  // namespace ember::detail
