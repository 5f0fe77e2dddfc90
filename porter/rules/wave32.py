"""Wave32 (category `warp-size`): code that assumes 64 lanes, on 32-wide RDNA wavefronts.

The other direction of porter.rules.warp_size. HIP code written on CDNA (gfx90a, gfx942) hard-codes
its 64 lanes: `lane = threadIdx.x & 63`, a butterfly from `__shfl_xor(v, 32)`, `#define WARP_SIZE 64`.
On RDNA (gfx10, gfx11, gfx12: Radeon and the APUs) a wavefront has 32 lanes, and such code compiles
and gives wrong answers: a shuffle from lane 32 and up reads the caller's own value, so the first
step of a 64-lane reduction doubles every partial sum. These findings appear only when a wave32
target is asked for (`--target gfx1100`), and only where the project's branches compile the code
for one (`#if __AMDGCN_WAVEFRONT_SIZE == 64` and `#ifdef __GFX9__` keep RDNA out).

As in warp_size, a 64 is flagged only where dataflow ties it to a lane, a warp id or a shuffle: a
64-bit bitset index or a 64-wide tile stays silent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import tree_sitter

from porter.findings import Edit, Finding, FixKind, Severity
from porter.parse import captures
from porter.rules import portable
from porter.rules.base import FileContext, Rule
from porter.rules.block_limits import MAX_BLOCK_THREADS
from porter.rules.block_rows import (
    block_rows,
    launched_nowhere_here,
    launched_threads,
    launched_threads_key,
    record_launches,
)
from porter.rules.branches import CDNA, CUDA, RDNA
from porter.rules.consteval import evaluate
from porter.rules.device import (
    IDENT,
    SHUFFLE_CALLS,
    VarClass,
    binary_parts,
    call_arguments,
    call_name,
    for_parts,
    int_value,
    loop_step,
    shuffle_operands,
    unparenthesized,
)
from porter.rules.lane_mask import holds_a_vote
from porter.rules.warp_size import (
    WARP_OPERATORS,
    at_warp_ids,
    is_lane_arithmetic,
    is_last_lane_test,
    lane_valued,
    shared_arrays,
    short_text,
    shuffle_uses,
    starts_at_lane,
    subscripts_of,
    upper_bound,
    warp_value,
)

ASSUMES_64_LANES = Rule(
    id="WRP015",
    name="assumes-64-lanes",
    category="warp-size",
    audits_hip=True,
    breaks_wave32=True,
    severity=Severity.ERROR,
    fix=FixKind.SUGGESTED,
    summary="Lane, warp or shuffle arithmetic hard-coded for 64 lanes, on wave32 RDNA targets",
    what=(
        "When a wave32 target is asked for (gfx10xx, gfx11xx, gfx12xx), finds `& 63`, `% 64`, `/ 64` and `>> 6` "
        "applied to thread indices in warp-level code, tests of lane 63 as the last lane, shuffles whose offset or "
        "XOR mask is 32 or more (`__shfl_xor(v, 32)`, a ladder from `offset = 32`), shuffle widths of 64, and lane "
        "loops bounded by 64 or striding from a lane id by 64; 64 counts through named constants "
        "(`#define WARP_SIZE 64`) by their value; and a vote compared with all 64 lanes (`__ballot(p) == ~0ull`, "
        "`__popcll(__ballot(p)) == 64`), which no 32-lane wavefront's vote can equal; and a `__shared__` array "
        "with one slot per 64-lane wavefront of the block the kernel is launched with (`partial[8]` written "
        "at each wavefront's id, 512 threads), which an RDNA block of 32-lane wavefronts overruns: a launch in the "
        "kernel's file, or for a header's kernel the file launches nowhere, in any file of the scan."
    ),
    why="""
    RDNA GPUs (Radeon RX 6000-9000, Radeon PRO, Ryzen AI APUs) run 32 threads per wavefront.
    HIP code written for CDNA's 64 lanes computes lane ids up to 63 that do not exist, warp ids
    half as many as the wavefronts, and shuffles that reach past the last lane: `__shfl_xor(v, 32)`
    and `__shfl_down(v, 32)` return the caller's own value there, so `v += __shfl_xor(v, 32)`
    doubles every value instead of adding the other half. A vote (`__ballot`, `__activemask`)
    has bits 32-63 clear there, so `__ballot(p) == ~0ull` ("did every lane vote yes") is never true
    and `__popcll(__ballot(p)) == 64` never holds: the branch a full wavefront takes is never taken.
    It compiles, runs, and gives wrong answers.
    """,
    example="int lane = threadIdx.x & 63;\nfor (int offset = 32; offset > 0; offset >>= 1)\n  v += __shfl_down(v, offset);",
    use_instead=(
        "`warpSize` (or the compat header's per-architecture `PORTER_WARP_SIZE`): `lane = threadIdx.x % warpSize`, "
        "`for (int offset = warpSize / 2; ...)`. The suggested edits write `PORTER_WARP_SIZE`, 64 on CDNA and 32 on "
        "RDNA; they are suggested, not automatic, because code NVIDIA also compiles may mean 64 threads, not lanes."
    ),
    references=(
        "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#warp-cross-lane-functions",
    ),
)

ROW_WITH_64_LANES = Rule(
    id="WRP019",
    name="64-lane-code-in-32-thread-row",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="A shuffle written for 64 lanes in a kernel whose block is rows of 32 threads",
    what=(
        "In code written for ROCm (a HIP file, a project's ROCm-only branch) and in a kernel whose block is rows of "
        "32 threads (porter.rules.block_rows: `dim3(32, R)`, `<<<n, 32>>>`, one warp per row), finds shuffle "
        "ladders that start at 32 (`for (o = 32; o > 0; o >>= 1)`, `o = warpSize / 2` on a 64-lane wavefront) and "
        "shuffles by 32 (`__shfl_xor(v, 32)`), at wave64 targets."
    ),
    why=(
        "The row is 32 lanes wide whatever the wavefront: a step of 32 leaves it. Where two rows share a 64-lane "
        "wavefront it adds the other row's values; where a block is one row, lanes 32-63 do not run and the step "
        "reads registers no thread wrote (TileLang's HIP reduction fixed this: NaN in every reduction of a 32-thread "
        "block on CDNA). It compiles, runs, and gives wrong answers."
    ),
    example="// launched with 32 threads a block\nfor (int o = 32; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor(v, o));",
    use_instead="Start the ladder at the row's half, 16, right on every vendor (porter's edit); an unrolled step of 32 is left to a person: drop it.",
)

RULES = (ASSUMES_64_LANES, ROW_WITH_64_LANES)

# `& 63`, `% 64`, `/ 64`, `>> 6` and the PORTER_WARP_SIZE spelling that means the same on CDNA
_ARITHMETIC = {
    ("&", 63): f"({portable.WARP_SIZE} - 1)",
    ("%", 64): portable.WARP_SIZE,
    ("/", 64): portable.WARP_SIZE,
    (">>", 6): portable.LOG2_WARP_SIZE,
}
_OFFSET_CALLS = ("__shfl_xor", "__shfl_down", "__shfl_up")


def check(ctx: FileContext) -> Iterable[Finding]:
    if not ctx.source.kind.is_c_family or ctx.parsed.root is None:
        return
    in_rows = list(_rows_reached_past(ctx)) if ctx.wave64_targets else []
    yield from in_rows
    if not ctx.wave32_targets:
        return  # only a scan for RDNA asks; a width may come from a header, so no prefilter on the file's text
    taken = {(f.span.start_byte, f.span.end_byte) for f in in_rows}  # the row's 16 is right at both widths
    record_launches(ctx)
    slots = list(_wavefront_slots(ctx))
    found = [*_arithmetic(ctx), *_shuffles(ctx), *_lane_loops(ctx), *_full_wave_votes(ctx)]
    found += [finding for key, finding in slots if key is None]
    for finding in found:
        if _applies_on_rdna(ctx, finding, taken):
            yield finding
    for key, finding in slots:
        if key is not None and _applies_on_rdna(ctx, finding, taken):
            ctx.project.pending.append((key, finding))  # reported where a file of the project launches it so


def _applies_on_rdna(ctx: FileContext, finding: Finding, taken: set[tuple[int, int]]) -> bool:
    """Not a row's 16 (right at both widths), and not under a branch that keeps RDNA out (`#ifdef
    __GFX9__`, a wavefront-size test)."""
    return (finding.span.start_byte, finding.span.end_byte) not in taken and _rocm_code_for(ctx, finding, RDNA)


def _rocm_code_for(ctx: FileContext, finding: Finding, environment) -> bool:
    """Is the finding's code written for ROCm (_written_for_rocm) and compiled for `environment`?"""
    live = ctx.branches.live_at(finding.span.start_byte) if ctx.branches.regions else {}
    return live.get(environment.name) is not False and _written_for_rocm(ctx, finding, live)


def _written_for_rocm(ctx: FileContext, finding: Finding, live: dict[str, bool | None]) -> bool:
    """A 64 assumes 64 lanes only in code written for ROCm: a HIP file, a branch NVIDIA does not
    compile (`live`: where the finding's code is compiled), or a width the project sets to 64 on its
    ROCm side alone (`#ifdef USE_ROCM` / `#define WARP_SIZE 64`). In code NVIDIA compiles too, a 64
    is threads, a tile or bits."""
    if ctx.written_for_hip or live.get(CUDA.name) is False:
        return True
    split = _rdna_macro_values(ctx)
    site = ctx.source.text(finding.span.start_byte, finding.span.end_byte)
    return any(name in split for name in IDENT.findall(site))


def rdna_value(ctx: FileContext, node: tree_sitter.Node | None) -> int | None:
    """The value of a literal or constant expression as an RDNA device pass reads it: a macro the
    project defines per platform (`#ifdef __HIP_PLATFORM_AMD__` / `#define WARP_SIZE 64`, a 32
    under `#else`) takes its ROCm-on-RDNA value, where elsewhere it is unknown."""
    return _device_pass_value(ctx, node, RDNA)


def _device_pass_value(ctx: FileContext, node: tree_sitter.Node | None, environment) -> int | None:
    """The value of a literal or constant expression as `environment`'s device pass reads it."""
    if node is None:
        return None
    split = _platform_macro_values(ctx, environment)
    if split:
        text = ctx.source.text(node.start_byte, node.end_byte)
        if "sizeof" not in text and any(name in split for name in IDENT.findall(text)):
            return evaluate(text, {**ctx.shared_constants, **split})
    return warp_value(ctx, node, derived=False)  # 64s: a wave32 rule judges its own terms


