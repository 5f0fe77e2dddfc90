"""One timed run of torch's hipify on one tree, in its own process (so its peak memory is its own).

    python bench/speed_worker.py hipify TREE WORKDIR
Prints one JSON line: {"seconds": ...}, hipify's own work (torch's import excluded). porter is
timed from outside, as its command line (bench/speed.py).
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


if __name__ == "__main__":
    raise SystemExit(main())
