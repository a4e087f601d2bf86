// ask: answers a question from a document index on the device, with no
// network: embeds the question, retrieves the best passages from the flat
// index, fits them into the model's context (prompt_assembly.h), streams
// the answer and then lists its sources.
//
//   ask --index=austen_int8.flat --embedder=minilm_l6_int8.pte
//       --vocab=vocab.txt --model=llama_int4.pte --tokenizer=smollm2.tok
//       "Whom was Louisa Musgrove to marry?"
//   ask ... --interactive      (follow-up questions: each one retrieves
//                               again; the conversation's KV cache is reused)
//
// Exit codes: 0 success, 1 a model or runtime failure, 2 bad flags or input.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "rag/runtime/prompt_assembly.h"
#include "rag/runtime/retriever.h"
#include "runtime/cli/chat_repl.h"
#include "runtime/generation_stats.h"
#include "runtime/llm_runner.h"
#include "runtime/runtime_log.h"
#include "runtime/session/chat_session.h"
#include "runtime/threadpool_control.h"
#include "tokenizer/runtime/bpe_tokenizer.h"
#include "tokenizer/runtime/utf8_stream.h"

namespace {

constexpr int kRuntimeError = 1;
constexpr int kUsageError = 2;

constexpr const char kUsage[] = R"(usage: ask [flags] "question"
       ask [flags] --interactive

Flags take --name=value or --name value.

Index and embedder:
  --index=PATH           the .flat file of a rag_index target
  --embedder=PATH        the embedder .pte that built the index
  --vocab=PATH           the embedder's vocab.txt
  --top_k=N              passages to retrieve and offer the model [3]
Answering:
  --model=PATH           the language model .pte
  --tokenizer=PATH       its compiled tokenizer (.tok)
  --max_new_tokens=N     [128]
  --context_tokens=N     prompt + answer budget [the model's context length]
  --whole_answer         keep generating past the first paragraph (by
                         default the answer ends at its first blank line:
                         a small model tends to repeat itself after it)
  --retrieve_only        print the passages, do not generate
  --show_prompt          print the assembled prompt on stderr
  --interactive          one question per line on stdin, follow-ups welcome:
                         each retrieves again and reuses the conversation's
                         KV cache; /reset, /stats, /quit
  --context_policy=P     (--interactive) when the conversation outgrows the
                         context: error or drop_oldest_turns [error]
  --speculative=MODE     off; prompt_lookup: draft the answer's next tokens
                         from the passages; or draft: with --draft_model. A
                         draft is verified in one call; the answer is
                         unchanged (llm_main --help) [off]
  --draft_model=PATH     a smaller .pte with the model's tokenizer, for
                         --speculative=draft
Runtime:
  --threads=N            CPU threads [half the cores]
  --warmup               warm up both models before timing
  --stats_json=PATH      retrieval and generation figures ("-" = stderr)
)";

llm::cli::FlagSet DeclareFlags() {
  llm::cli::FlagSet flags("ask", kUsage);
  flags.Positionals(1, "question (quote it)");
  for (const char* name :
       {"index", "embedder", "vocab", "top_k", "model", "tokenizer",
        "max_new_tokens", "context_tokens", "threads", "stats_json",
        "context_policy", "speculative", "draft_model"}) {
    flags.Value(name);
  }
  for (const char* name : {"retrieve_only", "show_prompt", "warmup", "help",
                           "whole_answer", "interactive"}) {
    flags.Bool(name);
  }
  return flags;
}

bool ParseCount(const llm::cli::FlagSet& flags, const std::string& name,
                long fallback, long* out, std::string* error) {
  double value = 0;
  if (!flags.Number(name, static_cast<double>(fallback), &value, error)) {
    return false;
  }
  *out = static_cast<long>(value);
  if (value < 0 || static_cast<double>(*out) != value) {
    *error = "--" + name + "=" + flags.Get(name) +
             " is not a count (an integer >= 0)";
    return false;
  }
  return true;
}

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "ask: error: %s\n", message.c_str());
  return code;
}

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string RetrievalJson(const std::vector<llm::rag::RetrievedPassage>& hits,
                          const llm::rag::RetrievalStats& stats,
                          const llm::rag::AssembledPrompt* prompt,
                          const std::string& index_sha, const char* dtype) {
  std::string json = "{\n    \"embedder_sha256\": " + JsonString(index_sha) +
                     ",\n    \"vector_dtype\": " + JsonString(dtype);
  char figures[256];
  std::snprintf(figures, sizeof(figures),
                ",\n    \"load_ms\": %.3f,\n    \"embed_ms\": %.3f,\n    "
                "\"search_ms\": %.4f,\n    \"query_tokens\": %lld",
                stats.load_ms, stats.embed_ms, stats.search_ms,
                static_cast<long long>(stats.query_tokens));
  json += figures;
  if (prompt != nullptr) {
    json +=
        ",\n    \"prompt_tokens\": " + std::to_string(prompt->ids.size()) +
        ",\n    \"budget_tokens\": " + std::to_string(prompt->budget_tokens) +
        ",\n    \"passages_used\": " + std::to_string(prompt->passages_used) +
        ",\n    \"last_passage_truncated\": " +
        (prompt->last_passage_truncated ? "true" : "false");
  }
  json += ",\n    \"passages\": [";
  for (size_t i = 0; i < hits.size(); ++i) {
    char score[32];
    std::snprintf(score, sizeof(score), "%.6f", hits[i].score);
    json += std::string(i ? ", " : "") +
            "{\"chunk\": " + std::to_string(hits[i].chunk) +
            ", \"document\": " + JsonString(hits[i].document) +
            ", \"byte_start\": " + std::to_string(hits[i].byte_start) +
            ", \"byte_end\": " + std::to_string(hits[i].byte_end) +
            ", \"score\": " + score + "}";
  }
  return json + "]\n  }";
}

