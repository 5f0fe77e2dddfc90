"""Warp synchronisation (category `warp-sync`): CUDA's `_sync` intrinsics by ROCm version."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from porter.findings import Finding, FixKind, Severity
from porter.rules.base import FileContext, Rule
from porter.rules.tables import read_data
from porter.targets import RocmVersion

OPT_IN = "HIP_ENABLE_WARP_SYNC_BUILTINS"

SYNC_INTRINSICS = Rule(
    id="SYN001",
    name="sync-shuffle-vote",
    category="warp-sync",
    severity=Severity.WARNING,
    fix=FixKind.AUTO,
    fixed_by_compat_header=True,
    summary="`__shfl*_sync`, `__ballot_sync`, `__any_sync`, `__all_sync`, `__activemask` on the targeted ROCm",
    what="Finds CUDA's mask-taking shuffle and vote intrinsics and says what the targeted ROCm needs for them.",
    why=f"""
        HIP had only the mask-less forms (`__shfl_down`, `__ballot`, ...) until ROCm 6.2. From
        6.2 the `_sync` forms exist as a preview behind `-D{OPT_IN}`, and from 7.0 they are on
        by default. In every release they take a 64-bit mask.
        """,
    example="v += __shfl_down_sync(mask, v, offset);",
    use_instead=f"""
        ROCm ≥ 7.0: nothing, once the mask is 64 bits (see MSK001). ROCm 6.2-6.4: build with
        `-D{OPT_IN}`. Older: the compat header maps the `_sync` forms onto the mask-less ones,
        which is exact when every lane of the wavefront takes part.
        """,
)

SYNCWARP = Rule(
    id="SYN002",
    name="syncwarp",
    category="warp-sync",
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    fixed_by_compat_header=True,
    summary="`__syncwarp` before ROCm 7.0",
    what="Finds `__syncwarp()` where the targeted ROCm predates 7.0, which introduced it.",
    why="The call does not compile on older ROCm. AMD wavefronts execute in lock-step, but the compiler may still reorder shared-memory accesses around a missing barrier.",
    example="smem[lane] = v;\n__syncwarp();\nv = smem[lane ^ 1];",
    use_instead='ROCm ≥ 7.0 has it. Before: the compat header\'s emulation, a wavefront barrier with LDS fences (`__builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront"); __builtin_amdgcn_wave_barrier(); __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");`).',
)

MATCH = Rule(
    id="SYN003",
    name="match-any-all",
    category="warp-sync",
    severity=Severity.WARNING,
    fix=FixKind.AUTO,
    fixed_by_compat_header=True,
    summary="`__match_any_sync` / `__match_all_sync`",
    what="Finds the warp match intrinsics.",
    why=f"""
        ROCm has them from 6.2 (behind `-D{OPT_IN}` until 7.0), implemented with a loop over
        the distinct values rather than in hardware, and they return 64-bit masks.
        """,
    example="unsigned peers = __match_any_sync(__activemask(), key);",
    use_instead="Keep the call on ROCm ≥ 6.2 with a 64-bit result; consider sorting keys first where the match is in a hot loop.",
)

WARP_REDUCE = Rule(
    id="SYN004",
    name="reduce-sync",
    category="warp-sync",
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    fixed_by_compat_header=True,
    summary="`__reduce_*_sync` before ROCm 7.0",
    what="Finds `__reduce_add_sync`, `__reduce_min_sync`, `__reduce_max_sync` and the bitwise forms.",
    why="These warp reductions (an sm_80 hardware feature) exist in HIP only from ROCm 7.0.",
    example="int total = __reduce_add_sync(0xffffffff, count);",
    use_instead="ROCm ≥ 7.0 has them. Before: a shuffle butterfly over `PORTER_WARP_SIZE` lanes, which the compat header provides as an emulation.",
)

RULES = (SYNC_INTRINSICS, SYNCWARP, MATCH, WARP_REDUCE)
_BY_ID = {rule.id: rule for rule in RULES}


@cache
def intrinsics() -> dict[str, dict]:
    raw = read_data("warp_sync.json")
    return raw["intrinsics"]


def check(ctx: FileContext) -> Iterable[Finding]:
    if not ctx.source.kind.is_c_family or ctx.parsed.root is None:
        return
    data = ctx.source.data
    if (b"_sync" not in data and b"__activemask" not in data) or ctx.portable:
        return  # the compat header enables or emulates these
    table = intrinsics()
    rocm = ctx.config.rocm_version.release
    opted_in = OPT_IN.encode() in data
    sites = [(name, call.child_by_field_name("function")) for name, call in ctx.device.calls_named(table)]
    sites += list(_macro_aliases(ctx, table))
    shims = ctx.hip_shims
    for name, node in sites:
        if name in shims:
            continue  # the project defines it for HIP from what HIP has
        facts = table[name]
        verdict = _verdict(name, facts, rocm, opted_in, ctx.config.rocm_version)
        if verdict is None:
            continue
        severity, message = verdict
        yield _BY_ID[facts["rule"]].finding(ctx, node.start_byte, node.end_byte, message, severity=severity)


def _macro_aliases(ctx: FileContext, table: dict):
    """Intrinsics named in macro bodies (`#define SHFL_DOWN __shfl_down_sync`), which are not parsed as calls."""
    from porter.parse import captures

    pattern = re.compile(rb"(?<![\w$])(" + b"|".join(re.escape(n.encode()) for n in table) + rb")\b")
    for body in captures("(preproc_arg) @b", ctx.parsed.root).get("b", []):
        for match in pattern.finditer(ctx.source.data, body.start_byte, body.end_byte):
            yield match.group(1).decode(), _Span(match.start(), match.end())


class _Span:
    def __init__(self, start: int, end: int):
        self.start_byte, self.end_byte = start, end


def _verdict(name: str, facts: dict, rocm: tuple[int, ...], opted_in: bool, label: str) -> tuple[Severity, str] | None:
    available, default = RocmVersion.of(facts["available"]).release, RocmVersion.of(facts["default"]).release
    if rocm >= default:
        return None
    if rocm < available:
        return (
            Severity.ERROR,
            f"`{name}` needs ROCm {facts['available']} (targeting {label}); use the compat header's emulation",
        )
    if opted_in:
        return None
    return Severity.WARNING, f"`{name}` needs `-D{OPT_IN}` on ROCm {label} (on by default from {facts['default']})"
