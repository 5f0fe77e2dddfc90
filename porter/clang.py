"""The libclang layer: types, macro expansion and constant values, where matching is not enough.

It parses CUDA host-side with Debian's libclang-19 against CUDA 12.9 headers assembled from
NVIDIA's wheels (`porter setup cuda-headers`): clang's CUDA wrapper does not accept the CUDA 13
headers, and the pip libclang wheel ships no resource headers. Parsing costs about a quarter of
a second per file, so the scan asks for it only for files where a rule needs it.

A file that libclang cannot parse is normal; the rules keep their tree-sitter findings.
"""

from __future__ import annotations

import ctypes
import glob
import os
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from porter.errors import PorterError
from porter.source import SourceFile
from porter.targets import toolchains

LIBCLANG_CANDIDATES = (
    "/usr/lib/llvm-19/lib/libclang-19.so.1",
    "/usr/lib/llvm-19/lib/libclang.so.1",
    "/usr/lib/llvm-20/lib/libclang-20.so.1",
    "/usr/lib/llvm-18/lib/libclang-18.so.1",
)


@dataclass(frozen=True)
class ClangSetup:
    library: Path
    resource_dir: Path
    cuda_path: Path

    def base_args(self) -> list[str]:
        return [
            "-x",
            "cuda",
            f"--cuda-path={self.cuda_path}",
            "--cuda-host-only",
            "-nocudalib",
            "-resource-dir",
            str(self.resource_dir),
            "-std=c++17",
            "-Wno-unknown-cuda-version",
            "-ferror-limit=0",
        ]


def find_libclang() -> Path | None:
    override = os.environ.get("PORTER_LIBCLANG")
    if override:
        return Path(override) if Path(override).is_file() else None
    for candidate in LIBCLANG_CANDIDATES:
        if Path(candidate).is_file():
            return Path(candidate)
    return None


def resource_dir_for(library: Path) -> Path | None:
    llvm_lib = library.parent
    found = sorted(glob.glob(str(llvm_lib / "clang" / "*" / "include" / "__clang_cuda_runtime_wrapper.h")))
    return Path(found[-1]).parent.parent if found else None


@cache
def find_setup() -> ClangSetup | None:
    library = find_libclang()
    cuda_path = toolchains.cuda_headers_dir()
    if library is None or cuda_path is None:
        return None
    resource = resource_dir_for(library)
    if resource is None:
        return None
    return ClangSetup(library=library, resource_dir=resource, cuda_path=cuda_path)


_configured: Path | None = None


def _cindex(setup: ClangSetup):
    global _configured
    import clang.cindex as cindex

    if _configured is None:
        cindex.Config.set_library_file(str(setup.library))
        _configured = setup.library
    return cindex


@dataclass
class Reference:
    """A use of a declared name in the main file, as libclang resolved it."""

    name: str
    kind: str
    offset: int  # expansion location in the main file
    declared_in: str | None
    type_spelling: str


@dataclass
class MacroUse:
    name: str
    offset: int
    end_offset: int


@dataclass
class SharedVariable:
    """A `__shared__` variable with the size libclang computed for its type (None if dependent)."""

    name: str
    offset: int
    end_offset: int
    size: int | None
    function_offset: int | None  # start of the enclosing function, if any
    dynamic: bool  # extern __shared__ T x[];


@dataclass
class ClangUnit:
    """What the rules may ask of one libclang parse of one file."""

    references: list[Reference] = field(default_factory=list)
    shared_variables: list[SharedVariable] = field(default_factory=list)
    macro_uses: list[MacroUse] = field(default_factory=list)
    macro_definitions: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    blanked_includes: list[str] = field(default_factory=list)


class ClangFailure(PorterError):
    """libclang could not produce a usable translation unit for a file."""


_REFERENCE_KINDS = ("CALL_EXPR", "DECL_REF_EXPR", "TYPE_REF", "MEMBER_REF_EXPR")


MAX_BLANKED_INCLUDES = 12
_MISSING_INCLUDE = re.compile(r"'([^']+)' file not found")


def parse_unit(source: SourceFile, extra_args: list[str] | None = None) -> ClangUnit:
    """Parse one file; includes that cannot be found are blanked out and the parse retried.

    A missing header (a project header outside the include path, a library the CUDA header
    set lacks) is fatal to clang, but the rest of the file still says a lot: blanking the
    include line, with spaces so that every byte offset stays put, lets the parse go on.
    """
    setup = find_setup()
    if setup is None:
        raise ClangFailure("libclang or the CUDA 12.9 headers are not set up (run `porter setup cuda-headers`)")
    cindex = _cindex(setup)
    args = setup.base_args() + (extra_args or []) + [f"-I{source.path.parent}"]
    contents, blanked = _blank_unresolvable_includes(source, args, setup)
    for _ in range(MAX_BLANKED_INCLUDES + 1):
        try:
            unit = cindex.Index.create().parse(
                str(source.path),
                args=args,
                unsaved_files=[(str(source.path), contents)],
                options=cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD
                | cindex.TranslationUnit.PARSE_INCOMPLETE,
            )
        except cindex.TranslationUnitLoadError as exc:
            raise ClangFailure(f"libclang could not parse {source.rel}: {exc}") from exc
        missing = _first_missing_include(unit, cindex, str(source.path))
        if missing is None:
            result = _collect(unit, cindex, source)
            result.blanked_includes = blanked
            return result
        header, line = missing
        blanked.append(header)
        contents = _blank_line(contents, line)
    raise ClangFailure(f"{source.rel}: more than {MAX_BLANKED_INCLUDES} includes not found (last: {blanked[-1]})")


