#!/usr/bin/env python3
"""A buildbox runner in front of buildbox-run-hosttools, for REAPI v2.0 clients.

Bazel 4.2.3 names an action's outputs in `Command.output_files` and
`output_directories` only. REAPI v2.1 added `output_paths`, and
buildbox-run-hosttools 1.4 creates the parent folders of an action's outputs
only for the paths listed there, so every action of such a client fails with
"No such file or directory" for its first output. This runner copies the
v2.0 lists into `output_paths` (sorted, as v2.1 requires), uploads the new
Command to the worker's CAS, and hands the real runner an Action that points
at it. Actions whose Command already has `output_paths` (Bazel 7 and later)
pass through untouched.

    buildbox-worker --buildbox-run=/opt/llm_ondevice/output_paths_runner.py \
        --runner-arg=--real-runner=/usr/bin/buildbox-run-hosttools ...

Only the standard library: the worker image has python3 and buildbox's
casdownload and casupload, and nothing else is needed. The protobuf wire
format is read and written here for the few fields involved.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator

# Field numbers from build/bazel/remote/execution/v2/remote_execution.proto.
ACTION_COMMAND_DIGEST = 1
COMMAND_OUTPUT_FILES = 3
COMMAND_OUTPUT_DIRECTORIES = 4
COMMAND_OUTPUT_PATHS = 7
DIGEST_HASH = 1
DIGEST_SIZE = 2
LENGTH_DELIMITED = 2


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def fields(data: bytes) -> Iterator[tuple[int, int, int | bytes, bytes]]:
    """Yields (number, wire type, payload, raw bytes of the whole field)."""
    pos = 0
    while pos < len(data):
        start = pos
        key, pos = read_varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = read_varint(data, pos)
            payload = value
        elif wire == 1:
            payload, pos = data[pos : pos + 8], pos + 8
        elif wire == LENGTH_DELIMITED:
            size, pos = read_varint(data, pos)
            payload, pos = data[pos : pos + size], pos + size
        elif wire == 5:
            payload, pos = data[pos : pos + 4], pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, payload, data[start:pos]


def length_delimited(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | LENGTH_DELIMITED) + varint(len(payload)) + payload


def digest(blob: bytes) -> bytes:
    """A serialized Digest message of `blob`."""
    hash_field = length_delimited(DIGEST_HASH, hashlib.sha256(blob).hexdigest().encode())
    return hash_field + varint(DIGEST_SIZE << 3) + varint(len(blob))


def read_digest(message: bytes) -> str:
    """A Digest message as casdownload takes it: <hash>/<size>."""
    hash_, size = "", 0
    for number, _, payload, _ in fields(message):
        if number == DIGEST_HASH:
            hash_ = payload.decode()
        elif number == DIGEST_SIZE:
            size = payload
    return f"{hash_}/{size}"


def with_output_paths(command: bytes) -> bytes | None:
    """The Command with output_paths filled in, or None if it needs nothing."""
    outputs = []
    for number, wire, payload, _ in fields(command):
        if number == COMMAND_OUTPUT_PATHS:
            return None
        if number in (COMMAND_OUTPUT_FILES, COMMAND_OUTPUT_DIRECTORIES) and wire == LENGTH_DELIMITED:
            outputs.append(payload)
    if not outputs:
        return None
    return command + b"".join(length_delimited(COMMAND_OUTPUT_PATHS, p) for p in sorted(set(outputs)))


def with_command(action: bytes, command: bytes) -> bytes:
    """The Action with its command_digest replaced by the digest of `command`."""
    kept = b"".join(raw for number, _, _, raw in fields(action) if number != ACTION_COMMAND_DIGEST)
    return length_delimited(ACTION_COMMAND_DIGEST, digest(command)) + kept


def main(argv: list[str]) -> None:
    real_runner = None
    cas = []
    action_path = None
    passed = []
    for arg in argv:
        if arg.startswith("--real-runner="):
            real_runner = arg.split("=", 1)[1]
            continue
        if arg.startswith(("--remote=", "--instance=")):
            cas.append(arg)
        if arg.startswith("--action="):
            action_path = arg.split("=", 1)[1]
        passed.append(arg)
    if real_runner is None:
        sys.exit("output_paths_runner: pass --runner-arg=--real-runner=/usr/bin/buildbox-run-hosttools")
    # The worker first asks the runner to validate its options, with no action.
    if action_path is not None and "--validate-parameters" not in passed:
        with open(action_path, "rb") as f:
            action = f.read()
        command_digest = next(
            read_digest(payload) for number, _, payload, _ in fields(action) if number == ACTION_COMMAND_DIGEST
        )
        work = tempfile.mkdtemp(prefix="output_paths_runner.")
        subprocess.run(
            ["casdownload", *cas, f"--file-digest={command_digest}", f"--destination-dir={work}/command"],
            check=True,
        )
        (name,) = os.listdir(f"{work}/command")
        with open(f"{work}/command/{name}", "rb") as f:
            patched = with_output_paths(f.read())
        if patched is not None:
            with open(f"{work}/Command", "wb") as f:
                f.write(patched)
            subprocess.run(["casupload", *cas, f"{work}/Command"], check=True, stdout=subprocess.DEVNULL)
            with open(f"{work}/Action", "wb") as f:
                f.write(with_command(action, patched))
            passed = [f"--action={work}/Action" if a.startswith("--action=") else a for a in passed]
    os.execv(real_runner, [real_runner, *passed])


if __name__ == "__main__":
    main(sys.argv[1:])
