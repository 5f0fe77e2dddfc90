"""Table names as they occur in one file: the shared first step of the api and library families.

Matching works on tokens, where tokens suffice: a regex pre-filter finds identifiers that start
like a table name, the table decides, and the tree-sitter tree says whether the token is code,
a macro body (which tree-sitter leaves unparsed, and which is code all the same), a comment or
a string. This works in files whose parse has ERROR nodes, since the token is still there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from porter.findings import Edit
from porter.parse import Context
from porter.rules.brackets import function_named_before
from porter.rules.tables import NameEntry
from porter.source import IDENTIFIER_BYTES

if TYPE_CHECKING:
    from porter.rules.base import FileContext

NAME_CONTEXTS = (Context.CODE, Context.MACRO_BODY)


@dataclass(frozen=True)
class NameHit:
    start: int
    end: int
    entry: NameEntry
    context: Context


def find_table_names(ctx: FileContext) -> list[NameHit]:
    if not ctx.source.kind.is_c_family:
        return []
    identifiers = ctx.tables.identifiers
    hits: list[NameHit] = []
    for start, end, name in ctx.tables.candidates(ctx.source.data):
        entry = identifiers.get(name)
        if entry is None:
            continue
        context = ctx.parsed.context_at(start, end)
        if context in NAME_CONTEXTS:
            hits.append(NameHit(start, end, entry, context))
    shims = ctx.hip_shims if hits else frozenset()
    return [hit for hit in hits if hit.entry.cuda not in shims] if shims else hits


# `#define cudaMalloc hipMalloc`, `typedef __hip_bfloat162 __nv_bfloat162;`, `using cudaStream_t =
# hipStream_t;`: a project's own mapping of a CUDA name onto HIP's (llama.cpp's vendors/hip.h holds
# 142 of them; AMD's own kernels alias CUDA's bf16 types). Value first, name second for typedefs.
_DEFINED_AS = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+(\w+)(?:\([^)\n]*\))?(?:[ \t]|\\\r?\n)+\(?[ \t]*"
    rb"(?:static_cast[ \t]*<[^<>\n]*>[ \t]*\(?[ \t]*)?(\w+)",
    re.M,
)
# `#define __CUDA_ARCH__ 1300` in a header written for HIP (llama.cpp's vendors/hip.h): the project
# gives hip-clang the macro nvcc predefines, so guards on it mean on ROCm what their author chose
_PREDEFINED_AS = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+(__CUDA_ARCH__|CUDART_VERSION|CUDA_VERSION|__CUDACC_VER_MAJOR__|__CUDACC_VER_MINOR__)\b",
    re.M,
)
_TYPEDEF_AS = re.compile(rb"\btypedef[ \t]+(?:struct[ \t]+|const[ \t]+)?(\w+)[ \t*&]+(\w+)[ \t]*;")
_USING_AS = re.compile(rb"\busing[ \t]+(\w+)[ \t]*=[ \t]*(?:struct[ \t]+|const[ \t]+)?(\w+)")
# `cusparseStatus_t cusparseCreate(cusparseHandle_t* h) { return hipsparseCreate(h); }`: a function of
# the CUDA name whose first statement returns HIP's (cupy's ROCm backend headers hold hundreds); found
# from the `{ return hip…` and read back to the name, since a search from every name is slow
_RETURNS_HIP = re.compile(
    rb"\{[ \t\r\n]*return[ \t]+(?:(?:static|reinterpret)_cast<[^<>;]*>[ \t]*\(|\([ \t]*\w+[ \t*]*\)[ \t]*)?[ \t]*"
    rb"(?:__hip|hip|HIP|roc|ROC)[A-Za-z0-9_]"
)
# a HIP spelling, or one of the warp intrinsics HIP has without a mask (a port's
# `#define __ballot_sync(mask, p) __ballot(p)`: the `_sync` form, its mask and its ROCm version
# requirement never reach HIP)
_HIP_SPELLED = re.compile(rb"(?:__hip|hip|HIP|roc|ROC)[A-Za-z0-9_]|__(?:ballot|shfl(?:_up|_down|_xor)?|any|all)$")


# `#define __shfl_xor_sync(mask, var, lane) __shfl_xor(var, lane)` under `#if defined(USE_ROCM)`
# (exllamav2's rms_norm.cu): a file that maps a warp intrinsic onto HIP's without naming HIP
_MASKLESS_SHIM = re.compile(rb"define[ \t]+__(?:ballot|shfl(?:_up|_down|_xor)?|any|all)_sync\b")


def _names_hip(data: bytes) -> bool:
    """Does a name start with `hip`, `HIP` or `__hip` (not `chip`, `relationship`)? A byte search per
    occurrence: a regex with a look-behind would test every byte of every file."""
    for needle in (b"hip", b"HIP"):
        at = data.find(needle)
        while at >= 0:
            if at == 0 or data[at - 1] not in IDENTIFIER_BYTES or data[max(0, at - 2) : at] == b"__":
                return True
            at = data.find(needle, at + 3)
    return False


def hip_shims(data: bytes) -> frozenset[str]:
    """The names `data` defines as a HIP spelling: the project maps them itself, so their uses need
    no rename (and renaming a definition's own name would only define HIP's name as itself); and
    the macros nvcc predefines that a file written for HIP defines (`__CUDA_ARCH__`). Read from the
    text, so a project's headers (consteval.header_constants) and a broken parse alike."""
    if not _names_hip(data) and not _MASKLESS_SHIM.search(data):
        return frozenset()
    found = [(name, value) for name, value in _DEFINED_AS.findall(data)]
    found += [(name, value) for value, name in _TYPEDEF_AS.findall(data)]
    found += _USING_AS.findall(data)
    shims = {name.decode() for name, value in found if _HIP_SPELLED.match(value) and name != value}
    shims.update(name.decode() for name in _PREDEFINED_AS.findall(data))
    return frozenset(shims) | _forwarded(data)


