#include "runtime/jni/llm_session.h"

#include <utility>

#include "runtime/utf8_stream.h"

namespace llm {

std::unique_ptr<LlmSession> LlmSession::Open(const SessionOptions& options,
                                             std::string* error) {
  auto session = std::make_unique<LlmSession>(Key());
  session->tokenizer_ =
      tokenizer::BpeTokenizer::FromFile(options.tokenizer_path, error);
  if (!session->tokenizer_) return nullptr;

  RunnerOptions runner_options;
  runner_options.program.pte_path = options.pte_path;
  runner_options.threads = options.threads;
  runner_options.warmup = options.warmup;
  session->runner_ = LlmRunner::Create(runner_options, error);
  if (!session->runner_) return nullptr;

  const int64_t model_vocab = session->runner_->limits().vocab_size;
  if (session->tokenizer_->vocab_size() > model_vocab) {
    *error = "the tokenizer " + options.tokenizer_path + " has " +
             std::to_string(session->tokenizer_->vocab_size()) +
             " tokens but the model " + options.pte_path + " only " +
             std::to_string(model_vocab) +
             ": ship the tokenizer this model was exported with";
    return nullptr;
  }
  return session;
}

std::vector<int64_t> LlmSession::EncodeChat(
    const std::vector<tokenizer::ChatMessage>& messages) const {
  std::string text;
  if (const tokenizer::ChatMlTemplate* chat = tokenizer_->chat_template()) {
    text = chat->Apply(messages, /*add_generation_prompt=*/true);
  } else {
    for (const auto& message : messages) text += message.content + "\n";
  }
  std::vector<int64_t> ids;
  for (int32_t id : tokenizer_->Encode(text)) ids.push_back(id);
  return ids;
}

bool LlmSession::Generate(const SessionRequest& request,
                          const PieceCallback& on_piece, GenerationStats* stats,
                          std::string* error) {
  stop_requested_.store(false);
  if (request.messages.empty()) {
    *error = "no messages to answer: pass at least one user message";
    return false;
  }
  GenerationConfig config;
  config.max_new_tokens = request.max_new_tokens;
  config.sampler.temperature = request.temperature;
  config.sampler.top_p = request.top_p;
  config.sampler.seed = request.seed;
  for (int32_t id : tokenizer_->stop_ids()) config.extra_stop_ids.push_back(id);

  Utf8Stream stream;
  const auto on_token = [&](int64_t token) {
    if (stop_requested_.load()) return false;
    const std::string text =
        stream.Push(tokenizer_->TokenBytes(static_cast<int32_t>(token)));
    return on_piece(token, text) && !stop_requested_.load();
  };
  // Bytes still held back at the end are an incomplete character (the reply
  // was cut mid-character): not valid text, so they are dropped.
  return runner_->Generate(EncodeChat(request.messages), config, on_token,
                           stats, error);
}

}  // namespace llm
