"""A project's logical warp: a width of 32 it keeps on purpose beside the wavefront it asks for.

llama.cpp's ggml keeps `#define WARP_SIZE 32` on ROCm and hands it to every shuffle as the width
(`template<int width = WARP_SIZE>` … `__shfl_xor_sync(mask, x, offset, width)`), while the same
header's `ggml_cuda_get_physical_warp_size()` returns 64 on CDNA and 32 elsewhere. A shuffle given
a width of 32 works within 32-lane groups on either wavefront, so the lane and warp arithmetic,
the per-warp slots and the host's counts made from that 32 mean on wave64 what they mean on
NVIDIA: the 32 is the project's warp by design, and widening it would change code that is right.

Evidence, all of it in one header (the project knows its wavefront where it defines the 32):
- a width the project writes per platform: `return 64;` or a constant defined 64 in an arm only
  CDNA compiles, and 32 in one only NVIDIA compiles (a function's returns, or one name's definitions);
- a constant defined 32 for ROCm too (one value across the project's headers);
- that constant passed as a width: a shuffle's last argument, or a parameter's default
  (`int width = WARP_SIZE`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from porter.rules.brackets import enclosing_opener, function_named_before
from porter.rules.branches import CDNA, CUDA, Branches, constant_definitions
from porter.rules.patterns import WORD_START, search
from porter.source import WORD_BYTES


@dataclass(frozen=True)
class LogicalWarp:
    """A project's logical warp: its constants (`WARP_SIZE`), and its functions that take such a
    width as a parameter (width_functions). Apart from those, `helpers`: the headers' functions that
    hand a constant of 32 to a shuffle as its width (`__warp_sum`, with `WARP_SIZE`), which a row
    kernel's reduction may call (row_path_widths)."""

    names: frozenset[str] = frozenset()
    functions: frozenset[str] = frozenset()
    helpers: frozenset[tuple[str, str]] = frozenset()  # (function, constant)

    @classmethod
    def of(cls, names: Iterable[str], headers: list[bytes], values: dict[str, int] | None = None) -> LogicalWarp:
        names = frozenset(names)
        functions = set().union(*(width_functions(data, names) for data in headers)) if names else set()
        thirty_twos = {name: value for name, value in (values or {}).items() if value == 32}  # once, not per header
        helpers = set().union(*(width_helpers(data, thirty_twos) for data in headers)) if thirty_twos else set()
        return cls(names, frozenset(functions), frozenset(helpers))


def logical_names(ctx) -> frozenset[str]:
    """The names a file reads as its project's logical warp: the project's constants (its headers'),
    the file's own where it holds the evidence itself, and the file's constants of 32 it passes
    where a width function takes one (`constexpr int warp_size = 32;` … `warp_reduce_max<warp_size>(x)`)."""
    return ctx.once("logical warp names", lambda: _logical_names(ctx))


def _logical_names(ctx) -> frozenset[str]:
    project = ctx.project_logical_warp or LogicalWarp()
    data = ctx.source.data
    own = logical_widths(data, data, ctx.branches, ctx.shared_constants) if could_hold_pair(data) else set()
    names = project.names | own
    if not names:
        return frozenset()
    functions = project.functions | width_functions(data, own)
    passed = {
        name
        for _, name, text in constant_definitions(data)
        if text.split("//")[0].strip().strip("()").strip() == "32" and passed_to_width_function(data, name, functions)
    }
    return frozenset(names | passed)


def mentions_any(data: bytes, names: frozenset[str]) -> bool:
    """Does the text name one of the logical warp's constants (a file that works with it)?"""
    return any(name.encode() in data and search(_word(name), data) is not None for name in names)


@cache
def _word(name: str) -> re.Pattern[bytes]:
    return re.compile(WORD_START + re.escape(name.encode()) + rb"(?![\w$])")


# the lines a header's skeleton (porter.parse.directives) keeps for this reading besides its directives
WIDTH_RETURN = re.compile(rb"\breturn[ \t]*\(?[ \t]*(64|32)[ \t]*\)?[ \t]*;")
_RETURN_WIDTH = re.compile(WIDTH_RETURN.pattern.removeprefix(rb"\b"))  # led by its literal, for a whole file
# what a header that returns or defines a 64 holds, each led by a literal (a regex whose
# alternatives lead differently is tried at every byte)
_WIDE = (
    re.compile(rb"return[ \t(]*64[ \t)]*;"),
    re.compile(rb"define[ \t]+\w+[ \t]+\(?64\b"),
    re.compile(rb"=[ \t]*64[ \t]*;"),
)