def forwarding_functions(data: bytes) -> frozenset[str]:
    """The functions of `data` named as CUDA's whose first statement returns HIP's: the shims a macro
    of the same name (porter's compat header's) would turn into redefinitions of HIP's functions."""
    return _forwarded(data) if _names_hip(data) else frozenset()


def _forwarded(data: bytes) -> frozenset[str]:
    if b"return" not in data:
        return frozenset()
    names = (function_named_before(data, body.start()) for body in _RETURNS_HIP.finditer(data))
    return frozenset(name for name in names if name is not None)


# `#include <path>` or `"path"`: the delimiter and the path
INCLUDE_LINE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)


def file_name(path: bytes) -> str:
    """An included path's file name, by which a project's headers are known (`vendors/hip.h`: `hip.h`)."""
    return path.rsplit(b"/", 1)[-1].decode("utf-8", "replace")


def _included_names(data: bytes) -> frozenset[str]:
    """The file names (without their folders) of what `data` includes."""
    return frozenset(file_name(match.group(2)) for match in INCLUDE_LINE.finditer(data))


@dataclass(frozen=True)
class ShimIndex:
    """A project's headers that map CUDA names onto HIP's (hip_shims), and what each header
    includes: a file sees the shims of the headers it reaches by its includes. Headers are known by
    file name alone (`vendors/hip.h` is `hip.h`): two headers of one name count as one."""

    shims: dict[str, frozenset[str]]
    includes: dict[str, frozenset[str]]

    @classmethod
    def of(cls, headers: list[tuple[str, bytes]]) -> ShimIndex | None:
        shims = {name: found for name, data in headers if (found := hip_shims(data))}
        if not shims:
            return None
        includes: dict[str, frozenset[str]] = {}
        for name, data in headers:
            includes[name] = includes.get(name, frozenset()) | _included_names(data)
        return cls(shims, includes)

    def reachable_from(self, data: bytes) -> frozenset[str]:
        """The shims of the headers `data` includes, directly or through other headers."""
        found: set[str] = set()
        seen: set[str] = set()
        waiting = list(_included_names(data))
        while waiting:
            name = waiting.pop()
            if name in seen:
                continue
            seen.add(name)
            found |= self.shims.get(name, frozenset())
            waiting.extend(self.includes.get(name, ()))
        return frozenset(found)


@dataclass(frozen=True)
class IncludeSite:
    start: int  # the path text, without its delimiters
    end: int
    path: str
    directive_start: int  # `#include <path>` from the `#` to the closing delimiter
    directive_end: int
    quoted: bool


def include_sites(ctx: FileContext):
    root = ctx.parsed.root
    if root is None:
        return
    from porter.parse import captures

    for include in captures("(preproc_include) @i", root).get("i", []):
        node = include.child_by_field_name("path")
        if node is None:
            continue
        start, end = node.start_byte + 1, node.end_byte - 1
        if end > start:
            yield IncludeSite(
                start,
                end,
                ctx.source.text(start, end),
                node.parent.start_byte,
                node.end_byte,
                node.type == "string_literal",
            )


def include_paths(ctx: FileContext):
    """(start, end, path) of each #include's path text, without the <> or "" delimiters."""
    for site in include_sites(ctx):
        yield site.start, site.end, site.path


def portable_include(ctx: FileContext, site: IncludeSite, hip_path: str) -> Edit:
    """Replace `#include <cuda_x.h>` by a block that picks the HIP header under PORTER_HIP."""
    newline = ctx.source.newline
    cuda = ctx.source.text(site.directive_start, site.directive_end)
    hip = f'#include "{hip_path}"' if site.quoted else f"#include <{hip_path}>"
    block = newline.join(("#if defined(PORTER_HIP)", hip, "#else", cuda, "#endif"))
    return Edit(site.directive_start, site.directive_end, block.encode("utf-8", "surrogateescape"), mode="portable")
