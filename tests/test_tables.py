"""The mapping tables against the HIP 5.7 headers of the ROCm sysroot.

Every HIP name the tables give must exist in the sysroot, unless it is marked as added in a
newer release; and a name marked newer must really be absent from 5.7.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from porter.rules.tables import load_tables
from porter.targets import toolchains

REPO = Path(__file__).resolve().parent.parent
TOKEN = re.compile(rb"\b[A-Za-z_]\w*\b")


def sysroot_include() -> Path:
    root = toolchains.sysroot_dir()
    if not (root / ".complete").is_file():
        pytest.skip("ROCm sysroot not provisioned: run `porter setup rocm-sysroot`")
    return root / "usr" / "include"


@cache
def hip57_names(include: Path) -> frozenset[str]:
    names: set[str] = set()
    for header in include.rglob("*"):
        if header.is_file():
            names.update(t.decode() for t in TOKEN.findall(header.read_bytes()))
    return frozenset(names)


def checked_in_57(family: str) -> bool:
    return load_tables().checked_from.get(family) == "5.7"


def test_hip_names_exist_in_the_sysroot_or_carry_their_version():
    include = sysroot_include()
    names = hip57_names(include)
    tables = load_tables()
    wrong = []
    counted = 0
    for entry in tables.identifiers.values():
        if entry.hip is None or not checked_in_57(entry.family):
            continue
        counted += 1
        present = entry.hip in names
        if entry.since == "5.7" and not present:
            wrong.append(f"{entry.cuda} → {entry.hip}: marked 5.7 but not in the sysroot headers")
        if entry.since != "5.7" and present:
            wrong.append(f"{entry.cuda} → {entry.hip}: marked {entry.since} but already in 5.7")
    assert counted > 2000
    assert wrong == []


def test_versions_are_known_releases():
    for entry in load_tables().identifiers.values():
        assert entry.since in (None, "5.7", "6.4", "7.2")
        assert (entry.hip is None) == (entry.since is None), entry


def test_include_mappings_exist_in_the_sysroot():
    include = sysroot_include()
    wrong = [
        f"{cuda} → {entry.hip}"
        for cuda, entry in load_tables().includes.items()
        if entry.hip and entry.since == "5.7" and not (include / entry.hip).is_file()
    ]
    assert wrong == []


def test_library_headers_and_cmake_targets_exist_in_the_sysroot():
    include = sysroot_include()
    root = include.parent
    cmake_text = "\n".join(p.read_text(errors="replace") for p in root.rglob("*targets.cmake"))
    exported = set(re.findall(r"add_library\(([\w:]+)", cmake_text))
    problems = []
    for family, library in load_tables().libraries.items():
        if library.get("manual") or library.get("since"):
            continue
        header = library.get("hip_header")
        if header and not (include / header).is_file():
            problems.append(f"{family}: header {header} missing")
        for target in library.get("cmake", {}).values():
            if target and target not in exported:
                problems.append(f"{family}: CMake target {target} not exported")
        for lib in library.get("link", {}).values():
            if not list(root.rglob(f"lib{lib}.so*")) and lib not in ("rccl",):
                # the -dev packages ship the unversioned .so link for each library
                problems.append(f"{family}: no lib{lib}.so in the sysroot")
    assert problems == []


@pytest.mark.network
@pytest.mark.slow
def test_generator_reproduces_the_committed_table():
    """The table is the generator's output, not hand edits: regenerate and compare.

    Debian's sid and experimental move on (HIP 6.4 and 7.2 today), so a regeneration can
    differ without any fault in porter: the check runs when PORTER_CHECK_TABLES=1 asks.
    """
    if os.environ.get("PORTER_CHECK_TABLES") != "1":
        pytest.skip("set PORTER_CHECK_TABLES=1 to regenerate the table from its sources and compare")
    if toolchains.find_torch() is None:
        pytest.skip("torch is needed to read hipify's table")
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_api_tables.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-2000:]


def test_hip_overloads_are_declared_by_every_hip_here():
    """porter/rules/data/hip_overloads.json against the HIP 5.7 sysroot and, when made, the HIP 6.4 root."""
    from porter.rules.api import hip_overloads
    from porter.targets import rocm_root

    roots = [toolchains.sysroot_dir(), rocm_root.root_dir()]
    headers = [r / "usr/include/hip/amd_detail/amd_hip_atomic.h" for r in roots]
    headers = [h for h in headers if h.is_file()]
    if not headers:
        pytest.skip("no HIP headers: `porter setup rocm-sysroot`")
    for header in headers:
        text = header.read_text(errors="replace")
        for name, kind in hip_overloads():
            assert re.search(rf"\b{kind} {name}\({kind}\* \w+, {kind}", text), (header, name, kind)
    nvidia = [r / "usr/include/hip/nvidia_detail/nvidia_hip_atomics.h" for r in roots]
    for header in [h for h in nvidia if h.is_file()]:
        text = header.read_text(errors="replace")
        declared = {(name, kind) for kind, name in re.findall(r"\b(float|double) (atomic\w+)\(\1\* \w+, \1", text)}
        assert declared == set(hip_overloads("nvidia_overloads")), header


def test_library_warp_constants_match_cub():
    from porter.rules.consteval import evaluate, library_constants

    cub = toolchains.cuda_headers_path() / "include" / "cub" / "util_arch.cuh"
    if not cub.is_file():
        pytest.skip("no CUDA 12.9 headers: `porter setup cuda-headers`")
    text = cub.read_text(errors="replace")
    functions, objects = library_constants()
    for name, value in {**functions, **objects}.items():
        match = re.search(rf"#\s*define {name}(?:\(\w+\))?\s+(.+)", text)
        assert match, name
        body = re.sub(r"\b(CUB_\w+)\s*\(\s*\w*\s*\)", lambda m: str(functions.get(m.group(1), "?")), match.group(1))
        assert evaluate(body, objects) == value, (name, match.group(1))


def test_compat_intrinsics_are_built_from_what_every_hip_here_declares():
    """porter/rules/data/compat_intrinsics.json: the HIP functions its expressions use exist in HIP 5.7 and 6.4."""
    from porter.rules.numeric_format import compat_intrinsics
    from porter.targets import rocm_root

    headers = [
        r / "usr/include/hip/amd_detail/amd_hip_bf16.h" for r in (toolchains.sysroot_dir(), rocm_root.root_dir())
    ]
    headers = [h for h in headers if h.is_file()]
    if not headers:
        pytest.skip("no HIP headers: `porter setup rocm-sysroot`")
    for header in headers:
        text = header.read_text(errors="replace")
        for name, entry in compat_intrinsics().items():
            assert not re.search(rf"\b{name}\s*\(", text), (header, name, "HIP has it now: drop the entry")
            for used in entry["uses"]:
                assert re.search(rf"\b{used}\s*\(", text), (header, used)


def _cutlass_include() -> Path | None:
    """A CUTLASS checkout's include/: PORTER_CUTLASS_INCLUDE, else the one FlashInfer's sdist
    carries in the benchmarks' download cache (bench/pypi.py)."""
    named = os.environ.get("PORTER_CUTLASS_INCLUDE")
    if named:
        return Path(named)
    found = sorted((toolchains.cache_dir() / "pypi").glob("flashinfer*/3rdparty/cutlass/include"))
    return found[-1] if found else None


