#include "rag/runtime/prompt_assembly.h"

#include <cctype>

namespace llm::rag {
namespace {

// The documents are hard-wrapped text; one space per whitespace run saves
// tokens and reads as prose to the model.
std::string CollapseWhitespace(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
    } else {
      if (space) out += ' ';
      space = false;
      out += c;
    }
  }
  return out;
}

std::string UserMessage(std::string_view question,
                        const std::vector<std::string>& passages) {
  std::string message = "Read the text and answer the question.\n\nText:\n";
  for (size_t i = 0; i < passages.size(); ++i) {
    message += passages[i] + "\n\n";
  }
  message += "Question: ";
  message.append(question.data(), question.size());
  message += "\nAnswer in one short sentence.";
  return message;
}

}  // namespace

bool AssemblePrompt(const tokenizer::BpeTokenizer& tokenizer,
                    std::string_view question,
                    const std::vector<std::string_view>& passages,
                    const PromptOptions& options, AssembledPrompt* out,
                    std::string* error) {
  const tokenizer::ChatTemplate* chat = tokenizer.chat_template();
  if (chat == nullptr) {
    *error =
        "the tokenizer has no chat template; answering needs an instruct "
        "model's tokenizer (e.g. //tokenizer/runtime:smollm2)";
    return false;
  }
  const int64_t budget = options.context_tokens - options.max_new_tokens;
  const std::string clean_question = CollapseWhitespace(question);
  std::vector<std::string> texts;
  const auto render = [&](AssembledPrompt* prompt) {
    prompt->user_message = UserMessage(clean_question, texts);
    prompt->text = chat->Apply(
        {{"system", options.system_prompt}, {"user", prompt->user_message}},
        /*add_generation_prompt=*/true);
    prompt->ids = tokenizer.Encode(prompt->text);
    return static_cast<int64_t>(prompt->ids.size()) <= budget;
  };

  AssembledPrompt prompt;
  prompt.budget_tokens = budget;
  if (clean_question.empty()) {
    *error = "the question is empty";
    return false;
  }
  if (!render(&prompt)) {
    *error = "the question alone makes a " + std::to_string(prompt.ids.size()) +
             "-token prompt, over the " + std::to_string(budget) +
             "-token budget (context " +
             std::to_string(options.context_tokens) + " - " +
             std::to_string(options.max_new_tokens) +
             " new tokens); shorten the question or lower --max_new_tokens";
    return false;
  }
  for (std::string_view passage : passages) {
    texts.push_back(CollapseWhitespace(passage));
    AssembledPrompt candidate;
    if (render(&candidate)) {
      prompt = std::move(candidate);
      prompt.budget_tokens = budget;
      prompt.passages_used = texts.size();
      continue;
    }
    if (texts.size() == 1) {
      // Not even the best passage fits whole: keep its longest word-bounded
      // prefix that does (binary search over the cut's word count).
      const std::string whole = texts[0];
      std::vector<size_t> word_ends;
      for (size_t i = 1; i <= whole.size(); ++i) {
        if (i == whole.size() || whole[i] == ' ') word_ends.push_back(i);
      }
      size_t low = 0, high = word_ends.size();  // fits(low) is known true
      AssembledPrompt best;
      while (low < high) {
        const size_t mid = (low + high + 1) / 2;
        texts[0] = whole.substr(0, word_ends[mid - 1]) + " ...";
        if (render(&candidate)) {
          low = mid;
          best = std::move(candidate);
        } else {
          high = mid - 1;
        }
      }
      if (low > 0) {
        prompt = std::move(best);
        prompt.budget_tokens = budget;
        prompt.passages_used = 1;
        prompt.last_passage_truncated = true;
      }
    }
    break;
  }
  *out = std::move(prompt);
  return true;
}

}  // namespace llm::rag
