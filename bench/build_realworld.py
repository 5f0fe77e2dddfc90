"""Build real PyTorch extensions for NVIDIA and AMD as porter builds them: converted, then compiled.

For each package (fetched from PyPI, SHA-256 checked, never committed), `porter build` converts the
tree as its authors ship it (portable mode) and compiles every kernel TU for sm_90 with nvcc and for
gfx942 with the HIP toolchain of porter's default ROCm release; each TU's outcome, and for a failure
its class and first diagnostic, go in the report with the findings that explain it.

Usage: `python bench/build_realworld.py [--output reports/build-realworld.md] [--packages NAME ...]`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.pypi import PACKAGES, fetch  # noqa: E402
from porter.build.run import build  # noqa: E402
from porter.config import Config  # noqa: E402
from porter.scan import scan  # noqa: E402

BUILT = ("torch-cluster", "torch-spline-conv", "megablocks", "torch-scatter", "nerfacc")
TARGETS = ("sm_90", "gfx942")


def unit_outcome(unit) -> str:
    """`builds`, or the failure's status, class and first diagnostic."""
    return "builds" if unit.status == "ok" else f"{unit.status} [{unit.cls}]: {(unit.diagnostic or '')[:200]}"


def package_report(name: str) -> tuple[list[str], Counter]:
    tree = fetch(PACKAGES[name])
    started = time.perf_counter()
    result = build(tree, TARGETS, Config(), use_cache=False)
    seconds = time.perf_counter() - started
    outcomes: Counter = Counter()
    lines = [f"## {name} {PACKAGES[name].version}", "", f"Built in {seconds:.0f} s; gfx units with {result.hip}.", ""]
    for unit in sorted(result.units, key=lambda u: (u.file, u.target)):
        outcomes[(unit.target, unit.status == "ok")] += 1
        lines.append(f"- `{unit.file}` {unit.target}: {unit_outcome(unit)}")
    rules = Counter(f.rule for f in scan([tree], Config()).findings if f.rule.startswith("TRX"))
    if rules:
        lines += ["", "PyTorch-extension findings: " + ", ".join(f"{rule} {n}" for rule, n in sorted(rules.items()))]
    return lines + [""], outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=Path, default=REPO / "reports" / "build-realworld.md")
    parser.add_argument("--packages", nargs="*", default=list(BUILT))
    args = parser.parse_args()
    body: list[str] = []
    summary: list[str] = []
    for name in args.packages:
        print(f"[build] {name}", file=sys.stderr)
        lines, outcomes = package_report(name)
        body += lines
        counts = [f"{t} {outcomes[(t, True)]}/{outcomes[(t, True)] + outcomes[(t, False)]}" for t in TARGETS]
        summary.append(f"- {name} {PACKAGES[name].version}: " + ", ".join(counts))
    text = [
        "# Building real PyTorch extensions for NVIDIA and AMD",
        "",
        f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; command: `python bench/build_realworld.py`",
        "- each package as its authors ship it, converted by `porter build` (portable mode) and built per",
        "  kernel TU for sm_90 (nvcc) and gfx942 (porter's default ROCm release), no cache",
        "",
        "Kernel TUs that build, per target:",
        "",
        *summary,
        "",
        *body,
    ]
    args.output.write_text("\n".join(text))
    print("\n".join(text))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
