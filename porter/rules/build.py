"""Build files (category `build`): CMake and setup.py settings that only NVIDIA toolchains accept."""

from __future__ import annotations

import re
from collections.abc import Iterable

from porter.findings import Edit, Finding, FixKind, Severity
from porter.rewrite import edits_for_mode
from porter.rules.base import CMAKE_MODULE, FileContext, Rule
from porter.source import FileKind

CMAKE_CUDA_LANGUAGE = Rule(
    id="BLD001",
    name="cmake-cuda-language",
    category="build",
    severity=Severity.WARNING,
    fix=FixKind.SUGGESTED,
    summary="CMake enables the CUDA language only",
    what="Finds `project(... LANGUAGES ... CUDA)` and `enable_language(CUDA)`.",
    why="CMake's CUDA language drives nvcc. ROCm builds use the HIP language (CMake ≥ 3.21) with `CMAKE_HIP_ARCHITECTURES`; a CUDA-only project never configures on a ROCm machine.",
    example="project(kernels LANGUAGES CXX CUDA)",
    use_instead="""
        Choose the language by platform:
        `if(USE_ROCM) enable_language(HIP) set(CMAKE_HIP_ARCHITECTURES gfx90a;gfx942) else() enable_language(CUDA) endif()`,
        and mark the .cu sources `LANGUAGE HIP` in the ROCm branch.
        """,
)

CMAKE_FIND_CUDA = Rule(
    id="BLD002",
    name="cmake-find-cuda",
    category="build",
    severity=Severity.WARNING,
    fix=FixKind.SUGGESTED,
    summary="CMake looks for the CUDA toolkit",
    what="Finds `find_package(CUDAToolkit)` and the deprecated `find_package(CUDA)`.",
    why="Neither exists on a ROCm machine, and configuration stops there.",
    example="find_package(CUDAToolkit REQUIRED)",
    use_instead="`find_package(hip REQUIRED)` plus `find_package(hipblas)` and the like for each library used.",
)

CUDA_LIBRARY_LINK = Rule(
    id="BLD003",
    name="cuda-library-link",
    category="build",
    severity=Severity.WARNING,
    fix=FixKind.AUTO,
    summary="Link against a CUDA library that has a ROCm counterpart",
    what="Finds CUDA libraries in link lists: CMake's `CUDA::cublas` targets, `-lcublas` flags, setup.py `libraries=[...]`.",
    why="The NVIDIA libraries are not on a ROCm machine; the link step fails even when every source compiled.",
    example="target_link_libraries(app PRIVATE CUDA::cudart CUDA::cublas)",
    use_instead="`target_link_libraries(app PRIVATE hip::host roc::hipblas)`, `-lhipblas`, `libraries=['hipblas']`.",
)

CUDA_ARCH_FLAGS = Rule(
    id="BLD004",
    name="cuda-arch-flags",
    category="build",
    severity=Severity.WARNING,
    fix=FixKind.SUGGESTED,
    summary="NVIDIA architecture flags or lists",
    what="Finds `-arch=sm_XX`, `-gencode`, `CMAKE_CUDA_ARCHITECTURES`, `CUDA_ARCHITECTURES` and `TORCH_CUDA_ARCH_LIST`.",
    why="hipcc and clang reject nvcc's architecture flags; AMD targets are named gfx90a, gfx942, gfx950.",
    example="set(CMAKE_CUDA_ARCHITECTURES 80 90)",
    use_instead="`set(CMAKE_HIP_ARCHITECTURES gfx90a gfx942)`, `--offload-arch=gfx942`, `PYTORCH_ROCM_ARCH=gfx942`.",
)

RULES = (CMAKE_CUDA_LANGUAGE, CMAKE_FIND_CUDA, CUDA_LIBRARY_LINK, CUDA_ARCH_FLAGS)

# The structural CMake fixes are the findings' own edits, one set per conversion mode. portable: the
# project keeps CUDA as its default and gains `-DPORTER_USE_HIP=ON` through the generated
# porter_gpu.cmake; hip: the CUDA language, packages and architectures are replaced outright. A
# finding that carries such edits is automatic; where none applies (a flag in a string, setup.py),
# it stays suggested.
_STATEMENT = re.compile(rb"(?i)\b(project|enable_language|find_package|set)\s*\(")

