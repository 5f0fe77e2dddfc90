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

from porter.targets import Target

_PTXAS_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
_PTXAS_SPILL = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_PTXAS_USED = re.compile(r"Used (\d+) registers(?:, used \d+ barriers)?(?:, (\d+) bytes smem)?")
_REMARK = re.compile(
    r"remark: +(?:Function Name: (\S+)|(SGPRs|VGPRs|AGPRs|ScratchSize \[bytes/lane\]|Occupancy \[waves/SIMD\]|LDS Size \[bytes/block\]|SGPRs Spill|VGPRs Spill): (\d+))"
)


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


def nvidia_occupancy(resources: KernelResources, target: Target, block_size: int) -> None:
    """Resident warps per SM from registers, shared memory and block size (the caller's, or the
    largest a kernel may have); the limiter named."""
    if resources.registers is None:
        resources.limiter = None
        return
    warps = math.ceil(block_size / target.wavefront)
    registers_per_warp = math.ceil(max(resources.registers, 1) * target.wavefront / 256) * 256
    candidates = {
        "registers": target.registers // (registers_per_warp * warps),
        "shared memory": target.shared_per_sm // (math.ceil(((resources.shared_bytes or 0) + 1024) / 128) * 128)
        if resources.shared_bytes
        else target.max_blocks,
        "warps": target.max_waves // warps,
        "blocks": target.max_blocks,
    }
    limiter = min(candidates, key=candidates.get)
    resources.occupancy = candidates[limiter] * warps
    resources.limiter = limiter


def amd_limiter(resources: KernelResources, target: Target, block_size: int) -> None:
    """Which resource holds the reported occupancy down: VGPRs, LDS or the wave limit."""
    if resources.occupancy is None:
        return
    total = (resources.registers or 0) + (resources.agprs or 0)
    granule = 8
    vgpr_waves = (
        target.vgprs_per_lane // max(granule, math.ceil(total / granule) * granule)
        if total and target.vgprs_per_lane
        else target.max_waves
    )
    lds_waves = None
    if resources.shared_bytes and block_size:
        blocks = target.lds_bytes // resources.shared_bytes
        lds_waves = blocks * math.ceil(block_size / target.wavefront) / 4  # four SIMDs per CU
    if resources.occupancy >= target.max_waves:
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


# Kernels a library instantiates inside the project's units (a CUB reduction, a Thrust transform):
# the first namespace of the demangled name says whose they are.
_LIBRARY_NAMESPACES = {
    "rocprim": "rocPRIM",
    "hipcub": "hipCUB",
    "cub": "CUB",
    "thrust": "Thrust",
    "rocthrust": "rocThrust",
    "at": "PyTorch",
    "c10": "PyTorch",
    "cutlass": "CUTLASS",
    "cute": "CUTLASS",
}
_FIRST_NAMESPACE = re.compile(r"^(?:[\w\s*&]+?\s)??(?:\(anonymous namespace\)::)?([A-Za-z_]\w*)::")


def library_of(kernel_name: str) -> str | None:
    """`void rocprim::detail::block_reduce_kernel<…>(…)` → `rocPRIM`; a project's own kernel → None."""
    match = _FIRST_NAMESPACE.match(kernel_name)
    return _LIBRARY_NAMESPACES.get(match.group(1)) if match else None
