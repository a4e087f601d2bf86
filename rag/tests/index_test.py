"""A rag_index's outputs: byte-reproducible, consistent, and ranked the same by LanceDB and the device.

* write_index.py run again twice (fresh processes, other folders) on the
  same per-document chunks and vectors gives byte-identical flat files and
  LanceDB directories, equal to what Bazel built;
* every chunk's text is its document's bytes at the recorded offsets, the
  documents' sha256 and the embedder's sha256 are recorded;
* the device's exact search (//rag/runtime:rag_search, C++) returns the same
  top-5 ids as LanceDB's flat search on the host, for random queries and for
  queries near stored vectors (where neighbours are close).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

from rag.index import flat_index_format
from tools.python.runfile import runfile, workspace_dir

K = 5
# Float sums in another order may swap two hits whose scores differ by less
# than this; anything larger is a real disagreement.
TIE = 1e-5


def _paths(variable: str) -> list[str]:
    return [runfile(p) for p in os.environ[variable].split()]


def _tree(root: str) -> dict[str, bytes]:
    files = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, root)] = f.read()
    return files


def _rag_env() -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "PYTHONPATH": workspace_dir(), "RUST_LOG": "error", "HOME": "/tmp"}


class IndexTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.flat_path = runfile(os.environ["INDEX_FLAT"])
        cls.lancedb_path = runfile(os.environ["INDEX_LANCEDB"])
        cls.index = flat_index_format.read(cls.flat_path)
        cls.python = runfile(os.environ["RAG_PYTHON"])

    def test_rebuild_is_byte_identical(self) -> None:
        chunks = sorted(_paths("INDEX_CHUNKS"))
        vectors = sorted(_paths("INDEX_VECTORS"))
        by_name = {os.path.basename(p): p for p in _paths("INDEX_DOCUMENTS")}
        documents = [by_name[os.path.basename(c)[: -len(".chunks.json")]] for c in chunks]
        built = []
        for attempt in range(2):
            with tempfile.TemporaryDirectory() as out:
                flat = os.path.join(out, f"rebuilt{attempt}.flat")
                lancedb = os.path.join(out, "db")
                subprocess.run(
                    [self.python, runfile("rag/index/write_index.py"), "--chunks", *chunks, "--vectors", *vectors,
                     "--documents", *documents, "--embedder", runfile(os.environ["EMBEDDER_PTE"]),
                     "--embedder_manifest", runfile(os.environ["EMBEDDER_MANIFEST"]),
                     "--vector_dtype", self.index.dtype, "--out_flat", flat, "--out_lancedb", lancedb],
                    check=True, env=_rag_env(), timeout=600, cwd=out,  # another folder each time
                )  # fmt: skip
                with open(flat, "rb") as f:
                    built.append((f.read(), _tree(lancedb)))
        with open(self.flat_path, "rb") as f:
            bazel_flat = f.read()
        bazel_tree = _tree(self.lancedb_path)
        self.assertGreater(len(bazel_tree), 3)
        for flat, tree in built:
            self.assertEqual(hashlib.sha256(flat).hexdigest(), hashlib.sha256(bazel_flat).hexdigest())
            self.assertEqual(sorted(tree), sorted(bazel_tree))
            for name, data in tree.items():
                self.assertEqual(data, bazel_tree[name], f"{name} differs between builds")

    def test_contents_match_the_documents_and_embedder(self) -> None:
        documents = {}
        for path in _paths("INDEX_DOCUMENTS"):
            with open(path, "rb") as f:
                documents[os.path.basename(path)] = f.read()
        self.assertEqual(sorted(d.name for d in self.index.documents), sorted(documents))
        for document in self.index.documents:
            self.assertEqual(document.sha256, hashlib.sha256(documents[document.name]).digest())
        with open(runfile(os.environ["EMBEDDER_PTE"]), "rb") as f:
            self.assertEqual(self.index.embedder_sha256, hashlib.sha256(f.read()).digest())
        for chunk in self.index.chunks:
            data = documents[self.index.documents[chunk.document].name]
            self.assertEqual(chunk.text.encode("utf-8"), data[chunk.start : chunk.end])
        norms = np.linalg.norm(self.index.dequantized(), axis=1)
        self.assertLess(np.abs(norms - 1).max(), 0.02, "the embedder's vectors are unit length")
        with open(os.path.join(self.lancedb_path, "index.json"), encoding="utf-8") as f:
            description = json.load(f)
        self.assertEqual(description["embedder_sha256"], self.index.embedder_sha256.hex())
        self.assertEqual(description["chunks"], len(self.index.chunks))

    def _search(self, queries: np.ndarray) -> tuple[list[dict], list[dict]]:
        with tempfile.NamedTemporaryFile(suffix=".f32") as f:
            queries.astype("<f4").tofile(f.name)
            device = subprocess.run(
                [runfile(os.environ["RAG_SEARCH"]), f"--index={self.flat_path}", f"--queries={f.name}", f"--k={K}"],
                check=True, capture_output=True, text=True, timeout=300,
            ).stdout  # fmt: skip
            host = subprocess.run(
                [self.python, runfile("rag/index/lancedb_search.py"), "--db", self.lancedb_path, "--queries", f.name, "--k", str(K)],
                check=True, capture_output=True, text=True, env=_rag_env(), timeout=600,
            ).stdout  # fmt: skip
        return [json.loads(line) for line in device.splitlines()], [json.loads(line) for line in host.splitlines()]

    def test_device_search_returns_lancedb_ids(self) -> None:
        rng = np.random.default_rng(7)
        dim = self.index.vectors.shape[1]
        random = rng.standard_normal((40, dim))
        stored = self.index.dequantized()[rng.choice(len(self.index.chunks), 40, replace=False)]
        near = stored + 0.05 * rng.standard_normal(stored.shape)
        queries = np.concatenate([random, near])
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        device, host = self._search(queries)
        self.assertEqual(len(device), len(queries))
        self.assertEqual(len(host), len(queries))
        exact = 0
        for d, h in zip(device, host, strict=True):
            np.testing.assert_allclose(d["scores"], h["scores"], atol=TIE)
            if d["ids"] == h["ids"]:
                exact += 1
                continue
            # Only a swap of (near-)equal scores is allowed.
            for i, (a, b) in enumerate(zip(d["ids"], h["ids"], strict=True)):
                if a != b:
                    self.assertLess(abs(d["scores"][i] - h["scores"][i]), TIE)
        print(f"identical top-{K} ids for {exact} of {len(queries)} queries", file=sys.stderr)
        self.assertGreaterEqual(exact, len(queries) - 2)


if __name__ == "__main__":
    unittest.main()
