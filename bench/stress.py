"""Scan time and peak memory against file size: pathological files must cost linear time and bounded memory.

Usage: `python bench/stress.py [--report reports/stress.md]`. Generates, in a temporary folder:
generated CUDA of 0.5, 1, 2 and 20 MB (kernels with shuffles, ballots, lane arithmetic and runtime
calls, repeated), one 10 MB line, 200,000 identical shuffle lines (5.4 MB), and Python files holding
2,000, 20,000 and 120,000 of those kernels in strings; then times
`porter scan --no-cache -j 1 FILE -f json` on each in a process of its own and reads its peak
resident memory. Also converts the 200,000-line file (convert is uncapped: every fix applied).
Targets (issue 12): the 20 MB file under 60 s, the 200,000-line file under 1 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PORTER = REPO / ".venv" / "bin" / "porter"

KERNEL = """
__global__ void k{i}(float* out, const float* in, int n) {{
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;
  __shared__ float buf{i}[32];
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  unsigned m = __ballot_sync(0xffffffff, v > 0);
  if (lane == 0) buf{i}[warp] = v + __popc(m);
  __syncthreads();
  cudaStream_t s; cudaMalloc(&out, n);
  out[threadIdx.x] = buf{i}[lane];
}}
"""


def generated(size: int) -> str:
    parts, total, index = ["#include <cuda_runtime.h>\n"], 0, 0
    while total < size:
        text = KERNEL.format(i=index)
        parts.append(text)
        total += len(text)
        index += 1
    return "".join(parts)


def inputs(folder: Path) -> dict[str, Path]:
    files = {}
    for megabytes in (0.5, 1, 2, 20):
        files[f"generated {megabytes} MB"] = folder / f"gen_{megabytes}.cu"
        files[f"generated {megabytes} MB"].write_text(generated(int(megabytes * 1e6)))
    one_line = " ".join(KERNEL.format(i=i).replace("\n", " ") for i in range(10_000_000 // len(KERNEL)))
    files["one 10 MB line"] = folder / "one_line.cu"
    files["one 10 MB line"].write_text(one_line + "\n")
    shuffles = "__global__ void k(float* o) {\n  float v = o[threadIdx.x];\n" + "  v += __shfl_down(v, 16);\n" * 200_000
    files["200,000 shuffle lines"] = folder / "shuffles.cu"
    files["200,000 shuffle lines"].write_text(shuffles + "  o[threadIdx.x] = v;\n}\n")
    for count in (2_000, 20_000, 120_000):  # CUDA in Python strings (porter.embedded): 1, 10 and 60 MB
        held = "".join(f'K{i} = r"""\n{KERNEL.format(i=i)}"""\n' for i in range(count))
        files[f"Python, {count:,} kernels in strings"] = folder / f"strings_{count}.py"
        files[f"Python, {count:,} kernels in strings"].write_text(held)
    return files


def measured(command: list[str]) -> tuple[float, float, str]:
    """(seconds, peak resident MB, stdout) of one command in a process of its own."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout, _ = process.communicate()
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest child so far
    return seconds, peak, stdout.decode()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--report", type=Path)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="porter-stress-") as tmp:
        for label, path in inputs(Path(tmp)).items():
            # each measurement in a fresh child of a fresh interpreter, so RUSAGE_CHILDREN is its own peak
            probe = [sys.executable, __file__, "--measure", str(path)]
            result = json.loads(subprocess.run(probe, capture_output=True, text=True, check=True).stdout)
            rows.append((label, path.stat().st_size, result))
        shuffles = Path(tmp) / "shuffles.cu"
        folder = Path(tmp) / "convert-in"
        folder.mkdir()
        shuffles.rename(folder / "shuffles.cu")
        probe = [sys.executable, __file__, "--measure-convert", str(folder), str(Path(tmp) / "convert-out")]
        converted = json.loads(subprocess.run(probe, capture_output=True, text=True, check=True).stdout)
    text = render(rows, converted)
    print(text)
    if args.report:
        args.report.write_text(text)
    return 0


def render(rows, converted) -> str:
    lines = [
        "# Scan time and memory on pathological files",
        "",
        f"`python bench/stress.py` on this machine ({os.cpu_count()} cores), one process per file, "
        "`porter scan --no-cache -j 1 FILE -f json`. Files past 8 MiB get the token-level pass (SCN001); "
        "findings past 1,000 per rule and file are counted in one SCN002 finding.",
        "",
        "| input | size | seconds | peak memory | findings listed | note |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for label, size, result in rows:
        note = "token-level pass (SCN001)" if "SCN001" in result["rules"] else "full analysis"
        if "SCN002" in result["rules"]:
            note += ", capped (SCN002)"
        lines.append(
            f"| {label} | {size / 1e6:.1f} MB | {result['seconds']:.1f} | {result['peak_mb']:.0f} MB | "
            f"{result['findings']} | {note} |"
        )
    lines += [
        "",
        f"Convert (uncapped, every fix applied) of the 200,000-line file: {converted['seconds']:.1f} s, "
        f"peak {converted['peak_mb']:.0f} MB, {converted['fixes']} fixes applied.",
        "",
        "Targets: the 20 MB file under 60 s and the 200,000-line file under 1 GB (issue 12).",
    ]
    return "\n".join(lines) + "\n"


def measure(path: Path) -> None:
    seconds, peak, stdout = measured([str(PORTER), "scan", "--no-cache", "-j", "1", str(path), "-f", "json"])
    findings = json.loads(stdout)["findings"]
    rules = sorted({f["rule"] for f in findings})
    print(json.dumps({"seconds": seconds, "peak_mb": peak, "findings": len(findings), "rules": rules}))


def measure_convert(src: Path, out: Path) -> None:
    seconds, peak, stdout = measured([str(PORTER), "convert", str(src), "-o", str(out), "-j", "1", "-f", "json"])
    print(json.dumps({"seconds": seconds, "peak_mb": peak, "fixes": json.loads(stdout)["summary"]["fixes_applied"]}))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--measure":
        measure(Path(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "--measure-convert":
        measure_convert(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit(main())
