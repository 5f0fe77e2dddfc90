"""The project's own compile flags, beyond porter's defaults, for each translation unit.

- `compile_commands.json` (anywhere in the tree: build/, or one per sub-project), when it has an entry
  for the unit: its include directories, defines, undefines and C++ standard.
- A PyTorch extension (the units under a setup.py using torch.utils.cpp_extension or a script calling
  its load(), or a unit that includes torch's headers): the flags torch's BuildExtension passes, read
  from the installed torch, plus what setup.py or the load() call states literally (include
  directories, define_macros, -D/-U flags).
  - CUDA: the installed torch's headers, Python's, and the CUDA math library headers (porter setup).
  - HIP: before torch's headers, porter's own hip conversion of torch's ATen/cuda and c10/cuda headers
    (`porter.build.torch_tree`), with torch's HIP flags (USE_ROCM and the rest).

Paths inside the project are kept relative to its root, so the same flags serve the original tree
and porter's converted copy of it.
"""

from __future__ import annotations

import ast
import re
import sysconfig
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from porter.discover import find_compile_commands, find_torch_extensions, visible
from porter.source import kind_of
from porter.targets import toolchains

ROOT = "{root}"  # a placeholder for the tree a flag is used with
TORCH_INCLUDE = re.compile(rb'#\s*include\s*[<"](torch/|ATen/|c10/)')
# macros that switch on another accelerator's code path (ROCm's included): not the CUDA build's
OTHER_BACKEND = re.compile(r"ROCM|HIP|MLU|NPU|MPS|DIPU|DIOPI|MUSA|XPU|XLA|SYCL", re.IGNORECASE)
NO_TORCH_HIP_NVIDIA = "a PyTorch extension has no HIP-on-NVIDIA build: torch's HIP headers exist for ROCm only"
NVCC_ONLY = ("--expt-relaxed-constexpr", "--expt-extended-lambda", "--use_fast_math")


@dataclass(frozen=True)
class TorchExtension:
    name: str
    include_dirs: tuple[str, ...]  # relative to the root
    flags: tuple[str, ...]  # -D/-U and nvcc-only flags from setup.py


@dataclass
class ProjectFlags:
    commands: dict[str, list[str]] = field(default_factory=dict)  # unit (relative) → flags, ROOT-relative
    extensions: dict[str, TorchExtension] = field(default_factory=dict)  # setup.py's directory → extension
    # the project's own macros for a ROCm build, learned from its code (branches.learned_rocm_markers):
    # its ROCm build defines them, so porter's HIP build for AMD does too, as the scan assumed
    rocm_markers: tuple[str, ...] = ()

    def for_unit(self, rel: str, tree: Path, variant: str) -> list[str] | None:
        """The unit's flags for `variant`, or None where that variant cannot exist (see NO_TORCH_HIP_NVIDIA)."""
        source = re.sub(r"\.hip$", ".cu", rel)
        command = self.commands.get(rel) or self.commands.get(source)
        flags = list(command or [])
        extension = self._extension_of(rel, tree)
        if extension is not None and variant == "hip-nvidia":
            return None
        if extension is not None:
            flags += torch_flags(extension, variant)
        if command is None:  # no database entry: find the project's own headers as its include path would
            known = [f[len(ROOT) + 3 :] for f in flags if f.startswith(f"-I{ROOT}/")]
            flags += [f"-I{ROOT}/{d}" if d else f"-I{ROOT}" for d in include_search(tree, rel, known)]
        if variant != "cuda":
            flags = [f for f in flags if f not in NVCC_ONLY]
        if variant == "hip":
            stated = {re.sub(r"^-[DU](\w+).*", r"\1", f) for f in flags if f.startswith(("-D", "-U"))}
            flags += [f"-D{marker}" for marker in self.rocm_markers if marker not in stated]
        return [f.replace(ROOT, str(tree)) for f in flags]

    def _extension_of(self, rel: str, tree: Path) -> TorchExtension | None:
        """The extension whose setup.py sits above the unit; else a bare one if the unit includes torch."""
        owners = [d for d in self.extensions if d == "" or rel.startswith(d + "/")]
        if owners:
            return self.extensions[max(owners, key=len)]
        if reaches_torch(tree, rel):
            return TorchExtension("porter_extension", (), ())
        return None


QUOTED_INCLUDE = re.compile(rb'^\s*#\s*include\s*"([^"]+)"', re.M)
HEADER_SUFFIXES = {".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc"}
SEARCH_LIMIT = 400  # files followed per unit


def include_search(tree: Path, rel: str, known: list[str]) -> list[str]:
    """Directories of the project (relative to `tree`) that hold headers the unit reaches through
    `#include "..."` names that neither the including file's directory nor the known include paths
    resolve: of the directories providing that name, the one nearest the unit (see `_nearest`)."""
    return _walk_includes(tree, rel, known)[0]


