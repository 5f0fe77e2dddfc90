"""What the targeted AMD architectures are like: wavefront width, LDS size, FP8 format."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class Target:
    id: str
    name: str
    wavefront: int
    lds_bytes: int
    fp8: str | None  # "fnuz", "ocp" or None
    matrix: str | None
    min_llvm: int


@cache
def all_targets() -> dict[str, Target]:
    raw = json.loads(resources.files("porter.rules").joinpath("data", "arch.json").read_text())
    return {name: Target(id=name, **facts) for name, facts in raw["targets"].items()}


def targets(ids) -> list[Target]:
    known = all_targets()
    return [known[i] for i in ids if i in known]


def wave64_targets(ids) -> list[Target]:
    return [t for t in targets(ids) if t.wavefront == 64]
