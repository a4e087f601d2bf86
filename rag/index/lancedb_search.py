"""Host retrieval: top-k from a rag_index's LanceDB table.

    lancedb_search.py --db bazel-bin/rag/austen_int8.lancedb --queries q.f32 --k 5

--queries holds raw float32 rows (what //rag/runtime:embed writes). Prints one
JSON line per query, {"ids": [...], "scores": [...]} (scores are dot
products, as the device search's), and with --repeat the median search time
on stderr. The search is LanceDB's exact flat scan: measured to beat its IVF
indexes below about 100k rows (see README), far above an on-device corpus.
Runs in the @pypi_rag venv.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import lancedb
import numpy as np


class MissingIndexError(RuntimeError):
    pass


def open_table(db_path: str):
    """The index's `chunks` table and its index.json description."""
    description_path = os.path.join(db_path, "index.json")
    if not os.path.isfile(description_path):
        raise MissingIndexError(
            f"{db_path} is not a rag_index LanceDB directory (no index.json); "
            "build one with a rag_index target, e.g. bazel build //rag:austen_int8"
        )
    with open(description_path, encoding="utf-8") as f:
        description = json.load(f)
    return lancedb.connect(db_path).open_table(description["table"]), description


def search(table, query: np.ndarray, k: int) -> tuple[list[int], list[float]]:
    rows = table.search(query.astype(np.float32)).distance_type("dot").limit(k).to_arrow()
    # LanceDB's "dot" distance is 1 - dot product.
    return rows["id"].to_pylist(), [1.0 - d for d in rows["_distance"].to_pylist()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=0)
    args = parser.parse_args()
    try:
        table, description = open_table(args.db)
    except MissingIndexError as e:
        print(f"lancedb_search: error: {e}", file=sys.stderr)
        return 2
    queries = np.fromfile(args.queries, dtype="<f4").reshape(-1, description["dim"])
    times = []
    for query in queries:
        ids, scores = search(table, query, args.k)
        for _ in range(args.repeat):
            start = time.perf_counter()
            search(table, query, args.k)
            times.append((time.perf_counter() - start) * 1e3)
        print(json.dumps({"ids": ids, "scores": scores}))
    if times:
        print(
            json.dumps({"search_ms_median": statistics.median(times), "chunks": description["chunks"]}), file=sys.stderr
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
