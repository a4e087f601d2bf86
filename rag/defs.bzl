"""Public API for local RAG: the sentence embedder's program and retrieval indexes over documents.

    load("//rag:defs.bzl", "encoder_pte", "rag_index", "sentence_encoder")

A sentence_encoder names a BERT model's files; encoder_pte exports it to a
program (PteInfo, kind "sentence_encoder"); rag_index embeds documents'
chunks with that program into a flat index and a LanceDB table.
"""

load("//rag/private:encoder_pte.bzl", _encoder_pte = "encoder_pte")
load("//rag/private:rag_index.bzl", _rag_index = "rag_index")
load("//rag/private:sentence_encoder.bzl", _sentence_encoder = "sentence_encoder")
load(":providers.bzl", _EncoderCheckpointInfo = "EncoderCheckpointInfo", _RagIndexInfo = "RagIndexInfo")

sentence_encoder = _sentence_encoder
encoder_pte = _encoder_pte
rag_index = _rag_index
EncoderCheckpointInfo = _EncoderCheckpointInfo
RagIndexInfo = _RagIndexInfo
