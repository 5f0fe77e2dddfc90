"""`porter build`: compile each translation unit for each target, and collect per-kernel resources.

- sm_* targets build the original CUDA with nvcc (`-Xptxas -v`);
- gfx* targets build porter's portable conversion as HIP with clang (`-Rpass-analysis=kernel-resource-usage`),
  through a real ROCm or the compile-only sysroot; a target the compiler does not know is reported
  unavailable, never silently skipped.

Every failure gets a class: the original does not build here, the toolchain lacks a header, a known
unsupported feature or other work the scan left to a person (its manual findings name it), or else a
port error: porter's own rewrite is at fault. Results are cached by
the hash of the preprocessed input, the flags and the compiler version.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from porter.build import toolchains
from porter.build.flags import NO_TORCH_HIP_NVIDIA, project_flags
from porter.build.nvcc_args import UnsafeArgument, shell_safe
from porter.build.resources import (
    KernelResources,
    amd_limiter,
    demangle,
    nvidia_occupancy,
    parse_amdgpu_remarks,
    parse_ptxas,
)
from porter.build.torch_tree import explain_missing
from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.discover import DiscoveryError
from porter.errors import PorterError
from porter.findings import FixKind
from porter.parse import captures, parse
from porter.rules.consteval import evaluate, file_constants
from porter.scan import scan
from porter.source import FileKind, SourceFile

UNSUPPORTED_RULES = re.compile(r"^(API007|ASY\d+|MMA00[23]|ASM002|LIB01[0-2]|CGR001|NUM003|LBD00[24])$")
MISSING_HEADER = re.compile(r"fatal error: '?([^':\s]+)'?(?: file not found|: No such file or directory)")


class BuildError(PorterError):
    """The build cannot run as asked; the message says why."""


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


def variant_for(target: str) -> str:
    return "cuda" if target.startswith("sm_") else "hip"


def translation_units(root: Path) -> list[Path]:
    found = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        if path.suffix in (".cu", ".hip") or (path.suffix in (".cpp", ".cc") and b"__global__" in path.read_bytes()):
            found.append(path)
    return found


def first_error(text: str) -> str | None:
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
        toolchains.find_hip_toolchain(),
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
    target: str, path: Path, root: Path, output: Path, mode: str, variant: str, extra: list[str] | None = None
) -> list[str] | None:
    """The compiler command for one source, or None where no toolchain here can build `target`.

    mode: `compile` (an object, with the compiler's per-kernel resource report), `preprocess`, or
    `link` (an executable; where the HIP toolchain is the compile-only sysroot, an object: see `links`).
    extra: the project's own flags for this unit (porter.build.flags), after porter's.
    """
    includes = [f"-I{root}", f"-I{path.parent}", *(extra or [])]
    if variant == "hip-nvidia":
        return _hip_nvidia_command(target, path, includes, output, mode)
    if target.startswith("sm_"):
        nvcc = toolchains.find_nvcc()
        if nvcc is None:
            return None
        flags = _with_standard(["-std=c++17", "-O3", f"-arch={target}"], includes)
        tail = {"compile": ["-Xptxas", "-v", "-c"], "preprocess": ["-E"], "link": []}[mode]
        command = [str(nvcc.path), "-x", "cu", *flags, *tail, str(path), "-o", str(output)]
        return shell_safe(command, output.with_name(output.name + ".defines.h"))
    hip = toolchains.find_hip_toolchain()
    if hip is None or not hip.supports(target):
        return None
    flags = _with_standard(["-std=c++17", "-O3", *hip.hip_flags(), f"--offload-arch={target}"], includes)
    if mode == "compile":
        return [str(hip.clang), *flags, "-Rpass-analysis=kernel-resource-usage", "-c", str(path), "-o", str(output)]
    if mode == "link":
        runtime = [f"-L{hip.rocm_path / 'lib'}", "-lamdhip64"] if links(target) else ["-c"]
        return [str(hip.clang), *flags, str(path), "-o", str(output), *runtime]
    return [str(hip.clang), *flags, "--cuda-device-only", "-E", str(path), "-o", str(output)]


def links(target: str) -> bool:
    """Whether `link` mode makes an executable: nvcc always; for HIP only a real ROCm has the runtime."""
    if target.startswith("sm_"):
        return True
    hip = toolchains.find_hip_toolchain()
    return hip is not None and hip.kind == "rocm"


def why_unavailable(target: str, variant: str) -> str:
    if variant == "hip-nvidia":
        return "HIP-on-NVIDIA needs clang-19, the ROCm sysroot and the CUDA 12.9 device tools: `porter setup all`"
    if target.startswith("sm_"):
        return "no nvcc here (see `porter doctor`)"
    hip = toolchains.find_hip_toolchain()
    if hip is None:
        return "no HIP toolchain here: `porter setup rocm-sysroot` and clang-19 (see `porter doctor`)"
    need = toolchains.TARGET_MIN_LLVM.get(target, 17)
    return f"this HIP compiler (LLVM {hip.llvm_major}) does not know {target}; it needs LLVM {need}"


def _compiler_version(command: list[str]) -> str:
    out = subprocess.run([command[0], "--version"], capture_output=True, text=True, timeout=60)
    return out.stdout.strip()


def _cache_path(key: str) -> Path:
    return toolchains.cache_dir() / "build" / key[:2] / f"{key}.json"


def _compile(
    path: Path, rel: str, root: Path, target: str, variant: str, extra: list[str] | None, use_cache: bool
) -> tuple[Unit, str]:
    if extra is None:
        return Unit(rel, target, variant, "unavailable", "unavailable", NO_TORCH_HIP_NVIDIA), ""
    with tempfile.TemporaryDirectory(prefix="porter-build-") as tmp:
        try:
            compile_command = toolchain_command(target, path, root, Path(tmp) / "out.o", "compile", variant, extra)
        except UnsafeArgument as exc:
            return Unit(rel, target, variant, "failed", "unsafe-input", str(exc)), ""
        if compile_command is None:
            return Unit(rel, target, variant, "unavailable", "unavailable", why_unavailable(target, variant)), ""
        key = None
        if use_cache:
            preprocess = toolchain_command(target, path, root, Path(tmp) / "pre.i", "preprocess", variant, extra)
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


def _ported_headers(findings_by_file: dict[str, list]) -> set[str]:
    """CUDA headers porter rewrites to their HIP counterparts (its automatic include fixes)."""
    headers = set()
    for findings in findings_by_file.values():
        for finding in findings:
            match = re.match(r"`([\w./]+\.(?:h|hpp|cuh))` is ", finding.message)
            if match and finding.fix is FixKind.AUTO:
                headers.add(match.group(1))
    return headers


ROCM_CONDITION = re.compile(r"USE_ROCM|__HIP|HIP_PLATFORM|ROCM|__HIPCC__|WITH_HIP|__AMDGCN")
ERROR_AT = re.compile(r"^([^:\s]+):(\d+):\d+: (?:fatal )?error")


def _in_rocm_branch(tree: Path, diagnostic: str, unit_dir: str) -> bool:
    """Whether the error sits in a branch the source reserves for ROCm (`#ifdef USE_ROCM` and the like):
    code its authors wrote for their own ROCm build, which porter did not write."""
    where = ERROR_AT.match(diagnostic)
    if where is None:
        return False
    candidates = [tree / unit_dir / where.group(1), tree / where.group(1)]
    path = next((c for c in candidates if c.is_file()), None)
    if path is None:
        return False
    stack: list[tuple[str, bool]] = []  # (condition, negated)
    for line in path.read_text(errors="replace").splitlines()[: int(where.group(2)) - 1]:
        directive = re.match(r"\s*#\s*(ifdef|ifndef|if|elif|else|endif)\b(.*)", line)
        if directive is None:
            continue
        kind, condition = directive.group(1), directive.group(2).strip()
        if kind in ("ifdef", "ifndef", "if"):
            stack.append((condition, kind == "ifndef" or condition.startswith("!")))
        elif kind == "elif" and stack:
            stack[-1] = (condition, condition.startswith("!"))
        elif kind == "else" and stack:
            stack[-1] = (stack[-1][0], not stack[-1][1])
        elif kind == "endif" and stack:
            stack.pop()
    return any(ROCM_CONDITION.search(condition) and not negated for condition, negated in stack)


def _gone_from_torch(header: str) -> str | None:
    """Why a torch header the original includes is missing: the installed torch no longer has it."""
    found = toolchains.find_torch()
    if found is None or header.split("/")[0] not in ("THC", "ATen", "c10", "torch"):
        return None
    if (found[1] / "include" / header).is_file():
        return None
    return f"the installed torch {found[0]} has no such header; the original was written for another torch"


def _classify(
    unit: Unit, findings_by_file: dict[str, list], cuda_failed: set[str], ported_headers: set[str], tree: Path
) -> None:
    if unit.status != "failed" or unit.cls is not None:  # refused before compiling: its class is set
        return
    missing = MISSING_HEADER.search(unit.diagnostic or "")
    source = re.sub(r"\.hip$", ".cu", unit.file)  # the HIP tree's renamed file; the scan saw the .cu
    findings = findings_by_file.get(unit.file) or findings_by_file.get(source, [])
    manual = [f for f in findings if f.fix is not FixKind.AUTO]
    if missing and unit.variant.startswith("hip") and any(missing.group(1) in f.message for f in manual):
        # a CUDA-only header the scan already flagged (cuda_pipeline.h, mma.h, cudnn.h, ...)
        rules = sorted({f.rule for f in manual if missing.group(1) in f.message})
        unit.cls = "unsupported-feature"
        unit.diagnostic = f"{', '.join(rules)}: {missing.group(1)} has no ROCm counterpart ({unit.diagnostic})"
        return
    if missing and unit.variant.startswith("hip") and missing.group(1) in ported_headers:
        # a CUDA header with a HIP counterpart still included: the port is unfinished (no conversion, or hipify's)
        unit.cls = "port-error"
        unit.diagnostic = f"{missing.group(1)}: a CUDA header the port still includes ({unit.diagnostic})"
        return
    gone = _gone_from_torch(missing.group(1)) if missing and unit.variant == "cuda" else None
    if gone:
        unit.cls = "original-does-not-build"
        unit.diagnostic = f"{missing.group(1)}: {gone} ({unit.diagnostic})"
        return
    if missing:
        unit.cls = "toolchain-missing-header"
        why = explain_missing(missing.group(1)) or "not available to this toolchain"
        unit.diagnostic = f"{missing.group(1)}: {why} ({unit.diagnostic})"
        return
    if unit.variant == "cuda":
        unit.cls = "original-does-not-build"
        return
    if unit.file in cuda_failed or source in cuda_failed:
        unit.cls = "original-does-not-build"
        return
    if _in_rocm_branch(tree, unit.diagnostic or "", str(Path(unit.file).parent)):
        unit.cls = "original-does-not-build"
        unit.diagnostic = f"in the original's own ROCm branch, which its build system configures: {unit.diagnostic}"
        return
    unsupported = sorted({f.rule for f in manual if UNSUPPORTED_RULES.match(f.rule)})
    pending = sorted({f.rule for f in manual})
    if unsupported:
        unit.cls, unit.diagnostic = "unsupported-feature", f"{', '.join(unsupported)}: {unit.diagnostic}"
    elif pending:
        # the scan left this file work for a person: the failure is that work, not porter's rewrite
        unit.cls, unit.diagnostic = "manual-fix-needed", f"{', '.join(pending)} left to a person: {unit.diagnostic}"
    else:
        unit.cls = "port-error"


def _command_line_constants(flags: list[str]) -> dict[str, int]:
    """Integer macros the build defines (-DTILE=128), which launch bounds often use."""
    constants = {}
    for flag in flags:
        match = re.fullmatch(r"-D(\w+)=(\d+)", flag)
        if match:
            constants[match.group(1)] = int(match.group(2))
    return constants


def _block_sizes(root: Path, rel: str, flags: list[str]) -> dict[str, int]:
    """Kernel name → block size, from __launch_bounds__ or a constant launch configuration."""
    path = root / rel
    kind = FileKind.HIP if path.suffix == ".hip" else FileKind.CUDA
    source = SourceFile.read(path, rel, kind)
    parsed = parse(source)
    if parsed.root is None:
        return {}
    constants = {**_command_line_constants(flags), **file_constants(source, parsed.root)}
    sizes: dict[str, int] = {}
    for function in captures("(function_definition) @f", parsed.root).get("f", []):
        bounds = [c for c in function.children if c.type == "launch_bounds"]
        declarator = function.child_by_field_name("declarator")
        name_node = declarator.child_by_field_name("declarator") if declarator is not None else None
        if not bounds or name_node is None:
            continue
        arguments = [a for a in bounds[0].named_children if a.type != "comment"]
        value = evaluate(source.text(arguments[0].start_byte, arguments[0].end_byte), constants) if arguments else None
        if value:
            sizes[source.text(name_node.start_byte, name_node.end_byte).split("::")[-1]] = value
    for launch in captures("(kernel_call_syntax) @k", parsed.root).get("k", []):
        call = launch.parent
        function = call.child_by_field_name("function") if call is not None else None
        arguments = [a for a in launch.named_children if a.type != "comment"]
        if function is None or len(arguments) < 2:
            continue
        name = re.sub(r"<.*", "", source.text(function.start_byte, function.end_byte)).split("::")[-1].strip()
        value = evaluate(source.text(arguments[1].start_byte, arguments[1].end_byte), constants)
        if value and name not in sizes:
            sizes[name] = value
    return sizes


def _base_name(demangled: str) -> str:
    """`void ns::kernel<float, 4>(float*, int)` → `kernel`: template arguments, parameters and the
    return type (demangled names of templates carry one) removed."""
    name = demangled.replace("(anonymous namespace)", "anonymous")
    while re.search(r"<[^<>]*>", name):
        name = re.sub(r"<[^<>]*>", "", name)
    words = name.split("(")[0].split("::")[-1].split()
    return words[-1] if words else name


@dataclass
class BuildResult:
    units: list[Unit]
    kernels: list[dict]
    targets: tuple[str, ...]

    def to_json(self) -> dict:
        from porter import __version__

        return {
            "porter_version": __version__,
            "targets": list(self.targets),
            "units": [u.to_json() for u in self.units],
            "kernels": self.kernels,
        }


def check_targets(targets: tuple[str, ...]) -> None:
    unknown = [t for t in targets if not re.fullmatch(r"sm_\d+a?|gfx\w+", t)]
    if unknown:
        raise BuildError(f"unknown target(s) {', '.join(unknown)}: use sm_80, sm_90, gfx90a, gfx942, gfx950")


def build(
    root: Path,
    targets: tuple[str, ...],
    config: Config,
    jobs: int | None = None,
    use_cache: bool = True,
    hip_nvidia: bool = False,
    convert_first: bool = True,
    only: set[str] | None = None,
) -> BuildResult:
    """Build every unit of `root` (or those named in `only`) for each target.

    convert_first=False builds the tree as it is for gfx targets too: an existing port, hipify's
    output, or the original CUDA compiled as HIP to see what fails before any conversion.
    """
    if not root.is_dir():
        raise BuildError(f"{root}: build takes a directory")
    check_targets(targets)
    try:
        scan_result = scan([root], config, use_cache=use_cache)
    except DiscoveryError as exc:
        raise BuildError(str(exc)) from exc
    findings_by_file: dict[str, list] = {}
    for finding in scan_result.findings:
        findings_by_file.setdefault(finding.file, []).append(finding)
    work = Path(tempfile.mkdtemp(prefix="porter-build-port-"))
    trees = {"cuda": root, "hip": root}
    if convert_first and any(t.startswith("gfx") for t in targets):
        convert(ConvertOptions(root, work / "portable", use_cache=use_cache), config, None)
        trees["hip"] = work / "portable"
    nvidia_targets = [t for t in targets if t.startswith("sm_")] if hip_nvidia else []
    if nvidia_targets:
        convert(ConvertOptions(root, work / "hip", mode="hip", use_cache=use_cache), config, None)
        trees["hip-nvidia"] = work / "hip"
    flags = project_flags(root)
    tasks = []
    for target, variant in [(t, variant_for(t)) for t in targets] + [(t, "hip-nvidia") for t in nvidia_targets]:
        tree = trees[variant]
        for path in translation_units(tree):
            rel = path.relative_to(tree).as_posix()
            if variant == "cuda" and path.suffix == ".hip" or only is not None and rel not in only:
                continue  # HIP sources have no CUDA build
            tasks.append((path, rel, tree, target, variant, flags.for_unit(rel, tree, variant)))
    try:
        with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
            outcomes = list(pool.map(lambda t: _compile(*t, use_cache), tasks))
        return _collect(outcomes, tasks, findings_by_file, targets)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _collect(outcomes, tasks, findings_by_file, targets) -> BuildResult:
    cuda_failed = {u.file for u, _ in outcomes if u.variant == "cuda" and u.status == "failed"}
    ported_headers = _ported_headers(findings_by_file)
    kernels: dict[str, dict] = {}
    mangled_all: list[str] = []
    parsed_logs = []
    for (unit, log), (_, rel, tree, target, variant, flags) in zip(outcomes, tasks, strict=True):
        _classify(unit, findings_by_file, cuda_failed, ported_headers, tree)
        found = parse_ptxas(log) if target.startswith("sm_") else parse_amdgpu_remarks(log)
        parsed_logs.append((unit, rel, tree, target, variant, flags, found))
        mangled_all.extend(found)
    names = demangle(sorted(set(mangled_all)))
    block_cache: dict[tuple[str, str], dict[str, int]] = {}
    for unit, rel, tree, target, variant, flags, found in parsed_logs:
        if (str(tree), rel) not in block_cache:
            block_cache[(str(tree), rel)] = _block_sizes(tree, rel, flags or []) if unit.status == "ok" else {}
        sizes = block_cache[(str(tree), rel)]
        for mangled, resources in found.items():
            name = names.get(mangled, mangled)
            block = sizes.get(_base_name(name))
            resources.block_size = block
            if target.startswith("sm_"):
                nvidia_occupancy(resources, target, block)
            else:
                amd_limiter(resources, target, block)
            entry = kernels.setdefault(name, {"name": name, "mangled": mangled, "file": rel, "targets": {}})
            entry["targets"][f"{target} hip-nvidia" if variant == "hip-nvidia" else target] = resources.to_json()
    return BuildResult(
        [u for u, _ in outcomes], sorted(kernels.values(), key=lambda k: (k["file"], k["name"])), targets
    )
