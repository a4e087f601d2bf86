// Question -> the index's best passages, on the device: the query is
// embedded with the same .pte that built the index, then searched exactly in
// the mmap'd flat index (flat_search.h). Shared by the ask CLI and the
// Android app's RAG seam.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rag/runtime/flat_index.h"

namespace llm::rag {

class Embedder;

struct RetrieverOptions {
  std::string index_path;     // <name>.flat from a rag_index target
  std::string embedder_path;  // the embedder .pte that built the index
  std::string vocab_path;     // its WordPiece vocab.txt
  // Embed one throw-away text at load, so first-use costs (XNNPACK weight
  // packing, page faults) are not timed as the first query's embed_ms.
  bool warmup = false;
};

struct RetrievedPassage {
  uint32_t chunk = 0;
  float score = 0;
  std::string_view document;  // file name, e.g. "persuasion.txt"
  uint64_t byte_start = 0;    // in the document
  uint64_t byte_end = 0;
  std::string_view text;  // the chunk (views into the mmap'd index)

  // "persuasion.txt, bytes 1200-1734"
  std::string Source() const;
};

struct RetrievalStats {
  double load_ms = 0;   // index mmap + embedder load (+ warm-up)
  double embed_ms = 0;  // the query
  double search_ms = 0;
  int64_t query_tokens = 0;  // the embedder's WordPiece tokens
};

class Retriever {
 public:
  // Opens both and checks that the index records this embedder's sha256
  // (an index built by another embedder is an error that says to rebuild).
  // Size ExecuTorch's thread pool (llm::SetThreadCount) before this, not
  // after: the embedder's XNNPACK delegate keeps the pool it loaded with.
  static std::unique_ptr<Retriever> Create(const RetrieverOptions& options,
                                           std::string* error);
  ~Retriever();

  // The top `k` passages for `question`, best first. False + error for an
  // empty question or one longer than the embedder's token limit.
  bool Retrieve(std::string_view question, size_t k,
                std::vector<RetrievedPassage>* passages, RetrievalStats* stats,
                std::string* error);

  const FlatIndex& index() const { return *index_; }
  double load_ms() const { return load_ms_; }

  struct Key {
   private:
    friend class Retriever;
    Key() = default;
  };
  explicit Retriever(Key);

 private:
  std::unique_ptr<FlatIndex> index_;
  std::unique_ptr<Embedder> embedder_;
  double load_ms_ = 0;
};

}  // namespace llm::rag
