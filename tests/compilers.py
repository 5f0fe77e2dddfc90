"""Compiling test outputs with the real compilers: nvcc for CUDA, clang-19 (or ROCm) for HIP."""

from __future__ import annotations

import subprocess
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
