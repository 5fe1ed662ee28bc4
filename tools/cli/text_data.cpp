#include "cli/text_data.h"

#include <ember/core/error.h>
#include <ember/data/readers.h>
#include <ember/ember.h>

#include <algorithm>
#include <array>
#include <filesystem>

namespace ember::cli {
namespace fs = std::filesystem;

namespace {

std::string read_all(const std::string& path) {
  std::error_code ec;
  EMBER_CHECK_VALUE(fs::exists(path, ec), "[ember train] data not found: ", path);
  if (!fs::is_directory(path, ec)) {
    try {
      return data::read_text(path);
    } catch (const Error& e) {
      EMBER_CHECK_VALUE(false, "[ember train] cannot read text file ", path);
    }
  }
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(path, ec))
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  EMBER_CHECK_VALUE(!files.empty(), "[ember train] no .txt files in folder ", path);
  std::sort(files.begin(), files.end());
  std::string text;
  for (const auto& f : files) text += read_all(f.string());
  return text;
}

Tensor to_ids(const std::string& bytes, const std::array<int64_t, 256>& index, size_t begin,
              size_t end) {
  Tensor t = empty({static_cast<int64_t>(end - begin)}, kInt64);
  auto* p = t.data_ptr<int64_t>();
  for (size_t i = begin; i < end; ++i) p[i - begin] = index[static_cast<uint8_t>(bytes[i])];
  return t;
}

}  // namespace

std::vector<int64_t> CharCorpus::encode(const std::string& text) const {
  std::vector<int64_t> ids;
  ids.reserve(text.size());
  for (char c : text) {
    auto it = std::lower_bound(vocab.begin(), vocab.end(), static_cast<uint8_t>(c));
    EMBER_CHECK_VALUE(it != vocab.end() && *it == static_cast<uint8_t>(c),
                      "[ember generate] the prompt has a character the model never saw: byte ",
                      static_cast<int>(static_cast<uint8_t>(c)));
    ids.push_back(it - vocab.begin());
  }
  return ids;
}

std::string CharCorpus::decode(const std::vector<int64_t>& ids) const {
  std::string s;
  s.reserve(ids.size());
  for (int64_t id : ids) s.push_back(static_cast<char>(vocab.at(static_cast<size_t>(id))));
  return s;
}

CharCorpus load_corpus(const std::string& path, int64_t context) {
  const std::string text = read_all(path);
  EMBER_CHECK_VALUE(!text.empty(), "[ember train] the text file is empty: ", path);
  std::array<bool, 256> seen{};
  for (char c : text) seen[static_cast<uint8_t>(c)] = true;
  CharCorpus corpus;
  std::array<int64_t, 256> index{};
  for (int b = 0; b < 256; ++b)
    if (seen[b]) {
      index[b] = static_cast<int64_t>(corpus.vocab.size());
      corpus.vocab.push_back(static_cast<uint8_t>(b));
    }
  const size_t split = text.size() * 9 / 10;
  EMBER_CHECK_VALUE(static_cast<int64_t>(text.size() - split) > context + 1,
                    "[ember train] the text in ", path, " is too short for context ", context,
                    ": its validation split (the last 10%) has ", text.size() - split,
                    " characters, at least ", context + 2, " are needed");
  corpus.train = to_ids(text, index, 0, split);
  corpus.val = to_ids(text, index, split, text.size());
  return corpus;
}

uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

Tensor train_offsets(const CharCorpus& corpus, uint64_t seed, int64_t step, int64_t batch,
                     int64_t context) {
  const auto n = static_cast<uint64_t>(corpus.train.numel() - context);
  Tensor t = empty({batch}, kInt64);
  for (int64_t b = 0; b < batch; ++b) {
    const auto k = static_cast<uint64_t>(step * batch + b);
    t.data_ptr<int64_t>()[b] =
        static_cast<int64_t>(splitmix64(seed ^ (k * 0x9E3779B97F4A7C15ULL)) % n);
  }
  return t;
}

std::pair<Tensor, Tensor> windows(const Tensor& tokens, const Tensor& offsets, int64_t context) {
  Tensor idx = offsets.unsqueeze(1) + arange(context, kInt64).unsqueeze(0);
  return {tokens.index({idx}), tokens.index({idx + 1})};
}

Tensor val_offsets(const CharCorpus& corpus, int64_t count, int64_t context) {
  const int64_t n = corpus.val.numel() - context;
  Tensor t = empty({count}, kInt64);
  for (int64_t i = 0; i < count; ++i) t.data_ptr<int64_t>()[i] = i * n / count;
  return t;
}

}  // namespace ember::cli
