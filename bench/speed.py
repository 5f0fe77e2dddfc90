"""Speed and memory of porter against torch's hipify_python, on the same trees in one run.

For each tree of the development corpus (fetched from PyPI, SHA-256 checked, never committed):
- hipify_python (torch 2.13, one process, writing to a temporary directory; its import excluded);
- porter scan and porter convert as a user runs them (`python -m porter …`, default flags, start-up
  included), cold (empty cache) and warm (the same unchanged tree again); and scan cold with
  `--deep never`, whose difference from the default is what libclang costs, and on one core
  (`-j 1`), whose difference is what the other cores buy; and scan cold with no rule family at all
  (the floor: parse, node index, workers, start-up), the best ratio any rule code could reach.
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

TREES = (
    "torch-scatter",
    "causal-conv1d",
    "nerfacc",
    "mmcv",
    "deepspeed",
    "gptqmodel",
    "llama-cpp-python",
    "flashinfer-python",
    "flashinfer-generated",
)


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


PORTER_COMMANDS = {
    "porter-scan": ["scan", "-o", os.devnull],
    "porter-scan-shallow": ["scan", "--deep", "never", "-o", os.devnull],
    "porter-scan-one-core": ["scan", "-j", "1", "-o", os.devnull],
    "porter-convert": ["convert", "-o"],
}

# The scan with no rule family at all (discovery, reading, the project's headers, tree-sitter's parse and
# node index, the workers, the report): the floor the rules stand on, and the best ratio any rule
# code could reach. A measurement, not a way porter runs: the families are taken out of the module.
FLOOR = (
    "import sys; import porter.scan; porter.scan.FAMILIES = (); "
    "sys.argv = ['porter', 'scan', sys.argv[1], '--deep', 'never', '--no-cache', '-o', '/dev/null']; "
    "from porter.__main__ import main; main()"
)


def timed(tool: str, tree: Path, workdir: Path, cache: Path) -> dict:
    env = dict(os.environ, PORTER_CACHE=str(cache))
    if tool in ("hipify", "tree-sitter"):
        command = [sys.executable, str(REPO / "bench" / "speed_worker.py"), tool, str(tree), str(workdir)]
    elif tool == "porter-scan-floor":
        command = [sys.executable, "-c", FLOOR, str(tree)]
    else:
        out = workdir / "porter-out"
        shutil.rmtree(out, ignore_errors=True)
        arguments = PORTER_COMMANDS[tool] + ([str(out)] if tool == "porter-convert" else [])
        command = [sys.executable, "-m", "porter", arguments[0], str(tree), *arguments[1:]]
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        return {"seconds": None, "peak_mb": None}
    if tool == "hipify":  # the worker's own clock: hipify's work without torch's import
        seconds = json.loads(output.decode().strip().splitlines()[-1])["seconds"]
    return {"seconds": seconds, "peak_mb": usage.ru_maxrss / 1024}


def interleaved(repeat: int, tree: Path, workdir: Path, cache: Path) -> dict[str, dict]:
    """Each of RUNS `repeat` times, round by round (hipify, then each porter run, then again), so
    that a machine that slows down or speeds up over a minute moves both sides of a ratio alike;
    the fastest run of each counts (the first of a tool pays for the file cache), with its
    largest peak. A warm run follows its cold one in the same round, on the cache it left."""
    runs: dict[str, list[dict]] = {label: [] for label, _ in RUNS}
    for _ in range(repeat):
        for label, tool in RUNS:
            if "cold" in label:
                shutil.rmtree(cache, ignore_errors=True)
            runs[label].append(timed(tool, tree, workdir, cache))
    return {label: _fastest(measured) for label, measured in runs.items()}


def _fastest(runs: list[dict]) -> dict:
    if any(run["seconds"] is None for run in runs):
        return {"seconds": None, "peak_mb": None}
    return {"seconds": min(r["seconds"] for r in runs), "peak_mb": max(r["peak_mb"] for r in runs)}


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


RUNS = (
    ("hipify", "hipify"),
    ("scan cold", "porter-scan"),
    ("scan warm", "porter-scan"),
    ("scan cold, --deep never", "porter-scan-shallow"),
    # what the second core buys: on a machine whose cores share a busy cache or memory bus, two
    # workers each run slower than one alone, and the cold scan's ratio moves with that, not the code
    ("scan cold, one core", "porter-scan-one-core"),
    ("scan cold, no rules (floor)", "porter-scan-floor"),
    # what reading every file with tree-sitter costs by itself, on every core: no design that
    # parses each file beats it, whatever its rules cost
    ("tree-sitter alone", "tree-sitter"),
    ("convert cold", "porter-convert"),
    ("convert warm", "porter-convert"),
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=Path, default=REPO / "reports" / "benchmarks.md")
    parser.add_argument("--trees", nargs="*", default=list(TREES))
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement; the fastest counts")
    args = parser.parse_args()
    # an installed porter has its modules compiled (pip does it); a checkout run under
    # PYTHONDONTWRITEBYTECODE would compile them at every start instead, and measure that
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "porter")], check=True, stdout=subprocess.DEVNULL
    )
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
            print(f"[speed] {name}: {args.repeat} rounds of {', '.join(label for label, _ in RUNS)}", file=sys.stderr)
            row.update(interleaved(args.repeat, tree, workdir, cache))
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
        f"- command: `python bench/speed.py --trees {trees} --repeat {args.repeat}` (took {total:.0f}s); each figure the fastest of {args.repeat} runs, taken in rounds (hipify and every porter run once per round)",
        "- hipify: torch 2.13.0's `torch.utils.hipify.hipify_python.hipify`, one process, output to a temporary directory.",
        "- porter: the command line as a user runs it (`python -m porter scan TREE -o /dev/null`, default flags:",
        "  all cores, `--deep auto`; `convert TREE -o OUT`, portable mode, which scans too), start-up included;",
        "  cold = empty cache, warm = the unchanged tree again (a scan replays porter.memo's record of the run,",
        "  convert reuses the per-file results); `--deep never` shows what libclang costs; `one core` (`-j 1`) what the",
        "  other cores buy; `no rules (floor)` is the cold scan with every rule family taken out (and `--deep never`):",
        "  parse, node index, workers, start-up and the project's header pass, the best ratio any rule code could reach;",
        "  `tree-sitter alone` parses every C-family file and runs porter's node-index query on it in a pool of",
        "  forked workers (one per core), start-up included, and does nothing else (bench/speed_worker.py);",
        "  porter's modules compiled first, as pip would.",
        "  Each run is its own process; peak RSS from wait4.",
        "- ratio: porter's throughput over hipify's on the same tree (above 1: porter is faster).",
        "",
        "| tree | files | lines | tool | seconds | lines/s | MB/s | peak MB | porter/hipify |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        hip = row["hipify"]["seconds"]
        for label, _ in RUNS:
            run = row[label]
            seconds = run["seconds"]
            lps, mbs = _throughput(row, label)
            ratio = f"{hip / seconds:.2f}" if label != "hipify" and seconds and hip else ""
            peak = f"{run['peak_mb']:.0f}" if run["peak_mb"] else "n/a"
            shown = f"{seconds:.2f}" if seconds else "failed"
            lines.append(
                f"| {row['tree']} | {row['files']} | {row['lines']} | {label} | {shown} | {lps} | {mbs} | {peak} | {ratio} |"
            )
    lines += ["", "Summary, one line per tree (porter, cold, against hipify; above 1: porter is faster):", ""]
    for row in rows:
        hip, scan, shallow = (row[k]["seconds"] for k in ("hipify", "scan cold", "scan cold, --deep never"))
        convert, warm = row["convert cold"]["seconds"], row["scan warm"]["seconds"]
        one_core = row["scan cold, one core"]["seconds"]
        floor, parse_only = row["scan cold, no rules (floor)"]["seconds"], row["tree-sitter alone"]["seconds"]
        if not (hip and scan and shallow and convert and warm and one_core and floor and parse_only):
            lines.append(f"- {row['tree']}: a run failed")
            continue
        libclang = max(0.0, (scan - shallow) / scan)
        lines.append(
            f"- {row['tree']}: {row['lines']} lines, hipify {hip:.2f}s; scan {scan:.2f}s → {hip / scan:.2f}×, "
            f"convert {convert:.2f}s → {hip / convert:.2f}×; warm scan {100 * warm / scan:.0f} % of cold; "
            f"libclang {100 * libclang:.0f} % of the cold scan; all cores {one_core / scan:.2f}× one core's speed; "
            f"floor (no rules) {hip / floor:.2f}×, tree-sitter alone {hip / parse_only:.2f}×"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