def _rdna_macro_values(ctx: FileContext) -> dict[str, int]:
    """The file's platform macros at their RDNA device-pass values."""
    return _platform_macro_values(ctx, RDNA)


def _platform_macro_values(ctx: FileContext, environment) -> dict[str, int]:
    """The file's platform macros at their values in `environment`'s device pass, worked out once per file."""
    return ctx.once(f"{environment.name} macro values", lambda: _values_in(ctx, environment))


def _values_in(ctx: FileContext, environment) -> dict[str, int]:
    values = {}
    for name, per_environment in ctx.branches.platform_macros().items():
        value = per_environment.get(environment.name)
        if type(value) is int:  # False: not defined there; None: unknown; True: defined, no value
            values[name] = value
    return values


def _named(ctx: FileContext, node: tree_sitter.Node, value: int) -> str:
    """` (WARP_SIZE / 2 is 32 on RDNA)` where the value comes through a name, else nothing."""
    if node.type == "number_literal":
        return ""
    return f" (`{short_text(ctx, node)}` is {value} on RDNA)"


def _literal_edits(ctx: FileContext, node: tree_sitter.Node, replacement: str) -> tuple[Edit, ...]:
    """A literal's edit; a named constant (`WARP_SIZE`) is fixed where it is defined, not here."""
    if node.type != "number_literal":
        return ()
    return (Edit(node.start_byte, node.end_byte, replacement.encode()),)


