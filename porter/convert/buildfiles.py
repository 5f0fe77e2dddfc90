"""Build files: the CMake edits that give a project its HIP path, and hipcc variants of Makefiles.

CMake edits are keyed on the build-rule findings (BLD001-BLD004), so the scan and the conversion
agree on what a build file needs. In portable mode the project keeps CUDA as the default and
gains `-DPORTER_USE_HIP=ON` through the generated porter_gpu.cmake; in hip mode the CUDA
language, packages, targets and architectures are replaced outright.
"""

from __future__ import annotations

import re
from pathlib import Path

from porter.convert.compat import CMAKE_MODULE
from porter.findings import Edit, Finding
from porter.rules.tables import load_tables

_STATEMENT = re.compile(rb"(?i)\b(project|enable_language|find_package|set)\s*\(")
MAKEFILE_NAMES = ("Makefile", "makefile", "GNUmakefile")


def _statement_around(data: bytes, offset: int) -> tuple[int, int, str] | None:
    """(start, end, command) of the CMake command call that contains `offset`."""
    best = None
    for match in _STATEMENT.finditer(data, 0, offset + 1):
        best = match
    if best is None:
        return None
    depth, index = 0, best.end() - 1
    while index < len(data):
        char = data[index : index + 1]
        if char == b"(":
            depth += 1
        elif char == b")":
            depth -= 1
            if depth == 0:
                return (best.start(), index + 1, best.group(1).decode().lower()) if index >= offset else None
        index += 1
    return None


def _portable_link(data: bytes, finding: Finding) -> list[tuple[Finding, Edit]]:
    """`CUDA::cublas` or `-lcublas` → a generator expression that picks the ROCm library under HIP."""
    span = finding.span
    cuda = data[span.start_byte : span.end_byte]
    rocm = next((e.replacement for e in finding.edits if e.mode == "hip"), None)
    if rocm is None:
        return []
    start, prefix = span.start_byte, b""
    if not cuda.startswith(b"CUDA::") and data[start - 2 : start] == b"-l":
        start, prefix = start - 2, b"-l"
    elif not cuda.startswith(b"CUDA::"):
        return []
    choice = b"$<IF:$<BOOL:${PORTER_USE_HIP}>," + prefix + rocm + b"," + prefix + cuda + b">"
    return [(finding, Edit(start, span.end_byte, choice))]


def cmake_packages(findings: list[Finding]) -> list[str]:
    libraries = load_tables().libraries
    packages = []
    for finding in findings:
        if finding.rule != "BLD003":
            continue
        for edit in finding.edits:
            target = edit.replacement.decode()
            for library in libraries.values():
                if target in library.get("cmake", {}).values() and library.get("cmake_package"):
                    packages.append(library["cmake_package"])
    return packages


def cmake_edits(
    data: bytes, findings: list[Finding], mode: str, module_dir: str, targets: tuple[str, ...]
) -> list[tuple[Finding, Edit]]:
    """Structural CMake edits for one file. `module_dir`: path from the file to porter_gpu.cmake."""
    include = f'include("${{CMAKE_CURRENT_LIST_DIR}}/{module_dir}{CMAKE_MODULE}")'.encode()
    newline = b"\r\n" if b"\r\n" in data else b"\n"
    edits: list[tuple[Finding, Edit]] = []
    for finding in findings:
        span = finding.span
        if finding.rule == "BLD003":
            if mode == "portable":
                edits.extend(_portable_link(data, finding))
            continue
        statement = _statement_around(data, span.start_byte)
        if statement is None:
            continue
        start, end, command = statement
        text = data[start:end]
        if finding.rule == "BLD001" and command == "project":
            token_start = span.start_byte - (len(data[: span.start_byte]) - len(data[: span.start_byte].rstrip()))
            if mode == "portable":
                edits.append((finding, Edit(token_start, span.end_byte, b"")))
                edits.append((finding, Edit(end, end, newline + include)))
            else:
                edits.append((finding, Edit(span.start_byte, span.end_byte, b"HIP")))
                architectures = ";".join(targets).encode()
                edits.append(
                    (finding, Edit(end, end, newline + b'set(CMAKE_HIP_ARCHITECTURES "' + architectures + b'")'))
                )
        elif finding.rule == "BLD001" and command == "enable_language":
            replacement = include if mode == "portable" else b"enable_language(HIP)"
            edits.append((finding, Edit(start, end, replacement)))
        elif finding.rule == "BLD002" and command == "find_package":
            if mode == "portable":
                wrapped = b"if(NOT PORTER_USE_HIP)" + newline + b"  " + text + newline + b"endif()"
                edits.append((finding, Edit(start, end, wrapped)))
            else:
                edits.append((finding, Edit(start, end, b"find_package(hip REQUIRED)")))
        elif finding.rule == "BLD004" and mode == "hip" and command == "set" and b"CMAKE_CUDA_ARCHITECTURES" in text:
            edits.append(
                (finding, Edit(start, end, b'set(CMAKE_HIP_ARCHITECTURES "' + ";".join(targets).encode() + b'")'))
            )
    return edits


def rename_cu_sources(data: bytes) -> bytes:
    """hip mode: `kernel.cu` → `kernel.hip` in source lists (CMake, setup.py)."""
    return re.sub(rb"(?<=[\w/.-])\.cu(?=[\s)\"',\]])", b".hip", data)


def is_makefile(path: Path) -> bool:
    return path.name in MAKEFILE_NAMES or path.suffix == ".mk"


def hipcc_makefile(data: bytes, targets: tuple[str, ...], mode: str = "portable") -> bytes | None:
    """A hipcc variant of a Makefile that drives nvcc; None when it does not use nvcc."""
    if not re.search(rb"\bnvcc\b", data):
        return None
    offload = b" ".join(b"--offload-arch=" + t.encode() for t in targets)
    tables = load_tables()
    renames = dict(tables.runtime_link)
    for library in tables.libraries.values():
        renames.update({k: v for k, v in library.get("link", {}).items() if v})
    out = re.sub(rb"\bnvcc\b", b"hipcc", data)
    out = re.sub(
        rb"-gencode[= ](?:arch=)?\S+|--generate-code[= ]\S+|-arch[= ](?:sm|compute)_\d+a?|--gpu-architecture[= ]\S+",
        offload,
        out,
    )
    out = re.sub(rb"-x\s+cu\b", b"-x hip", out)
    for cuda, rocm in sorted(renames.items(), key=lambda item: -len(item[0])):
        out = re.sub(rb"-l" + re.escape(cuda.encode()) + rb"\b", b"-l" + rocm.encode(), out)
    out = re.sub(rb"--expt-relaxed-constexpr|--expt-extended-lambda|-Xptxas[= ]\S+|--use_fast_math|-lineinfo", b"", out)
    if mode == "hip":
        return b"# converted to hipcc by porter convert\n" + rename_cu_sources(out)
    return b"# hipcc variant of the Makefile beside it, generated by porter convert\n" + out