def reaches_torch(tree: Path, rel: str) -> bool:
    """Does the unit include torch's headers, itself or through the project's own headers
    (nerfacc's scan.cu reaches torch/extension.h through include/utils_scan.cuh)?"""
    return any(TORCH_INCLUDE.search(data) for data in _walk_includes(tree, rel, [])[1])


def _walk_includes(tree: Path, rel: str, known: list[str]) -> tuple[list[str], list[bytes]]:
    """The unit's `#include "..."` closure within the project: the directories found for names no
    known path resolves (include_search), and the text of each file reached, the unit's first."""
    found: list[str] = []
    texts: list[bytes] = []
    queue, seen = [tree / rel], {tree / rel}
    while queue and len(seen) < SEARCH_LIMIT:
        current = queue.pop()
        try:
            data = current.read_bytes()
        except OSError:
            continue
        texts.append(data)
        for raw in QUOTED_INCLUDE.findall(data):
            name = raw.decode("utf-8", "replace")
            bases = [current.parent] + [tree / d for d in known + found]
            header = next((b / name for b in bases if (b / name).is_file()), None)
            if header is None:
                provider = _nearest(_providers(tree, name), rel)
                if provider is None:
                    continue
                found.append(provider)
                header = tree / provider / name
            if header not in seen:
                seen.add(header)
                queue.append(header)
    return found, texts


def _nearest(providers: list[str], rel: str) -> str | None:
    """The provider sharing most of the unit's path, then the shallowest; None on a tie."""
    unit = Path(rel).parent.parts

    def closeness(provider: str) -> tuple[int, int]:
        parts = Path(provider).parts
        shared = next(
            (i for i, (a, b) in enumerate(zip(parts, unit, strict=False)) if a != b), min(len(parts), len(unit))
        )
        return (-shared, len(parts))

    ranked = sorted(providers, key=closeness)
    if not ranked or len(ranked) > 1 and closeness(ranked[0]) == closeness(ranked[1]):
        return None
    return ranked[0]


def _providers(tree: Path, name: str) -> list[str]:
    """The directories D of the project for which D/name is one of its headers."""
    suffix = "/" + name.lstrip("./")
    return sorted({rel[: -len(suffix)] for rel in _headers(str(tree)) if ("/" + rel).endswith(suffix)})


@cache
def _headers(tree: str) -> tuple[str, ...]:
    root = Path(tree)
    return tuple(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.suffix in HEADER_SUFFIXES and visible(p, root) and p.is_file()
    )


def project_flags(root: Path) -> ProjectFlags:
    return ProjectFlags(_compile_commands(root), _torch_extensions(root), _rocm_markers(root))


def _rocm_markers(root: Path) -> tuple[str, ...]:
    from porter.rules.branches import hip_written_headers, learned_rocm_markers

    named = []
    for path in sorted(root.rglob("*")):
        kind = kind_of(path)
        if kind is not None and kind.is_c_family and visible(path, root) and path.is_file():
            try:
                named.append((path.name, path.read_bytes()))
            except OSError:
                continue  # the build reports what it cannot read
    sources = [data for _, data in named]
    return tuple(sorted(learned_rocm_markers(sources, hip_written_headers(named))))


def _compile_commands(root: Path) -> dict[str, list[str]]:
    """The databases' flags for each unit, with the project's own paths made relative to its root."""
    database = find_compile_commands(root)
    if database is None:
        return {}
    commands = {}
    for file, flags in database.flags.items():
        if Path(file).is_relative_to(root.resolve()):
            commands[Path(file).relative_to(root.resolve()).as_posix()] = _joined(flags, root)
    return commands


def _joined(flags: list[str], root: Path) -> list[str]:
    """discover's `-I PATH` pairs as single root-relative flags (`-I{root}/include`); -isystem reads as -I."""
    joined, remaining = [], iter(flags)
    for flag in remaining:
        if flag in ("-I", "-isystem", "-D", "-U", "-include"):
            value = next(remaining, "")
            if flag in ("-I", "-isystem"):
                flag, value = "-I", _root_relative(Path(value), root)
            joined.append(flag + value if flag != "-include" else f"-include{value}")
        else:
            joined.append(flag)
    return joined


def _root_relative(path: Path, root: Path) -> str:
    path = path.resolve()
    if path.is_relative_to(root.resolve()):
        return f"{ROOT}/{path.relative_to(root.resolve()).as_posix()}".rstrip("/")
    return str(path)