_LANGUAGE = re.compile(rb"(?i)\b(?:project\s*\([^)]*\bLANGUAGES\b[^)]*?\b(CUDA)\b|enable_language\s*\(\s*(CUDA)\b)")
_FIND_CUDA = re.compile(rb"(?i)\bfind_package\s*\(\s*(CUDAToolkit|CUDA)\b")
_ARCH = re.compile(
    rb"(-arch[= ](?:sm|compute)_\d+a?|-gencode[= ][^\s\"')]+|--generate-code[= ][^\s\"')]+|\bCMAKE_CUDA_ARCHITECTURES\b|\bCUDA_ARCHITECTURES\b|\bTORCH_CUDA_ARCH_LIST\b)"
)


def check(ctx: FileContext) -> Iterable[Finding]:
    kind = ctx.source.kind
    if kind not in (FileKind.CMAKE, FileKind.SETUP_PY):
        return
    data = blank_comments(ctx.source.data)
    if b"PORTER_USE_HIP" in data:
        # converted already: the CUDA language, packages and libraries sit behind porter's switch
        yield from _arch_flags(ctx, data)
        return
    if kind is FileKind.CMAKE:
        for match in _LANGUAGE.finditer(data):
            group = 1 if match.group(1) else 2
            edits = _language_edits(ctx, data, match.start(group), match.end(group))
            message = "the CUDA language is enabled; ROCm builds need the HIP language"
            yield _structural(CMAKE_CUDA_LANGUAGE, ctx, match.start(group), match.end(group), message, edits)
        for match in _FIND_CUDA.finditer(data):
            package = match.group(1).decode()
            edits = _find_package_edits(ctx, data, match.start(1))
            message = f"`find_package({package})` fails on ROCm; use `find_package(hip)`"
            yield _structural(CMAKE_FIND_CUDA, ctx, match.start(1), match.end(1), message, edits)
    yield from _arch_flags(ctx, data)
    yield from _links(ctx, data)


def _arch_flags(ctx: FileContext, data: bytes) -> Iterable[Finding]:
    """One finding per architecture flag with its own edit; the flags of one if/elif/else chain without
    one (arms choosing the architectures by compute capability) are one decision: one finding."""
    chains: list[tuple[int, int]] | None = None  # found on the first flag that needs them
    grouped: dict[tuple[int, int], list[re.Match]] = {}
    for match in _ARCH.finditer(data):
        if _behind_cuda_switch(data, match.start()):
            continue  # `if(NOT PORTER_USE_HIP)`: these architectures serve the CUDA build only
        edits = _architecture_edits(ctx, data, match.start()) if ctx.source.kind is FileKind.CMAKE else ()
        if not edits and chains is None:
            chains = _conditional_chains(ctx, data)
        chain = None if edits else next((c for c in chains if c[0] <= match.start() < c[1]), None)
        if chain is not None:
            grouped.setdefault(chain, []).append(match)
            continue
        message = f"`{match.group().decode(errors='replace')}` names NVIDIA architectures"
        yield _structural(CUDA_ARCH_FLAGS, ctx, match.start(), match.end(), message, edits)
    for matches in grouped.values():
        first = matches[0]
        message = f"`{first.group().decode(errors='replace')}` names NVIDIA architectures"
        if len(matches) > 1:
            message += f" (with {len(matches) - 1} more flag(s) in the arms of this conditional)"
        yield _structural(CUDA_ARCH_FLAGS, ctx, first.start(), first.end(), message, ())


_CMAKE_CONDITIONAL = re.compile(rb"(?im)^[ \t]*(if|endif)[ \t]*\(")


def _conditional_chains(ctx: FileContext, data: bytes) -> list[tuple[int, int]]:
    """Byte ranges of the outermost if/elif/else chains: Python's from its syntax tree (parsed, never
    run), CMake's from `if(`…`endif(` nesting."""
    if ctx.source.kind is FileKind.SETUP_PY:
        return _python_chains(data)
    chains, depth, start = [], 0, 0
    for match in _CMAKE_CONDITIONAL.finditer(data):
        if match.group(1).lower() == b"if":
            if depth == 0:
                start = match.start()
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                chains.append((start, match.end()))
    return chains


def _python_chains(data: bytes) -> list[tuple[int, int]]:
    import ast

    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    line_starts = [0] + [m.end() for m in re.finditer(rb"\n", data)]
    chains = []
    pending = [tree]
    while pending:  # outermost `if` statements only: an elif (and any nested if) lies inside its chain
        node = pending.pop()
        if isinstance(node, ast.If) and node.end_lineno is not None:
            end = line_starts[node.end_lineno] if node.end_lineno < len(line_starts) else len(data)
            chains.append((line_starts[node.lineno - 1], end))
            continue
        pending.extend(ast.iter_child_nodes(node))
    return chains


def _structural(rule: Rule, ctx: FileContext, start: int, end: int, message: str, edits) -> Finding:
    fix = FixKind.AUTO if edits else None
    return rule.finding(ctx, start, end, message, edits=tuple(edits), fix=fix)


def _module_include(ctx: FileContext) -> bytes:
    """`include(...)` of porter_gpu.cmake, which convert writes at the root of the tree."""
    module_dir = "../" * ctx.source.rel.count("/")
    return f'include("${{CMAKE_CURRENT_LIST_DIR}}/{module_dir}{CMAKE_MODULE}")'.encode()


def _language_edits(ctx: FileContext, data: bytes, start: int, end: int) -> list[Edit]:
    statement = _statement_around(data, start)
    if statement is None:
        return []
    first, last, command = statement
    newline = ctx.source.newline.encode()
    if command == "project":
        token_start = start - (len(data[:start]) - len(data[:start].rstrip()))
        architectures = ";".join(ctx.config.targets).encode()
        return [
            Edit(token_start, end, b"", mode="portable"),
            Edit(last, last, newline + _module_include(ctx), mode="portable"),
            Edit(start, end, b"HIP", mode="hip"),
            Edit(last, last, newline + b'set(CMAKE_HIP_ARCHITECTURES "' + architectures + b'")', mode="hip"),
        ]
    if command == "enable_language":
        return [
            Edit(first, last, _module_include(ctx), mode="portable"),
            Edit(first, last, b"enable_language(HIP)", mode="hip"),
        ]
    return []


def _find_package_edits(ctx: FileContext, data: bytes, offset: int) -> list[Edit]:
    statement = _statement_around(data, offset)
    if statement is None or statement[2] != "find_package":
        return []
    first, last, _ = statement
    newline = ctx.source.newline.encode()
    text = ctx.source.data[first:last]
    wrapped = _CUDA_SWITCH + newline + b"  " + text + newline + b"endif()"
    return [Edit(first, last, wrapped, mode="portable"), Edit(first, last, b"find_package(hip REQUIRED)", mode="hip")]


def _architecture_edits(ctx: FileContext, data: bytes, offset: int) -> list[Edit]:
    """`set(CMAKE_CUDA_ARCHITECTURES ...)`: hip mode names the AMD targets instead; portable mode keeps it
    for the CUDA build only (porter_gpu.cmake sets the HIP architectures)."""
    statement = _statement_around(data, offset)
    if (
        statement is None
        or statement[2] != "set"
        or b"CMAKE_CUDA_ARCHITECTURES" not in data[statement[0] : statement[1]]
    ):
        return []
    first, last, _ = statement
    architectures = ";".join(ctx.config.targets).encode()
    newline = ctx.source.newline.encode()
    wrapped = _CUDA_SWITCH + newline + b"  " + ctx.source.data[first:last] + newline + b"endif()"
    return [
        Edit(first, last, wrapped, mode="portable"),
        Edit(first, last, b'set(CMAKE_HIP_ARCHITECTURES "' + architectures + b'")', mode="hip"),
    ]


_CUDA_SWITCH = b"if(NOT PORTER_USE_HIP)"


def _behind_cuda_switch(data: bytes, offset: int) -> bool:
    """Is the statement at `offset` the first inside a portable port's `if(NOT PORTER_USE_HIP)`?"""
    before = data[max(0, offset - 200) : offset]
    line_start = before.rfind(b"\n")
    previous = before[: line_start if line_start != -1 else 0].rstrip().rsplit(b"\n", 1)[-1]
    return previous.strip() == _CUDA_SWITCH


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


