"""Public API for retrieval indexes built from documents.

    load("//tools/rag:defs.bzl", "rag_index")
"""

load("//tools/rag/private:providers.bzl", _RagIndexInfo = "RagIndexInfo")
load("//tools/rag/private:rag_index.bzl", _rag_index = "rag_index")

rag_index = _rag_index
RagIndexInfo = _RagIndexInfo