def _torch_extensions(root: Path) -> dict[str, TorchExtension]:
    """The extension each Python file declares, by its directory: a setup.py's CUDAExtension/CppExtension,
    or a `torch.utils.cpp_extension.load()` call (its sources sit beside it). A file that does not parse
    declares none; setup.py wins over a load() in the same directory."""
    extensions: dict[str, TorchExtension] = {}
    for script in sorted(root.rglob("*.py"), key=lambda p: (p.name == "setup.py", str(p))):
        if not visible(script, root) or not script.is_file():
            continue
        data = script.read_bytes()
        if b"cpp_extension" not in data:
            continue
        rel = script.relative_to(root).as_posix()
        wanted = ("CUDAExtension", "CppExtension") if script.name == "setup.py" else ("load",)
        declared = [e for e in find_torch_extensions(rel, data) if e.how in wanted]
        try:
            module = ast.parse(data)
        except (SyntaxError, ValueError):
            continue
        if declared or script.name == "setup.py":  # setup.py may call CUDAExtension through a variable
            directory = script.parent.relative_to(root).as_posix()
            name = ((declared[0].name if declared else None) or "porter_extension").rsplit(".", 1)[-1]
            scope = _call_at(module, declared[0].line) if declared and declared[0].how == "load" else module
            extensions["" if directory == "." else directory] = _read_literals(scope, script.parent, root, name)
    return extensions


def _call_at(module: ast.AST, line: int) -> ast.AST:
    return next((n for n in ast.walk(module) if isinstance(n, ast.Call) and n.lineno == line), module)


def _read_literals(scope: ast.AST, base: Path, root: Path, name: str) -> TorchExtension:
    """What the code states literally: include directories, define_macros, -D/-U and nvcc-only flags."""
    includes, flags = [], []
    for node in ast.walk(scope):
        if isinstance(node, ast.Tuple) and _macro(node):
            flags.append(_macro(node))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
            if re.match(r"^-[DU]\w+(=\S*)?$", value) and not OTHER_BACKEND.search(value) or value in NVCC_ONLY:
                flags.append(value)
            elif _project_directory(base, value, root):
                includes.append(_project_directory(base, value, root))
    return TorchExtension(re.sub(r"\W", "_", name), tuple(dict.fromkeys(includes)), tuple(dict.fromkeys(flags)))


def _project_directory(base: Path, text: str, root: Path) -> str | None:
    """`text` as a directory of the project (relative to its root), if it names one."""
    if not re.fullmatch(r"[\w.\-/]+", text) or text in (".", ".."):
        return None
    path = (base / text).resolve()
    if not path.is_dir() or not path.is_relative_to(root.resolve()) or path == root.resolve():
        return None
    return path.relative_to(root.resolve()).as_posix()


def _macro(node: ast.Tuple) -> str | None:
    """`("NAME", None)` or `("NAME", "VALUE")`, as define_macros lists them."""
    if len(node.elts) != 2 or not all(isinstance(e, ast.Constant) for e in node.elts):
        return None
    name, value = (e.value for e in node.elts)
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_]\w*", name) or OTHER_BACKEND.search(name):
        return None
    if value is None:
        return f"-D{name}"
    return f"-D{name}={value}" if isinstance(value, str) and re.fullmatch(r"[\w.]*", value) else None


@cache
def _torch_build_flags() -> dict[str, list[str]]:
    """The flags torch's BuildExtension adds, as the installed torch defines them."""
    from torch.utils import cpp_extension

    return {
        "cuda": list(cpp_extension.COMMON_NVCC_FLAGS),
        "hip": list(cpp_extension.COMMON_HIP_FLAGS) + list(cpp_extension.COMMON_HIPCC_FLAGS),
    }


def torch_flags(extension: TorchExtension, variant: str) -> list[str]:
    found = toolchains.find_torch()
    if found is None:
        return []  # the build then fails on torch's headers, and is classed as a missing header
    include = found[1] / "include"
    flags = [f"-I{ROOT}/{d}" for d in extension.include_dirs]
    if variant == "cuda":
        flags += [f"-I{p}" for p in _cuda_side_includes()]
    else:
        from porter.build.torch_tree import converted_torch_include

        flags.append(f"-I{converted_torch_include(found)}")
    flags += [f"-I{include}", f"-I{include / 'torch' / 'csrc' / 'api' / 'include'}"]
    flags += [f"-I{sysconfig.get_paths()['include']}", "-std=c++20", "-DTORCH_API_INCLUDE_EXTENSION_H"]
    flags += [f"-DTORCH_EXTENSION_NAME={extension.name}", "-D_GLIBCXX_USE_CXX11_ABI=1"]
    side = "cuda" if variant == "cuda" else "hip"
    return flags + [f for f in _torch_build_flags()[side] if f != "-fPIC"] + list(extension.flags)


def _cuda_side_includes() -> list[Path]:
    from porter.build.torch_tree import cuda_shim_include

    libraries = toolchains.cuda_libraries_dir()
    return [cuda_shim_include()] + ([libraries / "include"] if libraries else [])
