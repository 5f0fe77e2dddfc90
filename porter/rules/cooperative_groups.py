"""Cooperative groups (category `cooperative-groups`): the APIs HIP lacks, and grid-wide sync."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from porter.findings import Edit, Finding, FixKind, Severity
from porter.parse import initializers
from porter.rules.base import FileContext, Rule
from porter.rules.device import call_arguments, declared_type, unparenthesized
from porter.rules.patterns import CODE_CONTEXTS, finditer, finditer_at, literal_starts
from porter.rules.tables import read_data
from porter.source import identifier_start
from porter.targets import RocmVersion

MISSING_API = Rule(
    id="CGR001",
    unsupported_on_amd=True,
    name="cooperative-groups-api-missing",
    category="cooperative-groups",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="Cooperative-groups API that HIP does not provide",
    what="Finds `cg::reduce`, `cg::inclusive_scan`/`exclusive_scan`, `cg::memcpy_async`/`wait_prior`, `labeled_partition`, `invoke_one`, `block_tile_memory` and the CUDA 12 group accessors, checked against the HIP 5.7, 6.4 and 7.2 headers (`binary_partition` from 6.4, `num_threads()` from 7.2).",
    why="HIP's cooperative groups cover groups, tiles, partitions, shuffles and sync, not CUDA's collective algorithms or asynchronous copies; such calls do not compile.",
    example="float total = cg::reduce(tile, v, cg::plus<float>());",
    use_instead="A shuffle reduction over the tile (`for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);`), hipCUB's WarpReduce/WarpScan, or ordinary loads instead of memcpy_async.",
)

GRID_SYNC = Rule(
    id="CGR002",
    name="grid-sync-launch",
    category="cooperative-groups",
    severity=Severity.WARNING,
    fix=FixKind.SUGGESTED,
    summary="Grid-wide synchronisation and its cooperative launch",
    what="Finds `this_grid().sync()`, `grid.sync()` and `cg::sync(grid)`, and checks that the file launches cooperatively.",
    why="""
        A grid barrier deadlocks unless every block is resident at once, which only a
        cooperative launch (`hipLaunchCooperativeKernel`) guarantees. The number of co-resident
        blocks is an occupancy question that AMD answers differently (64-wide waves, LDS and VGPR
        limits): a grid size tuned for an NVIDIA part can exceed it, and the launch fails.
        """,
    example="cg::grid_group grid = cg::this_grid();\n...\ngrid.sync();",
    use_instead="Launch with `cudaLaunchCooperativeKernel` (hipLaunchCooperativeKernel) and size the grid from `cudaOccupancyMaxActiveBlocksPerMultiprocessor` × the CU count at run time.",
)

AMBIGUOUS_TILE = Rule(
    id="CGR003",
    name="typed-tile-ambiguous-members",
    category="cooperative-groups",
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="A tile from `tiled_partition<N>(block)` held as `auto`: its members are ambiguous in HIP 5.x",
    what="Finds `auto t = cg::tiled_partition<N>(parent)`, which keeps the parent-typed tile (`thread_block_tile<N, thread_block>`).",
    why="""
        In HIP 5.7's cooperative groups the parent-typed tile inherits `size()`, `thread_rank()`
        and `sync()` from two bases without choosing one, so every call is ambiguous ("member
        'size' found in multiple base classes"); HIP 6.4 adds the missing using-declarations
        (checked against both headers). The parent-less `thread_block_tile<N>` declares them in
        both releases, and CUDA converts the typed tile to it implicitly.
        """,
    example="auto warp = cg::tiled_partition<32>(cg::this_thread_block());\nfloat n = warp.size();",
    use_instead="cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());",
)

TILE_SHUFFLE_TYPE = Rule(
    id="CGR004",
    name="tile-shuffle-type",
    category="cooperative-groups",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="A group's shuffle of a half, bfloat16 or vector value: HIP's group shuffles take integers and floating-point values only",
    what="""
        Finds `shfl`, `shfl_xor`, `shfl_down` and `shfl_up` of a cooperative-groups tile or
        coalesced group (a name the function declares as `thread_block_tile<…>`,
        `coalesced_group`, or `auto` from `tiled_partition`/`coalesced_threads`) whose value the
        function declares as `__half`, `__half2`, `__nv_bfloat16`(2), `at::Half`, `c10::BFloat16`
        or a CUDA vector type (`float2`, `int4`, …): a local, a parameter, or an element of a
        pointer or array it declares. A value of a template's type is not judged.
        """,
    why="""
        CUDA's group shuffles take a value of any trivially copyable type. HIP's begin with
        `static_assert(is_valid_type<T>::value, "Neither an integer or float type.")` (HIP 5.7 and
        6.4's headers, checked with hip-clang for gfx942): the call does not compile. DeepSpeed's
        ROCm build converts such values to float around its tile reductions for this reason.
        """,
    example="__half v = x[i];\nv = __hadd(v, warp.shfl_xor(v, 1));",
    use_instead="""
        Shuffle a float and convert back: `__float2half(warp.shfl_xor(__half2float(v), 1))`.
        A `__half` or `__half2` may also take HIP's own `__shfl_xor(v, 1, warp.size())` (no
        bfloat16 overload there: HIP 5.7 has none, 6.4's is ambiguous), a vector type each of its
        members.
        """,
)

RULES = (MISSING_API, GRID_SYNC, AMBIGUOUS_TILE, TILE_SHUFFLE_TYPE)
FIXED_TILE_MEMBERS = (6, 4)


@cache
def cg_availability() -> dict[str, str | None]:
    raw = read_data("api_map.json")
    return raw["cooperative_groups"]


# The names whose absence matters; cluster names belong to the async-copy family (ASY004).
_CHECKED = ("reduce", "inclusive_scan", "exclusive_scan", "memcpy_async", "wait_prior", "invoke_one",
            "invoke_one_broadcast", "labeled_partition", "binary_partition", "block_tile_memory")  # fmt: skip
_METHODS = ("num_threads", "dim_threads", "num_blocks")
_HEADERS = re.compile(rb"#\s*include\s*[<\"](cooperative_groups/(reduce|scan|memcpy_async)\.h)[>\"]")


def _namespaces(data: bytes) -> list[str]:
    aliases = [
        m.group(1).decode() for m in re.finditer(rb"namespace\s+(\w+)\s*=\s*(?:::)?cooperative_groups\s*;", data)
    ]
    return ["cooperative_groups", *aliases]


def check(ctx: FileContext) -> Iterable[Finding]:
    data = ctx.source.data
    if not ctx.source.kind.is_c_family:
        return
    yield from _typed_shuffles(ctx)  # a tile may come from another file, which names the namespace
    if b"cooperative_groups" not in data:
        return
    rocm = ctx.config.rocm_version.release
    table = cg_availability()
    for match in _HEADERS.finditer(data):
        yield MISSING_API.finding(
            ctx, match.start(1), match.end(1), f"`<{match.group(1).decode()}>` has no HIP counterpart"
        )
    namespaces = _namespaces(data)
    using = bool(re.search(rb"using\s+namespace\s+(?:::)?cooperative_groups\s*;", data))
    qualified = _qualified(namespaces, using)
    for match in _checked_calls(data, namespaces, qualified):
        yield from _missing(ctx, match, match.group(1).decode(), table, rocm)
    for match in re.finditer(rf"\.\s*({'|'.join(_METHODS)})\s*\(\s*\)".encode(), data):
        yield from _missing(ctx, match, match.group(1).decode(), table, rocm)
    yield from _grid_syncs(ctx)
    yield from _auto_tiles(ctx, qualified, rocm)


def _auto_tiles(ctx: FileContext, qualified: str, rocm) -> Iterable[Finding]:
    pattern = re.compile(
        rf"(?<![\w$])(auto)(\s+\w+\s*=\s*)({qualified})tiled_partition\s*<\s*([^<>()]+?)\s*>\s*\(".encode()
    )
    for match in finditer(pattern, ctx.source.data):
        if ctx.parsed.context_at(match.start(), match.end()) not in CODE_CONTEXTS:
            continue
        qualifier, size = (match.group(n).decode("utf-8", "surrogateescape") for n in (3, 4))
        tile = f"{qualifier}thread_block_tile<{size}>"
        broken = rocm < FIXED_TILE_MEMBERS
        yield AMBIGUOUS_TILE.finding(
            ctx,
            match.start(1),
            match.end(1),
            f"`auto` keeps the parent-typed tile: its size()/thread_rank()/sync() are ambiguous in HIP 5.x; declare `{tile}`",
            edits=(Edit(match.start(1), match.end(1), tile.encode("utf-8", "surrogateescape")),),
            severity=Severity.ERROR if broken else Severity.INFO,
        )


def _missing(ctx: FileContext, match: re.Match, name: str, table: dict, rocm) -> Iterable[Finding]:
    if ctx.parsed.context_at(match.start(), match.end()) not in CODE_CONTEXTS:
        return
    since = table.get(name)
    if since is not None and rocm >= RocmVersion.of(since).release:
        return
    reason = "no checked HIP release has it" if since is None else f"HIP has it from {since}"
    start = match.start(1)
    yield MISSING_API.finding(ctx, start, match.end(1), f"cooperative groups `{name}`: {reason}")


_GRID_VAR = re.compile(rb"(\w+)\s*=\s*(?:[\w:]+::)?this_grid\s*\(\s*\)")


def _grid_variables(data: bytes):
    """`_GRID_VAR`'s matches, looked for on the lines before each `this_grid`: a regex led by `\\w+`
    tried at every byte of a large file costs more than the rest of the rule."""
    position = data.find(b"this_grid")
    while position >= 0:
        start = data.rfind(b"\n", 0, max(0, data.rfind(b"\n", 0, position))) + 1  # this line and the one before
        end = position + len(b"this_grid")
        for match in _GRID_VAR.finditer(data, start, data.find(b")", end) + 1 or len(data)):
            if match.end() > position:
                yield match
        position = data.find(b"this_grid", end)


def _qualified(namespaces: list[str], using: bool) -> str:
    """The namespace before a name: optional under `using namespace cooperative_groups`."""
    prefix = "|".join(re.escape(n) for n in namespaces)
    return rf"(?:(?:{prefix})\s*::\s*){'?' if using else ''}"


def _checked_calls(data: bytes, namespaces: list[str], qualified: str):
    """The uses of the names in _CHECKED. A match starts at a namespace or at a name: the regex,
    led by lookbehinds, is tried there only (at every byte it cost more than the rest of the rule)."""
    starts = literal_starts(data, [n.encode() for n in (*namespaces, *_CHECKED)])
    return finditer_at(_checked_pattern(qualified), data, starts)


def _checked_pattern(qualified: str) -> re.Pattern[bytes]:
    names = "|".join(_CHECKED)
    return re.compile(rf"(?<![\w$.>:]){qualified}(?<![\w$])({names})\b\s*[<(]".encode())


def _free_syncs(data: bytes, grids: set[str]):
    """`sync(grid)` and `ns::sync(grid)` for the file's grid variables."""
    return finditer_at(_free_sync_pattern(grids), data, _sync_call_starts(data))


def _free_sync_pattern(grids: set[str]) -> re.Pattern[bytes]:
    alternatives = b"|".join(re.escape(g.encode()) for g in sorted(grids))
    return re.compile(rb"(?<![\w$.])(?:[\w]+::)?sync\s*\(\s*(?:" + alternatives + rb")\s*\)")


def _sync_call_starts(data: bytes) -> list[int]:
    """Where a free `sync(grid)` or `ns::sync(grid)` can start: each `sync`, and the name before
    `::` in front of it. The regex, led by a lookbehind and an optional `\\w+::`, would be tried at every byte."""
    starts = []
    for index in sorted(literal_starts(data, [b"sync"])):
        starts.append(index)
        if data[max(index - 2, 0) : index] == b"::":
            starts.append(identifier_start(data, index - 2))
    return starts


def _grid_syncs(ctx: FileContext) -> Iterable[Finding]:
    data = ctx.source.data
    if b"this_grid" not in data:
        return
    grids = {m.group(1).decode() for m in _grid_variables(data)}
    calls = [finditer(re.compile(rb"this_grid\s*\(\s*\)\s*\.\s*sync\s*\(\s*\)"), data)]
    calls += [
        finditer(re.compile(rb"(?<![\w$])" + re.escape(g.encode()) + rb"\s*\.\s*sync\s*\(\s*\)"), data) for g in grids
    ]
    if grids:
        calls.append(_free_syncs(data, grids))
    cooperative = b"LaunchCooperativeKernel" in data
    chevrons = b"<<<" in data
    for found in calls:
        for match in found:
            if ctx.parsed.context_at(match.start(), match.end()) not in CODE_CONTEXTS:
                continue
            if chevrons and not cooperative:
                yield GRID_SYNC.finding(
                    ctx, match.start(), match.end(), "grid-wide sync, but this file launches with <<<>>>: it needs hipLaunchCooperativeKernel",
                    severity=Severity.ERROR,
                )  # fmt: skip
            else:
                yield GRID_SYNC.finding(
                    ctx,
                    match.start(),
                    match.end(),
                    "grid-wide sync: the grid must fit the blocks AMD can keep resident",
                )


# -- CGR004: a group's shuffle of a value HIP's group shuffles refuse ------------------------------
_GROUP_SHUFFLES = frozenset({"shfl", "shfl_xor", "shfl_down", "shfl_up"})
# a group type, with the namespace it is named through, if any (a project's own `group::thread_block_tile`,
# ginkgo's, has shuffles of its own)
_GROUP_TYPE = re.compile(r"(?:(\w+)\s*::\s*)?\b(?:thread_block_tile\s*<|coalesced_group\b)")
_GROUP_FROM = re.compile(rb"\b(?:tiled_partition\s*<[^<>()]*>|coalesced_threads)\s*\(")
# what HIP's is_valid_type (std::is_integral || std::is_floating_point) refuses, as CUDA code names it
_VECTOR = re.compile(r"(?:u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]")
_NOT_ARITHMETIC = re.compile(
    r"(?:(?:at|c10)::)?(?:Half|BFloat16)|__half2?|half2?|__nv_bfloat162?|nv_bfloat162?|__hip_bfloat162?|"
    + _VECTOR.pattern
)
_QUALIFIERS = re.compile(r"\b(?:const|volatile|__restrict__|__restrict)\b|\s+")


def _typed_shuffles(ctx: FileContext) -> Iterable[Finding]:
    if ctx.parsed.root is None or b".shfl" not in ctx.source.data:
        return
    for name, call in ctx.device.calls:
        if name.rpartition(".")[2].strip() not in _GROUP_SHUFFLES:
            continue  # most of a file's calls: judged by the name the calls list holds already
        function = call.child_by_field_name("function")
        if function is None or function.type != "field_expression":
            continue
        field, receiver = function.child_by_field_name("field"), function.child_by_field_name("argument")
        method = ctx.source.text(field.start_byte, field.end_byte) if field is not None else ""
        arguments = call_arguments(call)
        if method not in _GROUP_SHUFFLES or receiver is None or receiver.type != "identifier" or not arguments:
            continue
        owner = ctx.device.function_of(call).node
        if owner is None or not _is_group(ctx, owner, ctx.source.text(receiver.start_byte, receiver.end_byte)):
            continue
        written = _value_type(ctx, owner, unparenthesized(arguments[0]))
        plain = _QUALIFIERS.sub("", written or "").removeprefix("::")
        if not _NOT_ARITHMETIC.fullmatch(plain):
            continue
        instead = "shuffle its members" if _VECTOR.fullmatch(plain) else "shuffle a float and convert back"
        yield TILE_SHUFFLE_TYPE.finding(
            ctx, field.start_byte, field.end_byte,
            f"`{method}` of a `{plain}`: HIP's group shuffles take integers and floating-point values only "
            f"(a static_assert), so this does not compile; {instead}",
        )  # fmt: skip


def _is_group(ctx: FileContext, function, name: str) -> bool:
    """Does the function declare `name` a cooperative-groups tile or coalesced group?"""
    written = declared_type(ctx.source, function, name)
    if written is None:
        return False
    if written.strip() != "auto":
        named = _GROUP_TYPE.search(written)
        return named is not None and named.group(1) in (None, "cg", *_namespaces(ctx.source.data))
    # `auto warp = cg::tiled_partition<32>(block);`: the group is its initialiser's
    return any(
        declared.name == name
        and declared.value is not None
        and function.start_byte <= declared.node.start_byte < function.end_byte
        and _GROUP_FROM.search(ctx.source.data, declared.value.start_byte, declared.value.end_byte) is not None
        for declared in initializers(ctx.parsed.root, ctx.source.data)
    )


def _value_type(ctx: FileContext, function, value) -> str | None:
    """The type the function declares a shuffled value with: a name's, or a pointer's or array's
    element for `x[i]`."""
    if value.type == "identifier":
        return declared_type(ctx.source, function, ctx.source.text(value.start_byte, value.end_byte))
    if value.type == "subscript_expression":
        base = value.child_by_field_name("argument")
        if base is not None and base.type == "identifier":
            return declared_type(ctx.source, function, ctx.source.text(base.start_byte, base.end_byte), element=True)
    return None