def could_hold_pair(data: bytes) -> bool:
    """A cheap test before a header's arms are read: it returns or defines a 64."""
    return b"64" in data and any(pattern.search(data) is not None for pattern in _WIDE)


def logical_widths(data: bytes, skeleton: bytes, branches: Branches, values: dict[str, int]) -> set[str]:
    """The constants of one header that are its project's logical warp (see the module's doc).
    `skeleton` is the header's directives, constants and width returns (the offsets `branches`
    knows), `data` the header as written."""
    if not _platform_pair(skeleton, branches):
        return set()
    found = set()
    for offset, name, _ in constant_definitions(skeleton):
        if values.get(name) == 32 and branches.live_at(offset)[CDNA.name] is not False:
            if _passed_as_width(data, name):
                found.add(name)
    return found


def _platform_pair(data: bytes, branches: Branches) -> bool:
    """Does the header give 64 where only CDNA compiles and 32 where only NVIDIA does?"""
    # without both kinds of arm no site can be either: the sites' search is the cost here
    if not (branches.has_arm_only(CDNA.name, CUDA.name) and branches.has_arm_only(CUDA.name, CDNA.name)):
        return False
    by_value: dict[int, list[dict]] = {64: [], 32: []}
    for offset, value in _width_sites(data):
        by_value[value].append(branches.live_at(offset))
    wide = any(live[CDNA.name] is True and live[CUDA.name] is False for live in by_value[64])
    narrow = any(live[CUDA.name] is True and live[CDNA.name] is False for live in by_value[32])
    return wide and narrow


def _width_sites(data: bytes) -> Iterable[tuple[int, int]]:
    """(offset, value) of each `return 64;`/`return 32;` and each constant defined as 64 or 32."""
    for match in _RETURN_WIDTH.finditer(data):
        if match.start() == 0 or data[match.start() - 1] not in WORD_BYTES:
            yield match.start(), int(match.group(1))
    for offset, _, text in constant_definitions(data):
        bare = text.split("//")[0].strip().strip("()").strip()
        if bare in ("64", "32"):
            yield offset, int(bare)


def _passed_as_width(data: bytes, name: str) -> bool:
    shuffle = rb"__shfl\w*[ \t]*\([^;]*,[ \t]*" + re.escape(name.encode()) + rb"[ \t]*\)"
    return next(_defaults(data, name), None) is not None or re.search(shuffle, data) is not None


@cache
def _default_pattern(name: str) -> re.Pattern[bytes]:
    # led by its `=`, a literal the regex engine scans for
    return re.compile(rb"=\s*" + re.escape(name.encode()) + rb"\s*[>,)]")


def _defaults(data: bytes, name: str) -> Iterable[re.Match[bytes]]:
    """`int width = W>`, `const int warp_size = W)`: a parameter's name, then `=` (not `+=`, `==`)."""
    for match in _default_pattern(name).finditer(data):
        before = match.start() - 1
        while before >= 0 and data[before] in b" \t\r\n\f\v":
            before -= 1
        if before >= 0 and data[before] in WORD_BYTES:
            yield match


_IDENTIFIER_BEFORE = re.compile(rb"(\w+)\s*$")
_NAME_WINDOW = 256  # bytes looked back for a name: a search from the file's start was tried at every byte


def _identifier_before(data: bytes, end: int) -> str | None:
    match = _IDENTIFIER_BEFORE.search(data, max(0, end - _NAME_WINDOW), end)
    return match.group(1).decode() if match else None


def width_functions(data: bytes, names: Iterable[str]) -> set[str]:
    """The functions of a header with a parameter, template or not, whose default is a logical
    warp (`template<int width = WARP_SIZE> … warp_reduce_sum(…)`, `launch_fattn(…, const int
    warp_size = WARP_SIZE)`): what a caller passes there is a width of the same kind."""
    found = set()
    for name in names:
        for match in _defaults(data, name):
            function = _function_of_parameter(data, match.start())
            if function is not None:
                found.add(function)
    return found


def _function_of_parameter(data: bytes, at: int) -> str | None:
    """The function whose parameter list, or template parameter list, holds the byte `at`."""
    depth = 0
    for index in range(at - 1, max(-1, at - 2000), -1):
        char = data[index : index + 1]
        if char in b")>":
            depth += 1
        elif char in b"(<" and depth:
            depth -= 1
        elif char == b"(":
            return _identifier_before(data, index)
        elif char == b"<":
            if not data[max(0, index - _NAME_WINDOW) : index].rstrip().endswith(b"template"):
                return None
            call = data.find(b"(", at)
            return _identifier_before(data, call) if call != -1 else None
        elif char in b";{}":
            return None
    return None