def _arithmetic(ctx: FileContext) -> Iterable[Finding]:
    facts = ctx.device
    for node, left, operator, right in facts.binaries(WARP_OPERATORS, ordered=False):
        value = rdna_value(ctx, right)
        if value is None or not facts.is_device_code(node):
            continue
        if is_last_lane_test(operator, value, lanes=64) and lane_valued(ctx, left):
            replacement = f"({portable.WARP_SIZE} - 1)" if value == 63 else portable.WARP_SIZE
            yield ASSUMES_64_LANES.finding(
                ctx, right.start_byte, right.end_byte,
                f"`{short_text(ctx, left)} {operator} {short_text(ctx, right)}`{_named(ctx, right, value)} tests the edge of a 64-lane wavefront; on wave32 the last lane is 31",
                edits=_literal_edits(ctx, right, replacement),
            )  # fmt: skip
        elif (operator, value) in _ARITHMETIC and is_lane_arithmetic(ctx, node, left, operator, _is_bitset_math):
            yield ASSUMES_64_LANES.finding(
                ctx, right.start_byte, right.end_byte,
                f"`{operator} {short_text(ctx, right)}`{_named(ctx, right, value)} on `{short_text(ctx, left)}` assumes 64-lane wavefronts; RDNA's have 32",
                edits=_literal_edits(ctx, right, _ARITHMETIC[operator, value]),
            )  # fmt: skip


