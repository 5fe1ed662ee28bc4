#include "cli/commands.h"

#include <ember/core/error.h>
#include <ember/ember.h>

#include <algorithm>

#include "cli/checkpoint.h"
#include "cli/gpt.h"
#include "cli/tasks.h"
#include "cli/text_data.h"

namespace ember::cli {

std::string generate_text(const GenerateRequest& r, std::FILE* out) {
  const char* ctx = "[ember generate]";
  EMBER_CHECK_VALUE(r.tokens >= 1 && r.tokens <= 1000000, ctx,
                    " --tokens must be in [1, 1000000] (got ", r.tokens, ")");
  EMBER_CHECK_VALUE(r.temperature > 0 && r.temperature <= 100, ctx,
                    " --temperature must be in (0, 100] (got ", r.temperature, ")");
  const Checkpoint c = read_checkpoint(r.checkpoint);
  EMBER_CHECK_VALUE(c.config.model == "gpt", ctx, " ", checkpoint_path(r.checkpoint), " holds a ",
                    c.config.model, " image model; generate needs a gpt checkpoint");
  CharCorpus vocab;
  vocab.vocab.assign(c.vocab.data_ptr<uint8_t>(), c.vocab.data_ptr<uint8_t>() + c.vocab.numel());
  std::string prompt_text = r.prompt;
  if (r.lenient_prompt) {
    std::erase_if(prompt_text, [&](char ch) {
      return !std::binary_search(vocab.vocab.begin(), vocab.vocab.end(), static_cast<uint8_t>(ch));
    });
    if (prompt_text.empty()) prompt_text.assign(1, static_cast<char>(vocab.vocab.front()));
  }
  const std::vector<int64_t> prompt = vocab.encode(prompt_text);
  GPT model(GPTConfig{c.config.vocab_size, c.config.context, c.config.layers, c.config.heads,
                      c.config.dim});
  model->load_state_dict(c.model);
  Generator gen(r.seed);
  std::fputs(prompt_text.c_str(), out);
  std::fflush(out);
  std::string text;
  generate(*model, prompt, SampleOptions{r.tokens, r.temperature, r.top_k}, gen, [&](int64_t id) {
    const char ch = static_cast<char>(vocab.vocab[static_cast<size_t>(id)]);
    text.push_back(ch);
    std::fputc(ch, out);
    std::fflush(out);
  });
  std::fputc('\n', out);
  return text;
}

std::string evaluate_checkpoint(const std::string& checkpoint, const std::string& data) {
  const Checkpoint c = read_checkpoint(checkpoint);
  TrainConfig config = c.config;
  if (!data.empty()) config.data = data;
  auto task = make_task(config);
  const Tensor vocab = task->vocab();
  EMBER_CHECK_VALUE(!vocab.defined() || vocab.equal(c.vocab), "[ember eval] ", config.data,
                    " has another character set than the text the checkpoint was trained on");
  task->module().load_state_dict(c.model);
  return task->report();
}

}  // namespace ember::cli
