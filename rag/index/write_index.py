"""Writes a rag_index's two artifacts from per-document chunks and vectors.

  * the flat index for the device (format: rag/index/flat_index_format.py);
  * a LanceDB table `chunks` for the host, holding the same vectors (as the
    flat index stores them, de-quantized), so both searches rank the same
    numbers, plus `index.json` naming the embedder and the chunking.
Runs in the @pypi_rag venv (lancedb). Both outputs are byte-reproducible.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

import lancedb
import numpy as np
import pyarrow as pa

from rag.index import flat_index_format, lance_determinism

TABLE = "chunks"


def _embedder_dim(manifest_path: str) -> int:
    """The embedder's output size, as its exporter recorded it."""
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    dim = manifest.get("architecture", {}).get("dim")
    if not isinstance(dim, int) or dim <= 0:
        raise SystemExit(
            f"write_index: {manifest_path} records no architecture.dim; rebuild the embedder with encoder_pte"
        )
    return dim


def _load(args: argparse.Namespace) -> flat_index_format.FlatIndex:
    if not len(args.chunks) == len(args.vectors) == len(args.documents):
        raise SystemExit("write_index: --chunks, --vectors and --documents must pair up")
    with open(args.embedder, "rb") as f:
        embedder_sha256 = hashlib.file_digest(f, "sha256").digest()
    dim = _embedder_dim(args.embedder_manifest)
    documents, chunks, blocks = [], [], []
    settings = set()
    for number, (chunks_path, vectors_path, document_path) in enumerate(
        zip(args.chunks, args.vectors, args.documents, strict=True)
    ):
        with open(chunks_path, encoding="utf-8") as f:
            summary = json.load(f)
        with open(document_path, "rb") as f:
            data = f.read()
        if hashlib.sha256(data).hexdigest() != summary["sha256"]:
            raise SystemExit(f"write_index: {document_path} changed after it was chunked")
        settings.add((summary["chunk_tokens"], summary["overlap_tokens"]))
        documents.append(flat_index_format.Document(summary["name"], len(data), bytes.fromhex(summary["sha256"])))
        vectors = np.fromfile(vectors_path, dtype="<f4")
        count = len(summary["chunks"])
        if vectors.size != count * dim:
            raise SystemExit(
                f"write_index: {vectors_path} holds {vectors.size} floats, expected {count} chunks x dim {dim} "
                f"(the embedder's size, from {args.embedder_manifest}); were they embedded by another program?"
            )
        blocks.append(vectors.reshape(count, dim))
        for start, end, tokens in summary["chunks"]:
            chunks.append(flat_index_format.ChunkRecord(number, tokens, start, end, data[start:end].decode("utf-8")))
    if len(settings) != 1:
        raise SystemExit(f"write_index: documents were chunked with different settings: {sorted(settings)}")
    (chunk_tokens, overlap_tokens) = settings.pop()
    stored, scales = flat_index_format.quantize(np.concatenate(blocks), args.vector_dtype)
    return flat_index_format.FlatIndex(
        args.vector_dtype, embedder_sha256, chunk_tokens, overlap_tokens, documents, chunks, stored, scales
    )


def _write_lancedb(index: flat_index_format.FlatIndex, out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    vectors = index.dequantized()
    dim = vectors.shape[1]
    # Lance compresses long strings with FSST, whose symbol table is trained
    # on a random sample: same rows, different bytes on every run. zstd is
    # deterministic.
    deterministic = {"lance-encoding:compression": "zstd"}
    schema = pa.schema(
        [
            pa.field("id", pa.int32()),
            pa.field("vector", pa.list_(pa.float32(), dim)),
            pa.field("text", pa.string(), metadata=deterministic),
            pa.field("document", pa.string(), metadata=deterministic),
            pa.field("byte_start", pa.int64()),
            pa.field("byte_end", pa.int64()),
        ]
    )
    table = pa.table(
        {
            "id": pa.array(range(len(index.chunks)), pa.int32()),
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel(), pa.float32()), dim),
            "text": pa.array([c.text for c in index.chunks], pa.string()),
            "document": pa.array([index.documents[c.document].name for c in index.chunks], pa.string()),
            "byte_start": pa.array([c.start for c in index.chunks], pa.int64()),
            "byte_end": pa.array([c.end for c in index.chunks], pa.int64()),
        },
        schema=schema,
    )
    lancedb.connect(out_dir).create_table(TABLE, table)
    lance_determinism.make_reproducible(os.path.join(out_dir, TABLE + ".lance"))
    description = {
        "table": TABLE,
        "metric": "dot",
        "embedder_sha256": index.embedder_sha256.hex(),
        "vector_dtype": index.dtype,
        "dim": dim,
        "chunks": len(index.chunks),
        "chunk_tokens": index.chunk_tokens,
        "overlap_tokens": index.overlap_tokens,
        "documents": [{"name": d.name, "size": d.size, "sha256": d.sha256.hex()} for d in index.documents],
    }
    with open(os.path.join(out_dir, "index.json"), "w", encoding="utf-8") as f:
        json.dump(description, f, indent=2)
        f.write("\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", nargs="+", required=True, help="per document: chunk_document's --out_chunks")
    parser.add_argument("--vectors", nargs="+", required=True, help="per document: the embedder's float32 rows")
    parser.add_argument("--documents", nargs="+", required=True, help="per document: the document itself")
    parser.add_argument("--embedder", required=True, help="the embedder .pte (its sha256 goes into the index)")
    parser.add_argument("--embedder_manifest", required=True, help="its manifest (architecture.dim: the vector size)")
    parser.add_argument("--vector_dtype", choices=sorted(flat_index_format.DTYPES), required=True)
    parser.add_argument("--out_flat", required=True)
    parser.add_argument("--out_lancedb", required=True, help="directory for the LanceDB database")
    args = parser.parse_args()
    index = _load(args)
    flat_index_format.write(args.out_flat, index)
    _write_lancedb(index, args.out_lancedb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
