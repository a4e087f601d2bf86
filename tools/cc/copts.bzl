"""Compiler flags for this repository's C++: runtime/, tokenizer/, rag/ and cli/.

The runner is benchmarked, so it is optimized even in Bazel's default
fastbuild mode; -c opt would move every output (and the model exports) to
another directory and cost a full rebuild of the .pte files.
"""

RUNTIME_COPTS = [
    "-O2",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
]
