"""Cooperative groups (category `cooperative-groups`): the APIs HIP lacks, and grid-wide sync."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from porter.findings import Edit, Finding, FixKind, Severity
from porter.rules.base import FileContext, Rule
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

RULES = (MISSING_API, GRID_SYNC, AMBIGUOUS_TILE)
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
    if not ctx.source.kind.is_c_family or b"cooperative_groups" not in data:
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