def _is_bitset_math(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """`words[i >> 6] & (1ull << (i & 63))`: a 64-bit bitset indexed by a global id, not a lane."""
    statement = node
    while statement.parent is not None and statement.type not in ("expression_statement", "declaration"):
        statement = statement.parent
    text = re.sub(r"\s+", "", ctx.source.text(statement.start_byte, statement.end_byte))
    return bool(re.search(r"<<\(?\w+(&63|%64)", text) or re.search(r"\[\w+(>>6|/64)\]", text))


def _shuffles(ctx: FileContext) -> Iterable[Finding]:
    for calls in ctx.device.shuffles_by_function.values():
        for call in calls:
            function = call.child_by_field_name("function")
            name = ctx.source.text(function.start_byte, function.end_byte)
            lane, width = shuffle_operands(name, call)
            if width is not None and rdna_value(ctx, width) == 64:
                yield ASSUMES_64_LANES.finding(
                    ctx, width.start_byte, width.end_byte,
                    f"`{name}` with width 64{_named(ctx, width, 64)} spans two 32-lane wavefronts on RDNA",
                    edits=_literal_edits(ctx, width, portable.WARP_SIZE),
                )  # fmt: skip
            value = rdna_value(ctx, lane) if lane is not None else None
            if value is None:
                continue
            if value == 32 and name.startswith(_OFFSET_CALLS):
                # an unrolled butterfly (32, 16, 8, …): on 32 lanes this step must go, not shrink to 16,
                # which would add each pair twice; no edit expresses that, so a person decides
                yield ASSUMES_64_LANES.finding(
                    ctx, lane.start_byte, lane.end_byte,
                    f"`{name}` by 32{_named(ctx, lane, 32)} reaches past a 32-lane wavefront: on RDNA each lane reads "
                    "its own value back; take this step only where `warpSize` is 64",
                    fix=FixKind.MANUAL,
                )  # fmt: skip
            elif value == 63 and name.startswith("__shfl") and not name.startswith(_OFFSET_CALLS):
                yield ASSUMES_64_LANES.finding(
                    ctx, lane.start_byte, lane.end_byte, "lane 63 is the last lane of a 64-wide wavefront; RDNA's last is 31",
                    edits=_literal_edits(ctx, lane, f"({portable.WARP_SIZE} - 1)"),
                )  # fmt: skip


def _lane_loops(ctx: FileContext) -> Iterable[Finding]:
    for loop in captures("(for_statement) @f", ctx.parsed.root).get("f", []):
        parts = for_parts(ctx, loop)
        if parts is None or not ctx.device.is_device_code(loop):
            continue
        counter, start, condition, _ = parts
        stride = _lane_stride(ctx, loop, counter, start)
        if stride is not None:
            yield ASSUMES_64_LANES.finding(
                ctx, stride.start_byte, stride.end_byte,
                f"`{counter}` starts at a lane id and steps by 64{_named(ctx, stride, 64)}: on RDNA's 32 lanes, elements 32-63 of every step are skipped",
                edits=_literal_edits(ctx, stride, portable.WARP_SIZE),
            )  # fmt: skip
            continue
        if not shuffle_uses(ctx, loop, counter):
            continue
        if rdna_value(ctx, start) == 32:
            yield ASSUMES_64_LANES.finding(
                ctx, start.start_byte, start.end_byte,
                f"shuffle ladder starts at `{counter} = 32`{_named(ctx, start, 32)}: on RDNA's 32 lanes its first step reads each lane's own value",
                edits=_literal_edits(ctx, start, f"({portable.WARP_SIZE} / 2)"),
            )  # fmt: skip
            continue
        bound = upper_bound(ctx, condition, counter)
        if bound is not None and rdna_value(ctx, bound) == 64:
            yield ASSUMES_64_LANES.finding(
                ctx, bound.start_byte, bound.end_byte,
                f"loop over lanes runs to 64{_named(ctx, bound, 64)}: on RDNA lanes 32-63 do not exist",
                edits=_literal_edits(ctx, bound, portable.WARP_SIZE),
            )  # fmt: skip


def _lane_stride(ctx: FileContext, loop, counter: str, start) -> tree_sitter.Node | None:
    """The `64` of `for (c = lane; ...; c += 64)`, where the start is a lane id by dataflow."""
    step = loop_step(ctx, loop, counter)
    return step if step is not None and rdna_value(ctx, step) == 64 and _is_lane_id(ctx, start) else None


def _is_lane_id(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """A lane id: classed as one (named so, `% warpSize`), a base plus one, or a thread index taken
    `& 63` / `% 64`."""
    if starts_at_lane(ctx, node) or _takes_lane_of_64(ctx, node):
        return True
    # a name in it initialised so (`const int lane_id = index % WARP_SIZE;`, 64 on ROCm)
    return any(_takes_lane_of_64(ctx, value) for value in ctx.device.initial_values(node))


def _takes_lane_of_64(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """`x & 63`, `x % 64` (or `% WARP_SIZE`, 64 on RDNA) somewhere in the expression."""
    return any(
        (parts := binary_parts(n, ctx.source)) is not None
        and (parts[1], rdna_value(ctx, parts[2])) in (("&", 63), ("%", 64))
        for n in [node, *captures("(binary_expression) @b", node).get("b", [])]
        if n.type == "binary_expression"
    )


# -- a vote compared with all 64 lanes -------------------------------------------------------

_ALL_64_SPELLED = re.compile(
    r"~0(?:x0)?(?:ull|ULL|llu|LLU|ul|UL|lu|LU)|-1(?:ull|ULL|ll|LL)|UINT64_MAX|ULLONG_MAX|"
    r"\((?:uint64_t|unsignedlonglong|unsignedlong|size_t)\)-1|~(?:uint64_t|\(uint64_t\))\(?0\)?|"
    r"static_cast<(?:uint64_t|unsignedlonglong)>\(-1\)"
)
_ALL_64 = (1 << 64) - 1
_FULL_WAVE = f"(0xffffffffffffffffull >> (64 - {portable.WARP_SIZE}))"  # every lane of this wavefront
_POPCOUNTS = ("__popcll", "__popc", "__builtin_popcountll", "__builtin_popcountl")


def _full_wave_votes(ctx: FileContext) -> Iterable[Finding]:
    """`__ballot(p) == ~0ull` and `__popcll(__ballot(p)) == 64`: "did all 64 lanes vote yes". On a
    32-lane wavefront the vote's bits 32-63 are clear, so neither is ever true. The vote is known
    by dataflow (a vote's result, a variable holding one), not by the constant alone: a 64-bit
    all-ones sentinel elsewhere (`handle == ~0ull`) is no lane mask."""
    facts = ctx.device
    for node, left, operator, right in facts.binaries(("==", "!=", "<", ">=", ">", "<=")):
        if not facts.is_device_code(node):
            continue
        for side, other in ((left, right), (right, left)):
            if operator in ("==", "!=") and _is_all_64_lanes(ctx, side) and _is_vote(ctx, other):
                yield ASSUMES_64_LANES.finding(
                    ctx, side.start_byte, side.end_byte,
                    f"`{short_text(ctx, other)} {operator} {short_text(ctx, side)}` compares a vote with all 64 lanes; "
                    "an RDNA wavefront votes with 32, its bits 32-63 clear: never equal, and the path for a full "
                    "wavefront never runs there (the edit compares with the lanes the wavefront has: check that "
                    "path is right on 32 lanes first)",
                    edits=(Edit(side.start_byte, side.end_byte, _FULL_WAVE.encode()),),
                )  # fmt: skip
            elif rdna_value(ctx, side) == 64 and _counts_a_vote(ctx, other):
                yield ASSUMES_64_LANES.finding(
                    ctx, side.start_byte, side.end_byte,
                    f"`{short_text(ctx, other)} {operator} {short_text(ctx, side)}`{_named(ctx, side, 64)} counts a vote "
                    "against 64 lanes; an RDNA wavefront has 32, so at most 32 bits are set",
                    edits=_literal_edits(ctx, side, portable.WARP_SIZE),
                )  # fmt: skip


def _wavefront_slots(ctx: FileContext) -> Iterable[tuple[str | None, Finding]]:
    """`__shared__ float partial[8]` in a kernel launched with 512 threads, written only at warp
    ids: one slot per 64-lane wavefront. On RDNA the block has 16 wavefronts of 32, and wavefronts
    8-15 write past the array's end. The edit sizes it for the 32-lane count, enough at both widths.
    (None, finding) where the file launches the kernel so; (key, finding) for a kernel the file
    launches nowhere (a header's): the finding is reported where a file of the project claims
    that key, launching it with that block (block_rows.record_launches)."""
    for declaration, _, size, name in shared_arrays(ctx):
        kernel = ctx.device.function_of(declaration)
        threads, key = launched_threads(ctx, kernel), None
        slots = ctx.value_of(size)
        if slots is not None and launched_nowhere_here(ctx, kernel):
            threads = 64 * slots
            key = launched_threads_key(kernel.name, threads)
        if threads is None or threads % 64 or threads > MAX_BLOCK_THREADS or slots != threads // 64:
            continue
        _, writes = subscripts_of(ctx, kernel.node, name)
        if at_warp_ids(ctx, writes):
            where = "a file of the project launches it with" if key else "this file launches"
            yield key, ASSUMES_64_LANES.finding(
                ctx, size.start_byte, size.end_byte,
                f"`{name}[{short_text(ctx, size)}]` has one slot per 64-lane wavefront of the {threads}-thread block "
                f"{where}; an RDNA wavefront has 32 lanes, so the block has {threads // 32} and "
                f"wavefronts {threads // 64}-{threads // 32 - 1} write past its end",
                edits=_literal_edits(ctx, size, str(threads // 32)),
            )  # fmt: skip


def _is_all_64_lanes(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """All 64 bits set: `~0ull`, `0xffffffffffffffff`, `UINT64_MAX`, `(uint64_t)-1`, a constant of that value."""
    node = unparenthesized(node)
    text = re.sub(r"\s+", "", ctx.source.text(node.start_byte, node.end_byte))
    return bool(_ALL_64_SPELLED.fullmatch(text)) or ctx.value_of(node) == _ALL_64


def _is_vote(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """A vote's result itself, or a variable holding one (not an expression built from one)."""
    node = unparenthesized(node)
    if node.type == "identifier":  # by dataflow alone: a name is no call of a vote
        return VarClass.MASK in ctx.device.expression_classes(node)
    return node.type == "call_expression" and holds_a_vote(ctx, node)


def _counts_a_vote(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """`__popcll(vote)`: the number of lanes that voted yes."""
    node = unparenthesized(node)
    if node.type != "call_expression" or call_name(node, ctx.source) not in _POPCOUNTS:
        return False
    arguments = call_arguments(node)
    return len(arguments) == 1 and _is_vote(ctx, arguments[0])


# -- WRP019: 64-lane shuffles in the 32-thread rows of a block, at wave64 targets --------------------


def _rows_reached_past(ctx: FileContext) -> Iterable[Finding]:
    """Ladders from 32 and shuffles by 32 in a row kernel's code written for ROCm: each leaves its row."""
    rows = block_rows(ctx)
    if not rows.row_only:
        return
    for finding in [*_row_ladders(ctx, rows), *_row_steps(ctx, rows)]:
        if _rocm_code_for(ctx, finding, CDNA):
            yield finding


def _row_ladders(ctx: FileContext, rows) -> Iterable[Finding]:
    for loop in captures("(for_statement) @f", ctx.parsed.root).get("f", []):
        if not rows.row_only_at(loop.start_byte):
            continue
        parts = for_parts(ctx, loop)
        if parts is None or not shuffle_uses(ctx, loop, parts[0]):
            continue
        counter, start = parts[0], parts[1]
        if _cdna_value(ctx, start) == 32:
            yield ROW_WITH_64_LANES.finding(
                ctx, start.start_byte, start.end_byte,
                f"shuffle ladder starts at `{counter} = {short_text(ctx, start)}` (32 on a 64-lane wavefront) in a kernel whose block is rows of 32 threads: its first step leaves the row",
                # the start itself, named or not: a constant may mean the wavefront elsewhere
                edits=(Edit(start.start_byte, start.end_byte, b"16"),),
            )  # fmt: skip


def _row_steps(ctx: FileContext, rows) -> Iterable[Finding]:
    for name, call in ctx.device.calls_named(SHUFFLE_CALLS):
        if not name.startswith(_OFFSET_CALLS) or not rows.row_only_at(call.start_byte):
            continue
        offset = shuffle_operands(name, call)[0]
        if int_value(offset, ctx.source) == 32:
            yield ROW_WITH_64_LANES.finding(
                ctx, offset.start_byte, offset.end_byte,
                f"`{name}` by 32 in a kernel whose block is rows of 32 threads: the step leaves the row; take it only where a row is 64 lanes",
                fix=FixKind.MANUAL,
            )  # fmt: skip


def _cdna_value(ctx: FileContext, node: tree_sitter.Node | None) -> int | None:
    """A shuffle offset's value on a 64-lane wavefront: a literal or constant, or half the wavefront
    (`warpSize / 2`, `warpSize >> 1`)."""
    if node is None:
        return None
    text = "".join(ctx.source.text(node.start_byte, node.end_byte).split()).strip("()")
    if text in ("warpSize/2", "warpSize>>1"):
        return 32
    return _device_pass_value(ctx, node, CDNA)
