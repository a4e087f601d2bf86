// Renders a conversation as a ChatML prompt, the chat template of SmolLM2 and
// many other models:
//
//   <|im_start|>system\nYou are ...<|im_end|>\n
//   <|im_start|>user\nHello<|im_end|>\n
//   <|im_start|>assistant\n                      (add_generation_prompt)
//
// Instead of a Jinja interpreter, the compiler checks that the model's
// chat_template renders exactly this (tools/tokenizer/compile_tokenizer.py
// probes it with jinja2), so C++ only has to produce the same string.

#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llm::tokenizer {

struct ChatMessage {
  std::string role;  // "system", "user", "assistant", ...
  std::string content;
};

class ChatMlTemplate {
 public:
  // `default_system_prompt` is inserted before the first message when that
  // message is not a system message; nullopt for templates without one.
  explicit ChatMlTemplate(std::optional<std::string> default_system_prompt)
      : default_system_prompt_(std::move(default_system_prompt)) {}

  // The prompt text, special tokens spelled out; encode it with
  // BpeTokenizer::Encode, which recognises them. Contents are inserted
  // verbatim, as the Jinja template does: a message that itself contains
  // "<|im_end|>" is the caller's business.
  std::string Apply(const std::vector<ChatMessage>& messages,
                    bool add_generation_prompt) const;

  const std::optional<std::string>& default_system_prompt() const {
    return default_system_prompt_;
  }

 private:
  std::optional<std::string> default_system_prompt_;
};

}  // namespace llm::tokenizer
