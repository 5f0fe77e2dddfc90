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

import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from porter.build.classify import classify, ported_headers
from porter.build.flags import project_flags
from porter.build.launch import base_name, block_sizes
from porter.build.resources import amd_limiter, demangle, nvidia_occupancy, parse_amdgpu_remarks, parse_ptxas
from porter.build.units import Unit, compile_unit, translation_units
from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.errors import PorterError
from porter.rules.tables import load_tables
from porter.scan import scan
from porter.targets import Target, Variant, parse_targets, target, toolchains


class BuildError(PorterError):
    """The build cannot run as asked; the message says why."""


@dataclass
class BuildResult:
    units: list[Unit]
    kernels: list[dict]
    targets: tuple[str, ...]
    hip: str | None = None  # which HIP toolchain built the gfx units, for the record

    def to_json(self) -> dict:
        from porter import __version__

        return {
            "porter_version": __version__,
            "targets": list(self.targets),
            "hip_toolchain": self.hip,
            "units": [u.to_json() for u in self.units],
            "kernels": self.kernels,
        }


def build(
    root: Path,
    targets: Iterable[Target | str],
    config: Config,
    jobs: int | None = None,
    use_cache: bool = True,
    hip_nvidia: bool = False,
    convert_first: bool = True,
    only: set[str] | None = None,
    progress=None,
) -> BuildResult:
    """Build every unit of `root` (or those named in `only`) for each target.

    convert_first=False builds the tree as it is for gfx targets too: an existing port, hipify's
    output, or the original CUDA compiled as HIP to see what fails before any conversion.
    """
    if not root.is_dir():
        raise BuildError(f"{root}: build takes a directory")
    chosen = parse_targets(targets)
    findings_by_file: dict[str, list] = {}
    for finding in scan([root], config, use_cache=use_cache).findings:
        findings_by_file.setdefault(finding.file, []).append(finding)
    work = Path(tempfile.mkdtemp(prefix="porter-build-port-"))
    try:
        trees = _trees(root, work, chosen, config, use_cache, hip_nvidia, convert_first)
        tasks = _tasks(root, trees, chosen, hip_nvidia, only)
        with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
            rocm = str(config.rocm_version)
            outcomes = list(pool.map(lambda t: _compiled(t, use_cache, rocm, progress), tasks))
        result = _collect(outcomes, tasks, findings_by_file, tuple(t.id for t in chosen))
        result.hip = hip_description(rocm if any(t.is_amd for t in chosen) else None)
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def build_matrix(root: Path, targets: Iterable[Target | str], configs: list[Config], **options) -> BuildResult:
    """`build` once per ROCm version (one config each): the sm_* units once, the gfx* units per
    version. With more than one version, a gfx unit's target reads `gfx942 rocm5.7`."""
    chosen = parse_targets(targets)
    if len(configs) == 1:
        return build(root, chosen, configs[0], **options)
    results = []
    for index, config in enumerate(configs):
        wanted = chosen if index == 0 else [t for t in chosen if t.is_amd]
        if not any(t.is_amd for t in wanted):
            break  # no gfx target: one version builds the same as every other
        result = build(root, wanted, config, **options)
        suffix = f" rocm{config.rocm_version}"
        for unit in result.units:
            if target(unit.target).is_amd:
                unit.target += suffix
        for kernel in result.kernels:
            kernel["targets"] = {
                (key + suffix if target(key.split()[0]).is_amd else key): value
                for key, value in kernel["targets"].items()
            }
        results.append(result)
    return _merged(results)


def _merged(results: list[BuildResult]) -> BuildResult:
    kernels: dict[str, dict] = {}
    for result in results:
        for kernel in result.kernels:
            entry = kernels.setdefault(kernel["name"], {**kernel, "targets": {}})
            entry["targets"].update(kernel["targets"])
    return BuildResult(
        [unit for result in results for unit in result.units],
        sorted(kernels.values(), key=lambda k: (k["file"], k["name"])),
        tuple(dict.fromkeys(t for result in results for t in result.targets)),
        "; ".join(result.hip for result in results if result.hip) or None,
    )


def _compiled(task: tuple, use_cache: bool, rocm: str, progress) -> tuple:
    outcome = compile_unit(*task, use_cache, rocm)
    if progress:
        progress(f"{task[3]} {task[1]}")  # target and unit, as each compile ends
    return outcome


MAX_BLOCK_SIZE = 1024  # threads: CUDA's limit, and hip-clang's default flat work-group size


