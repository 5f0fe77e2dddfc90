"""Discovery: which files to scan, their compile flags, and the PyTorch extensions they form."""

from __future__ import annotations

import ast
import fnmatch
import json
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from porter.config import Config
from porter.source import FileKind, kind_of

# Trees that are somebody else's code: skipped unless `include` names them.
VENDORED_DIRS = frozenset(
    {
        "third_party",
        "thirdparty",
        "third-party",
        "3rdparty",
        "external",
        "externals",
        "extern",
        "vendor",
        "vendored",
        "cutlass",
        "cub",
        "thrust",
        "libcudacxx",
        "googletest",
        "pybind11",
    }
)
ALWAYS_SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv", "venv", ".tox", ".mypy_cache", ".pytest_cache"}
)


class DiscoveryError(Exception):
    """A path given on the command line cannot be scanned."""


@dataclass(frozen=True)
class DiscoveredFile:
    path: Path
    rel: str
    kind: FileKind


@dataclass(frozen=True)
class TorchExtension:
    """A PyTorch C++/CUDA extension declared in setup.py or built with cpp_extension.load."""

    file: str
    line: int
    how: str  # "CUDAExtension", "CppExtension", "load", "load_inline"
    name: str | None
    sources: tuple[str, ...]

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "how": self.how, "name": self.name, "sources": list(self.sources)}


@dataclass
class CompileCommands:
    path: Path
    flags: dict[str, list[str]] = field(default_factory=dict)  # absolute file path → relevant flags

    def flags_for(self, path: Path) -> list[str] | None:
        return self.flags.get(str(path.resolve()))


@dataclass
class Discovery:
    root: Path
    files: list[DiscoveredFile]
    compile_commands: CompileCommands | None
    skipped_vendored: list[str]


def _matches(rel: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(rel + "/", p) for p in patterns)


def _is_inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except ValueError:
        return False


def discover(paths: list[Path], config: Config) -> Discovery:
    """Walk the given paths; the first one is the root that finding paths are relative to."""
    for path in paths:
        if not path.exists():
            raise DiscoveryError(f"{path}: no such file or directory")
    root = paths[0] if paths[0].is_dir() else paths[0].parent
    files: dict[str, DiscoveredFile] = {}
    skipped: list[str] = []
    for path in paths:
        for found in _walk(path, root, config, skipped):
            files.setdefault(found.rel, found)
    database = find_compile_commands(root)
    if database:
        for name in database.flags:
            path = Path(name)
            kind = kind_of(path)
            if kind and path.is_file() and _is_inside(path, root):
                rel = path.resolve().relative_to(root.resolve()).as_posix()
                files.setdefault(rel, DiscoveredFile(path, rel, kind))
    ordered = sorted(files.values(), key=lambda f: f.rel)
    return Discovery(root=root, files=ordered, compile_commands=database, skipped_vendored=sorted(skipped))


def _walk(path: Path, root: Path, config: Config, skipped: list[str]):
    if path.is_file():
        kind = kind_of(path)
        if kind is None:
            raise DiscoveryError(f"{path}: not a CUDA, C++, setup.py or CMake file")
        yield DiscoveredFile(path, _relative(path, root), kind)
        return
    for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
        here = Path(dirpath)
        kept = []
        for name in sorted(dirnames):
            rel = _relative(here / name, root)
            if name in ALWAYS_SKIPPED_DIRS:
                continue
            if _matches(rel, config.exclude) and not _matches(rel, config.include):
                continue
            if config.skip_vendored and name.lower() in VENDORED_DIRS and not _force_included(rel, config):
                skipped.append(rel)
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            file = here / name
            kind = kind_of(file)
            if kind is None or not file.is_file():
                continue
            if file.is_symlink() and not _is_inside(file, root):
                continue
            rel = _relative(file, root)
            if _matches(rel, config.exclude) and not _matches(rel, config.include):
                continue
            yield DiscoveredFile(file, rel, kind)


def _force_included(rel: str, config: Config) -> bool:
    return any(fnmatch.fnmatch(rel, p) or p.startswith(rel + "/") for p in config.include)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


# -- compile_commands.json -------------------------------------------------------------

_KEPT_FLAG_PREFIXES = ("-I", "-D", "-U", "-std=", "-isystem", "-include", "--std=")
_FLAGS_WITH_VALUE = {"-I", "-D", "-U", "-isystem", "-include"}


def find_compile_commands(root: Path) -> CompileCommands | None:
    for candidate in (root / "compile_commands.json", root / "build" / "compile_commands.json"):
        if candidate.is_file():
            return load_compile_commands(candidate)
    return None


def load_compile_commands(path: Path) -> CompileCommands:
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DiscoveryError(f"{path}: not a valid compilation database: {exc}") from exc
    if not isinstance(entries, list):
        raise DiscoveryError(f"{path}: a compilation database is a JSON list of entries")
    database = CompileCommands(path=path)
    for entry in entries:
        if not isinstance(entry, dict) or "file" not in entry:
            continue
        directory = Path(entry.get("directory", path.parent))
        arguments = entry.get("arguments") or shlex.split(entry.get("command", ""))
        file = Path(entry["file"])
        file = file if file.is_absolute() else directory / file
        database.flags[str(file.resolve())] = _relevant_flags(arguments, directory)
    return database


def _relevant_flags(arguments: list[str], directory: Path) -> list[str]:
    """Keep include paths, defines and the language standard: what a parser needs."""
    kept: list[str] = []
    args = iter(arguments)
    for arg in args:
        if arg in _FLAGS_WITH_VALUE:
            value = next(args, "")
            kept.extend(_absolute_include(arg, value, directory))
        elif arg.startswith(_KEPT_FLAG_PREFIXES):
            for prefix in ("-I", "-isystem"):
                if arg.startswith(prefix) and len(arg) > len(prefix):
                    kept.extend(_absolute_include(prefix, arg[len(prefix) :], directory))
                    break
            else:
                kept.append(arg)
    return kept


def _absolute_include(flag: str, value: str, directory: Path) -> list[str]:
    if flag in ("-I", "-isystem") and not os.path.isabs(value):
        value = str(directory / value)
    return [flag, value]


# -- PyTorch extensions ----------------------------------------------------------------

_EXTENSION_CALLS = {"CUDAExtension", "CppExtension", "load", "load_inline"}


def find_torch_extensions(rel: str, data: bytes) -> list[TorchExtension]:
    """Extensions declared by a Python file; a file that does not parse yields none."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return []
    imports_cpp_extension = b"cpp_extension" in data
    found: list[TorchExtension] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node.func)
        if name not in _EXTENSION_CALLS:
            continue
        if name in ("load", "load_inline") and not imports_cpp_extension:
            continue
        found.append(
            TorchExtension(
                file=rel,
                line=node.lineno,
                how=name,
                name=_literal_argument(node, "name", 0),
                sources=tuple(_sources(node)),
            )
        )
    return found


def _call_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _argument(call: ast.Call, keyword: str, position: int) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    if len(call.args) > position:
        return call.args[position]
    return None


def _literal_argument(call: ast.Call, keyword: str, position: int) -> str | None:
    node = _argument(call, keyword, position)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _sources(call: ast.Call) -> list[str]:
    node = _argument(call, "sources", 1)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []
