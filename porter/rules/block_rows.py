"""Kernels whose warps are the 32-thread rows of their block.

`dim3 block(32, 8)` with `threadIdx.x` as the lane and `threadIdx.y` as the warp, `<<<n, 32>>>`,
a thread index linearised as `threadIdx.x + threadIdx.y * 32`: the block is 32 threads wide,
whatever the warp width. "One warp per row" in a one-dimensional block is the same: each 32
threads take a row (`blockIdx.x * R + threadIdx.x / 32`), R rows to a block of R * 32 threads.
On a 64-lane wavefront two such rows share a wavefront (a block of one row fills half of one). The kernel's 32s are then the row's width and right as written: widening
them (a ladder from 32, a stride of 64) mixes two rows' values or reads lanes that do not run
(flashinfer's RMSNorm, torch-scatter's segment kernels, llama.cpp's `<<<nb, 32>>>` dequantisers).
What must change is each warp operation that reaches past its row: a shuffle from a lane of the
other row, a vote over both.

The evidence is the file's own, or the project's launches of its kernels: its launches (`<<<…>>>`, cudaLaunchKernel, hipLaunchKernelGGL,
cudaLaunchKernelEx's `config.blockDim`) whose block's x is 32: a literal, a launcher's local bound
once to one, a named constant of 32 that porter leaves as written (a source file's own, which none
of its warp operations takes as its width; one porter widens widens launch and kernel alike), or a
template parameter of the launching function that every instantiation the file writes gives 32
(`launch<32, 4>` of a `dim3 block(BX, BY)`); kernels that linearise their thread index with a row
of 32; kernels that take R rows of 32 to a block, launched with R * 32 threads (written with
literals and kept constants) or bounded at them by `__launch_bounds__`; and kernels whose every 32
threads of the grid take an item (`(blockIdx.x * blockDim.x + threadIdx.x) / 32`, or the warps of
the blocks before counted from the block's width, `blockIdx.x * (blockDim.x / 32)` or a template
width's `(THREADS / 32) * blockIdx.x`, beside the block's own warp index, the 32 a literal, a kept
constant, or a constant of 32 the source file defines), which the host sizes in
items, not warps (bitsandbytes' `(m + 3) / 4` blocks of 128). A kernel launched with any other
width is not one, unless every warp operation it reaches stays within 32 lanes as written, or it
reaches none (porter.rules.within_rows): each 32-lane half of a wavefront then runs it as one NVIDIA warp.

A file's device function that a row kernel of another file calls (project_row_callers: a kernel
bounded at 32 threads, or launched with blocks 32 threads wide, read from the text in the scan's
serial phase) is shared between that row and callers its own file cannot see: its 32s are reported
with their fix suggested, not applied, and its masks are the row's (exllamav3's Hadamard helpers).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import tree_sitter

from porter.parse import Initializer, captures, initializers, kernel_launches
from porter.rules import portable
from porter.rules.brackets import body_at, called_names, function_braces, top_level_parts
from porter.rules.consteval import CONST_QUALIFIER, HEADER_SUFFIXES, evaluate
from porter.rules.device import (
    IDENT,
    FunctionInfo,
    binary_parts,
    call_arguments,
    for_parts,
    function_parameters,
    is_constexpr_if,
    literal_value,
    loop_step,
    spelled,
    template_parameters,
    unparenthesized,
)
from porter.rules.within_rows import stays_within_rows, warp_valued_names
from porter.source import WORD_BYTES

ROW = 32  # the threads of a row: one NVIDIA warp
Extent = Callable[[str], int | None]  # the value of a block extent written with names, where known

# a launch API's kernel argument and block argument, by position
_LAUNCH_CALLS = {
    "cudaLaunchKernel": (0, 2),
    "cudaLaunchCooperativeKernel": (0, 2),
    "hipLaunchKernel": (0, 2),
    "hipLaunchCooperativeKernel": (0, 2),
    "hipLaunchKernelGGL": (0, 2),
}
_LAUNCH_EX = ("cudaLaunchKernelEx", "hipLaunchKernelExC", "cudaLaunchKernelExC")
_NEEDLES = (b"<<<", b"threadIdx.y", b"LaunchKernel", b"+= 32", b"+=32")  # launches, 2-D blocks, strides
_DIM3 = re.compile(rb"\bdim3\s+(\w+)\s*(?:=\s*dim3\s*)?[({]([^;]*?)[)}]\s*;")
_KERNEL_REFERENCE = re.compile(
    r"^\s*(?:\(\s*(?:const\s+)?void\s*\*\s*\)|reinterpret_cast\s*<[^>]*>\s*\()?[\s(&*]*([\w:]+)"
)
_X_THREAD = re.compile(r"^(?:\(\s*\w+\s*\)|static_cast<\w+>\()?\s*threadIdx\.x\s*\)?$")
_BLOCK_WIDTH = re.compile(r"^(?:\(\w+\)|static_cast<\w+>\()?blockDim\.x\)?$")
_BLOCK_INDEX = re.compile(r"^(?:\(\s*\w+\s*\)|static_cast<\w+>\()?\s*blockIdx\.[xyz]\s*\)?$")
_Y_THREAD = re.compile(r"^(?:\(\s*\w+\s*\)|static_cast<\w+>\()?\s*threadIdx\.y\s*\)?$")


@dataclass
class BlockRows:
    """The file's functions by how their warps sit in the block, as byte spans of their definitions."""

    row_only: list[tuple[int, int]] = field(default_factory=list)  # reached only from 32-wide kernels
    one_row: list[tuple[int, int]] = field(default_factory=list)  # …whose launches are all one row
    # reached from a row kernel and others: the row kernel, as a message names it
    shared: dict[tuple[int, int], str] = field(default_factory=dict)

    # Asked for every finding of a file, once the lists are complete (_by_reach fills them): a walk
    # over the spans of hundreds of row kernels (flashinfer's generated MoE kernels) made the
    # question quadratic, so each list's union is bisected.
    def row_only_at(self, offset: int) -> bool:
        return _within(self._row_only_union, offset)

    def one_row_at(self, offset: int) -> bool:
        return _within(self._one_row_union, offset)

    @functools.cached_property
    def _row_only_union(self) -> tuple[list[int], list[int]]:
        return _union(self.row_only)

    @functools.cached_property
    def _one_row_union(self) -> tuple[list[int], list[int]]:
        return _union(self.one_row)

    def two_rows_at(self, offset: int) -> bool:
        """In a function of row kernels whose blocks may hold two rows to a wavefront."""
        return self.row_only_at(offset) and not self.one_row_at(offset)

    def row_kernel_sharing(self, offset: int) -> str | None:
        """The row kernel that calls the function at `offset`, where other kernels call it too
        (`` `name` ``, or `` `name` (file.cu) `` for a kernel of another file)."""
        return next((name for (start, end), name in self.shared.items() if start <= offset < end), None)

    def __bool__(self) -> bool:
        return bool(self.row_only or self.shared)


