#include "tokenizer/runtime/chat_template.h"

#include <string_view>

#include "tokenizer/runtime/utf8.h"

namespace llm::tokenizer {
namespace {

void AppendChatMlTurn(const std::string& role, const std::string& content,
                      std::string* out) {
  out->append("<|im_start|>").append(role).append("\n");
  out->append(content).append("<|im_end|>\n");
}

void AppendLlama3Turn(std::string_view role, std::string_view content,
                      std::string* out) {
  out->append("<|start_header_id|>").append(role);
  out->append("<|end_header_id|>\n\n").append(content).append("<|eot_id|>");
}

// Python's str.isspace() for one code point: what Jinja's trim strips.
bool IsPythonSpace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 ||
         c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

bool IsSpaceAt(std::string_view text, size_t i, size_t* length) {
  const Utf8Char c = DecodeUtf8(text.substr(i));
  *length = c.length;
  return c.valid && IsPythonSpace(c.code_point);
}

std::string_view Trim(std::string_view text) {
  size_t start = 0, length = 0;
  while (start < text.size() && IsSpaceAt(text, start, &length)) {
    start += length;
  }
  size_t end = start;
  for (size_t i = start; i < text.size(); i += length) {
    if (!IsSpaceAt(text, i, &length)) end = i + length;
  }
  return text.substr(start, end - start);
}

}  // namespace

std::string ChatTemplate::Apply(const std::vector<ChatMessage>& messages,
                                bool add_generation_prompt) const {
  return format_ == ChatFormat::kChatMl
             ? ApplyChatMl(messages, add_generation_prompt)
             : ApplyLlama3(messages, add_generation_prompt);
}

std::string ChatTemplate::ApplyChatMl(const std::vector<ChatMessage>& messages,
                                      bool add_generation_prompt) const {
  std::string prompt;
  for (size_t i = 0; i < messages.size(); ++i) {
    // Only the first message is checked, as in the template: a conversation
    // that starts with the assistant still gets the default system prompt.
    if (i == 0 && messages[0].role != "system" && default_system_prompt_) {
      AppendChatMlTurn("system", *default_system_prompt_, &prompt);
    }
    AppendChatMlTurn(messages[i].role, messages[i].content, &prompt);
  }
  if (add_generation_prompt) prompt.append("<|im_start|>assistant\n");
  return prompt;
}

std::string ChatTemplate::ApplyLlama3(const std::vector<ChatMessage>& messages,
                                      bool add_generation_prompt) const {
  const auto content = [&](const std::string& text) {
    return llama3_.trim ? Trim(text) : std::string_view(text);
  };
  std::string prompt;
  size_t first = 0;
  if (llama3_.always_system) {
    std::string system = default_system_prompt_.value_or("");
    if (!messages.empty() && messages[0].role == "system") {
      system.append(content(messages[0].content));
      first = 1;
    }
    prompt.append(llama3_.bos);
    AppendLlama3Turn("system", system, &prompt);
  } else if (!messages.empty()) {
    prompt.append(llama3_.bos);
  }
  for (size_t i = first; i < messages.size(); ++i) {
    AppendLlama3Turn(messages[i].role, content(messages[i].content), &prompt);
  }
  if (add_generation_prompt) {
    prompt.append("<|start_header_id|>assistant<|end_header_id|>\n\n");
  }
  return prompt;
}

}  // namespace llm::tokenizer
