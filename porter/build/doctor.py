"""`porter doctor`: what toolchains this machine has, and plainly how to get what is missing."""

from __future__ import annotations

import shutil
from dataclasses import dataclass

from porter import clang
from porter.targets import amd_targets, toolchains, wave64_targets


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok | missing | unavailable
    detail: str
    advice: str = ""
    required: bool = True

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "status": self.status,
            "detail": self.detail,
            "advice": self.advice,
            "required": self.required,
        }


def _tree_sitter() -> Check:
    try:
        from porter.parse import cuda_language

        cuda_language()
    except Exception as exc:  # an import or ABI mismatch: say which
        return Check("tree-sitter-cuda", "missing", str(exc), "pip install tree-sitter tree-sitter-cuda")
    return Check("tree-sitter-cuda", "ok", "grammar loads")


def _nvcc() -> Check:
    found = toolchains.find_nvccs()
    if not found:
        return Check(
            "nvcc",
            "missing",
            "no nvcc on PATH, in CUDA_HOME, /usr/local/cuda or the nvidia-cuda-nvcc wheels",
            "pip install nvidia-cuda-nvcc (or install the CUDA toolkit and put nvcc on PATH)",
        )
    return Check("nvcc", "ok", "; ".join(f"CUDA {n.version} at {n.path}" for n in found))


def _hip_nvidia() -> Check:
    """HIP-on-NVIDIA (`porter build --hip-nvidia`): HIP 5.7's nvidia_detail headers need CUDA 12, which
    porter compiles through clang's CUDA mode with the CUDA 12.9 device tools (no nvcc 12 needed)."""
    name = "HIP-on-NVIDIA (optional)"
    clang_path, toolkit = toolchains.find_system_clang(), toolchains.cuda12_device_toolkit()
    if clang_path is None or toolkit is None or toolchains.find_hip_toolchain() is None:
        return Check(
            name, "missing", "needs clang-19, the ROCm sysroot and the CUDA 12.9 device tools (ptxas, libdevice)",
            "porter setup all", required=False,
        )  # fmt: skip
    return Check(name, "ok", f"{clang_path} in CUDA mode with CUDA 12.9 ptxas/libdevice at {toolkit}", required=False)


def _hip() -> Check:
    real = toolchains.find_real_rocm()
    if real:
        return Check(
            "HIP toolchain", "ok", f"ROCm at {real.rocm_path} (HIP {real.hip_version}, clang {real.llvm_major})"
        )
    clang_path = toolchains.find_system_clang()
    sysroot = toolchains.sysroot_dir()
    problems, advice = [], []
    if clang_path is None:
        problems.append("no clang++ ≥ 17 (Debian 12: clang-19)")
        advice.append("apt-get install clang-19 lld-19")
    if not (sysroot / ".complete").is_file():
        problems.append(f"no ROCm under /opt/rocm and no compile-only sysroot at {sysroot}")
        advice.append("porter setup rocm-sysroot")
    if problems:
        return Check("HIP toolchain", "missing", "; ".join(problems), "; ".join(advice))
    hip = toolchains.find_sysroot_toolchain()
    return Check(
        "HIP toolchain",
        "ok",
        f"compile-only ROCm sysroot (HIP {hip.hip_version}) at {sysroot} with {hip.clang} (LLVM {hip.llvm_major})",
    )


def _rocm_root() -> Check:
    from porter.targets import rocm_root

    name = "HIP 6.4 root (optional)"
    root = rocm_root.root_dir()
    if not (root / ".complete").is_file():
        reason = rocm_root.why_not_possible()
        advice = reason or "porter setup rocm (about 40 s and 0.8 GB: clang-21, ROCm 6.4 headers incl. hipBLASLt)"
        return Check(
            name, "missing", "gfx950 and HIP 6.4 builds need it; HIP 5.7 builds go on without", advice, required=False
        )
    hip = toolchains.find_rocm_root_toolchain()
    if hip is None:
        return Check(name, "unavailable", f"made at {root}, but {rocm_root.why_not_possible()}", required=False)
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink()) / 1e9
    targets = ", ".join(t for t in amd_targets() if hip.supports(t))
    return Check(
        name,
        "ok",
        f"clang-{hip.llvm_major} with HIP {hip.hip_version} at {root} ({size:.2f} GB): {targets}",
        required=False,
    )


def _lld() -> Check:
    for name in ("ld.lld-19", "ld.lld-20", "ld.lld"):
        if shutil.which(name):
            return Check("lld (AMDGPU device link)", "ok", shutil.which(name))
    return Check(
        "lld (AMDGPU device link)", "missing", "clang links AMDGPU code objects with lld", "apt-get install lld-19"
    )


def _targets() -> list[Check]:
    hip = toolchains.find_hip_toolchain()
    checks = []
    for chosen in wave64_targets(amd_targets()):
        target = chosen.id
        if hip is None:
            checks.append(Check(f"target {target}", "missing", "no HIP toolchain", "see HIP toolchain above"))
        elif hip.supports(chosen):
            checks.append(Check(f"target {target}", "ok", f"LLVM {hip.llvm_major} compiles it"))
        else:
            need = chosen.min_llvm
            checks.append(
                Check(
                    f"target {target}",
                    "unavailable",
                    f"needs LLVM {need}; this toolchain has LLVM {hip.llvm_major}",
                    "a ROCm 7 install, or a clang ≥ 20",
                    required=False,
                )
            )
    return checks


def _libclang() -> Check:
    library = clang.find_libclang()
    headers = toolchains.cuda_headers_dir()
    if library is None:
        return Check("libclang", "missing", "Debian's libclang-19 is not installed", "apt-get install libclang1-19")
    if clang.resource_dir_for(library) is None:
        return Check("libclang", "missing", f"{library} has no clang resource headers", "apt-get install clang-19")
    if headers is None:
        return Check(
            "libclang",
            "missing",
            f"{library} found, but not the CUDA 12.9 headers it parses against",
            "porter setup cuda-headers",
        )
    return Check("libclang", "ok", f"{library} with CUDA headers at {headers}")


def _torch() -> Check:
    found = toolchains.find_torch()
    if found is None:
        return Check(
            "torch (optional)", "missing", "PyTorch extensions' builds and the hipify comparisons need it",
            "pip install torch==2.13.0", required=False,
        )  # fmt: skip
    version, path = found
    hipify = path / "utils" / "hipify" / "hipify_python.py"
    detail = f"torch {version} at {path}" + ("" if hipify.is_file() else " (no torch.utils.hipify)")
    return Check("torch (optional)", "ok", detail, required=False)


def _cuda_libraries() -> Check:
    found = toolchains.cuda_libraries_dir()
    if found is None:
        return Check(
            "CUDA library headers (optional)", "missing",
            "PyTorch extensions' CUDA builds need cuBLAS, cuSPARSE, cuSOLVER, cuDNN and cuRAND headers (torch's ATen/cuda includes them)",
            "porter setup cuda-libraries", required=False,
        )  # fmt: skip
    return Check(
        "CUDA library headers (optional)", "ok", f"cuBLAS, cuSPARSE, cuSOLVER, cuDNN, cuRAND at {found}", required=False
    )


def run_checks() -> list[Check]:
    return [
        _tree_sitter(), _nvcc(), _hip_nvidia(), _hip(), _rocm_root(), _lld(), *_targets(), _libclang(), _cuda_libraries(), _torch(),
    ]  # fmt: skip
