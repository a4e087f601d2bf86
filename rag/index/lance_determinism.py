"""Makes a LanceDB table directory byte-reproducible after it is written.

LanceDB 0.40 names each data file and the transaction file with random
uuids and stamps the manifest with the wall-clock time; everything else it
writes is a function of the rows. This rewrites exactly those three things,
keeping every byte length (so no offset inside a file moves):
  * a data file's random name -> hex of the sha256 of its bytes;
  * the transaction uuid -> a uuid-shaped hex of the data files' hashes;
  * the manifest's commit time -> an empty Timestamp (the epoch).
The names are replaced wherever they occur (manifest, transaction file) and
the files are renamed. LanceDB opens and searches the result as before
(checked by //rag:index_test). The data files themselves are deterministic
only if no string column uses FSST (its symbol table is trained on a random
sample); write_index.py asks for zstd.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Iterator

_FOOTER = struct.Struct("<QHH4s")  # manifest position, major, minor, b"LANC"
_MANIFEST_TIMESTAMP_FIELD = 7  # lance table.proto: Manifest.timestamp


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def _fields(data: bytes, start: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """(field number, wire type, field start, field end) of one protobuf message."""
    pos = start
    while pos < end:
        field_start = pos
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            _, value_end = _varint(data, pos)
        elif wire == 2:
            length, pos = _varint(data, pos)
            value_end = pos + length
        elif wire == 1:
            value_end = pos + 8
        elif wire == 5:
            value_end = pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, field_start, value_end
        pos = value_end


def _fix_manifest_time(path: str) -> None:
    """Rewrites the manifest's commit time to an empty Timestamp (the epoch)."""
    with open(path, "rb") as f:
        data = f.read()
    position, _, _, magic = _FOOTER.unpack_from(data, len(data) - _FOOTER.size)
    if magic != b"LANC":
        raise ValueError(f"{path}: not a Lance manifest (no LANC footer)")
    (length,) = struct.unpack_from("<I", data, position)
    start, end = position + 4, position + 4 + length
    if end != len(data) - _FOOTER.size:
        raise ValueError(f"{path}: unexpected manifest layout; has the Lance format changed?")
    message = bytearray()
    found = False
    for number, wire, field_start, field_end in _fields(data, start, end):
        if number == _MANIFEST_TIMESTAMP_FIELD and wire == 2:
            message += bytes([(number << 3) | 2, 0])
            found = True
        else:
            message += data[field_start:field_end]
    if not found:
        raise ValueError(f"{path}: no commit timestamp found; has the Lance format changed?")
    with open(path, "wb") as f:
        f.write(data[:position] + struct.pack("<I", len(message)) + bytes(message) + data[-_FOOTER.size :])


def _replace_everywhere(paths: list[str], old: bytes, new: bytes) -> None:
    assert len(old) == len(new)
    hits = 0
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        hits += data.count(old)
        with open(path, "wb") as f:
            f.write(data.replace(old, new))
    if not hits:
        raise ValueError(f"{old!r} is not referenced by the table's metadata")


def make_reproducible(table_dir: str) -> None:
    """Rewrites the random names and the commit time of a one-version table."""
    data_dir = os.path.join(table_dir, "data")
    txn_dir = os.path.join(table_dir, "_transactions")
    versions_dir = os.path.join(table_dir, "_versions")
    manifests = sorted(os.path.join(versions_dir, n) for n in os.listdir(versions_dir) if n.endswith(".manifest"))
    txns = sorted(os.listdir(txn_dir))
    if len(manifests) != 1 or len(txns) != 1:
        raise ValueError(f"{table_dir}: expected one version written in one transaction")
    txn_path = os.path.join(txn_dir, txns[0])
    metadata = [*manifests, txn_path]

    content = hashlib.sha256()
    for name in sorted(os.listdir(data_dir)):
        stem, ext = os.path.splitext(name)
        with open(os.path.join(data_dir, name), "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        content.update(digest.encode())
        new_stem = (digest * 2)[: len(stem)]
        _replace_everywhere(metadata, stem.encode(), new_stem.encode())
        os.rename(os.path.join(data_dir, name), os.path.join(data_dir, new_stem + ext))

    prefix, _, rest = txns[0].partition("-")
    old_uuid = rest[: -len(".txn")]
    hexed = content.hexdigest()
    new_uuid = "-".join((hexed[0:8], hexed[8:12], hexed[12:16], hexed[16:20], hexed[20:32]))
    if len(new_uuid) != len(old_uuid):
        raise ValueError(f"{txn_path}: unexpected transaction file name")
    _replace_everywhere(metadata, old_uuid.encode(), new_uuid.encode())
    os.rename(txn_path, os.path.join(txn_dir, f"{prefix}-{new_uuid}.txn"))
    for manifest in manifests:
        _fix_manifest_time(manifest)
