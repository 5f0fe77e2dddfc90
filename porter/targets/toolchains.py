"""Finding the toolchains: nvcc, a real ROCm or the compile-only ROCm sysroot, libclang.

Each finder returns what it found or None; `porter doctor` turns that into plain advice.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from porter.home import cache_dir
from porter.targets import Target, target

SYSROOT_HIP_VERSION = "5.7"
CUDA_HEADERS_VERSION = "12.9"
CUDA_LIBRARIES_VERSION = "13.0"


def sysroot_dir() -> Path:
    return cache_dir() / f"rocm-sysroot-{SYSROOT_HIP_VERSION}"


def cuda_headers_path() -> Path:
    return cache_dir() / f"cuda-headers-{CUDA_HEADERS_VERSION}"


def cuda_headers_dir() -> Path | None:
    path = cuda_headers_path()
    return path if (path / ".complete").is_file() and (path / "include" / "cuda.h").is_file() else None


def cuda_libraries_path() -> Path:
    return cache_dir() / f"cuda-libraries-{CUDA_LIBRARIES_VERSION}"


def cuda_libraries_dir() -> Path | None:
    """Headers of cuBLAS, cuSPARSE, cuSOLVER, cuDNN and cuRAND for CUDA 13.0 (torch's CUDA headers, extensions)."""
    path = cuda_libraries_path()
    needed = ("cublas_v2.h", "cusparse.h", "cusolverDn.h", "cudnn.h", "curand.h")
    return path if (path / ".complete").is_file() and all((path / "include" / n).is_file() for n in needed) else None


def cuda12_device_toolkit() -> Path | None:
    """The CUDA 12.9 tree with ptxas and libdevice, which clang needs to compile CUDA (and HIP-on-NVIDIA)."""
    path = cuda_headers_dir()
    needed = ("bin/ptxas", "nvvm/libdevice/libdevice.10.bc", "include/cuda_profiler_api.h")
    return path if path is not None and all((path / n).is_file() for n in needed) else None


def _run_version(command: list[str]) -> str | None:
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (out.stdout + out.stderr).strip() or None


@dataclass(frozen=True)
class Nvcc:
    path: Path
    version: str  # "13.0"

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])


def _nvcc_candidates() -> list[Path]:
    candidates = []
    for env in ("PORTER_NVCC",):
        if os.environ.get(env):
            candidates.append(Path(os.environ[env]))
    if shutil.which("nvcc"):
        candidates.append(Path(shutil.which("nvcc")))
    for env in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(env):
            candidates.append(Path(os.environ[env]) / "bin" / "nvcc")
    candidates.append(Path("/usr/local/cuda/bin/nvcc"))
    site = Path(sysconfig.get_paths()["purelib"])
    candidates.extend(sorted(site.glob("nvidia/cu*/bin/nvcc")))
    candidates.extend(sorted(site.glob("nvidia/cuda_nvcc/bin/nvcc")))
    return candidates


@cache
def find_nvccs() -> tuple[Nvcc, ...]:
    found: dict[str, Nvcc] = {}
    for candidate in _nvcc_candidates():
        if not candidate.is_file():
            continue
        text = _run_version([str(candidate), "--version"])
        match = re.search(r"release (\d+\.\d+)", text or "")
        if match:
            found.setdefault(match.group(1), Nvcc(candidate, match.group(1)))
    return tuple(found.values())


def find_nvcc(major: int | None = None) -> Nvcc | None:
    for nvcc in find_nvccs():
        if major is None or nvcc.major == major:
            return nvcc
    return None


@dataclass(frozen=True)
class HipToolchain:
    """How to compile HIP: a real ROCm install, or clang-19 plus the extracted sysroot."""

    kind: str  # "rocm" or "sysroot"
    clang: Path
    llvm_major: int
    rocm_path: Path
    device_lib_path: Path | None
    hip_version: str
    targets: tuple[str, ...] = field(default=())
    root: Path | None = None  # a Debian root the compiler runs in (porter.targets.rocm_root); paths are inside it

    def command(self, arguments: list[str]) -> list[str]:
        """The compiler command line, entered through the root where the compiler lives in one."""
        command = [str(self.clang), *arguments]
        if self.root is None:
            return command
        from porter.targets import rocm_root

        return rocm_root.wrap(command, self.root)

    def hip_flags(self) -> list[str]:
        flags = ["-x", "hip", f"--rocm-path={self.rocm_path}", f"--hip-path={self.rocm_path}"]
        if self.device_lib_path:
            flags.append(f"--rocm-device-lib-path={self.device_lib_path}")
        return flags

    def supports(self, chosen: Target | str) -> bool:
        """Whether this clang knows the target (gfx950 needs LLVM 20; clang-19 does not know it)."""
        chosen = target(chosen) if isinstance(chosen, str) else chosen
        return chosen.is_amd and self.llvm_major >= (chosen.min_llvm or 0)


