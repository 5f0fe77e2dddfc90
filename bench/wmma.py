"""WMMA on the matrix cores: what porter_wmma.h compiles to, per kernel and target.

For each WMMA kernel of corpus/wmma, converted by porter (portable mode):
- the MFMA instructions in the ISA clang 21 emits for gfx90a, gfx942 and gfx950 (`--cuda-device-only -S`);
- VGPRs, AGPRs and occupancy from `porter build` (the compiler's kernel-resource-usage remarks), beside
  the original's registers and occupancy for sm_90 (ptxas);
- the emulated verify verdicts (the original's WMMA at 32 lanes against the port's MFMA at 64).

Usage: `python bench/wmma.py [--output reports/wmma.md]`.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from porter.build.run import build  # noqa: E402
from porter.config import Config, load_config  # noqa: E402
from porter.convert import ConvertOptions, convert  # noqa: E402
from porter.targets import toolchains  # noqa: E402
from porter.verify.run import verify  # noqa: E402

WMMA = REPO / "corpus" / "wmma"
AMD_TARGETS = ("gfx90a", "gfx942", "gfx950")


def mfma_counts(source: Path, target: str, work: Path) -> Counter:
    """MFMA mnemonics in the device ISA of one source for one target."""
    hip = toolchains.find_hip_toolchain("6.4")
    if hip is None or not hip.supports(target):
        return Counter()
    output = work / f"{source.stem}-{target}.s"
    flags = ["-std=c++17", "-O3", *hip.hip_flags(), f"--offload-arch={target}", f"-I{source.parent}"]
    command = hip.command([*flags, "--cuda-device-only", "-S", str(source), "-o", str(output)])
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        return Counter({"(build failed)": 1})
    return Counter(re.findall(r"^\s*(v_mfma\w+)", output.read_text(errors="replace"), re.M))


def resources_by_kernel(result) -> dict[str, dict]:
    return {kernel["name"].split("(")[0]: kernel["targets"] for kernel in result.kernels}


def render(rows: list[dict], verdicts: dict[str, str], hip: str | None, seconds: float) -> str:
    lines = [
        "# WMMA on the matrix cores (porter_wmma.h)",
        "",
        f"corpus/wmma converted by porter (portable mode); gfx targets built with {hip or 'no HIP toolchain'}; "
        f"sm_90 with nvcc (ptxas). {time.strftime('%Y-%m-%d')}, {seconds:.0f} s. Reproduce: `python bench/wmma.py`.",
        "",
        "Occupancy: warps per SM of 64 on sm_90, waves per SIMD of 8 on gfx9; block sizes as `porter build` finds them",
        "(at the maximum the kernel allows where it cannot).",
        "",
        "| kernel | target | MFMA instructions in the ISA | VGPRs (registers on sm_90) | AGPRs | occupancy | verify (CPU, 64 lanes) |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for row in rows:
        for target in ("sm_90", *AMD_TARGETS):
            res = row["resources"].get(target, {})
            mfma = row["mfma"].get(target)
            instructions = (
                "(tensor cores, through wmma)"
                if target == "sm_90"
                else ", ".join(f"{n}× `{op}`" for op, n in sorted(mfma.items())) or "none"
            )
            occupancy = res.get("occupancy")
            lines.append(
                f"| {row['kernel']} | {target} | {instructions} | {res.get('registers', 'not built')} | "
                f"{res.get('agprs', '—' if target != 'sm_90' else 'no AGPRs on NVIDIA')} | "
                f"{'not built' if occupancy is None else f'{occupancy:g}'} | "
                f"{verdicts.get(row['kernel'], 'not run') if target == 'gfx942' else ''} |"
            )
    lines += [
        "",
        "The original's WMMA runs on porter's CPU device at 32 lanes (CUDA leaves the fragment layout open; the",
        "emulator's is row-major by lane) and the port's at 64, through porter_wmma.h and the MFMA builtins emulated",
        "on AMD's operand layouts: a load that puts an element where the instruction does not read it fails there",
        "(tests/test_wmma.py plants one). Tolerances in corpus/wmma/porter.toml: both sides multiply in float in k",
        "order on the CPU, so the emulated results agree exactly; on the hardware the summation order differs.",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=REPO / "reports" / "wmma.md")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="porter-wmma-") as tmp:
        work = Path(tmp)
        port = work / "portable"
        convert(ConvertOptions(WMMA, port, use_cache=False), Config(), None)
        result = build(WMMA, ["sm_90", *AMD_TARGETS], Config(), use_cache=False)
        resources = resources_by_kernel(result)
        rows = []
        for source in sorted(WMMA.glob("*.cu")):
            kernel = source.stem
            counts = {t: mfma_counts(port / source.name, t, work) for t in AMD_TARGETS}
            rows.append({"kernel": kernel, "mfma": counts, "resources": resources.get(kernel, {})})
        verified = verify(WMMA, ("gfx942",), load_config(WMMA), gpus={})
        verdicts = {c.name: c.status for c in verified.cases if str(c.variant) == "emu-port"}
    args.output.write_text(render(rows, verdicts, result.hip, time.perf_counter() - started), encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