def _torch_include() -> Path | None:
    try:
        import torch
    except ImportError:
        return None
    return Path(torch.__file__).parent / "include"


def test_library_attribute_macros_match_their_headers():
    """porter/rules/data/attribute_macros.json: each macro's CUDA definition, as its header has it."""
    from porter.rules.consteval import library_attribute_macros, read_data

    roots = {"torch": _torch_include(), "cutlass": _cutlass_include()}
    table = read_data("attribute_macros.json")["macros"]
    checked = 0
    for name, expansion in library_attribute_macros().items():
        header = table[name]["header"]
        root = roots["torch"] if header.startswith("torch/") else roots["cutlass"]
        if root is None or not (root / header).is_file():
            continue
        definitions = re.findall(rf"#\s*define\s+{name}[ \t]+([^\n]+)", (root / header).read_text(errors="replace"))
        assert expansion in [" ".join(d.split()) for d in definitions], (name, header, definitions)
        checked += 1
    cuda = toolchains.cuda_headers_path() / "include"
    for name, entry in read_data("attribute_macros.json")["function_like"].items():
        header = cuda / entry["header"]
        if not header.is_file():
            continue
        text = re.sub(r"\\\n\s*", " ", header.read_text(errors="replace"))  # definitions continued on the next line
        definitions = {
            # the parameter's name (`__VA_ARGS__` where it is `...`), as the table writes it: n
            re.sub(rf"\b{'__VA_ARGS__' if parameter == '...' else parameter}\b", "n", body).strip()
            for parameter, body in re.findall(rf"#\s*define {re.escape(name)}\((\w+|\.\.\.)\)[ \t]+([^\n]+)", text)
        }
        assert entry["cuda"] in definitions, (name, definitions)
        checked += 1
    if not checked:
        pytest.skip("neither torch's, CUDA's nor CUTLASS's headers (PORTER_CUTLASS_INCLUDE) at hand")
