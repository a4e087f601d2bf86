"""The providers of the RAG rules, for rules that accept or reject their targets.

    load("//rag:providers.bzl", "EncoderCheckpointInfo", "RagIndexInfo")
"""

load("//rag/private:providers.bzl", _RagIndexInfo = "RagIndexInfo")
load("//rag/private:sentence_encoder.bzl", _EncoderCheckpointInfo = "EncoderCheckpointInfo")

EncoderCheckpointInfo = _EncoderCheckpointInfo
RagIndexInfo = _RagIndexInfo
