"""AMDGCN lane builtins read for 32 lanes (category `warp-size`): WRP023.

    __device__ unsigned lane_id() { return __builtin_amdgcn_mbcnt_lo(~0u, 0u); }

`v_mbcnt_lo` counts the set bits of the mask's low 32 bits below the lane: the lane id on a 32-lane
RDNA wavefront. On a 64-lane one (every gfx9 GPU, CDNA included) lanes 32-63 find all 32 low bits
below them and all read 32; the id is `__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u,
0u))`, which on wave32 adds nothing (its high half of the mask is empty: LLVM folds it away there).
HIP code written on RDNA, or ported from a wave32 example, keeps the low half alone; on MI300 every
lane past 31 then indexes, shuffles and elects as lane 32.

A file that names mbcnt_hi anywhere knows the high half and is left alone (a test of
`mbcnt_lo(~0u, 0u) == 32` asks on purpose whether the lane is in it), and so is code a wave64
target's device pass does not compile (`#if defined(__gfx11__)`), or a file of RDNA's own matrix
builtins (`__builtin_amdgcn_wmma_…`, which no gfx9 target has).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import tree_sitter

from porter.findings import Edit, Finding, FixKind, Severity
from porter.rules.base import FileContext, Rule
from porter.rules.branches import CDNA
from porter.rules.device import call_arguments

LOW_HALF_LANE_ID = Rule(
    id="WRP023",
    name="lane-id-from-low-half",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="`__builtin_amdgcn_mbcnt_lo(~0u, 0)` as a lane id, which counts 32 lanes",
    what=(
        "Finds `__builtin_amdgcn_mbcnt_lo` of an all-ones mask and 0, taken as the lane's id without "
        "`__builtin_amdgcn_mbcnt_hi` around it, in code a wave64 target compiles."
    ),
    why="""
        mbcnt_lo counts the mask's bits below the lane among the low 32 lanes only. On a 64-lane
        wavefront lanes 32-63 all read 32: they index the same element, shuffle from the same
        lane and all pass a `lane == 32` test, and no lane reads 33-63. Correct on RDNA's 32
        lanes, where it is usually written and tested.
        """,
    example="__device__ unsigned lane_id() { return __builtin_amdgcn_mbcnt_lo(~0u, 0u); }",
    use_instead=(
        "`__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u))` (the same value on wave32, where "
        "the mask's high half is empty), or `__lane_id()`."
    ),
)

RULES = (LOW_HALF_LANE_ID,)

_ALL_ONES = re.compile(r"^\(?\s*(?:~\s*0[uU]?[lL]{0,2}|0[xX][fF]{8}[uU]?|-\s*1|~\s*\(\s*0[uU]?\s*\))\s*\)?$")
_ZERO = re.compile(r"^0[uU]?$")
_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})


def check(ctx: FileContext) -> Iterable[Finding]:
    data = ctx.source.data
    if ctx.parsed.root is None or b"__builtin_amdgcn_mbcnt_lo" not in data or not ctx.wave64_targets:
        return
    if b"__builtin_amdgcn_mbcnt_hi" in data or b"__builtin_amdgcn_wmma_" in data:
        return
    for _, call in ctx.device.calls_named("__builtin_amdgcn_mbcnt_lo"):
        if _counts_from_zero(ctx, call) and not _compared(call) and ctx.branches.holds_for(call, CDNA) is not False:
            text = ctx.source.data[call.start_byte : call.end_byte]
            yield LOW_HALF_LANE_ID.finding(
                ctx, call.start_byte, call.end_byte,
                "`__builtin_amdgcn_mbcnt_lo` counts the low 32 lanes of the mask: on a 64-lane wavefront "
                "lanes 32-63 all read 32",
                edits=(Edit(call.start_byte, call.end_byte, b"__builtin_amdgcn_mbcnt_hi(~0u, " + text + b")"),),
            )  # fmt: skip


def _counts_from_zero(ctx: FileContext, call: tree_sitter.Node) -> bool:
    """`mbcnt_lo(~0u, 0u)`: every lane's bit, counted from 0 (a lane id, not a running count)."""
    arguments = call_arguments(call)
    if len(arguments) != 2:
        return False
    mask, start = (ctx.source.text(a.start_byte, a.end_byte).strip() for a in arguments)
    return bool(_ALL_ONES.match(mask)) and bool(_ZERO.match(start))


def _compared(call: tree_sitter.Node) -> bool:
    """Is the call an operand of a comparison (`mbcnt_lo(~0u, 0u) == 32`: which half am I in)?"""
    parent = call.parent
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    operator = (
        parent.child_by_field_name("operator") if parent is not None and parent.type == "binary_expression" else None
    )
    return operator is not None and operator.type in _COMPARISONS
