#include "runtime/cli/chat_repl.h"

#include <fstream>
#include <vector>

namespace llm::cli {
namespace {

std::string Trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

std::string Describe(int turn, const GenerationStats& s, int64_t position,
                     int64_t context) {
  char line[320];
  std::snprintf(
      line, sizeof(line),
      "turn %d: %lld prompt tokens (%lld reused, %lld prefilled%s), "
      "TTFT %.1f ms, %lld tokens at %.1f tok/s, stop: %s; context "
      "%lld/%lld\n",
      turn, static_cast<long long>(s.prompt_tokens),
      static_cast<long long>(s.reused_tokens),
      static_cast<long long>(s.prefilled_tokens),
      s.dropped_turns > 0
          ? (", " + std::to_string(s.dropped_turns) + " oldest turns left out")
                .c_str()
          : "",
      s.ttft_ms, static_cast<long long>(s.generated_tokens),
      s.DecodeTokensPerSecond(), s.stop_reason.c_str(),
      static_cast<long long>(position), static_cast<long long>(context));
  return line;
}

}  // namespace

int RunChatRepl(ChatSession* chat, const ReplOptions& options, std::istream& in,
                FILE* out, FILE* err) {
  std::vector<tokenizer::ChatMessage> history;
  if (options.system) history.push_back({"system", *options.system});
  std::ofstream stats_file;
  if (!options.stats_json.empty() && options.stats_json != "-") {
    stats_file.open(options.stats_json);
    if (!stats_file) {
      std::fprintf(err, "%s: error: cannot write --stats_json=%s\n",
                   options.program_name.c_str(), options.stats_json.c_str());
      return 1;
    }
  }
  std::fprintf(err,
               "%s: ready, context %lld tokens. Type a message; /reset starts "
               "over, /stats shows the last turn, /quit exits.\n",
               options.program_name.c_str(),
               static_cast<long long>(chat->limits().max_context_len));

  int turn = 0;
  std::optional<GenerationStats> last;
  std::string line;
  for (;;) {
    if (options.prompt_marker) {
      std::fputs("> ", out);
      std::fflush(out);
    }
    if (!std::getline(in, line)) break;
    const std::string text = Trim(line);
    if (text.empty()) continue;
    if (text == "/quit" || text == "/exit") break;
    if (text == "/reset") {
      history.resize(options.system ? 1 : 0);
      chat->Reset();
      last.reset();
      turn = 0;
      std::fputs("(new conversation)\n", err);
      continue;
    }
    if (text == "/stats") {
      std::fputs(last ? Describe(turn, *last, chat->session().position(),
                                 chat->limits().max_context_len)
                            .c_str()
                      : "no turn yet\n",
                 out);
      continue;
    }
    if (text == "/help") {
      std::fputs(
          "/reset starts a new conversation, /stats shows the last "
          "turn's figures, /quit exits\n",
          err);
      continue;
    }
    if (text[0] == '/') {
      std::fprintf(err, "unknown command %s: /reset, /stats, /help, /quit\n",
                   text.c_str());
      continue;
    }

    std::string message = text;
    std::string error;
    if (options.user_message &&
        !options.user_message(text, history, &message, &error)) {
      std::fprintf(err, "%s: error: %s\n", options.program_name.c_str(),
                   error.c_str());
      continue;
    }
    ChatRequest request = options.request;
    request.messages = history;
    request.messages.push_back({"user", message});
    std::string reply;
    GenerationStats stats;
    const bool ok = chat->Generate(
        request,
        [&](int64_t, const std::string& piece) {
          reply += piece;
          std::fwrite(piece.data(), 1, piece.size(), out);
          std::fflush(out);
          return true;
        },
        &stats, &error);
    if (!reply.empty() || ok) std::fputs("\n", out);
    if (!ok) {
      std::fprintf(err, "%s: error: %s\n", options.program_name.c_str(),
                   error.c_str());
      // A turn that could not start leaves the conversation as it was; a
      // failure mid-reply is the runtime's, and ends the session.
      if (stats.prompt_tokens == 0) continue;
      return 1;
    }
    ++turn;
    history.push_back({"user", text});
    history.push_back({"assistant", reply});
    if (stats.dropped_turns > 0) {
      std::fprintf(err, "(%lld oldest turns left out to fit the context)\n",
                   static_cast<long long>(stats.dropped_turns));
    }
    last = stats;
    const std::string json = stats.ToJson(/*one_line=*/true);
    if (options.stats_json == "-") {
      std::fputs(json.c_str(), err);
    } else if (stats_file.is_open()) {
      stats_file << json << std::flush;
    }
  }
  return 0;
}

}  // namespace llm::cli
