"""Kernels whose every warp operation stays within 32 lanes as written.

A butterfly of `__shfl_xor_sync` with offsets below 32 pairs lane i with lane i ^ offset, which on
a 64-lane wavefront is in i's own half; a shuffle given a width of 32 or less works within groups of
that width on either wavefront. A kernel whose warp operations are only these, and that never asks
for the wavefront's width (`warpSize`, `__lane_id()`, a vote, a library collective), runs on wave64
as two 32-lane warps to a wavefront, each doing exactly what one NVIDIA warp does: its lane and warp
arithmetic (`threadIdx.x & 31`, `threadIdx.x / 32`), its per-warp slots and its loops over lanes are
right as written. Only its masks must name the 64-bit wavefront's lanes (MSK001). A kernel with no
warp operation at all is the simplest such kernel: its `threadIdx.x / 32` and `% 32` only group
threads, and each group does on wave64 what it does on NVIDIA. Widened, they change what it computes
(a lane's `15u << (lane & ~3)` shifts past 32 bits; per-group slots sized for 32-thread groups
leave half of them unwritten).

Widening such a kernel is right only where each warp's share of the work widens with it. It does not
where the share is fixed: exllamav3's Hadamard helpers (vendored by gptqmodel) give each warp a
128-element chunk, 4 values to a lane (`t = threadIdx.x & 31`, `in + w * 128`); widened, lanes 32-63
index past the chunk. So porter treats these kernels as it treats the kernels whose warps are the
32-thread rows of their block (porter.rules.block_rows): their 32s stay.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from functools import lru_cache

import tree_sitter

from porter.rules.brackets import body_at, called_names, function_named_before
from porter.rules.device import (
    IDENT_BYTES,
    SHUFFLE_CALLS,
    VarClass,
    binary_parts,
    call_arguments,
    for_parts,
    int_value,
    shuffle_operands,
    unparenthesized,
)
from porter.rules.patterns import WORD_START, finditer_each, literal_starts
from porter.rules.portable import FULL_MASK, ROW_MASK
from porter.rules.ptx import looks_like_ptx

# what asks for the wavefront itself, or leaves the lanes to code porter does not see: names, found
# by their literal leads (porter.rules.patterns.finditer), and lanes counted to 64 (written for the
# wavefront), each pattern led by its operator. One alternation of them all gives Python's engine
# no bytes to skip to: it tried it at every byte (0.12 s over flashinfer's generated kernels, whose
# functions hold none of it; 0.04 s so split)
_WAVEFRONT_WIDE = (
    re.compile(
        WORD_START + rb"warpSize\b|__lane_id\b|%laneid|" + WORD_START + rb"__ballot|" + WORD_START + rb"__any\b|"
        + WORD_START + rb"__any_sync\b|" + WORD_START + rb"__all\b|" + WORD_START + rb"__all_sync\b|"
        + WORD_START + rb"__match_|" + WORD_START + rb"__reduce_\w+_sync\b|cooperative_groups|"
        + WORD_START + rb"cg::|" + WORD_START + rb"cub::|" + WORD_START + rb"hipcub::|"
        + WORD_START + rb"Warp(?:Reduce|Scan|Exchange|Load|Store|MergeSort)\b|C10_WARP_SIZE"
    ),
    re.compile(rb"%\s*64\b"),
    re.compile(rb"/\s*64\b"),
    re.compile(rb"&\s*(?:63|0x3[fF])\b"),
    re.compile(rb">>\s*6\b"),
)  # fmt: skip
# operations the whole wavefront takes part in, found by bytes.find (a pattern's first bytes would
# widen the lookahead above to common letters): WMMA's fragments (`wmma::`, `nvcuda::wmma`,
# `rocwmma::`, or `load_matrix_sync` and `mma_sync` under a using-directive), which porter_wmma.h
# runs on a 64-lane wavefront's MFMA, a HIP port's wavefront builtins (DPP, swizzles, MFMA),
# `__asm__`, which the pattern's `\basm\b` does not find, and the libraries whose warp-level
# operations (MMA atoms, ldmatrix copies, warp primitives) porter does not read: lanes left to code
# porter does not see
_WAVEFRONT_COLLECTIVES = (
    b"wmma", b"_matrix_sync", b"mma_sync", b"__builtin_amdgcn_", b"__hip_move_dpp", b"__hip_ds_",
    b"cute::", b"cutlass::", b"rocprim::",
)  # fmt: skip
# a call into code the file does not hold, whose name says it works across the warp (a matrix
# multiply-accumulate among them: `mma_sync_m16n16k16`, `hmma`, `wmma`, `mfma`; not a `gamma`)
_WARP_LEVEL_NAME = re.compile(r"(?i)warp|wave|shfl|shuffle|ballot|vote|lane|reduce|scan|(?<![a-z])[hw]?mma|mfma")
_WIDTHS = (1, 2, 4, 8, 16, 32)
# builtins whose names say warp but that read no lane: a barrier (both halves of a wavefront run in
# step), and the active-lane mask, judged where it is used (_counts_active_lanes)
_LANE_NEUTRAL = frozenset({"__syncwarp", "__activemask"})
_HALVING = re.compile(r"^(\w+)\s*(?:>>=\s*1|/=\s*2|=\s*\1\s*(?:>>\s*1|/\s*2))$")
_DOUBLING = re.compile(r"^(\w+)\s*(?:<<=\s*1|\*=\s*2|=\s*\1\s*(?:<<\s*1|\*\s*2))$")
# a warp-width's value by role (the width, the last lane, half, log2): named, porter may widen it
_WARP_ROLE_VALUES = (32, 31, 16, 5)


def stays_within_rows(ctx, functions: list[tree_sitter.Node], defined: set[str], kept) -> bool:
    """Do `functions` (a kernel and the file's functions it reaches) keep every warp
    operation within 32 lanes as written? True too where they hold none: their lane and warp
    arithmetic then only groups threads by 32, as it does on NVIDIA. `defined` holds the
    names of the file's functions (a call to any other is code porter does not see); `kept(name)` is
    the value of a constant porter leaves as written, None where it may widen it."""
    if any(_asks_for_the_wavefront(ctx, node) for node in functions):
        return False
    if any(kept(name) is None for node in functions for name in _warp_valued_names_in(ctx, node)):
        return False
    for function in functions:
        for name, call in ctx.device.calls_inside(function):
            short = name.rsplit("::", 1)[-1]
            if name in SHUFFLE_CALLS:
                if not _within_32(ctx, name, call):
                    return False
            elif short not in defined and short not in _LANE_NEUTRAL:
                if _may_reach_warp_operations(ctx, short):
                    return False
                # taken as holding no warp operation: the scan checks it against the project's
                # headers (reached_warp_functions), and reads the file again where one reaches some
                ctx.project.assumed_kept.add(_warp_function_key(short))
    return True


def _asks_for_the_wavefront(ctx, function: tree_sitter.Node) -> bool:
    """Does the function ask for the wavefront itself (_WAVEFRONT_WIDE), or take part in an operation
    of the whole wavefront (_WAVEFRONT_COLLECTIVES)? What the file's code holds of either is found
    once, and each function's span looks it up."""
    return _per_function(
        ctx, "wavefront-wide functions", function,
        lambda span: _holds(_wavefront_wide_starts(ctx), *span)
        or _counts_active_lanes(ctx, *span)
        or _assembly_across_lanes(ctx, *span),
    )  # fmt: skip


def _holds(starts: list[int], start: int, end: int) -> bool:
    """Does one of the sorted `starts` fall within start:end?"""
    index = bisect.bisect_left(starts, start)
    return index < len(starts) and starts[index] < end


def _wavefront_wide_starts(ctx) -> list[int]:
    """Where the file's code asks for the wavefront (_WAVEFRONT_WIDE, outside comments: `// lanes
    0-31 of warpSize` asks for nothing) or names a collective of it (_WAVEFRONT_COLLECTIVES, as
    bytes), in order."""

    def find() -> list[int]:
        data, root = ctx.source.data, ctx.parsed.root
        named = (
            match.start()
            for match in finditer_each(_WAVEFRONT_WIDE, data)
            if (node := root.descendant_for_byte_range(match.start(), match.start() + 1)) is None
            or node.type != "comment"
        )
        return sorted({*named, *literal_starts(data, _WAVEFRONT_COLLECTIVES), *_lanes_to_64_by_name(ctx)})

    return ctx.once("wavefront-wide starts", find)


# a thread's lane or warp taken with a constant of the wavefront's width, as `% 64` takes it with a
# literal: what the divisor must be, by operator
_WAVEFRONT_DIVISORS = {"%": 64, "/": 64, "&": 63, ">>": 6}


def _lanes_to_64_by_name(ctx) -> list[int]:
    """Where the file takes a thread's index with a named constant of 64 (`threadIdx.x % WARP_SIZE`,
    `WARP_SIZE` 64): its code counts lanes to a 64-lane wavefront. llama.cpp's HIP build once set
    WARP_SIZE so and kept its width-32 shuffles: each half-wavefront's sum reached the lane that
    writes a 64-thread warp's slot. A name with one value per platform has no value here."""
    found = []
    for node, left, operator, right in ctx.device.binaries(tuple(_WAVEFRONT_DIVISORS), ordered=False):
        if unparenthesized(right).type == "number_literal" or ctx.value_of(right) != _WAVEFRONT_DIVISORS[operator]:
            continue  # a literal is _WAVEFRONT_WIDE's
        classes = ctx.device.expression_classes(left)
        if VarClass.THREAD in classes or VarClass.LANE in classes:
            found.append(node.start_byte)
    return found


# PTX that reads or combines the lanes of a warp beyond a 32-lane shuffle: votes and matches, warp
# reductions, the lane's own number or masks, and the matrix instructions whose fragments span it
_PTX_ACROSS_LANES = re.compile(
    r"^(vote|match|redux|activemask|elect|mma|wgmma|ldmatrix|stmatrix|movmatrix|tcgen05)\b|%laneid|%lanemask|%warpid"
)


def _assembly_across_lanes(ctx, start: int, end: int) -> bool:
    """Inline assembly in the span that works across lanes. Most PTX a kernel writes does not: loads
    and stores (`ld.shared`, `cp.async`), conversions, atomics, fences (flashinfer's generated MoE
    kernels write most of their bodies so). A PTX `shfl.sync` stays within 32 lanes by the ISA's
    definition (its segment is at most a warp), as a width-32 shuffle does. Assembly that is not
    PTX (AMD's, DPP and the like) is taken to work across the wavefront."""
    return _holds(ctx.once("asm across lanes", lambda: _starts_across_lanes(ctx.asm_statements)), start, end)


def _starts_across_lanes(statements) -> list[int]:
    """Where each asm statement of the code that works across lanes starts, in order (a macro's
    body is no function's). Read once per file, and a span's found by bisection: a walk over all
    statements for each function cost flashinfer's generated kernels (thousands of statements,
    hundreds of functions) 0.3 s."""
    return sorted(
        statement.start
        for statement in statements
        if not statement.in_macro
        and (not looks_like_ptx(statement) or any(_PTX_ACROSS_LANES.search(i) for i in statement.instructions))
    )


def _counts_active_lanes(ctx, start: int, end: int) -> bool:
    """Does `__activemask()` serve the span as more than a `_sync` call's mask? As the mask it
    names the active lanes of whatever wavefront runs the code (exllamav3's `__shfl_down_sync(
    __activemask(), v, 4, 32)`, kept within 32 lanes by its width); counted (`__popc`) or compared,
    it is the wavefront's own width."""
    data, root = ctx.source.data, ctx.parsed.root
    at = data.find(b"__activemask", start, end)
    while at != -1:
        node = root.descendant_for_byte_range(at, at + len(b"__activemask"))
        if node is None or node.type != "comment":
            call = node.parent if node is not None else None
            if call is None or call.type != "call_expression" or not is_sync_mask(ctx, call):
                return True
        at = data.find(b"__activemask", at + 1, end)
    return False


def is_sync_mask(ctx, value: tree_sitter.Node) -> bool:
    """Is `value` the first argument of a `…_sync` call?"""
    arguments = value.parent
    call = arguments.parent if arguments is not None and arguments.type == "argument_list" else None
    function = call.child_by_field_name("function") if call is not None else None
    first = next((child for child in arguments.named_children if child.type != "comment"), None) if call else None
    return (
        function is not None
        and ctx.source.text(function.start_byte, function.end_byte).endswith("_sync")
        and first is not None
        and first.id == value.id
    )


def _warp_valued_names_in(ctx, function: tree_sitter.Node) -> set[str]:
    """The names the function writes that are constants of a warp width's value (32, 31, 16, 5): one
    porter may widen in the port (a project's `WARP_SIZE`) keeps a kernel that names it widened, since
    kept as written, the kernel would mix its 32s with the wavefront's 64."""

    return _per_function(ctx, "warp-valued names", function, lambda span: warp_valued_names(ctx, *span))


def warp_valued_names(ctx, start: int, end: int) -> set[str]:
    """The names the file's bytes `start:end` write that are constants of a warp width's value."""
    words = set(IDENT_BYTES.findall(ctx.source.data, start, end)) & _warp_valued_constants(ctx)
    return {word.decode() for word in words}


def _warp_valued_constants(ctx) -> frozenset[bytes]:
    """The names of the file's constants of a warp width's value, as bytes: a span's words are
    matched against them as found, not each decoded and looked up (800,000 words over flashinfer's
    generated kernels)."""

    def find() -> frozenset[bytes]:
        return frozenset(name.encode() for name, value in ctx.shared_constants.items() if value in _WARP_ROLE_VALUES)

    return ctx.once("warp-valued constants", find)


def _per_function(ctx, key: str, function: tree_sitter.Node, answer):
    """`answer` for the function's byte span, worked out once per function of the file: the
    functions a file's kernels reach overlap."""
    answers = ctx.once(key, dict)
    span = (function.start_byte, function.end_byte)
    if span not in answers:
        answers[span] = answer(span)
    return answers[span]


def _within_32(ctx, name: str, call: tree_sitter.Node) -> bool:
    """A shuffle given a width of 32 or less (a literal), a butterfly whose offset stays below 32 (a
    literal, or the counter of a loop that halves from 16 or less, or doubles below 32), or an index
    shuffle whose source lane is taken modulo 32 (_permutes_32_lanes)."""
    offset, width = shuffle_operands(name, call)
    if name.endswith("_sync") and not _all_lanes(ctx, call):
        return False  # a mask made from the lanes (`15 << (lane & ~3)`) names the lower half's on wave64
    width_value = int_value(width, ctx.source)
    if width is not None:
        return width_value in _WIDTHS
    if _permutes_32_lanes(ctx, name, offset):
        return True
    if not name.startswith("__shfl_xor") or offset is None:
        return False
    offset = unparenthesized(offset)
    value = int_value(offset, ctx.source)
    if value is not None:
        return 0 <= value < 32
    return offset.type == "identifier" and _ladder_below_32(ctx, offset)


_INDEX_SHUFFLES = frozenset({"__shfl", "__shfl_sync"})
_MODULO_32 = frozenset({("%", 32), ("&", 31)})


def _permutes_32_lanes(ctx, name: str, source: tree_sitter.Node | None) -> bool:
    """An index shuffle whose source lane the code takes modulo 32 (`(lane + 1) % 32`, `(lane + k)
    & 31`), or leaves to wrap at the warp's 32 lanes, as CUDA defines a source past the width
    (`lane + 1`, `lane - d`, with `lane` a thread's `% 32`): a permutation within each 32 lanes (a
    rotation, a transpose), whose result is laid out in 32s. Widened to the wavefront, the rotation
    would wrap at lane 63 and move lane 32's value into lane 31; given the row's width
    (ROW_SHUFFLE), each 32 lanes permute among themselves."""
    if name not in _INDEX_SHUFFLES or source is None:
        return False
    source = unparenthesized(source)
    parts = binary_parts(source, ctx.source) if source.type == "binary_expression" else None
    if parts is None:
        return False
    left, operator, right = parts
    if (operator, int_value(right, ctx.source)) in _MODULO_32:
        return True
    return operator in ("+", "-") and (_below_32(ctx, left) or (operator == "+" and _below_32(ctx, right)))


def _below_32(ctx, node: tree_sitter.Node, hops: int = 2) -> bool:
    """A lane of 32 by its arithmetic: `x % 32`, `x & 31`, or a name the function binds only to such
    values (`const int lane = threadIdx.x % 32`)."""
    node = unparenthesized(node)
    if node.type == "binary_expression":
        parts = binary_parts(node, ctx.source)
        return parts is not None and (parts[1], int_value(parts[2], ctx.source)) in _MODULO_32
    if node.type != "identifier" or hops == 0:
        return False
    values = ctx.device.values_bound(ctx.device.function_of(node), ctx.source.text(node.start_byte, node.end_byte))
    return bool(values) and all(_below_32(ctx, value, hops - 1) for value in values)


def _all_lanes(ctx, call: tree_sitter.Node) -> bool:
    """Is the shuffle's mask every lane: a literal or a constant (`0xffffffff`, `FULL_MASK`), or the
    compat header's mask of a warp's 32 lanes that porter's port writes (a port scanned again)?"""
    arguments = call_arguments(call)
    if not arguments:
        return False
    mask = arguments[0]
    text = ctx.source.text(mask.start_byte, mask.end_byte).strip()
    # `__activemask()` names the active lanes of the wavefront that runs it, on either vendor
    return ctx.value_of(mask) in _ALL_LANES or _ports_mask(ctx, text) or _ACTIVE_MASK.fullmatch(text) is not None


def _ports_mask(ctx, text: str) -> bool:
    """The compat header's all-lanes masks that porter's ports write, directly or through a
    constant of the file defined as one (`#define FULL_MASK PORTER_FULL_MASK`)."""
    if text in (FULL_MASK, ROW_MASK):
        return True
    values = {re.split(r"//|/\*", value)[0].strip() for _, name, value in ctx.constant_definitions if name == text}
    return len(values) == 1 and values <= {FULL_MASK, ROW_MASK}


_ALL_LANES = (0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF)
_ACTIVE_MASK = re.compile(r"__activemask\s*\(\s*\)")


def _ladder_below_32(ctx, counter: tree_sitter.Node) -> bool:
    name = ctx.source.text(counter.start_byte, counter.end_byte)
    loop, parts = counter.parent, None
    while loop is not None and parts is None:  # the innermost loop that counts with the name
        if loop.type == "for_statement" and (found := for_parts(ctx, loop)) is not None and found[0] == name:
            parts = found
        else:
            loop = loop.parent
    if parts is None:
        return False
    update = loop.child_by_field_name("update")
    step = re.sub(r"\s+", " ", ctx.source.text(update.start_byte, update.end_byte)) if update is not None else ""
    start = int_value(parts[1], ctx.source)
    if (match := _HALVING.match(step)) and match.group(1) == name:
        return start is not None and 0 < start <= 16
    if (match := _DOUBLING.match(step)) and match.group(1) == name:
        return start is not None and start > 0 and _bounded_below_32(ctx, parts[2], name)
    return False


def _bounded_below_32(ctx, condition: tree_sitter.Node, counter: str) -> bool:
    """`counter < L` with L ≤ 32, or `counter <= L` with L < 32, L a literal."""
    parts = binary_parts(condition, ctx.source) if condition.type == "binary_expression" else None
    if parts is None or ctx.source.text(parts[0].start_byte, parts[0].end_byte) != counter:
        return False
    limit = int_value(parts[2], ctx.source)
    return limit is not None and ((parts[1] == "<" and limit <= 32) or (parts[1] == "<=" and limit < 32))


_FUNCTION_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)\(((?:[^\n]*\\\r?\n)*[^\n]*)", re.M)
# a warp operation, or a thread's lane or warp taken with a 32 (`threadIdx.x & 31`): a function of
# the project's headers that holds one has 32s of its own, settled (and maybe widened) in its file
_WARP_LEVEL_NEEDLES = (b"__shfl", b"__ballot", b"__any", b"__all", b"__activemask", b"__match_", b"warpSize", b"__syncwarp")  # fmt: skip
_WARP_LEVEL_TEXT = re.compile(b"|".join(_WARP_LEVEL_NEEDLES))
_LANE_OF_THREAD = re.compile(rb"threadIdx\.x\s*(?:/\s*32|&\s*(?:31|0x1[fF])|%\s*32|>>\s*5)\b")


def _warp_macros(ctx) -> frozenset[str]:
    """The file's function-like macros whose bodies hold warp operations: a call to one is a warp
    operation porter does not see as such."""

    def find() -> frozenset[str]:
        return frozenset(
            match.group(1).decode()
            for match in _FUNCTION_MACRO.finditer(ctx.source.data)
            if _WARP_LEVEL_TEXT.search(match.group(2))
        )

    return ctx.once("warp macros", find)


def _may_reach_warp_operations(ctx, name: str) -> bool:
    """Is `name`, called from outside the file's functions, a warp operation porter does not see as
    one: a function of the project's headers that holds one (its 32s settle in its own file, and
    may widen), a macro of the file's that does, or a name that says it works across the warp?"""
    return (
        name in ctx.project_warp_functions
        or name in _warp_macros(ctx)
        or _says_warp_level(name)
        or _warp_function_key(name) in ctx.project_widened
    )


# a file's assumption (porter.rules.project) that a function it calls but does not define holds no warp operation
_WARP_FUNCTION_KEY = "warp-function:"


def _warp_function_key(name: str) -> str:
    return _WARP_FUNCTION_KEY + name


def reached_warp_functions(
    assumed: set[str], headers: Callable[[], list[bytes]], warp_functions: frozenset[str]
) -> set[str]:
    """The assumptions among `assumed` that a function holds no warp operation which the project's
    headers contradict: a header defines it with a body that calls, CALL_DEPTH hops deep among the
    headers' functions, one that holds a warp operation (`warp_functions`, warp_function_names) or
    whose name says it works across the warp. `combine(v)` calling `fold(v)`, whose shuffles settle
    (and may widen) in their own file, is a warp operation to the kernel that calls it as much as
    `fold` is, and neither name says so. Read once the files are analysed, for the few names their
    kernels call without defining: a call graph of every header function cost flashinfer's scan
    0.2 s before any file could start. `headers` reads the texts, only where there is a name to
    look up."""
    names = {key.removeprefix(_WARP_FUNCTION_KEY) for key in assumed if key.startswith(_WARP_FUNCTION_KEY)}
    if not names:
        return set()
    texts = headers()
    defined = _header_functions(texts)
    for macro in _MACRO_NAME.finditer(b"\n".join(texts)):  # `MACRO(i, n) {` in a body is a statement's
        defined.pop(macro.group(1).decode(), None)
    known: dict[tuple[str, int], bool] = {}  # (name, hops left) → reaches one: each hop takes one off, so a cycle ends

    def reaches(name: str, hops: int) -> bool:
        if name in warp_functions or _says_warp_level(name):
            return True
        if hops == 0 or name not in defined:
            return False
        if (name, hops) not in known:
            known[name, hops] = any(
                reaches(called, hops - 1)
                for index, brace in defined[name]
                for called in called_names(body_at(texts[index], brace)) - _LANE_NEUTRAL - {name}
            )
        return known[name, hops]

    return {_warp_function_key(name) for name in names if reaches(name, CALL_DEPTH)}


def _header_functions(texts: list[bytes]) -> dict[str, list[tuple[int, int]]]:
    """Name → (text's index, its body's `{`) of each function the texts define, as
    function_named_before reads a body's head (a statement's `if (…) {` is none). A conversion
    operator (`operator float() {`) names a type, which a cast calls no more than a `_t` does."""
    functions: dict[str, list[tuple[int, int]]] = {}
    for index, data in enumerate(texts):
        for opening in _BODY_OPENING.finditer(data):
            brace = opening.end() - 1
            name = function_named_before(data, brace)
            if name is not None and name not in _TYPE_NAMES and not name.endswith("_t"):
                functions.setdefault(name, []).append((index, brace))
    return functions


# a function-like macro's name; without `^` and re.M the search starts from the literal `#`, 20 times
# faster over a project's headers
_MACRO_NAME = re.compile(rb"#[ \t]*define[ \t]+(\w+)\(")
_BODY_OPENING = re.compile(rb"\)\s*(?:const\s*)?(?:noexcept\s*)?\{")
_TYPE_NAMES = frozenset({"bool", "char", "short", "int", "long", "unsigned", "float", "double", "half", "void"})


CALL_DEPTH = 4  # helpers of helpers of helpers: deeper than any real header's chain


@lru_cache(maxsize=8192)
def _says_warp_level(name: str) -> bool:
    """Does the name say it works across the warp? Asked of every call of every function a kernel
    reaches (20,000 times over flashinfer's generated kernels), of a few hundred names."""
    return _WARP_LEVEL_NAME.search(name) is not None


def warp_functions(data: bytes) -> set[str]:
    """The functions `data` defines whose bodies hold a warp operation (a shuffle, a vote,
    `warpSize`) or take a thread's lane or warp with a 32: found by text, for the project's headers
    before any file is analysed. One pass over the braces keeps the blocks open at each match: a
    walk back from each match cost flashinfer's headers 0.12 s here, this pass 0.05 s."""
    matches = sorted(_occurrences(data))
    if not matches:
        return set()
    found: set[str] = set()
    names: dict[int, str | None] = {}  # a block's `{` -> the function it opens, if it opens one
    open_blocks: list[int] = []
    pending = iter(matches)
    next_match = next(pending)
    for brace in _BRACE.finditer(data):
        while next_match is not None and next_match < brace.start():
            name = _function_around(data, open_blocks, names)
            if name is not None:
                found.add(name)
            next_match = next(pending, None)
        if next_match is None:
            break
        if brace.group() == b"{":
            open_blocks.append(brace.start())
        elif open_blocks:
            open_blocks.pop()
    return found


_BRACE = re.compile(rb"[{}]")


def _occurrences(data: bytes) -> Iterator[int]:
    """Where a warp operation or a lane taken with 32 starts: bytes.find per needle, faster than
    one regular expression of alternatives, which has no literal prefix to search for."""
    for needle in _WARP_LEVEL_NEEDLES:
        at = data.find(needle)
        while at != -1:
            yield at
            at = data.find(needle, at + len(needle))
    if b"threadIdx" in data:
        yield from (match.start() for match in _LANE_OF_THREAD.finditer(data))


def _function_around(data: bytes, open_blocks: list[int], names: dict[int, str | None]) -> str | None:
    """The innermost function whose body is among the open blocks."""
    for opening in reversed(open_blocks):
        if opening not in names:
            name = function_named_before(data, opening)
            names[opening] = name.rsplit("::", 1)[-1] if name is not None else None
        if names[opening] is not None:
            return names[opening]
    return None