def cmake_packages(findings: list[Finding], libraries: dict) -> list[str]:
    """The ROCm CMake packages the link findings' HIP targets come from (porter_gpu.cmake finds them)."""
    packages = []
    for finding in findings:
        if finding.rule != CUDA_LIBRARY_LINK.id:
            continue
        for edit in edits_for_mode(finding, "hip"):
            target = edit.replacement.decode()
            for library in libraries.values():
                if target in library.get("cmake", {}).values() and library.get("cmake_package"):
                    packages.append(library["cmake_package"])
    return packages


def _link_renames(ctx: FileContext) -> dict[str, str]:
    renames = dict(ctx.tables.runtime_cmake)
    for library in ctx.tables.libraries.values():
        renames.update({k: v for k, v in library.get("cmake", {}).items() if v})
    return renames


def _library_renames(ctx: FileContext) -> dict[str, str]:
    renames = dict(ctx.tables.runtime_link)
    for library in ctx.tables.libraries.values():
        renames.update(library.get("link", {}))
    return renames


def _links(ctx: FileContext, data: bytes) -> Iterable[Finding]:
    targets = _link_renames(ctx)
    target_pattern = re.compile(rb"\bCUDA::\w+")
    for match in target_pattern.finditer(data):
        name = match.group().decode()
        if name in targets:
            choice = _link_choice(b"", targets[name].encode(), name.encode())
            portable = Edit(match.start(), match.end(), choice, mode="portable")
            yield _link_finding(ctx, match.start(), match.end(), name, targets[name], portable)
    libraries = _library_renames(ctx)
    alternation = "|".join(re.escape(n) for n in sorted(libraries, key=len, reverse=True))
    flag_pattern = re.compile(rf"-l({alternation})\b".encode())
    for match in flag_pattern.finditer(data):
        name = match.group(1).decode()
        portable = None
        if ctx.source.kind is FileKind.CMAKE:
            choice = _link_choice(b"-l", libraries[name].encode(), name.encode())
            portable = Edit(match.start(), match.end(), choice, mode="portable")
        yield _link_finding(ctx, match.start(1), match.end(1), name, libraries[name], portable)
    if ctx.source.kind is FileKind.SETUP_PY:
        quoted = re.compile(rb"""\blibraries\s*=\s*\[[^\]]*""")
        for block in quoted.finditer(data):
            if b"version.hip" in block.group():
                continue  # converted already: the library is chosen by the torch build
            for item in re.finditer(rf"""(['"])({alternation})['"]""".encode(), block.group()):
                name = item.group(2).decode()
                start = block.start() + item.start(2)
                quote = item.group(1).decode()
                # one setup.py for both: pick the library from the torch it builds against
                choice = (
                    f'({quote}{libraries[name]}{quote} if __import__("torch").version.hip else {quote}{name}{quote})'
                )
                portable = Edit(
                    block.start() + item.start(), block.start() + item.end(), choice.encode(), mode="portable"
                )
                yield _link_finding(ctx, start, start + len(name), name, libraries[name], portable)


def _link_choice(prefix: bytes, rocm: bytes, cuda: bytes) -> bytes:
    """A CMake generator expression that links the ROCm library under porter's HIP switch."""
    return b"$<IF:$<BOOL:${PORTER_USE_HIP}>," + prefix + rocm + b"," + prefix + cuda + b">"


def _link_finding(
    ctx: FileContext, start: int, end: int, name: str, rocm: str, portable: Edit | None = None
) -> Finding:
    edits = (Edit(start, end, rocm.encode(), mode="hip"),) + ((portable,) if portable else ())
    return CUDA_LIBRARY_LINK.finding(ctx, start, end, f"links `{name}`; on ROCm that is `{rocm}`", edits=edits)


def blank_comments(data: bytes) -> bytes:
    """Replace `#` comments by spaces, keeping offsets; `#` inside quotes is kept."""
    out = bytearray(data)
    for line in re.finditer(rb"[^\n]*", data):
        text = line.group()
        quote = None
        for i, ch in enumerate(text):
            c = chr(ch)
            if quote:
                if c == quote:
                    quote = None
            elif c in "\"'":
                quote = c
            elif c == "#":
                out[line.start() + i : line.end()] = b" " * (len(text) - i)
                break
    return bytes(out)
