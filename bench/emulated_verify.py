"""The emulated verify of the corpus: every kernel case on porter's CPU device at 32 and 64 lanes.

Usage: `python bench/emulated_verify.py [--output reports/emulator.md]`. Runs `porter verify` on
corpus/verify and corpus/emulate for gfx942 (64 lanes) and gfx1100 (32 lanes) as a machine without a
GPU does, and writes per case and width the status and the largest error, with the wall time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from porter.config import load_config  # noqa: E402
from porter.verify.run import verify  # noqa: E402

TREES = ("verify", "emulate")
TARGETS = ("gfx942", "gfx1100")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=Path, default=REPO / "reports" / "emulator.md")
    args = parser.parse_args()
    rows, seconds = [], {}
    with tempfile.TemporaryDirectory(prefix="porter-emulated-") as tmp:
        for name in TREES:
            tree = Path(tmp) / name
            shutil.copytree(REPO / "corpus" / name, tree)
            started = time.perf_counter()
            result = verify(tree, TARGETS, load_config(tree), gpus={"nvidia": [], "amd": []})
            seconds[name] = time.perf_counter() - started
            rows += [(name, c) for c in result.cases]
    args.output.write_text(render(rows, seconds))
    print(args.output.read_text())
    return 0


def render(rows, seconds) -> str:
    total = sum(seconds.values())
    lines = [
        "# Emulated verify: every kernel case at 32 and 64 lanes, no GPU",
        "",
        f"`python bench/emulated_verify.py` on this machine ({os.cpu_count()} cores, no GPU): `porter verify` on "
        f"corpus/verify and corpus/emulate for {', '.join(TARGETS)} took {total:.0f} s in all "
        f"({', '.join(f'{k} {v:.0f} s' for k, v in seconds.items())}), building each harness with the host "
        "compiler and running it on porter's CPU device. `cpu-w32` is the original at 32 lanes; gfx942 runs the "
        "port at 64 lanes, gfx1100 at 32. `expected` is what the case declares: planted ports must fail at 64 "
        "lanes (at 32 nothing is expected of them), or at 32 where written for 64 (`written_for = 64`: nothing "
        "is expected at 64), faults must hang or stop.",
        "",
        "| tree | case | variant | target | status | expected | max abs error | mismatches | reason |",
        "|---|---|---|---|---|---|---:|---:|---|",
    ]
    for tree, c in rows:
        error = "" if c.max_abs_err is None else f"{c.max_abs_err:.3g}"
        mismatches = "" if c.mismatches is None else str(c.mismatches)
        reason = (c.reason or "").replace("|", "/")[:120]
        lines.append(
            f"| {tree} | {c.name} | {c.variant} | {c.target} | {c.status} | {c.expected or 'none'} | {error} | "
            f"{mismatches} | {reason} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
