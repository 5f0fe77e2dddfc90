"""Per-kernel resources as the compilers report them, and the occupancy they allow.

- ptxas (`-Xptxas -v`): registers, shared memory, spill stores/loads, per entry function.
- AMDGPU (`-Rpass-analysis=kernel-resource-usage`): SGPRs, VGPRs, AGPRs, scratch, LDS and the
  occupancy in waves per SIMD, per kernel.
"""

from __future__ import annotations

import math
import re
import shutil
import subprocess
from dataclasses import asdict, dataclass

_PTXAS_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
_PTXAS_SPILL = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_PTXAS_USED = re.compile(r"Used (\d+) registers(?:, used \d+ barriers)?(?:, (\d+) bytes smem)?")
_REMARK = re.compile(
    r"remark: +(?:Function Name: (\S+)|(SGPRs|VGPRs|AGPRs|ScratchSize \[bytes/lane\]|Occupancy \[waves/SIMD\]|LDS Size \[bytes/block\]|SGPRs Spill|VGPRs Spill): (\d+))"
)

# sm_90 and sm_80 limits from NVIDIA's occupancy tables
NVIDIA_LIMITS = {
    "sm_90": {"registers": 65536, "shared": 233472, "warps": 64, "blocks": 32},
    "sm_80": {"registers": 65536, "shared": 167936, "warps": 64, "blocks": 32},
    "sm_89": {"registers": 65536, "shared": 102400, "warps": 48, "blocks": 24},
}
AMD_MAX_WAVES = {"gfx90a": 8, "gfx942": 8, "gfx950": 8}
AMD_VGPRS_PER_LANE = 512  # gfx90a/gfx942: VGPRs and AGPRs share one 512-entry file per lane
AMD_LDS = {"gfx90a": 65536, "gfx942": 65536, "gfx950": 163840}


@dataclass
class KernelResources:
    registers: int | None = None  # VGPRs on AMD
    shared_bytes: int | None = None  # LDS on AMD
    spill_bytes: int | None = None  # scratch on AMD
    occupancy: float | None = None  # warps per SM (NVIDIA), waves per SIMD (AMD)
    limiter: str | None = None
    sgprs: int | None = None
    agprs: int | None = None
    block_size: int | None = None

    def to_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None or k in ("occupancy", "limiter")}


def parse_ptxas(text: str) -> dict[str, KernelResources]:
    kernels: dict[str, KernelResources] = {}
    current = None
    for line in text.splitlines():
        if match := _PTXAS_ENTRY.search(line):
            current = kernels.setdefault(match.group(1), KernelResources())
        elif current is not None and (match := _PTXAS_SPILL.search(line)):
            current.spill_bytes = int(match.group(2)) + int(match.group(3))
        elif current is not None and (match := _PTXAS_USED.search(line)):
            current.registers = int(match.group(1))
            current.shared_bytes = int(match.group(2) or 0)
    return kernels


def parse_amdgpu_remarks(text: str) -> dict[str, KernelResources]:
    kernels: dict[str, KernelResources] = {}
    current = None
    for line in text.splitlines():
        match = _REMARK.search(line)
        if match is None:
            continue
        if match.group(1):
            current = kernels.setdefault(match.group(1), KernelResources())
            continue
        if current is None:
            continue
        field, value = match.group(2), int(match.group(3))
        if field == "VGPRs":
            current.registers = value
        elif field == "SGPRs":
            current.sgprs = value
        elif field == "AGPRs":
            current.agprs = value
        elif field.startswith("ScratchSize"):
            current.spill_bytes = value
        elif field.startswith("Occupancy"):
            current.occupancy = value
        elif field.startswith("LDS"):
            current.shared_bytes = value
    return kernels


def nvidia_occupancy(resources: KernelResources, target: str, block_size: int | None) -> None:
    """Resident warps per SM from registers, shared memory and block size; the limiter named."""
    limits = NVIDIA_LIMITS.get(target, NVIDIA_LIMITS["sm_90"])
    if block_size is None or resources.registers is None:
        resources.limiter = "block size unknown" if block_size is None else None
        return
    warps = math.ceil(block_size / 32)
    registers_per_warp = math.ceil(max(resources.registers, 1) * 32 / 256) * 256
    candidates = {
        "registers": limits["registers"] // (registers_per_warp * warps),
        "shared memory": limits["shared"] // (math.ceil(((resources.shared_bytes or 0) + 1024) / 128) * 128)
        if resources.shared_bytes
        else limits["blocks"],
        "warps": limits["warps"] // warps,
        "blocks": limits["blocks"],
    }
    limiter = min(candidates, key=candidates.get)
    resources.occupancy = candidates[limiter] * warps
    resources.limiter = limiter


def amd_limiter(resources: KernelResources, target: str, block_size: int | None) -> None:
    """Which resource holds the reported occupancy down: VGPRs, LDS or the wave limit."""
    if resources.occupancy is None:
        return
    total = (resources.registers or 0) + (resources.agprs or 0)
    granule = 8
    vgpr_waves = (
        AMD_VGPRS_PER_LANE // max(granule, math.ceil(total / granule) * granule)
        if total
        else AMD_MAX_WAVES.get(target, 8)
    )
    lds_waves = None
    if resources.shared_bytes and block_size:
        blocks = AMD_LDS.get(target, 65536) // resources.shared_bytes
        lds_waves = blocks * math.ceil(block_size / 64) / 4
    if resources.occupancy >= AMD_MAX_WAVES.get(target, 8):
        resources.limiter = "waves"
    elif vgpr_waves <= resources.occupancy:
        resources.limiter = "VGPRs"
    elif lds_waves is not None and lds_waves <= resources.occupancy + 0.5 or resources.shared_bytes:
        resources.limiter = "LDS"
    else:
        resources.limiter = "waves"


def demangle(names: list[str]) -> dict[str, str]:
    tool = shutil.which("llvm-cxxfilt-19") or shutil.which("c++filt")
    if tool is None or not names:
        return {n: n for n in names}
    result = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True, timeout=60)
    demangled = result.stdout.splitlines()
    return dict(zip(names, demangled, strict=False)) if len(demangled) == len(names) else {n: n for n in names}
