"""The ground floor: what every target is, which ROCm releases exist, which variant of a tree is built.

One table (data/targets.json) holds every sm_* and gfx* fact porter uses: vendor, wavefront width,
shared memory or LDS per block, occupancy limits, FP8 flavour, matrix unit, the LLVM that knows
the target. Everything above this floor asks `target("gfx950")` instead of looking at a name's
prefix, and carries typed values (`Target`, `RocmVersion`, `Variant`) parsed once, here.

The toolchains that build each target and the one compiler-command builder live beside this
module (porter.targets.toolchains, porter.targets.command).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, total_ordering
from pathlib import Path

from porter.errors import PorterError


class TargetError(PorterError):
    """A target or ROCm version porter does not know; the message lists the known ones."""


class Vendor(StrEnum):
    NVIDIA = "nvidia"
    AMD = "amd"


@dataclass(frozen=True)
class Target:
    id: str
    vendor: Vendor
    name: str
    wavefront: int  # lanes of a warp (NVIDIA) or wavefront (AMD)
    lds_bytes: int  # shared memory / LDS one block may use
    max_waves: int  # resident warps per SM (NVIDIA), waves per SIMD (AMD)
    shared_per_sm: int | None = None  # NVIDIA: shared memory per SM
    max_blocks: int | None = None  # NVIDIA: resident blocks per SM
    registers: int | None = None  # NVIDIA: 32-bit registers per SM
    vgprs_per_lane: int | None = None  # AMD CDNA: the unified VGPR+AGPR file
    fp8: str | None = None  # AMD: "fnuz", "ocp" or None
    matrix: str | None = None  # AMD: "mfma", "wmma" or None
    min_llvm: int | None = None  # AMD: the first LLVM that knows the target

    @property
    def is_amd(self) -> bool:
        return self.vendor is Vendor.AMD

    @property
    def is_nvidia(self) -> bool:
        return self.vendor is Vendor.NVIDIA

    @property
    def wave64(self) -> bool:
        return self.wavefront == 64

    def __str__(self) -> str:
        return self.id


@cache
def _data() -> dict:
    # beside this module, as porter ships (never zipped): importlib.resources would import zipfile
    # and its readers, ~10 ms in each process of a scan
    return json.loads((Path(__file__).parent / "data" / "targets.json").read_text(encoding="utf-8"))


@cache
def all_targets() -> dict[str, Target]:
    return {
        name: Target(id=name, **{**facts, "vendor": Vendor(facts["vendor"])})
        for name, facts in _data()["targets"].items()
    }


def target(name: str, where: str = "--target") -> Target:
    """The target called `name`; an unknown name is an error listing the known ones."""
    found = all_targets().get(str(name).strip())
    if found is None:
        known = ", ".join(all_targets())
        raise TargetError(f"{where}: unknown target {name!r}; known targets: {known}")
    return found


def parse_targets(values: Iterable[str], where: str = "--target", vendor: Vendor | None = None) -> tuple[Target, ...]:
    """Targets from repeated and comma-separated values, in order, without repeats."""
    found: dict[str, Target] = {}
    for value in values:
        for name in str(value).split(","):
            if name.strip():
                chosen = target(name, where)
                if vendor is not None and chosen.vendor is not vendor:
                    raise TargetError(f"{where}: {chosen.id} is not an {vendor.value.upper()} target")
                found.setdefault(chosen.id, chosen)
    if not found:
        raise TargetError(f"{where}: no target given")
    return tuple(found.values())


def amd_targets() -> tuple[str, ...]:
    return tuple(name for name, t in all_targets().items() if t.is_amd)


def known(ids: Iterable[str]) -> list[Target]:
    """The known targets among `ids` (names porter does not know are passed over)."""
    table = all_targets()
    return [table[i] for i in ids if i in table]


def wave64_targets(ids: Iterable[str]) -> list[Target]:
    return [t for t in known(ids) if t.wave64]


def host_warp_size(ids: Iterable[str]) -> int:
    """The warp width host code is compiled with where it needs one at compile time (the compat
    header's host PORTER_WARP_SIZE): the largest wavefront of the targets, which is good for sizing."""
    return max((t.wavefront for t in known(ids)), default=64)


@total_ordering
@dataclass(frozen=True)
class RocmVersion:
    """A ROCm release as porter compares them: 6.4 < 6.10 < 7.0."""

    major: int
    minor: int
    patch: int | None = None

    @classmethod
    def parse(cls, value, where: str = "--rocm-version") -> RocmVersion:
        """A known release, `6.4` or `6.4.3`; anything else is an error naming the known ones."""
        text = str(value).strip()
        match = re.fullmatch(r"(\d{1,2})\.(\d{1,2})(?:\.(\d{1,3}))?", text)
        if match is None or f"{int(match.group(1))}.{int(match.group(2))}" not in _data()["rocm_versions"]:
            raise TargetError(
                f"{where}: unknown ROCm version {value!r}; known: {', '.join(_data()['rocm_versions'])}"
                " (a patch release such as 6.4.3 is fine)"
            )
        return cls(int(match.group(1)), int(match.group(2)), int(match.group(3)) if match.group(3) else None)

    @classmethod
    def of(cls, text: str) -> RocmVersion:
        """A release named in porter's own data (`since` fields), not checked against the known list."""
        parts = [int(p) for p in str(text).split(".")]
        return cls(parts[0], parts[1] if len(parts) > 1 else 0, parts[2] if len(parts) > 2 else None)

    @property
    def release(self) -> tuple[int, int]:
        return self.major, self.minor

    def __lt__(self, other: RocmVersion) -> bool:
        return (self.major, self.minor, self.patch or 0) < (other.major, other.minor, other.patch or 0)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}" + (f".{self.patch}" if self.patch is not None else "")


DEFAULT_ROCM_VERSION = RocmVersion(6, 4)


class Variant(StrEnum):
    """What one compile or run is made of; the names are those build, verify and the reports use."""

    CUDA = "cuda"  # build: the original, nvcc, sm_*
    HIP = "hip"  # build: porter's portable port (or the tree as it is), clang, gfx*
    HIP_NVIDIA = "hip-nvidia"  # build: the HIP tree through clang's CUDA mode, sm_*
    CUDA_ORIGINAL = "cuda-original"  # verify: the original's harness, sm_*
    CUDA_PORT = "cuda-port"  # verify: the portable port's harness built with nvcc, sm_*
    HIP_AMD = "hip-amd"  # verify: the portable port's harness built for gfx*
    TORCH_ORIGINAL = "torch-original"  # verify: a PyTorch extension as given
    TORCH_PORT = "torch-port"  # verify: the extension after porter's conversion
    EMU_ORIGINAL = "emu-original"  # verify without a GPU: the original on porter's CPU device at 32 lanes
    EMU_PORT = "emu-port"  # verify without a GPU: the port on the CPU device at a target's warp width

    @classmethod
    def built_for(cls, chosen: Target) -> Variant:
        """The variant `porter build` compiles for a target: the original on NVIDIA, the port on AMD."""
        return cls.CUDA if chosen.is_nvidia else cls.HIP
