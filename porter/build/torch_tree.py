"""torch's CUDA headers for building PyTorch extensions without a CUDA or ROCm build of torch.

The CPU wheel of torch ships ATen/cuda and c10/cuda in their CUDA form, less one header that a CUDA
build generates (c10/cuda/impl/cuda_cmake_macros.h). For the CUDA side porter supplies that header.
For the HIP side it converts ATen/cuda and c10/cuda with its own hip mode, as PyTorch's ROCm build
hipifies them, and puts the result ahead of torch's include directory under the same names, so an
extension's `#include <ATen/cuda/CUDAContext.h>` finds the HIP version. Both trees live in porter's
cache, keyed by torch's version and porter's (with a hash of its code and data), built atomically.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

from porter import __version__
from porter.cache import code_fingerprint
from porter.targets import toolchains

CONVERTED_DIRS = ("ATen/cuda", "c10/cuda")
CMAKE_MACROS = "c10/cuda/impl/cuda_cmake_macros.h"
# what a CUDA build of torch generates there (c10/cuda/impl/cuda_cmake_macros.h.in, shared libraries)
CMAKE_MACROS_TEXT = "#pragma once\n#define C10_CUDA_BUILD_SHARED_LIBS\n"
# headers torch's converted CUDA headers need that the compile-only HIP 5.7 sysroot cannot have
KNOWN_GAPS = {
    "hipblaslt/hipblaslt.h": (
        "torch's ATen/cuda/CUDAContextLight.h includes cublasLt.h, whose ROCm counterpart is hipBLASLt; "
        "Debian 13 (HIP 5.7) does not package hipBLASLt, and Debian sid's (7.1) needs HIP 6 or later "
        "(hip/hip_fp8.h, hipblas-common): `porter setup rocm` provides HIP 6.4 with hipBLASLt"
    ),
}

_lock = threading.Lock()


def cuda_shim_include() -> Path:
    final = toolchains.cache_dir() / "torch-cuda-shim"
    with _lock:
        if not (final / ".complete").is_file():
            from porter.targets.provision import install_atomically

            install_atomically(final, _write_cmake_macros)
    return final


def _write_cmake_macros(tree: Path) -> None:
    (tree / CMAKE_MACROS).parent.mkdir(parents=True, exist_ok=True)
    (tree / CMAKE_MACROS).write_text(CMAKE_MACROS_TEXT)


def converted_torch_include(torch: tuple[str, Path]) -> Path:
    version, location = torch
    final = toolchains.cache_dir() / f"torch-{version}-hip-porter-{__version__}-{code_fingerprint()[:12]}"
    with _lock:
        if not (final / ".complete").is_file():
            from porter.targets.provision import install_atomically

            install_atomically(final, lambda work: _convert_torch_headers(location / "include", work))
            _prune_stale(final)
    return final


def _prune_stale(current: Path, older_than_s: float = 86400) -> None:
    """Trees of an older torch or porter, left a day: another checkout may still be building with one."""
    for stale in current.parent.glob("torch-*-hip-porter-*"):
        marker = stale / ".complete"
        if stale != current and marker.is_file() and time.time() - marker.stat().st_mtime > older_than_s:
            shutil.rmtree(stale, ignore_errors=True)


def _convert_torch_headers(include: Path, work: Path) -> None:
    from porter.config import Config
    from porter.convert import ConvertOptions, convert

    source = work.parent / (work.name + ".src")
    try:
        for directory in CONVERTED_DIRS:
            shutil.copytree(include / directory, source / directory)
        # torch's ROCm build renames these headers to hipBLASLt and the like, names porter only
        # suggests for a user's code (their first checked release is newer): here they are applied
        options = ConvertOptions(source, work / "tree", mode="hip", unsafe_fixes=True)
        result = convert(options, Config(), None)
    finally:
        shutil.rmtree(source, ignore_errors=True)
    for entry in (work / "tree").iterdir():
        entry.rename(work / entry.name)
    (work / "tree").rmdir()
    _write_cmake_macros(work)
    (work / "porter-conversion.json").write_text(json.dumps(result.summary(), indent=2))


def explain_missing(header: str) -> str | None:
    return KNOWN_GAPS.get(header)
