"""The device's flat index file: format version 1, written and read here.

One file, little-endian, every section 64-byte aligned so that the C++
runtime (rag/runtime/flat_index.h) can mmap it and use the vectors in place.

  header (128 bytes)
     0  char[8]   magic "LLMRAGIX"
     8  u32       version (1)
    12  u32       dim
    16  u32       chunk count
    20  u32       document count
    24  u32       vector dtype: 1 fp32, 2 fp16, 3 int8 (per-vector scale)
    28  u32       chunk_tokens (the chunker's budget, for the record)
    32  u32       overlap_tokens
    36  u32       reserved, 0
    40  u8[32]    sha256 of the embedder .pte that made the vectors
    72  u64       offset of vectors       [count][dim] of the dtype
    80  u64       offset of scales        [count] f32 (int8 only, else 0)
    88  u64       offset of chunk records [count] x 32 bytes
    96  u64       offset of document records [documents] x 48 bytes
   104  u64       offset of strings       UTF-8 bytes, no terminators
   112  u64       size of strings
   120  u64       file size
  chunk record: u32 document, u32 tokens, u64 byte_start, u64 byte_end,
                u32 text offset (into strings), u32 text size
  document record: u32 name offset, u32 name size, u64 byte size,
                   u8[32] sha256 of the document
A chunk's text is exactly document[byte_start:byte_end]. An int8 vector
dequantizes as scale * q; fp16 is IEEE binary16.
"""

from __future__ import annotations

import dataclasses
import struct

import numpy as np

MAGIC = b"LLMRAGIX"
VERSION = 1
ALIGNMENT = 64
DTYPES = {"fp32": 1, "fp16": 2, "int8": 3}

_HEADER = struct.Struct("<8sIIIIIIII32sQQQQQQQ")
_CHUNK = struct.Struct("<IIQQII")
_DOCUMENT = struct.Struct("<IIQ32s")
assert _HEADER.size == 128 and _CHUNK.size == 32 and _DOCUMENT.size == 48


@dataclasses.dataclass(frozen=True)
class Document:
    name: str
    size: int
    sha256: bytes


@dataclasses.dataclass(frozen=True)
class ChunkRecord:
    document: int
    tokens: int
    start: int
    end: int
    text: str


@dataclasses.dataclass(frozen=True)
class FlatIndex:
    dtype: str
    embedder_sha256: bytes
    chunk_tokens: int
    overlap_tokens: int
    documents: list[Document]
    chunks: list[ChunkRecord]
    vectors: np.ndarray  # [count, dim] as stored (float32, float16 or int8)
    scales: np.ndarray | None  # [count] float32 for int8

    def dequantized(self) -> np.ndarray:
        """The float32 vectors the C++ search scores against."""
        vectors = self.vectors.astype(np.float32)
        if self.scales is not None:
            vectors *= self.scales[:, None]
        return vectors


def quantize(vectors: np.ndarray, dtype: str) -> tuple[np.ndarray, np.ndarray | None]:
    """float32 [count, dim] -> stored vectors (+ per-vector scales for int8)."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if dtype == "fp32":
        return vectors, None
    if dtype == "fp16":
        return vectors.astype(np.float16), None
    if dtype == "int8":
        peak = np.abs(vectors).max(axis=1)
        scales = (peak / 127.0).astype(np.float32)
        safe = np.where(scales > 0, scales, 1.0).astype(np.float32)
        q = np.clip(np.rint(vectors / safe[:, None]), -127, 127).astype(np.int8)
        return q, scales
    raise ValueError(f"unknown vector dtype {dtype!r}; choose one of {sorted(DTYPES)}")


def _align(offset: int) -> int:
    return (offset + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT


def write(path: str, index: FlatIndex) -> None:
    count, dim = index.vectors.shape
    strings = bytearray()
    document_records = []
    for document in index.documents:
        name = document.name.encode("utf-8")
        document_records.append(_DOCUMENT.pack(len(strings), len(name), document.size, document.sha256))
        strings += name
    chunk_records = []
    for chunk in index.chunks:
        text = chunk.text.encode("utf-8")
        chunk_records.append(_CHUNK.pack(chunk.document, chunk.tokens, chunk.start, chunk.end, len(strings), len(text)))
        strings += text
    if len(strings) >= 2**32:
        raise ValueError("the index's texts exceed 4 GiB; split the corpus into several indexes")

    sections = [
        ("vectors", index.vectors.tobytes()),
        ("scales", index.scales.astype("<f4").tobytes() if index.scales is not None else b""),
        ("chunks", b"".join(chunk_records)),
        ("documents", b"".join(document_records)),
        ("strings", bytes(strings)),
    ]
    offsets = {}
    body = bytearray()
    position = _HEADER.size
    for name, data in sections:
        aligned = _align(position)
        body += b"\0" * (aligned - position)
        offsets[name] = aligned if data or name != "scales" else 0
        body += data
        position = aligned + len(data)
    file_size = _align(position)
    body += b"\0" * (file_size - position)
    header = _HEADER.pack(
        MAGIC,
        VERSION,
        dim,
        count,
        len(index.documents),
        DTYPES[index.dtype],
        index.chunk_tokens,
        index.overlap_tokens,
        0,
        index.embedder_sha256,
        offsets["vectors"],
        offsets["scales"],
        offsets["chunks"],
        offsets["documents"],
        offsets["strings"],
        len(strings),
        file_size,
    )
    with open(path, "wb") as f:
        f.write(header + body)


def read(path: str) -> FlatIndex:
    with open(path, "rb") as f:
        data = f.read()
    (magic, version, dim, count, document_count, dtype_code, chunk_tokens, overlap_tokens, _, embedder_sha256,
     vectors_at, scales_at, chunks_at, documents_at, strings_at, strings_size, file_size) = _HEADER.unpack_from(data)  # fmt: skip
    if magic != MAGIC or version != VERSION or file_size != len(data):
        raise ValueError(f"{path}: not a version-{VERSION} flat index")
    dtype = {code: name for name, code in DTYPES.items()}[dtype_code]
    numpy_dtype = {"fp32": "<f4", "fp16": "<f2", "int8": "i1"}[dtype]
    vectors = np.frombuffer(data, numpy_dtype, count * dim, vectors_at).reshape(count, dim)
    scales = np.frombuffer(data, "<f4", count, scales_at) if dtype == "int8" else None
    strings = data[strings_at : strings_at + strings_size]
    documents = []
    for i in range(document_count):
        name_at, name_size, size, sha = _DOCUMENT.unpack_from(data, documents_at + i * _DOCUMENT.size)
        documents.append(Document(strings[name_at : name_at + name_size].decode("utf-8"), size, sha))
    chunks = []
    for i in range(count):
        document, tokens, start, end, text_at, text_size = _CHUNK.unpack_from(data, chunks_at + i * _CHUNK.size)
        chunks.append(ChunkRecord(document, tokens, start, end, strings[text_at : text_at + text_size].decode("utf-8")))
    return FlatIndex(dtype, embedder_sha256, chunk_tokens, overlap_tokens, documents, chunks, vectors, scales)
