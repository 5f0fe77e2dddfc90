"""The one compiler-command builder: how each target's toolchain compiles, preprocesses or links a source.

`porter build` and `porter verify` both take their commands from here. Every command is an argument
list (no shell), and nvcc's arguments pass through `shell_safe` (nvcc runs its own steps through
one). A target no toolchain here can build gets None, and `why_unavailable` says what is missing.
"""

from __future__ import annotations

from pathlib import Path

from porter.targets import Variant, target, toolchains
from porter.targets.nvcc_args import shell_safe


def first_error(text: str) -> str | None:
    """The compiler's first error line, cut to a length a table can show."""
    for line in text.splitlines():
        if "error" in line.lower() and ("error:" in line or "error " in line):
            return line.strip()[:300]
    return None


def _with_standard(defaults: list[str], extra: list[str]) -> list[str]:
    """porter's flags then the project's; the project's -std replaces porter's (nvcc refuses two)."""
    if any(f.startswith("-std=") for f in extra):
        defaults = [f for f in defaults if not f.startswith("-std=")]
    return defaults + extra


def _hip_nvidia_command(target: str, path: Path, includes: list[str], output: Path, mode: str) -> list[str] | None:
    """HIP-on-NVIDIA through clang's CUDA mode: the HIP headers' nvidia_detail layer over CUDA 12.9
    (nvcc 13's headers break that layer), device code only, ptxas reporting resources."""
    clang, toolkit, hip = (
        toolchains.find_system_clang(),
        toolchains.cuda12_device_toolkit(),
        # headers read by the host's clang: a HIP toolchain in a root of its own has paths inside it
        toolchains.find_real_rocm() or toolchains.find_sysroot_toolchain(),
    )
    if clang is None or toolkit is None or hip is None:
        return None
    flags = [
        "-x", "cuda", f"--cuda-path={toolkit}", f"--cuda-gpu-arch={target}", "-D__HIP_PLATFORM_NVIDIA__",
        # CUDA's own thrust and CUB first: the ROCm tree's rocThrust must not shadow them on NVIDIA
        f"-isystem{toolkit / 'include'}", f"-isystem{hip.rocm_path / 'include'}", "-std=c++17", "-O3", "--cuda-device-only",
        "-Wno-unknown-cuda-version", "-Wno-deprecated-declarations",
    ]  # fmt: skip
    flags = _with_standard(flags, includes)
    tail = ["-Xcuda-ptxas", "-v", "-c"] if mode == "compile" else ["-E"]
    return [str(clang), *flags, *tail, str(path), "-o", str(output)]


def toolchain_command(
    target_id: str,
    path: Path,
    root: Path,
    output: Path,
    mode: str,
    variant: str,
    extra: list[str] | None = None,
    rocm_version: str | None = None,
) -> list[str] | None:
    """The compiler command for one source, or None where no toolchain here can build `target`.

    mode: `compile` (an object, with the compiler's per-kernel resource report), `preprocess`, or
    `link` (an executable; where the HIP toolchain is the compile-only sysroot, an object: see `links`).
    extra: the project's own flags for this unit (porter.build.flags), after porter's.
    rocm_version: the ROCm release the port is built against (porter.targets.toolchains.find_hip_toolchain).
    """
    includes = [f"-I{root}", f"-I{path.parent}", *(extra or [])]
    chosen = target(target_id)
    if variant == Variant.HIP_NVIDIA:
        return _hip_nvidia_command(chosen.id, path, includes, output, mode)
    if chosen.is_nvidia:
        nvcc = toolchains.find_nvcc()
        if nvcc is None:
            return None
        flags = _with_standard(["-std=c++17", "-O3", f"-arch={chosen.id}"], includes)
        libraries = toolchains.cuda_libraries_dir()
        if libraries is not None:  # cuBLAS, cuSPARSE, cuRAND… headers: nvcc 13 ships without them (`porter doctor`)
            flags += ["-isystem", str(libraries / "include")]
        tail = {"compile": ["-Xptxas", "-v", "-c"], "preprocess": ["-E"], "link": []}[mode]
        command = [str(nvcc.path), "-x", "cu", *flags, *tail, str(path), "-o", str(output)]
        return shell_safe(command, output.with_name(output.name + ".defines.h"))
    hip = toolchains.find_hip_toolchain(rocm_version)
    if hip is None or not hip.supports(chosen):
        return None
    flags = _with_standard(["-std=c++17", "-O3", *hip.hip_flags(), f"--offload-arch={chosen.id}"], includes)
    if mode == "compile":
        return hip.command([*flags, "-Rpass-analysis=kernel-resource-usage", "-c", str(path), "-o", str(output)])
    if mode == "link":
        runtime = [f"-L{hip.rocm_path / 'lib'}", "-lamdhip64"] if links(chosen.id) else ["-c"]
        return hip.command([*flags, str(path), "-o", str(output), *runtime])
    return hip.command([*flags, "--cuda-device-only", "-E", str(path), "-o", str(output)])


def links(target_id: str) -> bool:
    """Whether `link` mode makes an executable: nvcc always; for HIP only a real ROCm has the runtime."""
    if target(target_id).is_nvidia:
        return True
    hip = toolchains.find_hip_toolchain()
    return hip is not None and hip.kind == "rocm"


def why_unavailable(target_id: str, variant: str, rocm_version: str | None = None) -> str:
    if variant == Variant.HIP_NVIDIA:
        return "HIP-on-NVIDIA needs clang-19, the ROCm sysroot and the CUDA 12.9 device tools: `porter setup all`"
    chosen = target(target_id)
    if chosen.is_nvidia:
        return "no nvcc here (see `porter doctor`)"
    hip = toolchains.find_hip_toolchain(rocm_version)
    if hip is None:
        return "no HIP toolchain here: `porter setup rocm-sysroot` and clang-19 (see `porter doctor`)"
    return (
        f"this HIP compiler (LLVM {hip.llvm_major}) does not know {chosen.id}; it needs LLVM {chosen.min_llvm}"
        " (`porter setup rocm` provides clang-21 with HIP 6.4)"
    )