def passed_to_width_function(data: bytes, name: str, functions: Iterable[str]) -> bool:
    """Does the text pass the name to one of the width functions (`warp_reduce_max<warp_size>(x)`,
    `launch_fattn(…, warp_size)`)?"""
    if name.encode() not in data:
        return False
    word = re.escape(name.encode())
    for function in functions:
        call = WORD_START + re.escape(function.encode()) + rb"\s*[<(][^;]*?\b" + word + rb"\b"
        if function.encode() in data and search(re.compile(call), data) is not None:
            return True
    return False


# -- a row kernel's reduction: the width it needs is the row's 32 --------------------------------
#
# A kernel template that runs rows of 32 threads in one of its branches (block_rows.
# template_row_paths) and reduces each row with a helper that hands `WARP_SIZE` to its shuffles as
# the width keeps that 32 a row's width: with the width at 32 the helper reduces within each
# 32-lane half of a wavefront, each half a row; widened to the wavefront, it adds two rows
# together. The same helper serves the kernel's wide branch, and any other kernel, as well at 32,
# since every shuffle is given the width: the constant is a logical warp, right as written.


def width_helpers(data: bytes, values: dict[str, int]) -> set[tuple[str, str]]:
    """(function, constant) for each function of `data` with a shuffle given a constant of 32 as
    its width (`__shfl_xor_sync(FULL_MASK, v, i, WARP_SIZE)` in `__warp_sum`), read from the text."""
    if b"__shfl" not in data:
        return set()
    words = _words_in_shuffles(data)
    named = [name for name, value in values.items() if value == 32 and name in words]
    found = set()
    for match in _width_shuffles(tuple(sorted(named))).finditer(data) if named else ():
        function = _enclosing_function(data, match.start())
        if function is not None:
            found.add((function, match.group(1).decode()))
    return found


_WORD = re.compile(r"\w+")


def _words_in_shuffles(data: bytes) -> set[str]:
    """The words from each `__shfl` to the next `;`: all a shuffle's width can be (_width_shuffles'
    arguments stop at a `;`). Looking a project's many constants up here, not in the whole file,
    spares a scan of the file per constant."""
    words = set()
    at = data.find(b"__shfl")
    while at >= 0:
        end = data.find(b";", at)
        end = len(data) if end < 0 else end
        words.update(_WORD.findall(data[at:end].decode("utf-8", "replace")))
        at = data.find(b"__shfl", end)
    return words


@cache
def _width_shuffles(names: tuple[str, ...]) -> re.Pattern[bytes]:
    """A shuffle whose last argument is one of `names`, led by its `__shfl` literal."""
    alternatives = b"|".join(re.escape(name.encode()) for name in names)
    return re.compile(rb"__shfl\w*\s*\([^;]*?,\s*\(?\s*(" + alternatives + rb")\s*\)?\s*\)")


def _enclosing_function(data: bytes, at: int) -> str | None:
    """The name of the function whose body holds byte `at`: of the blocks open at `at`, the
    innermost whose head is a signature (`__warp_sum(VAL_T val) {`, not `for (…) {`)."""
    brace = enclosing_opener(data, at)
    while brace is not None:
        name = function_named_before(data, brace)
        if name is not None:
            return name
        brace = enclosing_opener(data, brace)
    return None


def row_path_widths(ctx) -> set[str]:
    """The constants of 32 that the file's kernel templates hand, on their 32-thread row branch, to
    a shuffle as its width, themselves or through a helper of the file or the project's headers."""
    from porter.rules.block_rows import short_name, template_row_paths

    paths = template_row_paths(ctx)
    if not paths:
        return set()
    values = ctx.shared_constants
    helpers = width_helpers(ctx.source.data, values) | (
        ctx.project_logical_warp.helpers if ctx.project_logical_warp else frozenset()
    )
    by_function: dict[str, set[str]] = {}
    for function, name in helpers:
        by_function.setdefault(function, set()).add(name)
    found = set()
    for path in paths:
        text = ctx.source.data[path.start_byte : path.end_byte]
        found |= {name for name, value in values.items() if value == 32 and _passes_width(text, name)}
        for call, _ in ctx.device.calls_inside(path):
            found |= by_function.get(short_name(call), set())
    return found


def _passes_width(text: bytes, name: str) -> bool:
    return name.encode() in text and _passed_as_width(text, name)
