"""Chunks one document for the rag_index rule (one action per document).

Writes the chunk texts as JSON lines for the embedder (`{"text": ...}`, the
input of //rag/runtime:embed) and the chunks' byte ranges for the index.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

from rag.index.chunking import DocumentError, chunk_document, wordpiece_counter


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--document", required=True, help="the document (UTF-8 text)")
    parser.add_argument("--name", required=True, help="the document's name in the index")
    parser.add_argument("--tokenizer", required=True, help="the embedder's tokenizer.json (WordPiece)")
    parser.add_argument("--chunk_tokens", type=int, required=True)
    parser.add_argument("--overlap_tokens", type=int, required=True)
    parser.add_argument("--out_texts", required=True, help="JSON lines, one {'text': ...} per chunk")
    parser.add_argument("--out_chunks", required=True, help="JSON: the document and its chunks' byte ranges")
    args = parser.parse_args()

    with open(args.document, "rb") as f:
        data = f.read()
    tokenizer = wordpiece_counter(args.tokenizer)
    try:
        chunks = chunk_document(data, args.name, tokenizer, args.chunk_tokens, args.overlap_tokens)
    except DocumentError as e:
        print(f"rag_index: error: {e}", file=sys.stderr)
        return 2

    with open(args.out_texts, "w", encoding="utf-8") as f:
        for chunk in chunks:
            text = data[chunk.start : chunk.end].decode("utf-8")
            f.write(json.dumps({"text": text}, ensure_ascii=False) + "\n")
    summary = {
        "name": args.name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "size": len(data),
        "chunk_tokens": args.chunk_tokens,
        "overlap_tokens": args.overlap_tokens,
        "chunks": [[c.start, c.end, c.tokens] for c in chunks],
    }
    with open(args.out_chunks, "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=None, separators=(",", ":"))
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
