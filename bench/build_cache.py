"""`porter build` cold against warm: a rebuild of an unchanged tree is served from the cache.

Both runs build the same tree for the same targets in this process; the cold one starts from an empty
build cache (a temporary directory), the warm one reuses it. Results are keyed by the hash of the
preprocessed input, the flags and the compiler version, so the warm run still preprocesses every unit
but compiles none.

Usage: `python bench/build_cache.py [TREE] [--target sm_90 --target gfx942] [--output reports/build-cache.md]`
(default tree: corpus/).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from porter.build import run  # noqa: E402
from porter.build import units as build_units  # noqa: E402
from porter.config import Config  # noqa: E402


def timed_build(tree: Path, targets: tuple[str, ...]) -> tuple[float, list]:
    started = time.perf_counter()
    result = run.build(tree, targets, Config())
    return time.perf_counter() - started, result.units


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", type=Path, nargs="?", default=REPO / "corpus")
    parser.add_argument("--target", action="append", default=None)
    parser.add_argument("--output", type=Path, default=REPO / "reports" / "build-cache.md")
    args = parser.parse_args()
    targets = tuple(args.target or ("sm_90", "gfx942"))
    with tempfile.TemporaryDirectory(prefix="porter-build-cache-") as cache:
        build_units._cache_path = lambda key: Path(cache) / key[:2] / f"{key}.json"
        cold, units = timed_build(args.tree, targets)
        print(f"[cold] {cold:.1f}s, {len(units)} units", file=sys.stderr)
        warm, warm_units = timed_build(args.tree, targets)
    cached = sum(u.cached for u in warm_units)
    same = [(u.file, u.target, u.status, u.cls) for u in units] == [
        (u.file, u.target, u.status, u.cls) for u in warm_units
    ]
    summary = (
        f"{args.tree.name} ({', '.join(targets)}): {len(units)} units; cold {cold:.1f}s, warm {warm:.1f}s "
        f"({warm / cold:.0%} of cold, {cold / warm:.1f}x); {cached}/{len(warm_units)} served from the cache; "
        f"same results: {same}"
    )
    print(summary)
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "")
    args.output.write_text(
        "# porter build: cold against warm\n\n"
        f"- date: {time.strftime('%Y-%m-%d %H:%M')} UTC; machine: {os.cpu_count()} cores, {cpu}\n"
        f"- command: `python bench/build_cache.py {' '.join(f'--target {t}' for t in targets)}`\n"
        "- cold: an empty build cache; warm: the same unchanged tree again. Every unit is still preprocessed to\n"
        "  compute its key; a unit that does not preprocess (a header missing) has no key and is tried again,\n"
        "  failing at once.\n\n"
        f"{summary}\n"
    )
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
