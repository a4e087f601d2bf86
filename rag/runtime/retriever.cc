#include "rag/runtime/retriever.h"

#include <chrono>

#include "rag/runtime/embedder.h"
#include "rag/runtime/flat_search.h"

namespace llm::rag {
namespace {

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

std::string RetrievedPassage::Source() const {
  return std::string(document) + ", bytes " + std::to_string(byte_start) + "-" +
         std::to_string(byte_end);
}

Retriever::Retriever(Key) {}
Retriever::~Retriever() = default;

std::unique_ptr<Retriever> Retriever::Create(const RetrieverOptions& options,
                                             std::string* error) {
  const auto start = std::chrono::steady_clock::now();
  auto retriever = std::make_unique<Retriever>(Key());
  retriever->index_ = FlatIndex::Open(options.index_path, error);
  if (!retriever->index_) return nullptr;
  retriever->embedder_ =
      Embedder::Create(options.embedder_path, options.vocab_path, error);
  if (!retriever->embedder_) return nullptr;
  const FlatIndex& index = *retriever->index_;
  const Embedder& embedder = *retriever->embedder_;
  // Vectors from two embedders are not comparable, even at the same size.
  if (index.embedder_sha256() != embedder.model_sha256()) {
    *error = "the index " + index.path() +
             " was built by another embedder (sha256 " +
             index.embedder_sha256().substr(0, 12) + "...) than " +
             options.embedder_path + " (sha256 " +
             embedder.model_sha256().substr(0, 12) +
             "...); pass the embedder the index was built with, or rebuild "
             "the index with this one (its rag_index target's `embedder`)";
    return nullptr;
  }
  if (static_cast<int64_t>(index.dim()) != embedder.dim()) {
    *error = "the index holds " + std::to_string(index.dim()) +
             "-float vectors but the embedder makes " +
             std::to_string(embedder.dim()) + "; rebuild the index";
    return nullptr;
  }
  if (options.warmup) {
    std::string ignored;
    retriever->embedder_->Embed("warm up", &ignored);
  }
  retriever->load_ms_ = MsSince(start);
  return retriever;
}

bool Retriever::Retrieve(std::string_view question, size_t k,
                         std::vector<RetrievedPassage>* passages,
                         RetrievalStats* stats, std::string* error) {
  stats->load_ms = load_ms_;
  // [CLS] question [SEP] must fit: a longer question would be cut silently
  // by the embedder and retrieve for its beginning only.
  const auto ids = embedder_->tokenizer().Encode(question);
  stats->query_tokens = static_cast<int64_t>(ids.size());
  if (ids.size() <= 2) {
    *error = "the question is empty";
    return false;
  }
  if (static_cast<int64_t>(ids.size()) > embedder_->max_tokens()) {
    *error = "the question is " + std::to_string(ids.size()) +
             " tokens with [CLS] and [SEP], over the embedder's limit of " +
             std::to_string(embedder_->max_tokens()) +
             "; ask a shorter question";
    return false;
  }
  auto start = std::chrono::steady_clock::now();
  const std::vector<float> query = embedder_->Embed(question, error);
  stats->embed_ms = MsSince(start);
  if (query.empty()) return false;

  start = std::chrono::steady_clock::now();
  const std::vector<SearchHit> hits = SearchTopK(*index_, query.data(), k);
  stats->search_ms = MsSince(start);
  passages->clear();
  for (const SearchHit& hit : hits) {
    const ChunkInfo chunk = index_->chunk(hit.chunk);
    RetrievedPassage passage;
    passage.chunk = hit.chunk;
    passage.score = hit.score;
    passage.document = index_->document_name(chunk.document);
    passage.byte_start = chunk.byte_start;
    passage.byte_end = chunk.byte_end;
    passage.text = chunk.text;
    passages->push_back(passage);
  }
  return true;
}

}  // namespace llm::rag
