"""Speed and memory of porter against torch's hipify_python, on the same trees in one run.

For each tree of the development corpus (fetched from PyPI, SHA-256 checked, never committed):
- hipify_python (torch 2.13, one process, writing to a temporary directory);
- porter scan and porter convert, cold (empty cache) and warm (the same unchanged tree again).
Each run is a fresh process; its peak resident memory comes from the kernel (wait4).
Throughput is lines and megabytes per second of the tree's C-family sources; the ratio is
porter's throughput over hipify's (above 1: porter is faster).

Usage: `python bench/speed.py [--output reports/benchmarks.md] [--trees NAME ...]`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.pypi import PACKAGES, fetch  # noqa: E402
from porter.source import kind_of  # noqa: E402

TREES = ("torch-scatter", "causal-conv1d", "nerfacc", "mmcv", "deepspeed", "flashinfer-python")


def tree_size(tree: Path) -> tuple[int, int, int]:
    files = lines = size = 0
    for path in tree.rglob("*"):
        kind = kind_of(path)
        if kind is not None and kind.is_c_family and path.is_file():
            data = path.read_bytes()
            files += 1
            lines += data.count(b"\n")
            size += len(data)
    return files, lines, size


def timed(tool: str, tree: Path, workdir: Path, cache: Path) -> dict:
    env = dict(os.environ, PORTER_CACHE=str(cache))
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "bench" / "speed_worker.py"), tool, str(tree), str(workdir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        return {"seconds": None, "peak_mb": None}
    result = json.loads(output.decode().strip().splitlines()[-1])
    result["peak_mb"] = usage.ru_maxrss / 1024
    return result


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=Path, default=REPO / "reports" / "benchmarks.md")
    parser.add_argument("--trees", nargs="*", default=list(TREES))
    args = parser.parse_args()
    rows = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="porter-speed-") as tmp:
        for name in args.trees:
            print(f"[speed] {name}: fetching", file=sys.stderr)
            tree = fetch(PACKAGES[name])
            files, lines, size = tree_size(tree)
            workdir = Path(tmp) / name
            workdir.mkdir()
            cache = workdir / "cache"
            row = {"tree": f"{name} {PACKAGES[name].version}", "files": files, "lines": lines, "bytes": size}
            for label, tool in (("hipify", "hipify"), ("scan cold", "porter-scan"), ("scan warm", "porter-scan"),
                                ("convert cold", "porter-convert"), ("convert warm", "porter-convert")):  # fmt: skip
                if label.endswith("cold"):
                    shutil.rmtree(cache, ignore_errors=True)
                print(f"[speed] {name}: {label}", file=sys.stderr)
                row[label] = timed(tool, tree, workdir, cache)
            rows.append(row)
            hip = row["hipify"]["seconds"]
            scan = row["scan cold"]["seconds"]
            ratio = f"{hip / scan:.2f}" if hip and scan else "n/a"
            print(
                f"[speed] {name}: {lines} lines; hipify {hip:.2f}s, porter scan {scan:.2f}s cold, {row['scan warm']['seconds']:.2f}s warm; porter/hipify throughput {ratio}",
                file=sys.stderr,
            )
    text = render(rows, time.perf_counter() - started, args)
    args.output.write_text(text)
    print(text)
    return 0


def _throughput(row: dict, label: str) -> tuple[str, str]:
    seconds = row[label]["seconds"]
    if not seconds:
        return "n/a", "n/a"
    return f"{row['lines'] / seconds:,.0f}", f"{row['bytes'] / seconds / 1e6:.2f}"


def render(rows: list[dict], total: float, args) -> str:
    trees = " ".join(args.trees)
    lines = [
        "# Benchmarks: porter against torch's hipify",
        "",
        f"- date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {os.cpu_count()} cores, {cpu_model()}, Python {platform.python_version()}",
        f"- command: `python bench/speed.py --trees {trees}` (took {total:.0f}s)",
        "- hipify: torch 2.13.0's `torch.utils.hipify.hipify_python.hipify`, one process, output to a temporary directory.",
        "- porter: `scan` (all cores) and `convert` (portable mode, which scans too); cold = empty cache,",
        "  warm = the unchanged tree again. Each run is its own process; peak RSS from wait4.",
        "- ratio: porter's throughput over hipify's on the same tree (above 1: porter is faster).",
        "",
        "| tree | files | lines | tool | seconds | lines/s | MB/s | peak MB | porter/hipify |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        hip = row["hipify"]["seconds"]
        for label in ("hipify", "scan cold", "scan warm", "convert cold", "convert warm"):
            run = row[label]
            seconds = run["seconds"]
            lps, mbs = _throughput(row, label)
            ratio = f"{hip / seconds:.2f}" if label != "hipify" and seconds and hip else ""
            peak = f"{run['peak_mb']:.0f}" if run["peak_mb"] else "n/a"
            shown = f"{seconds:.2f}" if seconds else "failed"
            lines.append(
                f"| {row['tree']} | {row['files']} | {row['lines']} | {label} | {shown} | {lps} | {mbs} | {peak} | {ratio} |"
            )
    lines += ["", "Summary, one line per tree (porter scan, cold, against hipify):", ""]
    for row in rows:
        hip, scan = row["hipify"]["seconds"], row["scan cold"]["seconds"]
        ratio = f"{hip / scan:.2f}" if hip and scan else "n/a"
        lines.append(
            f"- {row['tree']}: {row['lines']} lines, hipify {hip or 0:.2f}s, porter {scan or 0:.2f}s → ratio {ratio}"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
