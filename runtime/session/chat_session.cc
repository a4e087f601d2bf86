#include "runtime/session/chat_session.h"

#include <utility>

#include "tokenizer/runtime/utf8_stream.h"

namespace llm {

std::unique_ptr<ChatSession> ChatSession::Open(const ChatOptions& options,
                                               std::string* error) {
  auto chat = std::make_unique<ChatSession>(Key());
  chat->tokenizer_ =
      tokenizer::BpeTokenizer::FromFile(options.tokenizer_path, error);
  if (!chat->tokenizer_) return nullptr;

  RunnerOptions runner_options;
  runner_options.program = options.program;
  runner_options.threads = options.threads;
  runner_options.warmup = options.warmup;
  runner_options.draft = options.draft;
  chat->session_ = LlmSession::Create(runner_options, error);
  if (!chat->session_) return nullptr;

  const int64_t model_vocab = chat->limits().vocab_size;
  if (chat->tokenizer_->vocab_size() > model_vocab) {
    *error = "the tokenizer " + options.tokenizer_path + " has " +
             std::to_string(chat->tokenizer_->vocab_size()) +
             " tokens but the model " + options.program.pte_path + " only " +
             std::to_string(model_vocab) +
             ": ship the tokenizer this model was exported with";
    return nullptr;
  }
  return chat;
}

std::vector<int64_t> ChatSession::EncodeChat(
    const std::vector<tokenizer::ChatMessage>& messages) const {
  std::string text;
  if (const tokenizer::ChatTemplate* chat = tokenizer_->chat_template()) {
    text = chat->Apply(messages, /*add_generation_prompt=*/true);
  } else {
    for (const auto& message : messages) text += message.content + "\n";
  }
  std::vector<int64_t> ids;
  for (int32_t id : tokenizer_->Encode(text)) ids.push_back(id);
  return ids;
}

bool ChatSession::Generate(const ChatRequest& request,
                           const PieceCallback& on_piece,
                           GenerationStats* stats, std::string* error) {
  stop_requested_.store(false);
  ContextFit fit;
  // The policy stops at the first candidate that fits: the last one encoded.
  std::vector<int64_t> ids;
  const auto count = [&](const std::vector<tokenizer::ChatMessage>& m) {
    ids = EncodeChat(m);
    return static_cast<int64_t>(ids.size());
  };
  if (!FitConversation(request.messages, request.context_policy,
                       limits().max_context_len, request.reply_reserve, count,
                       &fit, error)) {
    session_->runner().BeginStats(stats);
    return false;
  }
  GenerationConfig config;
  config.max_new_tokens = request.max_new_tokens;
  config.sampler.temperature = request.temperature;
  config.sampler.top_p = request.top_p;
  config.sampler.seed = request.seed;
  config.forced_tokens = request.forced_tokens;
  config.speculation = request.speculation;
  for (int32_t id : tokenizer_->stop_ids()) config.extra_stop_ids.push_back(id);
  *error = session_->runner().CheckConfig(config);
  if (!error->empty()) {
    session_->runner().BeginStats(stats);
    return false;
  }

  if (!request.reuse_cache) session_->Reset();
  if (!session_->Prefill(ids, stats, error)) return false;
  stats->dropped_turns = fit.dropped_turns;

  Utf8Stream stream;
  const auto on_token = [&](int64_t token) {
    if (stop_requested_.load()) return false;
    const std::string text =
        stream.Push(tokenizer_->TokenBytes(static_cast<int32_t>(token)));
    return on_piece(token, text) && !stop_requested_.load();
  };
  // Bytes still held back at the end are an incomplete character (the reply
  // was cut mid-character): not valid text, so they are dropped.
  return session_->Generate(config, on_token, stats, error);
}

}  // namespace llm