def hip_description(rocm_version: str | None) -> str | None:
    """`HIP 6.4 (clang-21, Debian root) for ROCm 6.4`: what the gfx units were built with."""
    if rocm_version is None:
        return None
    hip = toolchains.find_hip_toolchain(rocm_version)
    if hip is None:
        return None
    where = {"root": "Debian unstable root", "sysroot": "Debian 13 sysroot", "rocm": "ROCm install"}.get(
        hip.kind, hip.kind
    )
    return f"HIP {hip.hip_version} (LLVM {hip.llvm_major}, {where}) for --rocm-version {rocm_version}"


def _trees(root, work, chosen, config, use_cache, hip_nvidia, convert_first) -> dict[Variant, Path]:
    """The tree each variant compiles: the original, porter's portable port, porter's HIP tree."""
    trees = {Variant.CUDA: root, Variant.HIP: root}
    if convert_first and any(t.is_amd for t in chosen):
        convert(ConvertOptions(root, work / "portable", use_cache=use_cache), config, None)
        trees[Variant.HIP] = work / "portable"
    if hip_nvidia and any(t.is_nvidia for t in chosen):
        convert(ConvertOptions(root, work / "hip", mode="hip", use_cache=use_cache), config, None)
        trees[Variant.HIP_NVIDIA] = work / "hip"
    return trees


def _tasks(root, trees, chosen, hip_nvidia, only) -> list[tuple]:
    flags = project_flags(root)
    pairs = [(t, Variant.built_for(t)) for t in chosen]
    pairs += [(t, Variant.HIP_NVIDIA) for t in chosen if hip_nvidia and t.is_nvidia]
    tasks = []
    for built, variant in pairs:
        tree = trees[variant]
        for path in translation_units(tree):
            rel = path.relative_to(tree).as_posix()
            if variant is Variant.CUDA and path.suffix == ".hip" or only is not None and rel not in only:
                continue  # HIP sources have no CUDA build
            tasks.append((path, rel, tree, built.id, str(variant), flags.for_unit(rel, tree, variant)))
    return tasks


_HIP_TYPE = re.compile(r"\b(?:__hip_\w+|hip\w+_t)\b")


@cache
def _cuda_types() -> dict[str, str]:
    """HIP type name -> CUDA type name, from porter's API table (types only: a kernel's parameters)."""
    return {e.hip: e.cuda for e in load_tables().identifiers.values() if e.hip and e.kind == "type"}


def cuda_spelling(kernel_name: str) -> str:
    """A demangled kernel name with HIP's type names back in CUDA's, to pair a port's kernel with its original's."""
    types = _cuda_types()
    return _HIP_TYPE.sub(lambda m: types.get(m.group(), m.group()), kernel_name)


def _collect(outcomes, tasks, findings_by_file, targets) -> BuildResult:
    cuda_failed = {u.file for u, _ in outcomes if u.variant == Variant.CUDA and u.status == "failed"}
    headers = ported_headers(findings_by_file)
    kernels: dict[str, dict] = {}
    mangled_all: list[str] = []
    parsed_logs = []
    for (unit, log), (_, rel, tree, target_id, variant, flags) in zip(outcomes, tasks, strict=True):
        classify(unit, findings_by_file, cuda_failed, headers, tree)
        chosen = target(target_id)
        found = parse_ptxas(log) if chosen.is_nvidia else parse_amdgpu_remarks(log)
        parsed_logs.append((unit, rel, tree, chosen, variant, flags, found))
        mangled_all.extend(found)
    names = demangle(sorted(set(mangled_all)))
    block_cache: dict[tuple[str, str], dict[str, int]] = {}
    for _unit, rel, tree, chosen, variant, flags, found in parsed_logs:
        if (str(tree), rel) not in block_cache:
            block_cache[(str(tree), rel)] = block_sizes(tree, rel, flags or [])
        sizes = block_cache[(str(tree), rel)]
        for mangled, resources in found.items():
            name = names.get(mangled, mangled)
            block = sizes.get(base_name(name))
            resources.block_size = block
            # an unknown block size is taken at the largest a kernel may have, on both vendors alike
            # (hip-clang's reported occupancy assumes the default flat work-group size, 1024)
            assumed = block or MAX_BLOCK_SIZE
            if chosen.is_nvidia:
                nvidia_occupancy(resources, chosen, assumed)
            else:
                amd_limiter(resources, chosen, assumed)
            if block is None and resources.limiter:
                resources.limiter += " (at max block size)"
            # one entry per kernel on both vendors: `k(__hip_bfloat16 const*)` is `k(__nv_bfloat16 const*)`
            paired = cuda_spelling(name)
            entry = kernels.setdefault(paired, {"name": paired, "mangled": mangled, "file": rel, "targets": {}})
            key = f"{chosen.id} hip-nvidia" if variant == Variant.HIP_NVIDIA else chosen.id
            entry["targets"][key] = resources.to_json()
    return BuildResult(
        [u for u, _ in outcomes], sorted(kernels.values(), key=lambda k: (k["file"], k["name"])), targets
    )
