"""One timed run on one tree, in its own process (so its peak memory is its own).

    python bench/speed_worker.py hipify TREE WORKDIR
Prints one JSON line: {"seconds": ...}, hipify's own work (torch's import excluded). porter is
timed from outside, as its command line (bench/speed.py).

    python bench/speed_worker.py tree-sitter TREE WORKDIR
tree-sitter-cuda's parse and porter's node-index query over the tree's C-family files on every
core, and nothing else: what any scan that reads every file with tree-sitter pays before its first
rule. Timed from outside, start-up included, as porter is.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def main() -> int:
    tool, tree, workdir = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    if tool == "tree-sitter":
        return parse_only(tree)
    if tool != "hipify":
        print(f"speed_worker: unknown tool {tool!r}", file=sys.stderr)
        return 2
    from torch.utils.hipify import hipify_python  # noqa: F401  (imported before the clock starts)

    from bench.peer import run_hipify

    out = workdir / "hipify-out"
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    run_hipify(tree, out, includes=["*"])
    print(json.dumps({"seconds": time.perf_counter() - started}))
    return 0


def parse_only(tree: Path) -> int:
    """Every C-family file parsed and indexed by a pool of forked workers, largest first (as a
    scan's pool takes them)."""
    import os
    from concurrent.futures import ProcessPoolExecutor

    from porter.source import kind_of

    paths = [p for p in tree.rglob("*") if (kind := kind_of(p)) is not None and kind.is_c_family and p.is_file()]
    paths.sort(key=lambda p: -p.stat().st_size)
    jobs = os.cpu_count() or 1
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        nodes = sum(pool.map(_parse_and_index, paths, chunksize=max(1, len(paths) // (jobs * 32))))
    print(json.dumps({"files": len(paths), "indexed_nodes": nodes}))
    return 0


def _parse_and_index(path: Path) -> int:
    import tree_sitter

    from porter.parse import _INDEX_QUERY, _parser, query

    root = _parser().parse(path.read_bytes()).root_node
    return sum(len(nodes) for nodes in tree_sitter.QueryCursor(query(_INDEX_QUERY)).captures(root).values())


if __name__ == "__main__":
    raise SystemExit(main())
