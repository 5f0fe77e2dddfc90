"""One translation unit compiled for one target: the command, the cache, the outcome.

Results are cached by the hash of the preprocessed input, the flags and the compiler version, so an
unchanged unit is not compiled again (line markers and include paths, which name where the tree
is, are not part of the key).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from porter.build.flags import NO_TORCH_HIP_NVIDIA
from porter.build.resources import KernelResources
from porter.targets import rocm_root, toolchains
from porter.targets.command import first_error, toolchain_command, why_unavailable
from porter.targets.nvcc_args import UnsafeArgument


@dataclass
class Unit:
    file: str
    target: str
    variant: str
    status: str  # ok | failed | unavailable
    cls: str | None = None
    diagnostic: str | None = None
    kernels: dict[str, KernelResources] = field(default_factory=dict)
    cached: bool = False

    def to_json(self) -> dict:
        return {
            "file": self.file,
            "target": self.target,
            "variant": self.variant,
            "status": self.status,
            "class": self.cls,
            "diagnostic": self.diagnostic,
            "cached": self.cached,
        }


def translation_units(root: Path) -> list[Path]:
    found = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        if path.suffix in (".cu", ".hip") or (path.suffix in (".cpp", ".cc") and b"__global__" in path.read_bytes()):
            found.append(path)
    return found


def compile_unit(
    path: Path,
    rel: str,
    root: Path,
    target: str,
    variant: str,
    extra: list[str] | None,
    use_cache: bool,
    rocm_version: str | None = None,
) -> tuple[Unit, str]:
    if extra is None:
        return Unit(rel, target, variant, "unavailable", "unavailable", NO_TORCH_HIP_NVIDIA), ""
    with tempfile.TemporaryDirectory(prefix="porter-build-") as tmp:
        try:
            compile_command = toolchain_command(
                target, path, root, Path(tmp) / "out.o", "compile", variant, extra, rocm_version
            )
        except UnsafeArgument as exc:
            return Unit(rel, target, variant, "failed", "unsafe-input", str(exc)), ""
        if compile_command is None:
            reason = why_unavailable(target, variant, rocm_version)
            return Unit(rel, target, variant, "unavailable", "unavailable", reason), ""
        key = None
        if use_cache:
            preprocess = toolchain_command(
                target, path, root, Path(tmp) / "pre.i", "preprocess", variant, extra, rocm_version
            )
            pre = subprocess.run(preprocess, capture_output=True, timeout=600)
            if pre.returncode == 0:
                # line markers and include flags name where the tree is (a temporary directory for
                # the port): neither changes what is compiled, so neither is part of the key
                text = re.sub(rb"(?m)^#\s*\d+\s+\"[^\"]*\".*$", b"", (Path(tmp) / "pre.i").read_bytes())
                digest = hashlib.sha256(text)
                flags = [f for f in compile_command[1:-4] if not f.startswith("-I")]
                digest.update(json.dumps(flags).encode())
                digest.update(_compiler_version(compile_command).encode())
                key = digest.hexdigest()
                cached = _load(key)
                if cached is not None:
                    unit, log = cached
                    unit.file, unit.cached = rel, True
                    return unit, log
        result = subprocess.run(compile_command, capture_output=True, text=True, timeout=600)
        log = result.stderr + result.stdout
        log = log.replace(str(path.parent) + os.sep, "").replace(str(root) + os.sep, "")  # tree-relative
        unit = Unit(rel, target, variant, "ok" if result.returncode == 0 else "failed")
        if result.returncode != 0:
            unit.diagnostic = first_error(log) or log.strip()[-300:]
        if key is not None:
            _store(key, unit, log)
        return unit, log


def _compiler_version(command: list[str]) -> str:
    out = subprocess.run(rocm_root.version_command(command), capture_output=True, text=True, timeout=60)
    return out.stdout.strip()


def _cache_path(key: str) -> Path:
    return toolchains.cache_dir() / "build" / key[:2] / f"{key}.json"


def _load(key: str) -> tuple[Unit, str] | None:
    try:
        data = json.loads(_cache_path(key).read_text())
    except (OSError, ValueError):
        return None
    unit = Unit(data["file"], data["target"], data["variant"], data["status"], data["class"], data["diagnostic"])
    return unit, data["log"]


def _store(key: str, unit: Unit, log: str) -> None:
    path = _cache_path(key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**unit.to_json(), "log": log}))
    except OSError:
        pass
