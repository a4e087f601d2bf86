// The interactive chat loop of llm_main --interactive and ask_main
// --interactive: each line read is a user turn, the reply streams out as it
// is sampled, and the conversation's KV cache is reused from turn to turn.
//
// Commands: /reset (a new conversation), /stats (the last turn's figures),
// /help, /quit (or end of input). Only replies (and /stats) go to `out`;
// the prompt marker appears when input is a terminal, and notices and errors
// go to `err`, so piping the output gives exactly the replies, a line each.
#pragma once

#include <cstdio>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "runtime/session/chat_session.h"

namespace llm::cli {

struct ReplOptions {
  // Generation settings, context policy and reuse; its messages are ignored.
  ChatRequest request;
  std::optional<std::string> system;  // the system message, if any
  // One JSON line per turn: a path, "-" for `err`, or "" for none.
  std::string stats_json;
  // Show "> " before each line (when reading a terminal).
  bool prompt_marker = false;
  // Turns a question into the user message, e.g. with passages retrieved
  // for it (ask_main), given the conversation before it. Identity when
  // unset. The history keeps the question itself, so later turns do not
  // carry old passages (the cache is reused up to that question).
  std::function<bool(const std::string& question,
                     const std::vector<tokenizer::ChatMessage>& history,
                     std::string* message, std::string* error)>
      user_message;
  std::string program_name = "llm_main";
};

// Runs until /quit or end of input. Returns 0, or 1 after a runtime failure
// (bad turns, such as one that does not fit the context, are reported on
// `err` and the loop goes on with the conversation unchanged).
int RunChatRepl(ChatSession* chat, const ReplOptions& options, std::istream& in,
                FILE* out, FILE* err);

}  // namespace llm::cli
