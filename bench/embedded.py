"""CUDA in Python strings on a real package: cupy before and after its wave64 fix (cupy/cupy#9977).

cupy 14.1.1's `cupyx/scipy/sparse/_compressed.py` compiles `row_kept_count` at run time through a
`RawModule`: a shuffle ladder from 16, a 32-bit all-lanes mask, warp partials by `& 31` and `>> 5`,
read back behind `threadIdx.x < 32`. cupy 14.2.0 rewrote it for any wavefront. For each version:
- what porter reports in the Python and Cython files (files with device code, kernels, findings by
  rule), and the findings inside `row_kept_count`;
- the kernel, taken from the file as it stands (`string = "_calc_Bp_kernel"`), run by `porter verify`
  on the CPU device at 32 lanes as CUDA (the reference) and at 64 (gfx942) and 32 (gfx1100) with the
  macros hipRTC defines there (14.2.0 picks its mask by `__HIP_DEVICE_COMPILE__`): 14.1.1 must fail at
  64 lanes, 14.2.0 pass.

Usage: `python bench/embedded.py [--output reports/embedded.md]`. The sdists are fetched by URL,
pinned by SHA-256 (cupy's sdist cannot be fetched through pip without a CUDA toolkit), never committed.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.pypi import Package, fetch  # noqa: E402
from porter.config import Config, load_config  # noqa: E402
from porter.scan import scan  # noqa: E402
from porter.verify.run import verify  # noqa: E402

_FILES = "https://files.pythonhosted.org/packages"
VERSIONS = {
    "14.1.1": Package(
        "cupy", "14.1.1", "3d4d193a5b028e1823d1d44fe6268364d8fb76c3793ad4e28e1427c56ceb2f80",
        url=f"{_FILES}/85/86/e99f52f4a50e5faaf4932cf3574d64d870bce224314be7fca91a6d02cda7/cupy-14.1.1.tar.gz",
    ),
    "14.2.0": Package(
        "cupy", "14.2.0", "cfed725e612178cfbdbf62f4a3a598b60edecbbca718c0d4580c21a16ae4a62c",
        url=f"{_FILES}/dc/10/059a92d40b161ea24607c9e41a75098812ca7021f2b565524f87beba15c9/cupy-14.2.0.tar.gz",
    ),
}  # fmt: skip
SPARSE = "cupyx/scipy/sparse/_compressed.py"
KERNEL = "row_kept_count"
WAVE_CATEGORIES = ("warp-size", "lane-mask", "warp-sync")
# the kernel's launch in cupy (one block per row), on a CSR matrix of 5 rows of 300 entries each
CASE = """
[[verify.case]]
name = "row_kept_count"
source = "compressed.py"
string = "_calc_Bp_kernel"
kernel = "row_kept_count<int>"
expect = "{expect}"
grid = 5
block = 256
args = [
  {{ name = "n_row", dtype = "i32", value = "5" }},
  {{ name = "Ap", dtype = "i32", size = "6", init = "arange(0, 300)" }},
  {{ name = "Aj", dtype = "i32", size = "1500", init = "range(0, 3)" }},
  {{ name = "col_cnt", dtype = "i32", size = "3", init = "arange" }},
  {{ name = "Bp", dtype = "i32", size = "6", init = "zeros", output = true }},
]
"""


def scanned(tree: Path) -> dict:
    result = scan([tree / "cupy", tree / "cupyx"], Config(), jobs=1)
    python = [f for f in result.files if f.kind == "python"]
    found = [finding for f in python for finding in f.findings]
    sparse = next(f for f in result.files if f.rel.endswith(SPARSE.split("/", 1)[1]))
    kernel = next(k for k in sparse.kernels if k["name"] == KERNEL)
    inside = [f for f in sparse.findings if kernel["line"] <= f.line <= kernel["end_line"]]
    return {
        "files": len(python),
        "with_kernels": sum(1 for f in python if f.kernels),
        "kernels": sum(len(f.kernels) for f in python),
        "rules": Counter(f.rule for f in found),
        "wave": sum(1 for f in found if f.category in WAVE_CATEGORIES),
        "inside": inside,
    }


def emulated(tree: Path, expect: str) -> list:
    with tempfile.TemporaryDirectory(prefix="porter-embedded-") as work:
        case = Path(work)
        shutil.copy(tree / SPARSE, case / "compressed.py")
        (case / "porter.toml").write_text(CASE.format(expect=expect))
        return verify(case, ("gfx942", "gfx1100"), load_config(case), gpus={"nvidia": [], "amd": []}).cases


def render(rows: dict, seconds: float) -> str:
    lines = [
        "# CUDA in Python strings: cupy before and after cupy/cupy#9977",
        "",
        f"- command: `python bench/embedded.py` (took {seconds:.0f}s); scans `cupy/` and `cupyx/` of each sdist",
        f"- the kernel: `{KERNEL}` in `{SPARSE}` (`_calc_Bp_kernel`, compiled at run time by a `RawModule`)",
        "",
        "| cupy | Python/Cython files with device code | with kernels | kernels | findings | wave64 findings |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for version, row in rows.items():
        scan_row = row["scan"]
        lines.append(
            f"| {version} | {scan_row['files']} | {scan_row['with_kernels']} | {scan_row['kernels']} "
            f"| {sum(scan_row['rules'].values())} | {scan_row['wave']} |"
        )
    for version, row in rows.items():
        lines += ["", f"## cupy {version}", "", f"Findings inside `{KERNEL}`:", ""]
        lines += [f"- line {f.line} {f.rule} ({f.severity}): {f.message}" for f in row["scan"]["inside"]] or ["- none"]
        lines += ["", "Findings in Python and Cython files, by rule: "
                  + ", ".join(f"{rule} {count}" for rule, count in sorted(row["scan"]["rules"].items())), ""]  # fmt: skip
        if row["verify"]:
            lines += ["On porter's CPU device (`porter verify`, the kernel as the file holds it):", ""]
            lines += [
                f"- {c.target} {c.variant}: {c.status}{f' ({c.reason})' if c.reason else ''}" for c in row["verify"]
            ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=REPO / "reports" / "embedded.md")
    args = parser.parse_args()
    started = time.perf_counter()
    rows = {}
    for version, package in VERSIONS.items():
        tree = fetch(package)
        expect = "fail" if version == "14.1.1" else "pass"
        rows[version] = {"scan": scanned(tree), "verify": emulated(tree, expect)}
        print(
            f"[embedded] cupy {version}: {len(rows[version]['scan']['inside'])} findings in {KERNEL}", file=sys.stderr
        )
    args.output.write_text(render(rows, time.perf_counter() - started))
    print(f"[embedded] wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
