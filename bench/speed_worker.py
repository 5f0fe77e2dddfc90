"""One timed run of one tool on one tree, in its own process (so its peak memory is its own).

    python bench/speed_worker.py porter-scan|porter-convert|hipify TREE WORKDIR
Prints one JSON line: {"seconds": ...}.
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
    if tool == "hipify":
        from bench.peer import run_hipify

        out = workdir / "hipify-out"
        shutil.rmtree(out, ignore_errors=True)
        started = time.perf_counter()
        run_hipify(tree, out, includes=["*"])
        seconds = time.perf_counter() - started
    else:
        from porter.config import Config
        from porter.convert import ConvertOptions, convert
        from porter.scan import scan

        started = time.perf_counter()
        if tool == "porter-scan":
            scan([tree], Config(), use_cache=True)
        else:
            out = workdir / "porter-out"
            convert(ConvertOptions(tree, out, use_cache=True), Config(), None)
        seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