def _clang_major(clang: Path) -> int | None:
    match = re.search(r"clang version (\d+)", _run_version([str(clang), "--version"]) or "")
    return int(match.group(1)) if match else None


def _hip_version(include_dir: Path) -> str | None:
    header = include_dir / "hip" / "hip_version.h"
    if not header.is_file():
        return None
    text = header.read_text(errors="replace")
    major = re.search(r"HIP_VERSION_MAJOR\s+(\d+)", text)
    minor = re.search(r"HIP_VERSION_MINOR\s+(\d+)", text)
    return f"{major.group(1)}.{minor.group(1)}" if major and minor else None


def find_real_rocm() -> HipToolchain | None:
    rocm = Path(os.environ.get("ROCM_PATH", "/opt/rocm"))
    clang = rocm / "llvm" / "bin" / "clang++"
    if not clang.is_file():
        return None
    major = _clang_major(clang) or 0
    version = _hip_version(rocm / "include") or "unknown"
    return HipToolchain("rocm", clang, major, rocm, None, version)


def find_system_clang() -> Path | None:
    for name in ("clang++-19", "clang++-20", "clang++"):
        path = shutil.which(name)
        if path and (_clang_major(Path(path)) or 0) >= 17:
            return Path(path)
    return None


def find_sysroot_toolchain() -> HipToolchain | None:
    root = sysroot_dir()
    if not (root / ".complete").is_file():
        return None
    clang = find_system_clang()
    if clang is None:
        return None
    bitcode = sorted(root.glob("usr/lib/llvm-*/lib/clang/*/amdgcn/bitcode"))
    version = _hip_version(root / "usr" / "include") or SYSROOT_HIP_VERSION
    return HipToolchain(
        "sysroot", clang, _clang_major(clang) or 0, root / "usr", bitcode[-1] if bitcode else None, version
    )


def find_rocm_root_toolchain() -> HipToolchain | None:
    """clang-21 with HIP 6.4 in its Debian root, once `porter setup rocm` has made it (and root can enter it)."""
    from porter.targets import rocm_root

    root = rocm_root.root_dir()
    if not (root / ".complete").is_file() or rocm_root.why_not_possible() is not None or not rocm_root.can_enter(root):
        return None
    clang = Path(f"/usr/bin/clang++-{rocm_root.LLVM_MAJOR}")
    version = _hip_version(root / "usr" / "include") or rocm_root.HIP_VERSION
    return HipToolchain("root", clang, rocm_root.LLVM_MAJOR, Path("/usr"), rocm_root.DEVICE_LIBS, version, root=root)


@cache
def find_hip_toolchain(rocm_version: str | None = None) -> HipToolchain | None:
    """The HIP compiler for a ROCm version: a real ROCm under /opt/rocm first; then, for 6.4 and
    later (and by default), the HIP 6.4 root before the HIP 5.7 sysroot; for older versions the
    sysroot first. Either stands in for the other when it is all there is (the result says which)."""
    real = find_real_rocm()
    if real is not None:
        return real
    older = rocm_version is not None and _release(rocm_version) < (6, 4)
    order = (
        (find_sysroot_toolchain, find_rocm_root_toolchain)
        if older
        else (find_rocm_root_toolchain, find_sysroot_toolchain)
    )
    for find in order:
        found = find()
        if found is not None:
            return found
    return None


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:2]) or (0,)


def find_torch() -> tuple[str, Path] | None:
    """torch's version and install directory, found without importing it (import is slow)."""
    try:
        from importlib.metadata import PackageNotFoundError, distribution
    except ImportError:  # pragma: no cover
        return None
    try:
        dist = distribution("torch")
    except PackageNotFoundError:
        return None
    return dist.version, Path(str(dist.locate_file("torch")))


def python_summary() -> str:
    return f"{sys.version.split()[0]} ({sys.executable})"
