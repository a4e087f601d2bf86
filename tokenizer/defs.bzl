"""Public API for the C++ runtime's tokenizer files.

    load("//tokenizer:defs.bzl", "compiled_tokenizer", "wordpiece_vocab")

compiled_tokenizer: a Hugging Face byte-level BPE tokenizer.json turned into
the file the runtime's BpeTokenizer loads. wordpiece_vocab: a sentence
encoder's tokenizer.json turned into the file its WordPiece tokenizer loads.
Both compilers are in tokenizer/compiler; the C++ tokenizers that read their
files are in tokenizer/runtime.
"""

load("//tokenizer/private:compiled_tokenizer.bzl", _compiled_tokenizer = "compiled_tokenizer")
load("//tokenizer/private:wordpiece_vocab.bzl", _wordpiece_vocab = "wordpiece_vocab")

compiled_tokenizer = _compiled_tokenizer
wordpiece_vocab = _wordpiece_vocab
