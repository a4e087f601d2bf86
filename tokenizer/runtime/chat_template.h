// Renders a conversation as a model's chat prompt, in one of the two formats
// the supported families use:
//
// ChatML (SmolLM2, Qwen2.5, Qwen3):
//   <|im_start|>system\nYou are ...<|im_end|>\n
//   <|im_start|>user\nHello<|im_end|>\n
//   <|im_start|>assistant\n                      (add_generation_prompt)
//
// Llama 3 headers:
//   <|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n...<|eot_id|>
//   <|start_header_id|>user<|end_header_id|>\n\nHello<|eot_id|>
//   <|start_header_id|>assistant<|end_header_id|>\n\n (add_generation_prompt)
//
// Instead of a Jinja interpreter, the compiler checks that the model's
// chat_template renders exactly this (tokenizer/compiler/compile_tokenizer.py
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

enum class ChatFormat { kChatMl, kLlama3 };

// How a Llama 3 template varies between releases, as the compiler found it.
struct Llama3Options {
  // Opens every prompt: the tokenizer's bos_token, "<|begin_of_text|>".
  std::string bos;
  // Llama 3.1+ always writes a system turn, starting with a fixed preamble
  // (the knowledge cut-off and date lines); Llama 3.0 only when given.
  bool always_system = false;
  // Contents pass through Jinja's trim.
  bool trim = false;
};

class ChatTemplate {
 public:
  // ChatML. `default_system_prompt` is inserted before the first message
  // when that message is not a system message; nullopt for none.
  static ChatTemplate ChatMl(std::optional<std::string> default_system_prompt) {
    return ChatTemplate(ChatFormat::kChatMl, std::move(default_system_prompt),
                        {});
  }
  // Llama 3 headers. `system_preamble` opens the system turn (always_system).
  static ChatTemplate Llama3(Llama3Options options,
                             std::optional<std::string> system_preamble) {
    return ChatTemplate(ChatFormat::kLlama3, std::move(system_preamble),
                        std::move(options));
  }

  // The prompt text, special tokens spelled out; encode it with
  // BpeTokenizer::Encode, which recognises them. Contents are inserted
  // as the Jinja template does: a message that itself contains a special
  // token's text is the caller's business.
  std::string Apply(const std::vector<ChatMessage>& messages,
                    bool add_generation_prompt) const;

  ChatFormat format() const { return format_; }
  // ChatML's default system prompt, or Llama 3's system preamble.
  const std::optional<std::string>& default_system_prompt() const {
    return default_system_prompt_;
  }

 private:
  ChatTemplate(ChatFormat format, std::optional<std::string> system,
               Llama3Options llama3)
      : format_(format),
        default_system_prompt_(std::move(system)),
        llama3_(std::move(llama3)) {}

  std::string ApplyChatMl(const std::vector<ChatMessage>& messages,
                          bool add_generation_prompt) const;
  std::string ApplyLlama3(const std::vector<ChatMessage>& messages,
                          bool add_generation_prompt) const;

  ChatFormat format_;
  std::optional<std::string> default_system_prompt_;
  Llama3Options llama3_;
};

}  // namespace llm::tokenizer
