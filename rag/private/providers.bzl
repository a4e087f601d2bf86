"""Providers of the retrieval rules."""

RagIndexInfo = provider(
    doc = "A retrieval index built from documents by one embedder.",
    fields = {
        "flat": "File: <name>.flat, the device's mmap-able index (format: rag/index/flat_index_format.py).",
        "lancedb": "File (directory): <name>.lancedb, a LanceDB database with table `chunks` and index.json.",
        "embedder": "File: the embedder .pte whose sha256 the index records.",
        "vocab": "File: the embedder's compiled WordPiece tokenizer (what //rag/runtime:embed and the Retriever load).",
        "vector_dtype": "string: 'fp32', 'fp16' or 'int8'.",
    },
)
