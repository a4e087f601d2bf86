#include "runtime/tokenizer/chat_template.h"

namespace llm::tokenizer {
namespace {

void AppendTurn(const std::string& role, const std::string& content,
                std::string* out) {
  out->append("<|im_start|>").append(role).append("\n");
  out->append(content).append("<|im_end|>\n");
}

}  // namespace

std::string ChatMlTemplate::Apply(const std::vector<ChatMessage>& messages,
                                  bool add_generation_prompt) const {
  std::string prompt;
  for (size_t i = 0; i < messages.size(); ++i) {
    // Only the first message is checked, as in the template: a conversation
    // that starts with the assistant still gets the default system prompt.
    if (i == 0 && messages[0].role != "system" && default_system_prompt_) {
      AppendTurn("system", *default_system_prompt_, &prompt);
    }
    AppendTurn(messages[i].role, messages[i].content, &prompt);
  }
  if (add_generation_prompt) prompt.append("<|im_start|>assistant\n");
  return prompt;
}

}  // namespace llm::tokenizer
