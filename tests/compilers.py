"""Compiling test outputs with the real compilers: nvcc for CUDA, clang-19 (or ROCm) for HIP."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from porter.targets import toolchains


def require_nvcc():
    nvcc = toolchains.find_nvcc()
    if nvcc is None:
        pytest.skip("no nvcc: `porter doctor` says how to get one")
    return nvcc


def require_hip():
    hip = toolchains.find_hip_toolchain()
    if hip is None:
        pytest.skip("no HIP toolchain: run `porter setup rocm-sysroot` and install clang-19")
    return hip


def nvcc_compile(path: Path, workdir: Path, extra=()) -> subprocess.CompletedProcess:
    nvcc = require_nvcc()
    command = [
        str(nvcc.path), "-std=c++17", "-arch=sm_90", *extra, "-x", "cu", "-c", str(path), "-o", str(workdir / "out.o"),
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def hip_compile(path: Path, workdir: Path, targets=("gfx90a", "gfx942"), extra=()) -> subprocess.CompletedProcess:
    hip = require_hip()
    arches = [f"--offload-arch={t}" for t in targets]
    command = hip.command(
        ["-std=c++17", "-O1", *hip.hip_flags(), *arches, *extra, "-c", str(path), "-o", str(workdir / "out.o")]
    )
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def hip_compile_each(
    paths: Iterable[Path], workdir: Path, targets=("gfx90a", "gfx942")
) -> list[tuple[Path, subprocess.CompletedProcess]]:
    """hip_compile of each path, one compile per core (each a single-threaded clang: the corpus's
    builds were most of the suite's time run one after another), each into its own folder."""
    return each_on_a_core(lambda indexed: _compile_in(indexed, workdir, targets), list(enumerate(paths)))


def _compile_in(indexed, workdir: Path, targets):
    index, path = indexed
    folder = workdir / f"build-{index}"
    folder.mkdir(exist_ok=True)
    return path, hip_compile(path, folder, targets=targets)


def each_on_a_core(function: Callable, items: list) -> list:
    """function over items, as many at once as there are cores; results in the items' order."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return list(pool.map(function, items))
