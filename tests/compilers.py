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


def nvcc_compile(path: Path, workdir: Path, extra=(), device_only=False) -> subprocess.CompletedProcess:
    """`device_only` stops at the device pass's PTX (a third of the time): its front end still checks
    every host function; what it leaves out is code under `#ifndef __CUDA_ARCH__`, ptxas and the host
    compiler."""
    nvcc = require_nvcc()
    output = (
        ["-ptx", str(path), "-o", str(workdir / "out.ptx")]
        if device_only
        else ["-c", str(path), "-o", str(workdir / "out.o")]
    )
    command = [str(nvcc.path), "-std=c++17", "-arch=sm_90", *extra, "-x", "cu", *output]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def nvcc_compile_each(
    paths: Iterable[Path], workdir: Path, device_only=False
) -> dict[Path, subprocess.CompletedProcess]:
    """nvcc_compile of each path, one compile per core (a parametrized test of one compile each ran
    the corpus one file at a time, with a core idle), each into its own folder."""
    return dict(
        _each_in_own_folder(paths, workdir, lambda path, folder: nvcc_compile(path, folder, device_only=device_only))
    )


def hip_compile(
    path: Path, workdir: Path, targets=("gfx90a", "gfx942"), extra=(), device_only=False, hip=None
) -> subprocess.CompletedProcess:
    """`device_only` skips the host pass and its code generation. clang still checks every host
    function in each device pass (an undeclared name or a wrong call in one is an error there too);
    what it leaves out is code under `#ifndef __HIP_DEVICE_COMPILE__` and host code generation.
    `hip`: a toolchain other than the default one."""
    hip = hip or require_hip()
    arches = [f"--offload-arch={t}" for t in targets]
    only = ["--offload-device-only"] if device_only else []
    command = hip.command(
        ["-std=c++17", "-O1", *hip.hip_flags(), *arches, *only, *extra, "-c", str(path), "-o", str(workdir / "out.o")]
    )
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


def hip_compile_each(
    paths: Iterable[Path], workdir: Path, targets=("gfx90a", "gfx942"), device_only=False
) -> list[tuple[Path, subprocess.CompletedProcess]]:
    """hip_compile of each path, one compile per core (each a single-threaded clang: the corpus's
    builds were most of the suite's time run one after another), each into its own folder."""
    return _each_in_own_folder(
        paths, workdir, lambda path, folder: hip_compile(path, folder, targets=targets, device_only=device_only)
    )


def _each_in_own_folder(paths: Iterable[Path], workdir: Path, compile_one: Callable) -> list[tuple[Path, object]]:
    """(path, compile_one(path, its folder)) for each path, one per core, each folder its own."""

    def in_folder(indexed):
        index, path = indexed
        folder = workdir / f"build-{index}"
        folder.mkdir(exist_ok=True)
        return path, compile_one(path, folder)

    return each_on_a_core(in_folder, list(enumerate(paths)))


def each_on_a_core(function: Callable, items: list) -> list:
    """function over items, as many at once as there are cores; results in the items' order."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return list(pool.map(function, items))