def _union(spans: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """The spans' union, as disjoint intervals by start: (starts, ends)."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [m[0] for m in merged], [m[1] for m in merged]


def _within(union: tuple[list[int], list[int]], offset: int) -> bool:
    starts, ends = union
    index = bisect.bisect_right(starts, offset) - 1
    return index >= 0 and offset < ends[index]


def block_rows(ctx) -> BlockRows:
    """The file's row kernels and the functions they reach, worked out once per file, with the
    functions that row kernels of the project's other files call (project_row_callers)."""
    return ctx.once("block rows", lambda: _with_row_callers_elsewhere(ctx, _find(ctx)))


def serves_a_widened_kernel(ctx, node: tree_sitter.Node) -> bool:
    """Does the host value at `node` reach a kernel whose 32s porter widens, one not of rows: inside
    the launch of such a kernel (its configuration or arguments), or through the name the value is
    stored in (`int warps = threads / 32;`), named in such a launch or in the body of a device
    function outside the rows? A value whose kernel is not read here does not."""
    rows = block_rows(ctx)
    names = _names_stored_in(ctx, node)
    kernels = {short_name(info.name): info for info in ctx.device.functions if info.is_kernel and info.node}
    for launch in kernel_launches(ctx.parsed.root):
        call, function = launch.call, launch.function
        kernel = kernels.get(_kernel_named(ctx, function, call)) if function is not None else None
        if kernel is None or rows.row_only_at(kernel.node.start_byte):
            continue
        if call.start_byte <= node.start_byte < call.end_byte or names & _words(ctx, call):
            return True
    return bool(names) and any(
        (names & _words(ctx, info.node)) - _declared_names(ctx, info.node)
        for info in ctx.device.functions
        if info.node is not None and info.is_device and not rows.row_only_at(info.node.start_byte)
    )


def _names_stored_in(ctx, node: tree_sitter.Node) -> set[str]:
    """The name a value is declared or assigned to (`warps` of `int warps = (n + 31) / 32 * 32;`)."""
    while node.parent is not None and node.parent.type in (
        "binary_expression",
        "parenthesized_expression",
        "cast_expression",
    ):
        node = node.parent
    holder = node.parent
    target = None
    if holder is not None and holder.type == "init_declarator":
        target = holder.child_by_field_name("declarator")
    elif holder is not None and holder.type == "assignment_expression":
        target = holder.child_by_field_name("left")
    return set(IDENT.findall(ctx.source.text(target.start_byte, target.end_byte))) if target is not None else set()


def _words(ctx, node: tree_sitter.Node) -> set[str]:
    return set(IDENT.findall(ctx.source.text(node.start_byte, node.end_byte)))


def _declared_names(ctx, function: tree_sitter.Node) -> set[str]:
    """The names a function declares itself, its parameters and locals: a kernel's own `int warps`
    is not the host's."""
    declarations = function_parameters(function) + captures("(declaration) @d", function).get("d", [])
    declarators = [d for node in declarations for d in _declarators(node)]
    return {match.group() for d in declarators if (match := IDENT.search(ctx.source.text(d.start_byte, d.end_byte)))}


def _declarators(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    found = []
    for declarator in node.children_by_field_name("declarator"):
        if declarator.type == "init_declarator":
            declarator = declarator.child_by_field_name("declarator") or declarator
        found.append(declarator)
    return found


def _with_row_callers_elsewhere(ctx, found: BlockRows) -> BlockRows:
    """`found`, where a row kernel of another file calls one of this file's device functions: the
    function, and what it reaches, are shared between that row and whatever else calls them, which
    this file cannot see. Their 32s are right for the row caller, so none is changed automatically."""
    callers = ctx.project_row_callers
    if not callers or ctx.parsed.root is None:
        return found
    here, helpers = ctx.source.path.name, _helpers(ctx)
    for name, infos in helpers.items():
        kernel, elsewhere = callers.get(name, (None, here))
        if elsewhere == here:
            continue
        for info in infos:
            for span in _reached(ctx, info, helpers):
                if span not in found.row_only and span not in found.shared:
                    found.shared[span] = f"`{kernel}` ({elsewhere})"
    return found


def _find(ctx) -> BlockRows:
    data = ctx.source.data
    if ctx.parsed.root is None:
        return BlockRows()
    launches_or_rows = ctx.project_row_launches or any(needle in data for needle in _NEEDLES)
    # no launch, bound or block width in sight is no reason to stop: a kernel whose warp operations
    # all stay within 32 lanes (or that has none) is one of rows whatever its launch
    kernels = {short_name(info.name): info for info in ctx.device.functions if info.is_kernel and info.node}
    if not kernels:
        return BlockRows()
    if not launches_or_rows:  # no launch in sight: the kernels' own evidence of rows of warps
        rows = {
            name: False
            for name, info in kernels.items()
            if _warps_by_itself(ctx, name, info) or _warps_stay_within_rows(ctx, name, info)
        }
        return _by_reach(ctx, kernels, rows) if rows else BlockRows()
    shapes = _launch_shapes(ctx)
    rows: dict[str, bool] = {}  # row kernel → every launch one row
    for name, info in kernels.items():
        seen = [shape for shape in shapes.get(name, []) if shape is not None]
        if seen:
            if all(x == ROW for x, _ in seen):
                rows[name] = all(single for _, single in seen)
            elif (count := _rows_of_warps(ctx, info)) and all(x == count * ROW and single for x, single in seen):
                rows[name] = False  # `<<<g, R * 32>>>` of a kernel that takes R rows of 32 to a block
            elif _warp_per_item(ctx, name, info) or _warps_stay_within_rows(ctx, name, info):
                rows[name] = False
        elif (
            _linearised_by_rows(ctx, info)
            or _strides_rows(ctx, info)
            or _warps_by_itself(ctx, name, info)
            or _warps_stay_within_rows(ctx, name, info)
        ):
            rows[name] = False
        elif name in ctx.project_row_launches:  # launched from another of the project's files
            rows[name] = ctx.project_row_launches[name]
    if not rows:
        return BlockRows()
    return _by_reach(ctx, kernels, rows)


# `dim3 nthrs(32, num_warps)`, `dim3(32, rows_per_block, 1)`: the names after a literal 32 count rows
_ROW_DIM3 = re.compile(rb"\bdim3\s*(?:\w+\s*)?(?:=\s*dim3\s*)?[({]\s*32[uU]?\s*,([^;]*?)[)}]")
_NUMBER = re.compile(r"\d[\w']*")  # a literal as C writes it (`32`, `32u`, `0x20`): literal_value reads it
_INLINE_DIM3 = re.compile(r"(?:::)?dim3\s*[({](.*)[)}]", re.S)


def row_count_names(ctx) -> frozenset[str]:
    """The names a block of 32-thread rows takes its other extents from: what they hold counts rows
    of 32 threads (`num_warps = (d + 31) / 32` before `dim3 nthrs(32, num_warps)`), and its 32 is a
    row's width, right on any wavefront."""

    def find() -> frozenset[str]:
        if b"dim3" not in ctx.source.data:
            return frozenset()
        found = set()
        for match in _ROW_DIM3.finditer(ctx.source.data):
            found |= set(IDENT.findall(match.group(1).decode("utf-8", "replace")))
        return frozenset(found - {"dim3"})

    return ctx.once("row count names", find)


def project_row_launches(sources: list[bytes]) -> dict[str, bool]:
    """Kernel name → whether every launch the project's files make of it, with a block they spell
    out, is one row (the value), for the kernels all such launches give blocks 32 threads wide: a
    kernel in a header launched from a `.cu` (`kernel<<<grid, dim3(32, 8)>>>`). Read from the text,
    in the scan's serial phase, beside the headers' constants."""
    shapes: dict[str, list[tuple[int | None, bool]]] = {}
    for data in sources:
        at = data.find(b"<<<")
        while at >= 0:  # each launch found by its `<<<`: a regex from every word would cost ten times more
            end = data.find(b">>>", at)
            name = _launched_name(data, at) if end > 0 else None
            if name and b";" not in data[at:end]:
                parts = top_level_parts(data[at + 3 : end].decode("utf-8", "replace"))
                shape = _text_shape(data, at, parts[1]) if len(parts) > 1 else None
                if shape is not None and shape[0] is not None:
                    shapes.setdefault(name, []).append(shape)
            at = data.find(b"<<<", at + 3)
    return {name: all(single for _, single in seen) for name, seen in shapes.items() if all(x == ROW for x, _ in seen)}


# a kernel's bounds, as CUDA writes them or as a port does (portable.LAUNCH_BOUNDS)
_PORTED_BOUNDS = portable.LAUNCH_BOUNDS.encode()
_ROW_BOUNDS = re.compile(rb"(?:__launch_bounds__|" + _PORTED_BOUNDS + rb")\s*\(\s*32[uU]?\s*[,)]")  # one row
_ANY_BOUNDS = re.compile(rb"(?:__launch_bounds__|" + _PORTED_BOUNDS + rb")\s*\([^()]*\)")
# a kernel's name: the word before its parameters, on its line or the one before (exllamav3's
# `void had_hf_r_128_kernel\n(`, which brackets.function_named_before does not read)
_NAME_BEFORE_PARAMETERS = re.compile(rb"([A-Za-z_]\w*)\s*$")
# a call's name: `f(`, `ns::f(`, `f<T, 4>(`, not a member (`a.f(`, `p->f(`)


def project_row_callers(sources: list[bytes], names: list[str], row_launches: dict[str, bool]) -> dict:
    """Function name → (row kernel, its file's name) of a kernel of the project that calls it: a
    kernel bounded at 32 threads (`__launch_bounds__(32)`) or launched with blocks 32 threads wide
    (project_row_launches). A header's helper such a kernel calls runs on 32-thread rows whatever
    the wavefront (exllamav3's Hadamard butterflies of 128 values over 32 lanes, called from
    hadamard.cu's one-row kernels): widening its 32s breaks that caller. Read from the text, in
    the scan's serial phase, where the header's own analysis cannot see its callers."""
    callers: dict[str, tuple[str, str]] = {}
    for data, name in zip(sources, names, strict=True):
        for kernel, body in _row_kernel_bodies(data, row_launches):
            for called in called_names(body):
                # a function of the kernel's own file is settled there (and a name two files each
                # define, `warp_reduce_sum`, is that file's)
                if called not in callers and next(function_braces(data, called), None) is None:
                    callers[called] = (kernel, name)
    return callers


def _row_kernel_bodies(data: bytes, row_launches: dict[str, bool]) -> Iterator[tuple[str, bytes]]:
    """(name, body) of each kernel the file defines that is bounded at, or launched with, 32 threads."""
    at = data.find(b"__global__")
    while at >= 0:
        brace, semicolon = data.find(b"{", at), data.find(b";", at)
        if brace < 0:
            return
        if semicolon < 0 or brace < semicolon:  # a definition, not a declaration
            unbounded = _ANY_BOUNDS.sub(b" ", data[at:brace])
            parameters = unbounded.find(b"(")
            named = _NAME_BEFORE_PARAMETERS.search(unbounded, 0, parameters) if parameters > 0 else None
            kernel = named.group(1).decode() if named else None
            if kernel and (_ROW_BOUNDS.search(data, at, brace) or kernel in row_launches):
                yield kernel, body_at(data, brace)
        at = data.find(b"__global__", brace)


def _launched_name(data: bytes, at: int) -> str | None:
    """The kernel named before the `<<<` at `at`: `kernel`, `kernel<T, 4>`, `ns::kernel<T>` (read
    backwards: past blanks, then a template's brackets, then the name)."""
    index = at - 1
    while index >= 0 and data[index] in b" \t\r\n":
        index -= 1
    if index >= 0 and data[index] == 0x3E:  # `>`: the template's arguments
        depth = 0
        while index >= 0 and at - index < 400:
            depth += (data[index] == 0x3E) - (data[index] == 0x3C)
            index -= 1
            if depth == 0:
                break
        while index >= 0 and data[index] in b" \t\r\n":
            index -= 1
    end = index + 1
    while index >= 0 and data[index] in WORD_BYTES:
        index -= 1
    return data[index + 1 : end].decode() if end > index + 1 else None


def _text_shape(
    data: bytes, at: int, block: str, since: int | None = None, extent: Extent | None = None
) -> tuple[int | None, bool] | None:
    """(x, one row) of a launch's block argument as written: a literal, `dim3(32, 8)`, or a `dim3`
    variable declared between `since` (4 KiB before the launch unless given) and the launch. A
    block written with names has the value `extent` gives it."""
    block = block.strip()
    if _NUMBER.fullmatch(block):
        return literal_value(block), True
    if extent is not None and (value := extent(block)) is not None:
        return value, True  # `threads`, `WARPS_PER_BLOCK * 32`: one extent, its value known
    extents = _dim3_extents(data, at, block, since)
    return _components(extents, extent) if extents is not None else None


def _dim3_extents(data: bytes, at: int, block: str, since: int | None = None) -> str | None:
    """The extents a launch's `dim3` block is built from, as written (`32, num_warps`): inline, or
    of a variable declared between `since` (4 KiB before the launch unless given) and the launch."""
    inline = _INLINE_DIM3.fullmatch(block)
    if inline:
        return inline.group(1)
    if not IDENT.fullmatch(block):
        return None
    start = max(0, at - 4096) if since is None else since
    declared = [m for m in _DIM3.finditer(data, start, at) if m.group(1).decode() == block]
    if not declared or re.search(rb"\b" + block.encode() + rb"\s*\.\s*x\s*=[^=]", data[declared[-1].end() : at]):
        return None  # no declaration in sight, or `block.x = …` after it: its width is computed
    return declared[-1].group(2).decode("utf-8", "replace")


@functools.lru_cache(maxsize=4096)  # asked ~25,000 times over flashinfer, of a few hundred names
def short_name(name: str) -> str:
    """`ns::Kernel<T, 4>` as `Kernel`: the name a launch and a definition share."""
    return _TEMPLATE_TAIL.sub("", name.split("(")[0]).split("::")[-1].strip()


_TEMPLATE_TAIL = re.compile(r"<.*")


# -- launches -----------------------------------------------------------------------------------


def launched_threads(ctx, function: FunctionInfo) -> int | None:
    """The threads of every block the file launches the kernel with, as written for NVIDIA (the
    names' values before any port), where all its launches are one row of the same known width:
    None where any is not known, or they differ, or the function is no kernel."""
    if not function.is_kernel or function.node is None:
        return None
    shapes = _written_shapes(ctx).get(short_name(function.name))
    widths = {shape[0] if shape is not None and shape[1] else None for shape in shapes or ()}
    return widths.pop() if len(widths) == 1 else None


def launched_widths(ctx) -> dict[str, set[int]]:
    """Kernel name → the threads of each block the file launches it with as one row of known width,
    as written for NVIDIA: what the file tells the project of its launches (a header's kernel is
    launched by the files that include it). A kernel the file launches only otherwise maps to an
    empty set; one it never launches is absent."""
    return {
        name: {shape[0] for shape in shapes if shape is not None and shape[1] and shape[0] is not None}
        for name, shapes in _written_shapes(ctx).items()
    }


def launched_nowhere_here(ctx, function: FunctionInfo) -> bool:
    """Is the function a kernel that no line of the file launches (a header's, launched by the
    files that include it)?"""
    return function.is_kernel and function.node is not None and short_name(function.name) not in _written_shapes(ctx)


def launched_32_wide(ctx) -> set[str]:
    """The kernels the file launches, every time with a block 32 threads wide (`<<<n, 32>>>`,
    `dim3(32, 8)`), as written for NVIDIA."""
    shapes_by_kernel = _written_shapes(ctx).items()
    return {name for name, shapes in shapes_by_kernel if shapes and all(s is not None and s[0] == ROW for s in shapes)}


def launched_threads_key(kernel: str, threads: int) -> str:
    """The key a file claims for each block width it launches a kernel with."""
    return f"launched-threads:{short_name(kernel)}:{threads}"


def launched_wavefronts_key(kernel: str, wavefronts: int) -> str:
    """The key a file vetoes for each launch of a kernel whose block is that many 64-lane wavefronts."""
    return f"launched-wavefronts:{short_name(kernel)}:{wavefronts}"


def record_launches(ctx) -> None:
    """Tell the project the file's launches, for the kernels other files define (a header's kernel
    is launched by the files that include it): each block width claimed (launched_threads_key), and
    each count of 64-lane wavefronts vetoed (launched_wavefronts_key)."""
    for kernel, widths in launched_widths(ctx).items():
        ctx.project.claims.update(launched_threads_key(kernel, threads) for threads in widths)
        ctx.project.vetoes.update(
            launched_wavefronts_key(kernel, threads // 64) for threads in widths if threads % 64 == 0
        )


def _written_shapes(ctx) -> dict[str, list[tuple[int | None, bool] | None]]:
    """_launch_shapes as written for NVIDIA, worked out once per file."""
    return ctx.once("launch shapes as written", lambda: _launch_shapes(ctx, written=True))


def _launch_shapes(ctx, written: bool = False) -> dict[str, list[tuple[int | None, bool] | None]]:
    """Kernel name → the (block x, one row) of each launch the file makes of it (None: not known):
    in the port, or `written` for NVIDIA (_extent_value)."""
    found: dict[str, list] = {}
    for launch in kernel_launches(ctx.parsed.root):
        _, call, function, arguments = launch
        if call is None or call.type != "call_expression" or len(arguments) < 2:
            continue
        name = _kernel_named(ctx, function, call) if function is not None else None
        if name:
            found.setdefault(name, []).append(_shape(ctx, arguments[1], call, written))
    for api, (kernel_at, block_at) in _LAUNCH_CALLS.items():
        for _, call in ctx.device.calls_named(api):
            arguments = call_arguments(call)
            if len(arguments) > block_at and (name := _kernel_named(ctx, arguments[kernel_at], call)):
                found.setdefault(name, []).append(_shape(ctx, arguments[block_at], call, written))
    for _, call in ctx.device.calls_named(_LAUNCH_EX):
        arguments = call_arguments(call)
        if len(arguments) > 1 and (name := _kernel_named(ctx, arguments[1], call)):
            block = _config_block(ctx, call)
            found.setdefault(name, []).append(_shape(ctx, block, call, written) if block is not None else None)
    return found


def _kernel_named(ctx, node: tree_sitter.Node, at: tree_sitter.Node) -> str | None:
    """The kernel a launch names: `K<T>`, `(void*)K`, `&ns::K`, or a local `auto kernel = K<T>;`."""
    match = _KERNEL_REFERENCE.match(ctx.source.text(node.start_byte, node.end_byte))
    if match is None:
        return None
    name = short_name(match.group(1))
    bound = _local_value(ctx, name, at)
    if bound is not None:  # a variable holding the kernel: what it was given
        inner = _KERNEL_REFERENCE.match(ctx.source.text(bound.start_byte, bound.end_byte))
        return short_name(inner.group(1)) if inner else None
    return name


def _config_block(ctx, call: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `X` of the `config.blockDim = X;` before a cudaLaunchKernelEx in its function."""
    function = ctx.device.function_of(call).node
    if function is None:
        return None
    block = None
    for assignment in captures("(assignment_expression) @a", function).get("a", []):
        left = assignment.child_by_field_name("left")
        if assignment.start_byte > call.start_byte or left is None:
            continue
        if ctx.source.text(left.start_byte, left.end_byte).replace(" ", "").endswith(".blockDim"):
            block = assignment.child_by_field_name("right")
    return block


def _shape(
    ctx, node: tree_sitter.Node | None, at: tree_sitter.Node, written: bool = False
) -> tuple[int | None, bool] | None:
    """(x, one row) of a launch's block argument (_text_shape, a `dim3` looked for in the function),
    or of a local initialised with a literal (`const int threads = 32;`)."""
    if node is None:
        return None
    node = unparenthesized(node)
    text = ctx.source.text(node.start_byte, node.end_byte)
    launcher = ctx.device.function_of(at)
    function = launcher.node
    extent = functools.partial(_extent_value, ctx, at, written=written)
    shape = _text_shape(
        ctx.source.data, at.start_byte, text, function.start_byte if function is not None else 0, extent
    )
    if shape is None and node.type == "identifier":
        value = _local_value(ctx, text, at)
        if value is not None and value.type == "number_literal":
            return literal_value(ctx.source.text(value.start_byte, value.end_byte)), True
    if (shape is None or shape[0] is None) and function is not None:
        return _instantiated_shape(ctx, text, at, launcher, written) or shape
    return shape


def _instantiated_shape(
    ctx, block: str, at: tree_sitter.Node, launcher: FunctionInfo, written: bool = False
) -> tuple[int | None, bool] | None:
    """The shape of a launch whose block extents are the launching function's template parameters
    (`template <int BX, int BY> void launch(…) { dim3 block(BX, BY); k<BX, BY><<<g, block>>>(…); }`),
    from the file's instantiations of that function (`launch<32, 4>(…)`): 32 wide where every one
    makes it so; else the first that does not, so that the kernel is no row kernel. None where the
    file never names the function's template arguments (deduced, or called from elsewhere)."""
    definition = launcher.node
    parameters = template_parameter_names(ctx, definition)
    bare = block in parameters  # `<<<grid, BX>>>`
    extents = block if bare else _dim3_extents(ctx.source.data, at.start_byte, block, definition.start_byte)
    parts = top_level_parts(extents) if extents is not None else []
    if not any(part in parameters for part in parts):
        return None
    name = short_name(launcher.name)
    shapes = []
    for called, call in ctx.device.calls:
        if short_name(called) != name or definition.start_byte <= call.start_byte < definition.end_byte:
            continue  # another function, or a recursive call
        callee = call.child_by_field_name("function")
        text = ctx.source.text(callee.start_byte, callee.end_byte) if callee is not None else ""
        if "<" not in text:
            return None  # arguments deduced: not known here
        arguments = _template_arguments(text)
        given = [
            arguments[parameters.index(p)] if p in parameters and parameters.index(p) < len(arguments) else p
            for p in parts
        ]
        extent = functools.partial(_extent_value, ctx, call, written=written)
        shapes.append(_components(", ".join(given), extent))
    if not shapes:
        return None
    wide = next((shape for shape in shapes if shape[0] != ROW), None)
    return wide or (ROW, all(single for _, single in shapes))


def _extent_value(ctx, at: tree_sitter.Node, text: str, written: bool = False) -> int | None:
    """The value of a block extent a launch at `at` writes with names, where each name keeps its
    value in the port: a local of the launching function bound once to a literal
    (`int threads_x = 32; dim3 block(threads_x, 8)`) and never assigned again, or a constant of the
    file's that porter leaves as written (`WARPS_PER_BLOCK * 32`, `dim3(kRowThreads, kRows)`). A
    constant porter widens to the wavefront widens the block with the kernel's warps: not known.
    `written`: the value for NVIDIA, each constant at the value it is defined with."""
    values = {}
    for name in set(IDENT.findall(text)):
        value = _bound_literal(ctx, at, name)
        if value is None:
            value = ctx.shared_constants.get(name) if written else _kept_value(ctx, name)
        if value is None:
            return None
        values[name] = value
    return evaluate(text, values)


def _bound_literal(ctx, at: tree_sitter.Node, name: str) -> int | None:
    """The literal a local of the function around `at` is initialised with, where nothing assigns it again."""
    value = _local_value(ctx, name, at)
    if value is None or value.type != "number_literal":
        return None
    function = ctx.device.function_of(at).node
    body = ctx.source.data[function.start_byte : function.end_byte]
    if len(re.findall(rb"\b" + re.escape(name.encode()) + _ASSIGNED, body)) > 1:
        return None  # its initialiser's `=`, and another
    return literal_value(ctx.source.text(value.start_byte, value.end_byte))


_ASSIGNED = rb"\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)"  # `= 32`, `+= 32`, `<<= 1`; not `==`


def _kept_value(ctx, name: str, assumed: set[str] | None = None) -> int | None:
    from porter.rules.warp_size import kept_value  # warp_size reads this module's rows

    return kept_value(ctx, name, assumed=assumed)


def _template_arguments(name: str) -> list[str]:
    """The arguments of `k<BX, BY>` or `ns::launch<32, 4>`, as written."""
    return top_level_parts(name.split("<", 1)[1].rsplit(">", 1)[0])


def _components(text: str, extent: Extent | None = None) -> tuple[int | None, bool]:
    """(x when a literal, or written with names `extent` knows the value of; the rest all 1) of
    `32, num_warps` or `32, 1, 1`."""
    parts = top_level_parts(text)
    x = literal_value(parts[0]) if re.fullmatch(r"\d+[uU]?", parts[0] or "") else None
    if x is None and extent is not None and parts[0]:
        x = extent(parts[0])
    return x, all(literal_value(part) == 1 for part in parts[1:])


def _local_value(ctx, name: str, at: tree_sitter.Node) -> tree_sitter.Node | None:
    """The value `name` is initialised with in the function around `at`, where it is bound once."""
    binding = _local_binding(ctx, name, at)
    return binding.value if binding is not None else None


def _local_binding(ctx, name: str, at: tree_sitter.Node) -> Initializer | None:
    """The declarator that binds `name` in the function around `at`, where it is bound once."""
    function = ctx.device.function_of(at).node
    if function is None:
        return None
    bindings = [
        item
        for item in _initialised(ctx).get(name, ())
        if function.start_byte <= item.node.start_byte < function.end_byte
    ]
    return bindings[0] if len(bindings) == 1 else None


def _initialised(ctx) -> dict[str, list[Initializer]]:
    """Name → each of the file's initialised declarators of it, grouped once."""

    def group() -> dict[str, list[Initializer]]:
        grouped: dict[str, list[Initializer]] = {}
        for item in initializers(ctx.parsed.root, ctx.source.data):
            if item.name is not None and item.value is not None:
                grouped.setdefault(item.name, []).append(item)
        return grouped

    return ctx.once("initialised names", group)


# -- a thread index linearised over rows of 32 -----------------------------------------------------


def _rows_of_warps(ctx, kernel: FunctionInfo) -> int | None:
    """R, where the kernel indexes its work by `blockIdx.x * R + threadIdx.x / 32` (`>> 5`, through
    locals, either order) with R a literal or a constant that keeps its value in the port: each
    32 threads of the block take a row, R to a block. Launched with R * 32 threads, the block is R
    rows of 32 and its 32s are the rows' width; widened to 64 lanes, the kernel would take R / 2
    rows and leave the rest undone."""
    text = ctx.source.data[kernel.node.start_byte : kernel.node.end_byte]
    if b"blockIdx" not in text or not _counts_warps(ctx, text):
        return None
    for node, base, warp in _sums(ctx, kernel):
        count = _blocks_of_rows(ctx, base, node)
        if count is not None and count > 1 and _warp_index(ctx, warp, node):
            return count
    return None


def _sums(ctx, kernel: FunctionInfo) -> Iterator[tuple[tree_sitter.Node, tree_sitter.Node, tree_sitter.Node]]:
    """Each `a + b` in the kernel, as (sum, a, b) and as (sum, b, a)."""
    for node, left, _, right in ctx.device.binaries_inside(kernel.node, "+"):
        yield node, left, right
        yield node, right, left


_WARP_DIVISION = re.compile(rb"/\s*32\b|>>\s*5\b")
_NAMED_DIVISION = re.compile(rb"(/|>>)\s*([A-Za-z_]\w*)")


def _counts_warps(ctx, text: bytes) -> bool:
    """Does the text divide by 32 (or shift by 5), written as a literal or as a constant of that
    value (which _per_warp then asks to be one porter keeps)?"""
    if _WARP_DIVISION.search(text):
        return True
    return any(
        ctx.shared_constants.get(name.decode()) == (ROW if operator == b"/" else 5)
        for operator, name in _NAMED_DIVISION.findall(text)
    )


def _warps_by_itself(ctx, name: str, kernel: FunctionInfo) -> bool:
    """Rows of warps the kernel shows without its launch: bounded at R * 32 threads, or a warp per
    item of the grid."""
    return _bounded_rows_of_warps(ctx, kernel) or _warp_per_item(ctx, name, kernel)


def _bounded_rows_of_warps(ctx, kernel: FunctionInfo) -> bool:
    """A kernel that takes R rows of 32 to a block (_rows_of_warps) and bounds its block at R * 32
    threads (`__launch_bounds__(256)`, R = 8), launched where the file does not show: the block
    holds its R rows (fewer threads would leave rows undone on NVIDIA too), and a launch porter
    widened past the bound would not start, so the 32s stay the rows' width."""
    bounds = next((c for c in kernel.node.children if c.type == "launch_bounds"), None)
    arguments = [a for a in bounds.named_children if a.type != "comment"] if bounds is not None else []
    if not arguments:
        return False
    bound = _extent_value(ctx, kernel.node, ctx.source.text(arguments[0].start_byte, arguments[0].end_byte))
    if bound is None or bound % ROW:  # no count of rows gives it: the kernel's sums need no reading
        return False
    return _rows_of_warps(ctx, kernel) == bound // ROW


def _warp_per_item(ctx, name: str, kernel: FunctionInfo) -> bool:
    """Does each 32 threads of the grid take one item, `(blockIdx.x * blockDim.x + threadIdx.x) / 32`
    (`>> 5`, through locals), or `blockIdx.x * (W / 32) + threadIdx.x / 32` with W the block's width
    (`blockDim.x`, or the kernel's template width: bitsandbytes' 4-bit GEMV, `(THREADS / 32) *
    blockIdx.x`, launched `<T, 128, BITS><<<(m + 3) / 4, 128>>>`), with no loop striding it across
    the grid? The host then sizes the grid in items of 32 threads (`rows * 32`, `(m + 3) / 4` blocks
    of 128), which porter cannot widen with the kernel: widened, the kernel would take half the
    items it is launched for. Not where a launch's grid counts warps on the host (`threads / 32`,
    which WRP008 widens with the kernel), nor with a grid-stride loop (`+= gridDim.x * blockDim.x /
    32`), where widening stays whole."""
    text = ctx.source.data[kernel.node.start_byte : kernel.node.end_byte]
    if b"gridDim" in text or not _counts_warps(ctx, text) or _grids_count_warps(ctx, name):
        return False
    if b"blockDim" in text and any(
        _per_warp(ctx, parts) and _global_thread(ctx, parts[0], node)
        for node in captures("(binary_expression) @b", kernel.node).get("b", [])
        if (parts := binary_parts(node, ctx.source)) is not None
    ):
        return True
    widths = {"blockDim.x", *filter(None, template_parameter_names(ctx, kernel.node))}
    return any(
        _warps_of_block(ctx, base, node, widths) and _warp_index(ctx, warp, node)
        for node, base, warp in _sums(ctx, kernel)
    )


def _grids_count_warps(ctx, name: str) -> bool:
    """Does a `<<<grid, …>>>` launch of the kernel divide by 32 in its grid, or in the values of the
    launching function's locals the grid names?"""
    return any(
        # the bytes as written: a text decoded from them need not encode back (bytes that are not UTF-8)
        _WARP_DIVISION.search(ctx.source.data[n.start_byte : n.end_byte])
        for n in _launch_argument_nodes(ctx, name, (0,))
    )


def _launch_sized_by_widened_widths(ctx, name: str) -> bool:
    """Does a `<<<grid, block, shared>>>` launch of the kernel name, in its block or its dynamic
    shared memory or in the values of the launching function's locals they name, a constant of a
    warp width's value that porter may widen (warp_size.kept_value is None)? Or, in any of its
    arguments, the device's own warp size read at run time (`8 * prop.warpSize`,
    `at::cuda::warp_size()`), 64 on CDNA: kept at 32, the kernel would take half the block's threads
    as its warps of 32 and the grid's count of them would overlap."""
    if any(
        _DEVICE_WARP_SIZE.search(ctx.source.data, node.start_byte, node.end_byte)
        for node in _launch_argument_nodes(ctx, name, (0, 1, 2))
    ):
        return True
    return any(
        _kept_value(ctx, word) is None
        for node in _launch_argument_nodes(ctx, name, (1, 2))
        for word in warp_valued_names(ctx, node.start_byte, node.end_byte)
    )


_DEVICE_WARP_SIZE = re.compile(rb"\bwarpSize\b|\bwarp_size\s*\(\s*\)")


def _launch_argument_nodes(ctx, name: str, indices: tuple[int, ...]) -> Iterator[tree_sitter.Node]:
    """The arguments at `indices` (0 the grid, 1 the block, 2 the shared memory) of each `<<<…>>>`
    launch of the kernel in the file, each followed by the values of the launching function's locals
    it names."""
    for launch in kernel_launches(ctx.parsed.root):
        _, call, function, arguments = launch
        if function is None or not arguments or _kernel_named(ctx, function, call) != name:
            continue
        for argument in (arguments[i] for i in indices if i < len(arguments)):
            yield argument
            for word in set(IDENT.findall(ctx.source.text(argument.start_byte, argument.end_byte))):
                value = _local_value(ctx, word, call)
                if value is not None:
                    yield value


def _warps_of_block(ctx, node: tree_sitter.Node, at: tree_sitter.Node, widths: set[str]) -> bool:
    """`blockIdx.x * (W / 32)` (either order, `W >> 5`) for W in `widths`: the warps of the blocks
    before this one, so that beside the block's warp index each 32 threads of the grid take an
    item. W is the width the kernel is launched with: with any other its rows would overlap or
    leave gaps on NVIDIA too."""
    count = _block_factor(ctx, node, at)
    quotient = binary_parts(count, ctx.source) if count is not None and count.type == "binary_expression" else None
    return quotient is not None and _per_warp(ctx, quotient, at) and spelled(ctx, quotient[0]) in widths


def _block_factor(ctx, node: tree_sitter.Node, at: tree_sitter.Node) -> tree_sitter.Node | None:
    """X of `blockIdx.x * X` (either order, parentheses dropped): what each block's index counts in."""
    node = unparenthesized(node)
    parts = binary_parts(node, ctx.source) if node.type == "binary_expression" else None
    if parts is None or parts[1] != "*":
        return None
    for block, count in ((parts[0], parts[2]), (parts[2], parts[0])):
        if _is_thread(ctx, block, _BLOCK_INDEX, at):
            return unparenthesized(count)
    return None


def _global_thread(ctx, node: tree_sitter.Node, at: tree_sitter.Node, hops: int = 3) -> bool:
    """`blockIdx.x * blockDim.x + threadIdx.x` (either order), or a local bound to it."""
    node = unparenthesized(node)
    if node.type == "identifier" and hops:
        value = _local_value(ctx, ctx.source.text(node.start_byte, node.end_byte), at)
        return value is not None and _global_thread(ctx, value, at, hops - 1)
    parts = binary_parts(node, ctx.source) if node.type == "binary_expression" else None
    if parts is None or parts[1] != "+":
        return False
    for offset, thread in ((parts[0], parts[2]), (parts[2], parts[0])):
        product = unparenthesized(offset)
        factors = binary_parts(product, ctx.source) if product.type == "binary_expression" else None
        if factors is None or factors[1] != "*" or not _is_thread(ctx, thread, _X_THREAD, at):
            continue
        texts = {spelled(ctx, f) for f in (factors[0], factors[2])}
        if any(_BLOCK_INDEX.match(t) for t in texts) and any(_BLOCK_WIDTH.match(t) for t in texts):
            return True
    return False


def _blocks_of_rows(ctx, node: tree_sitter.Node, at: tree_sitter.Node) -> int | None:
    """R of `blockIdx.x * R` (either order), R a literal or a constant kept in the port."""
    count = _block_factor(ctx, node, at)
    if count is None:
        return None
    text = ctx.source.text(count.start_byte, count.end_byte)
    if count.type == "number_literal":
        return literal_value(text)
    return _kept_value(ctx, text) if count.type == "identifier" else None


def _warp_index(ctx, node: tree_sitter.Node, at: tree_sitter.Node, hops: int = 3) -> bool:
    """`threadIdx.x / 32` or `threadIdx.x >> 5`, or a local bound to one, or to a call given one
    alone (`make_warp_uniform(tid / 32)`: the index made uniform across the warp)."""
    node = unparenthesized(node)
    if node.type == "identifier" and hops:
        value = _local_value(ctx, ctx.source.text(node.start_byte, node.end_byte), at)
        return value is not None and _warp_index(ctx, value, at, hops - 1)
    if node.type == "call_expression" and hops:
        arguments = call_arguments(node)
        return len(arguments) == 1 and _warp_index(ctx, arguments[0], at, hops - 1)
    parts = binary_parts(node, ctx.source) if node.type == "binary_expression" else None
    return parts is not None and _per_warp(ctx, parts, at) and _is_thread(ctx, parts[0], _X_THREAD, at)


def _per_warp(ctx, parts: tuple[tree_sitter.Node, str, tree_sitter.Node], at: tree_sitter.Node | None = None) -> bool:
    """`… / 32` or `… >> 5`, the literal written or a constant porter keeps (a 32×32 tile's edge,
    whose definition stays): an index counted in 32-thread warps. Given `at`, a constant of the
    function around it counts too, whatever its shuffles take it for: its 32 means nothing outside
    the kernel, and a kernel that takes a row of blocks by it is one of rows of 32."""
    divisor = unparenthesized(parts[2])
    text = ctx.source.text(divisor.start_byte, divisor.end_byte)
    if divisor.type == "number_literal":
        value = literal_value(text)
    elif divisor.type == "identifier":
        value = _kept_value(ctx, text)
        if value is None and at is not None:
            value = _function_constant(ctx, text, at) or _source_constant(ctx, text, at)
    else:
        return False
    return (parts[1], value) in (("/", ROW), (">>", 5))


def _source_constant(ctx, name: str, at: tree_sitter.Node) -> int | None:
    """The value of a source file's own `#define WARP 32` (or `constexpr int WARP = 32;`), defined
    once: in the NVIDIA original its 32 groups threads as the literal does, whatever other kernels
    take it for. Read where a kernel's index shows its rows (a warp per item, R rows to a block);
    where porter would widen it for those others, the row kernel keeps the definition and their
    uses take the fix (warp_size._row_kernel_constants). A header's constant is not read: any file
    may define it."""
    if ctx.device.function_of(at).node is None or ctx.source.path.suffix.lower() in HEADER_SUFFIXES:
        return None
    definitions = [d for d in ctx.constant_definitions if d[1] == name]
    return ctx.shared_constants.get(name) if len(definitions) == 1 else None


def _function_constant(ctx, name: str, at: tree_sitter.Node) -> int | None:
    """The value of a `const`/`constexpr` the function around `at` binds `name` to, once."""
    binding = _local_binding(ctx, name, at)
    if binding is None or not CONST_QUALIFIER.search(binding.qualifiers):
        return None
    return ctx.value_of(binding.value)


def _linearised_by_rows(ctx, kernel: FunctionInfo) -> bool:
    """`threadIdx.x + threadIdx.y * 32` (through local copies, either order): the block is 32 wide."""
    if b"threadIdx.y" not in ctx.source.data[kernel.node.start_byte : kernel.node.end_byte]:
        return False
    return any(
        _is_thread(ctx, column, _X_THREAD, node) and _rows_of_32(ctx, row, node)
        for node, column, row in _sums(ctx, kernel)
    )


def _strides_rows(ctx, kernel: FunctionInfo) -> bool:
    """`for (c = threadIdx.x; …; c += 32)`: threadIdx.x itself, not a lane taken from it, strides by 32,
    so the block's x holds 32 threads (with more, two threads would take each element)."""
    for loop in captures("(for_statement) @f", kernel.node).get("f", []):
        parts = for_parts(ctx, loop)
        step = loop_step(ctx, loop, parts[0]) if parts is not None else None
        if step is not None and _row_width(ctx, step, loop) and _starts_at_column(ctx, parts[1], loop):
            return True
    return False


def _starts_at_column(ctx, start: tree_sitter.Node, at: tree_sitter.Node) -> bool:
    """threadIdx.x, or a base plus it (`row * cols + threadIdx.x`)."""
    start = unparenthesized(start)
    if _is_thread(ctx, start, _X_THREAD, at):
        return True
    parts = binary_parts(start, ctx.source) if start.type == "binary_expression" else None
    return (
        parts is not None and parts[1] == "+" and any(_starts_at_column(ctx, side, at) for side in (parts[0], parts[2]))
    )


def _rows_of_32(ctx, node: tree_sitter.Node, at: tree_sitter.Node) -> bool:
    node = unparenthesized(node)
    parts = binary_parts(node, ctx.source) if node.type == "binary_expression" else None
    if parts is None or parts[1] != "*":
        return False
    return any(
        _is_thread(ctx, row, _Y_THREAD, at) and _row_width(ctx, width, at)
        for row, width in ((parts[0], parts[2]), (parts[2], parts[0]))
    )


def _row_width(ctx, node: tree_sitter.Node, at: tree_sitter.Node) -> bool:
    """A literal 32, or a constant of the kernel's own bound to one (`constexpr unsigned warp_size = 32`):
    a width the launch matches with its own 32, or a file's constant of 32 that porter leaves as
    written. `warpSize` follows the wavefront, and a project's warp-width constant is widened launch
    and kernel alike: neither makes a row."""
    node = unparenthesized(node)
    if node.type == "identifier":
        name = ctx.source.text(node.start_byte, node.end_byte)
        bound = _local_value(ctx, name, at)
        if bound is None:
            return _kept_value(ctx, name) == ROW
        node = unparenthesized(bound)
    if node.type != "number_literal":
        return False
    return literal_value(ctx.source.text(node.start_byte, node.end_byte)) == ROW


def _is_thread(ctx, node: tree_sitter.Node, builtin: re.Pattern[str], at: tree_sitter.Node, hops: int = 3) -> bool:
    node = unparenthesized(node)
    text = ctx.source.text(node.start_byte, node.end_byte)
    if builtin.match(text.replace(" ", "")):
        return True
    if node.type != "identifier" or hops == 0:
        return False
    value = _local_value(ctx, text, at)
    return value is not None and _is_thread(ctx, value, builtin, at, hops - 1)


def _warps_stay_within_rows(ctx, name: str, kernel: FunctionInfo) -> bool:
    """Does every warp operation the kernel reaches stay within 32 lanes as written (within_rows)?
    Not where a launch's grid counts its warps on the host (`threads / 32`, which WRP008 widens):
    kept at 32, the kernel would then be launched for half its warps. Nor where a launch's block or
    dynamic shared memory is sized from a warp width porter widens (`WARP_SIZE * 4`,
    `(256 / WARP_SIZE) * sizeof(float)`): the port launches twice the threads, or half the slots,
    for a kernel whose groups of 32 it left as many as they were. A header's constant of a warp
    width's value that nothing here claims (marlin's `tile_size = 16`) counts as left as written, an
    assumption the scan settles with the project's other files (porter.rules.project)."""
    if _grids_count_warps(ctx, name) or _launch_sized_by_widened_widths(ctx, name):
        return False
    nodes, defined = _defined_functions(ctx)
    functions = [nodes[span] for span in _reached(ctx, kernel, _helpers(ctx))]
    assumed: set[str] = set()
    if not stays_within_rows(ctx, functions, defined, lambda constant: _kept_value(ctx, constant, assumed)):
        return False
    ctx.project.assumed_kept |= assumed
    return True


def _defined_functions(ctx) -> tuple[dict[tuple[int, int], tree_sitter.Node], set[str]]:
    """The file's function definitions by their spans (what _reached gives), and their short names,
    worked out once for all the file's kernels."""

    def find() -> tuple[dict[tuple[int, int], tree_sitter.Node], set[str]]:
        infos = [info for info in ctx.device.functions if info.node is not None]
        nodes = {(info.node.start_byte, info.node.end_byte): info.node for info in infos}
        return nodes, {short_name(info.name) for info in infos}

    return ctx.once("defined functions", find)


def _helpers(ctx) -> dict[str, list[FunctionInfo]]:
    """The file's device functions other than kernels, by their short names, grouped once."""

    def group() -> dict[str, list[FunctionInfo]]:
        helpers: dict[str, list[FunctionInfo]] = {}
        for info in ctx.device.functions:
            if info.node is not None and info.is_device and not info.is_kernel:
                helpers.setdefault(short_name(info.name), []).append(info)
        return helpers

    return ctx.once("block rows helpers", group)


# -- what the row kernels reach --------------------------------------------------------------------


def _by_reach(ctx, kernels: dict[str, FunctionInfo], rows: dict[str, bool]) -> BlockRows:
    helpers = _helpers(ctx)
    reach = {name: _reached(ctx, info, helpers) for name, info in kernels.items()}
    from_rows = {span: name for name in rows for span in reach[name]}
    from_others = {span for name in kernels if name not in rows for span in reach[name]}
    one_row = {span for name, single in rows.items() if single for span in reach[name]}
    multi_row = {span for name, single in rows.items() if not single for span in reach[name]}
    found = BlockRows()
    for span, name in from_rows.items():
        if span in from_others:
            found.shared[span] = f"`{name}`"
        else:
            found.row_only.append(span)
            if span in one_row and span not in multi_row:
                found.one_row.append(span)
    return found


def reached_spans(ctx, function: FunctionInfo) -> set[tuple[int, int]]:
    """The spans of a function and of the file's device functions it calls, directly or not."""
    return _reached(ctx, function, _helpers(ctx))


def _reached(ctx, kernel: FunctionInfo, helpers: dict[str, list[FunctionInfo]]) -> set[tuple[int, int]]:
    """The spans of the kernel and of the file's device functions it calls, directly or not."""
    seen: set[tuple[int, int]] = set()
    pending = [kernel]
    while pending:
        info = pending.pop()
        span = (info.node.start_byte, info.node.end_byte)
        if span in seen:
            continue
        seen.add(span)
        for name, _ in ctx.device.calls_inside(info.node):
            pending.extend(helpers.get(short_name(name), ()))
    return seen


# -- a kernel template's code path for rows of 32 ------------------------------------------------
#
# A kernel template can run both ways: `if constexpr (BDIM_X == 32)` reduces each 32-thread row
# with a warp helper, the other branch one wide row through shared memory, and the file launches
# it with the block's x from that template argument (`dim3 block(BDIM_X, BDIM_Y);
# kernel<BDIM_X, BDIM_Y><<<grid, block>>>`). The branch is row code whatever the warp width.


def template_row_paths(ctx) -> list[tree_sitter.Node]:
    """The bodies of `if constexpr (P == 32)` in kernel templates whose template parameter P the
    file's launches give the block's x."""
    return ctx.once("template row paths", lambda: _template_row_paths(ctx))


def _template_row_paths(ctx) -> list[tree_sitter.Node]:
    data = ctx.source.data
    if ctx.parsed.root is None or b"<<<" not in data or b"constexpr" not in data:
        return []
    extents = _block_x_arguments(ctx)
    paths = []
    for info in ctx.device.functions if extents else ():
        positions = extents.get(short_name(info.name)) if info.is_kernel and info.node is not None else None
        if positions:
            parameters = template_parameter_names(ctx, info.node)
            named = {parameters[i] for i in positions if i < len(parameters)}
            paths += _row_branches(ctx, info.node, named - {None})
    return paths


def _block_x_arguments(ctx) -> dict[str, set[int]]:
    """Kernel name → the positions of its template arguments that its launches make the block's x:
    `kernel<BDIM_X, BDIM_Y><<<grid, block>>>` after `dim3 block(BDIM_X, BDIM_Y)` gives {0}."""
    found: dict[str, set[int]] = {}
    for launch in kernel_launches(ctx.parsed.root):
        _, call, function, arguments = launch
        if function is None or function.type != "template_function" or len(arguments) < 2:
            continue
        template = _template_arguments(ctx.source.text(function.start_byte, function.end_byte))
        x = _block_x_text(ctx, arguments[1], call)
        if x is not None and x in template:
            found.setdefault(short_name(ctx.source.text(function.start_byte, function.end_byte)), set()).add(
                template.index(x)
            )
    return found


def _block_x_text(ctx, block: tree_sitter.Node, at: tree_sitter.Node) -> str | None:
    """The text of a launch's block x: `dim3(X, …)` inline, or the `X` of a `dim3 block(X, …)`
    declared in the launch's function."""
    function = ctx.device.function_of(at).node
    text = ctx.source.text(block.start_byte, block.end_byte).strip()
    since = function.start_byte if function is not None else None
    extents = _dim3_extents(ctx.source.data, at.start_byte, text, since)
    return top_level_parts(extents)[0] if extents is not None else None


def template_parameter_names(ctx, function: tree_sitter.Node) -> list[str | None]:
    """The names of a function template's parameters, in order (None for a type parameter)."""
    declarators = (parameter.child_by_field_name("declarator") for parameter in template_parameters(function))
    return [ctx.source.text(d.start_byte, d.end_byte) if d is not None else None for d in declarators]


def _row_branches(ctx, kernel: tree_sitter.Node, names: set[str]) -> list[tree_sitter.Node]:
    """The consequences of the kernel's `if constexpr (P == 32)` (either order) for P in `names`."""
    branches = []
    for statement in captures("(if_statement) @i", kernel).get("i", []) if names else ():
        if not is_constexpr_if(ctx.source, statement):
            continue
        condition = statement.child_by_field_name("condition")
        value = condition.child_by_field_name("value") if condition is not None else None
        parts = binary_parts(unparenthesized(value), ctx.source) if value is not None else None
        if parts is None or parts[1] != "==":
            continue
        sides = {ctx.source.text(side.start_byte, side.end_byte).strip() for side in (parts[0], parts[2])}
        if sides & names and any(literal_value(side) == ROW for side in sides - names if _NUMBER.fullmatch(side)):
            consequence = statement.child_by_field_name("consequence")
            if consequence is not None:
                branches.append(consequence)
    return branches