_INCLUDE_LINE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)
_SYSTEM_DIRS = ("/usr/include", "/usr/local/include", "/usr/include/x86_64-linux-gnu")


def _search_dirs(source: SourceFile, args: list[str], setup: ClangSetup) -> list[Path]:
    dirs = [source.path.parent]
    for i, arg in enumerate(args):
        if arg in ("-I", "-isystem") and i + 1 < len(args):
            dirs.append(Path(args[i + 1]))
        elif arg.startswith("-I") and len(arg) > 2:
            dirs.append(Path(arg[2:]))
    dirs += [setup.cuda_path / "include", setup.resource_dir / "include", *map(Path, _SYSTEM_DIRS)]
    return dirs


def _blank_unresolvable_includes(source: SourceFile, args: list[str], setup: ClangSetup) -> tuple[bytes, list[str]]:
    """Blank, up front, the includes no search directory holds: each would cost a full re-parse."""
    dirs = _search_dirs(source, args, setup)
    data = source.data
    blanked: list[str] = []
    for match in _INCLUDE_LINE.finditer(source.data):
        header = match.group(2).decode("utf-8", "replace").strip()
        if "." not in Path(header).name:
            continue  # a standard C++ header such as <vector>
        if any((d / header).is_file() for d in dirs):
            continue
        start, end = match.span()
        data = data[:start] + b" " * (end - start) + data[end:]
        blanked.append(header)
    return data, blanked


def _first_missing_include(unit, cindex, main: str) -> tuple[str, int] | None:
    for diagnostic in unit.diagnostics:
        if diagnostic.severity < cindex.Diagnostic.Fatal:
            continue
        match = _MISSING_INCLUDE.search(diagnostic.spelling)
        location = diagnostic.location
        if match and location.file is not None and location.file.name == main:
            return match.group(1), location.line
    return None


def _blank_line(data: bytes, line: int) -> bytes:
    lines = data.split(b"\n")
    text = lines[line - 1]
    lines[line - 1] = bytes(c if c in b"\r" else 0x20 for c in text)
    return b"\n".join(lines)


def _from_main_file(cindex):
    function = cindex.conf.lib.clang_Location_isFromMainFile
    if function.argtypes is None:
        function.argtypes = [cindex.SourceLocation]
        function.restype = ctypes.c_int
    return function


def _is_shared(cursor) -> bool:
    return any(child.kind.name == "CUDASHARED_ATTR" for child in cursor.get_children())


def _shared_variable(cursor, top) -> SharedVariable:
    size = cursor.type.get_size()
    is_function = top.kind.name in ("FUNCTION_DECL", "FUNCTION_TEMPLATE", "CXX_METHOD")
    return SharedVariable(
        name=cursor.spelling,
        offset=cursor.extent.start.offset,
        end_offset=cursor.extent.end.offset,
        size=size if size is not None and size > 0 else None,
        function_offset=top.extent.start.offset if is_function else None,
        dynamic=cursor.type.kind.name == "INCOMPLETEARRAY",
    )


def _collect(unit, cindex, source: SourceFile) -> ClangUnit:
    result = ClangUnit()
    in_main = _from_main_file(cindex)
    main = str(source.path)
    data = source.data
    for diagnostic in unit.diagnostics:
        if diagnostic.severity >= cindex.Diagnostic.Error and in_main(diagnostic.location):
            result.errors.append(str(diagnostic))
    for top in unit.cursor.get_children():
        if not in_main(top.location):
            continue
        for cursor in top.walk_preorder():
            location = cursor.location
            # isFromMainFile is false for tokens from macro expansions; their expansion
            # site (what .file reports) may still be in the main file.
            if not in_main(location) and (location.file is None or location.file.name != main):
                continue
            kind = cursor.kind.name
            if kind == "MACRO_DEFINITION":
                start, end = cursor.extent.start.offset, cursor.extent.end.offset
                result.macro_definitions[cursor.spelling] = data[start:end].decode("utf-8", "replace")
            elif kind == "MACRO_INSTANTIATION":
                result.macro_uses.append(
                    MacroUse(cursor.spelling, cursor.extent.start.offset, cursor.extent.end.offset)
                )
            elif kind == "VAR_DECL" and _is_shared(cursor):
                result.shared_variables.append(_shared_variable(cursor, top))
            elif kind in _REFERENCE_KINDS and cursor.spelling:
                referenced = cursor.referenced
                declared = None
                if referenced is not None and referenced.location.file is not None:
                    declared = referenced.location.file.name
                result.references.append(
                    Reference(cursor.spelling, kind, location.offset, declared, cursor.type.spelling)
                )
    return result
