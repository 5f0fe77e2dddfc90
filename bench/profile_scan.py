"""Where a cold scan's time goes: parse, each rule family, and the rest, on one core.

    python bench/profile_scan.py [--tree flashinfer-python] [--output reports/profile-scan.md]

Every file of the tree is analysed in this process (`-j 1`, `--deep never`, no cache), with each
stage's wall time summed over the files. The per-file facts several families share (the node
index, constants and platform branches, device facts, table names) are worked out before the
first family runs and timed apart; a family's figure is then its own work, and of it, the time
spent in files where the family found nothing: what a test that a file cannot trigger the family
would save, where one can be made without losing a finding (the family's project facts included).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.pypi import PACKAGES, fetch  # noqa: E402
from bench.speed import cpu_model  # noqa: E402
from porter import scan as scan_module  # noqa: E402
from porter.config import Config  # noqa: E402
from porter.parse import captures  # noqa: E402
from porter.rules import FAMILIES  # noqa: E402


def _timed(totals: dict[str, float], label: str, function, idle: dict[str, float] | None = None):
    """`function`, its time added to totals[label]; with `idle`, a rule family's time in files
    where it found nothing is added to idle[label] too."""

    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        result = None
        try:
            result = function(*args, **kwargs)
            return (result := list(result)) if idle is not None else result
        finally:
            seconds = time.perf_counter() - started
            totals[label] += seconds
            if idle is not None and not result:
                idle[label] += seconds

    return wrapper


# The shared facts, in the order the families would first ask for them
FACTS = (
    ("facts: node index", lambda ctx: captures("(ERROR) @e", ctx.parsed.root)),
    ("facts: constants and platform branches", lambda ctx: ctx.shared_constants),
    ("facts: device functions, binary expressions, calls", lambda ctx: (ctx.device.functions, ctx.device.binaries(()), ctx.device.calls)),
    ("facts: table names", lambda ctx: ctx.table_hits),
    ("facts: asm statements", lambda ctx: ctx.asm_statements),
)  # fmt: skip


def _facts_first(totals: dict[str, float], check):
    def wrapper(ctx):
        if ctx.parsed.root is not None:
            for label, fact in FACTS:
                started = time.perf_counter()
                fact(ctx)
                totals[label] += time.perf_counter() - started
        return check(ctx)

    return wrapper


def profile(tree: Path) -> tuple[float, dict[str, float], dict[str, float], int]:
    totals: dict[str, float] = defaultdict(float)
    idle: dict[str, float] = defaultdict(float)
    for family in FAMILIES:
        family.check = _timed(totals, "rule " + family.__name__.rsplit(".", 1)[-1], family.check, idle)
    FAMILIES[0].check = _facts_first(totals, FAMILIES[0].check)
    for name in ("parse", "on_ported_platform", "apply_suppressions"):
        setattr(scan_module, name, _timed(totals, name, getattr(scan_module, name)))
    # a file with ERROR nodes has its index built where they are counted, before the families
    scan_module.error_count = _timed(totals, "facts: node index", scan_module.error_count)
    started = time.perf_counter()
    result = scan_module.scan([tree], Config(), jobs=1, deep=scan_module.Deep.NEVER)
    return time.perf_counter() - started, totals, idle, len(result.findings)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", default="flashinfer-python", choices=sorted(PACKAGES))
    parser.add_argument("--output", type=Path, default=REPO / "reports" / "profile-scan.md")
    args = parser.parse_args()
    package = PACKAGES[args.tree]
    total, totals, idle, findings = profile(fetch(package))
    rest = total - sum(totals.values())
    lines = [
        f"# Where a cold scan's time goes: {package.name} {package.version}",
        "",
        f"- date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}; machine: {os.cpu_count()} cores, {cpu_model()}, Python {platform.python_version()}",
        f"- command: `python bench/profile_scan.py --tree {args.tree}` (one core, `--deep never`, no cache)",
        f"- {findings} findings in {total:.2f} s",
        "",
        "| stage | seconds | share | of it, in files where the family found nothing |",
        "|---|---:|---:|---:|",
    ]
    for label, seconds in sorted(
        [*totals.items(), ("the rest (reading, contexts, dedupe, kernels)", rest)], key=lambda x: -x[1]
    ):
        empty = f"{idle[label]:.3f}" if label.startswith("rule ") else ""
        lines.append(f"| {label} | {seconds:.3f} | {100 * seconds / total:.0f} % | {empty} |")
    floor = totals["parse"] + totals["facts: node index"]
    lines += [
        "",
        f"Parsing and the node index take {floor:.2f} s of the {total:.2f} s ({100 * floor / total:.0f} %): tree-sitter's",
        "own work (its parser, and one query walking every node), which no change to the rules reduces.",
    ]
    text = "\n".join(lines) + "\n"
    args.output.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