bool WriteStats(const std::string& path, const std::string& json,
                std::string* error) {
  if (path == "-") {
    std::fputs(json.c_str(), stderr);
    return true;
  }
  std::ofstream out(path);
  out << json;
  if (!out) *error = "cannot write --stats_json=" + path;
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  llm::cli::FlagSet flags = DeclareFlags();
  std::string error;
  const bool parsed = flags.Parse(argc, argv, &error);
  if (flags.help()) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!parsed) return Fail(kUsageError, error);
  const std::string question =
      flags.positionals().empty() ? "" : flags.positionals()[0];
  llm::cli::ResolveUserPaths(
      &flags,
      {"index", "embedder", "vocab", "model", "tokenizer", "draft_model"},
      {"stats_json"});
  llm::SetRuntimeLogVerbose(false);
  const bool retrieve_only = flags.On("retrieve_only");
  const bool interactive = flags.On("interactive");
  for (const char* required : {"index", "embedder", "vocab"}) {
    if (!flags.Has(required)) {
      return Fail(kUsageError, std::string("--") + required +
                                   " is required (or use bazel run "
                                   "//models:ask, which bundles them)");
    }
  }
  if (!retrieve_only && (!flags.Has("model") || !flags.Has("tokenizer"))) {
    return Fail(kUsageError,
                "--model and --tokenizer are required to answer (or pass "
                "--retrieve_only)");
  }
  if (interactive && (retrieve_only || !question.empty())) {
    return Fail(kUsageError,
                "--interactive reads its questions from stdin: drop the "
                "question argument and --retrieve_only");
  }
  if (!interactive &&
      question.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Fail(kUsageError,
                "give a question, e.g. ask ... \"Who rented "
                "Kellynch Hall?\"");
  }
  long top_k = 0, max_new_tokens = 0, context_tokens = 0, threads = 0;
  if (!ParseCount(flags, "top_k", 3, &top_k, &error) ||
      !ParseCount(flags, "max_new_tokens", 128, &max_new_tokens, &error) ||
      !ParseCount(flags, "context_tokens", 0, &context_tokens, &error) ||
      !ParseCount(flags, "threads", 0, &threads, &error)) {
    return Fail(kUsageError, error);
  }
  if (top_k == 0) return Fail(kUsageError, "--top_k must be at least 1");
  llm::SpeculationConfig speculation;
  if (!llm::ParseSpeculation(flags.Get("speculative", "off"), &speculation.mode,
                             &error)) {
    return Fail(kUsageError, error);
  }
  llm::ProgramOptions draft;
  draft.pte_path = flags.Get("draft_model");
  if (speculation.mode == llm::Speculation::kDraft && draft.pte_path.empty()) {
    return Fail(kUsageError,
                "--speculative=draft needs --draft_model, a smaller program "
                "exported with the model's tokenizer");
  }
  if (speculation.mode != llm::Speculation::kDraft && !draft.pte_path.empty()) {
    std::fprintf(stderr,
                 "ask: note: --draft_model is not loaded: it drafts only with "
                 "--speculative=draft\n");
    draft.pte_path.clear();
  }
  const bool warmup = flags.On("warmup");

  // Size ExecuTorch's thread pool once, before any program loads: resizing
  // it later leaves the embedder's XNNPACK delegate with a stale pool.
  const uint32_t thread_count = llm::SetThreadCount(
      threads > 0 ? static_cast<uint32_t>(threads) : llm::DefaultThreadCount());

  llm::rag::RetrieverOptions retriever_options;
  retriever_options.index_path = flags.Get("index");
  retriever_options.embedder_path = flags.Get("embedder");
  retriever_options.vocab_path = flags.Get("vocab");
  retriever_options.warmup = warmup;
  auto retriever = llm::rag::Retriever::Create(retriever_options, &error);
  if (!retriever) return Fail(kUsageError, error);

  if (interactive) {
    llm::ChatOptions chat_options;
    chat_options.program.pte_path = flags.Get("model");
    chat_options.tokenizer_path = flags.Get("tokenizer");
    chat_options.threads = thread_count;
    chat_options.warmup = warmup;
    chat_options.draft = draft;
    llm::cli::ReplOptions repl;
    repl.program_name = "ask";
    if (!llm::ParseContextPolicy(flags.Get("context_policy", "error"),
                                 &repl.request.context_policy, &error)) {
      return Fail(kUsageError, "--context_policy: " + error);
    }
    auto chat = llm::ChatSession::Open(chat_options, &error);
    if (!chat) return Fail(kRuntimeError, error);
    const llm::rag::PromptOptions defaults;
    repl.system = defaults.system_prompt;
    repl.request.max_new_tokens = max_new_tokens;
    repl.request.reply_reserve = max_new_tokens;
    repl.request.speculation = speculation;
    repl.stats_json = flags.Get("stats_json");
    repl.prompt_marker = isatty(STDIN_FILENO) != 0;
    // Each question retrieves again; its passages get what the conversation
    // so far leaves of the context.
    repl.user_message =
        [&](const std::string& text,
            const std::vector<llm::tokenizer::ChatMessage>& history,
            std::string* message, std::string* why) {
          std::vector<llm::rag::RetrievedPassage> found;
          llm::rag::RetrievalStats figures;
          if (!retriever->Retrieve(text, static_cast<size_t>(top_k), &found,
                                   &figures, why)) {
            return false;
          }
          std::vector<std::string_view> texts;
          for (const auto& hit : found) texts.push_back(hit.text);
          // AssemblePrompt counts the system message itself.
          const auto earlier =
              static_cast<int64_t>(chat->EncodeChat(history).size() -
                                   chat->EncodeChat({history.front()}).size());
          llm::rag::PromptOptions options;
          options.context_tokens = chat->limits().max_context_len - earlier;
          options.max_new_tokens = max_new_tokens;
          llm::rag::AssembledPrompt assembled;
          if (!llm::rag::AssemblePrompt(chat->tokenizer(), text, texts, options,
                                        &assembled, why)) {
            *why += " (the conversation so far leaves " +
                    std::to_string(options.context_tokens) +
                    " tokens; /reset starts a new one)";
            return false;
          }
          *message = assembled.user_message;
          std::string sources;
          for (size_t i = 0; i < assembled.passages_used; ++i) {
            sources += (i ? ", " : "") + found[i].Source();
          }
          std::fprintf(stderr, "(sources: %s)\n", sources.c_str());
          return true;
        };
    return llm::cli::RunChatRepl(chat.get(), repl, std::cin, stdout, stderr);
  }

  std::vector<llm::rag::RetrievedPassage> hits;
  llm::rag::RetrievalStats retrieval;
  if (!retriever->Retrieve(question, static_cast<size_t>(top_k), &hits,
                           &retrieval, &error)) {
    return Fail(kUsageError, error);
  }
  const std::string index_sha = retriever->index().embedder_sha256();
  const char* dtype =
      llm::rag::VectorTypeName(retriever->index().vector_type());

  if (retrieve_only) {
    for (size_t i = 0; i < hits.size(); ++i) {
      std::printf("[%zu] %s (score %.3f)\n%.*s\n\n", i + 1,
                  hits[i].Source().c_str(), hits[i].score,
                  static_cast<int>(hits[i].text.size()), hits[i].text.data());
    }
    if (flags.Has("stats_json") &&
        !WriteStats(
            flags.Get("stats_json"),
            "{\n  \"retrieval\": " +
                RetrievalJson(hits, retrieval, nullptr, index_sha, dtype) +
                "\n}\n",
            &error)) {
      return Fail(kRuntimeError, error);
    }
    return 0;
  }

  auto tokenizer =
      llm::tokenizer::BpeTokenizer::FromFile(flags.Get("tokenizer"), &error);
  if (!tokenizer) return Fail(kUsageError, error);
  llm::RunnerOptions runner_options;
  runner_options.program.pte_path = flags.Get("model");
  runner_options.threads = thread_count;
  runner_options.warmup = warmup;
  runner_options.draft = draft;
  auto runner = llm::LlmRunner::Create(runner_options, &error);
  if (!runner) return Fail(kRuntimeError, error);

  std::vector<std::string_view> passages;
  for (const auto& hit : hits) passages.push_back(hit.text);
  llm::rag::PromptOptions prompt_options;
  prompt_options.context_tokens =
      context_tokens > 0 ? context_tokens : runner->limits().max_context_len;
  prompt_options.max_new_tokens = max_new_tokens;
  llm::rag::AssembledPrompt prompt;
  if (!llm::rag::AssemblePrompt(*tokenizer, question, passages, prompt_options,
                                &prompt, &error)) {
    return Fail(kUsageError, error);
  }
  if (flags.On("show_prompt")) {
    std::fprintf(stderr, "%s\n", prompt.text.c_str());
  }
  if (prompt.passages_used < hits.size() || prompt.last_passage_truncated) {
    std::fprintf(
        stderr,
        "ask: note: %zu of %zu passages fit the %lld-token budget "
        "whole%s; the rest were left out\n",
        prompt.passages_used - (prompt.last_passage_truncated ? 1 : 0),
        hits.size(), static_cast<long long>(prompt.budget_tokens),
        prompt.last_passage_truncated ? " (the best one was cut)" : "");
  }

  llm::GenerationConfig config;
  config.max_new_tokens = max_new_tokens;
  config.speculation = speculation;
  for (int32_t id : tokenizer->stop_ids()) config.extra_stop_ids.push_back(id);
  std::vector<int64_t> ids(prompt.ids.begin(), prompt.ids.end());
  const bool whole_answer = flags.On("whole_answer");
  llm::Utf8Stream stream;
  std::string answer;  // what has been printed
  bool cut = false;
  const auto on_token = [&](int64_t token) {
    const std::string text =
        stream.Push(tokenizer->TokenBytes(static_cast<int32_t>(token)));
    if (!whole_answer && answer.find_first_not_of(" \n") != std::string::npos) {
      const std::string combined = answer + text;
      const size_t end = combined.find("\n\n", answer.size() - 1);
      if (end != std::string::npos) {
        // The first paragraph is the answer.
        const size_t keep = end > answer.size() ? end - answer.size() : 0;
        std::fwrite(text.data(), 1, keep, stdout);
        cut = true;
        return false;
      }
    }
    answer += text;
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return true;
  };
  llm::GenerationStats generation;
  const bool ok = runner->Generate(ids, config, on_token, &generation, &error);
  const std::string rest = cut ? "" : stream.Flush();
  std::fwrite(rest.data(), 1, rest.size(), stdout);
  if (!ok) return Fail(kRuntimeError, error);
  if (speculation.mode != llm::Speculation::kOff &&
      generation.speculation.rfind("off", 0) == 0) {
    std::fprintf(stderr, "ask: note: speculative decoding %s\n",
                 generation.speculation.c_str());
  }

  std::printf(!answer.empty() && answer.back() == '\n' ? "\nSources:\n"
                                                       : "\n\nSources:\n");
  for (size_t i = 0; i < prompt.passages_used; ++i) {
    std::printf("  [%zu] %s (score %.3f)%s\n", i + 1, hits[i].Source().c_str(),
                hits[i].score,
                i + 1 == prompt.passages_used && prompt.last_passage_truncated
                    ? " (cut to fit)"
                    : "");
  }
  std::fflush(stdout);

  if (flags.Has("stats_json")) {
    generation.model_sha256 = runner->ProgramSha256();
    const std::string json =
        "{\n  \"retrieval\": " +
        RetrievalJson(hits, retrieval, &prompt, index_sha, dtype) +
        ",\n  \"generation\": " + generation.ToJson() + "\n}\n";
    if (!WriteStats(flags.Get("stats_json"), json, &error))
      return Fail(kRuntimeError, error);
  }
  return 0;
}
