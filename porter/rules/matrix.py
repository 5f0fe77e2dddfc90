"""Tensor cores (category `matrix`): WMMA to rocWMMA, mma.sync/ldmatrix PTX to MFMA builtins."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from porter.findings import Finding, FixKind, Severity
from porter.parse import Context
from porter.rules.base import FileContext, Rule
from porter.rules.ptx import opcode
from porter.rules.tables import read_data

LAYOUT_NOTE = (
    "MFMA operands are laid out differently across the 64 lanes of a wavefront than mma.sync's "
    "across 32, so the loads that fill the fragments change too"
)

WMMA_API = Rule(
    id="MMA001",
    name="wmma-to-rocwmma",
    category="matrix",
    severity=Severity.WARNING,
    fix=FixKind.SUGGESTED,
    summary="`nvcuda::wmma` use: port to rocWMMA",
    what="Finds the WMMA API: `<mma.h>`, `nvcuda::wmma` fragments, `load_matrix_sync`, `mma_sync`, `store_matrix_sync`, `fill_fragment`.",
    why="""
        WMMA is CUDA-only. rocWMMA mirrors it closely (`rocwmma::fragment`, `load_matrix_sync`,
        `mma_sync`, ...) on top of MFMA, but not every shape and type exists, and fragments
        hold a 64-lane wavefront's share of the tile.
        """,
    example="wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;\nwmma::mma_sync(acc, a, b, acc);",
    use_instead="`#include <rocwmma/rocwmma.hpp>` and `rocwmma::fragment<rocwmma::matrix_a, 16, 16, 16, rocwmma::float16_t, rocwmma::row_major>`; the calls keep their names.",
    references=("rocWMMA: https://rocm.docs.amd.com/projects/rocWMMA/en/latest/",),
)

PTX_MMA = Rule(
    id="MMA002",
    unsupported_on_amd=True,
    name="ptx-mma-to-mfma",
    category="matrix",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="`mma.sync` / `ldmatrix` PTX: rewrite with MFMA builtins",
    what="Finds inline PTX tensor-core instructions (`mma.sync`, `mma.sp`, `wmma.*`, `ldmatrix`, `stmatrix`, `movmatrix`) and names the MFMA builtin for the data type and targets.",
    why="There is no PTX on AMD. The matrix cores are reached through `__builtin_amdgcn_mfma_*`, whose tile shapes and operand layouts differ from mma.sync's. "
    + LAYOUT_NOTE
    + ".",
    example='asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" : ...);',
    use_instead="`acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, acc, 0, 0, 0);` (gfx90a, gfx942), or rocWMMA / Composable Kernel, which hide the layouts.",
)

WMMA_SHAPE = Rule(
    id="MMA003",
    unsupported_on_amd=True,
    name="wmma-shape-without-rocwmma",
    category="matrix",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="WMMA fragment shape that rocWMMA does not offer",
    what="Finds WMMA fragments of shape m32n8k16, m8n32k16, m8n8k4 (f64), m8n8k32 (4-bit) and m8n8k128 (1-bit).",
    why="rocWMMA's blocks are 16×16 or 32×32: these shapes have no direct counterpart, so the tiling around them changes.",
    example="wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> a;",
    use_instead="Re-tile to 16×16×16 (or 32×32×8) fragments.",
)

RULES = (WMMA_API, PTX_MMA, WMMA_SHAPE)

_WMMA_USE = re.compile(
    rb"(?<![\w$])(?:nvcuda\s*::\s*)?wmma\s*::\s*(fragment|load_matrix_sync|store_matrix_sync|mma_sync|fill_fragment)\b"
)
_WMMA_BARE = re.compile(
    rb"(?<![\w$:.])(fragment)\s*<|(?<![\w$:.])(load_matrix_sync|store_matrix_sync|mma_sync|fill_fragment)\s*\("
)
_USING_WMMA = re.compile(rb"using\s+namespace\s+(?:::)?nvcuda\s*::\s*wmma\s*;")
_FRAGMENT = re.compile(rb"fragment\s*<\s*[\w:]+\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)")
_DTYPES = (
    ("e4m3", "e4m3"),
    ("e5m2", "e4m3"),
    ("bf16", "bf16"),
    ("tf32", "tf32"),
    ("f16", "f16"),
    ("f64", "f64"),
    ("s8", "s8"),
    ("u8", "s8"),
)


@cache
def matrix_data() -> dict:
    return read_data("matrix.json")


def check(ctx: FileContext) -> Iterable[Finding]:
    if not ctx.source.kind.is_c_family:
        return
    data = ctx.source.data
    if b"wmma" in data or b"mma.h" in data:
        yield from _wmma(ctx)
    for statement in ctx.asm_statements:
        owned = [i for i, e in statement.entries() if e is not None and e.family == "matrix"]
        if owned:
            yield PTX_MMA.finding(ctx, statement.start, statement.end, _mfma_advice(ctx, owned))


def _wmma(ctx: FileContext) -> Iterable[Finding]:
    data = ctx.source.data
    seen_lines: set[int] = set()
    for include in re.finditer(rb"#\s*include\s*[<\"](mma\.h)[>\"]", data):
        yield WMMA_API.finding(
            ctx,
            include.start(1),
            include.end(1),
            "`<mma.h>` is CUDA's WMMA header; rocWMMA's is `<rocwmma/rocwmma.hpp>`",
        )
    uses = list(_WMMA_USE.finditer(data))
    if _USING_WMMA.search(data):
        uses += [m for m in _WMMA_BARE.finditer(data) if not any(u.start() <= m.start() < u.end() for u in uses)]
    for match in sorted(uses, key=lambda m: m.start()):
        if ctx.parsed.context_at(match.start(), match.end()) not in (Context.CODE, Context.MACRO_BODY):
            continue
        line = ctx.source.position(match.start())[0]
        api = (match.group(1) or match.group(2) or b"").decode(errors="replace")
        shape = _FRAGMENT.match(data, match.start(1)) if api == "fragment" else None
        if shape is not None:
            key = "x".join(g.decode() for g in shape.groups())
            facts = matrix_data()["wmma_shapes"].get(key)
            if facts is not None and not facts["rocwmma"]:
                seen_lines.add(line)
                yield WMMA_SHAPE.finding(
                    ctx,
                    match.start(),
                    shape.end(),
                    f"WMMA shape m{key.replace('x', 'n', 1).replace('x', 'k')} has no rocWMMA fragment ({facts['note']})",
                )
                continue
        if line in seen_lines:
            continue
        seen_lines.add(line)
        yield WMMA_API.finding(
            ctx, match.start(), match.end(), f"`wmma::{match.group(1).decode()}` → `rocwmma::{match.group(1).decode()}`"
        )


def _mfma_advice(ctx: FileContext, instructions: list[str]) -> str:
    opcodes = ", ".join(dict.fromkeys(opcode(i) for i in instructions))
    mma = next((i for i in instructions if i.startswith(("mma", "wmma"))), None)
    if mma is None:
        return (
            f"PTX {opcodes}: no ldmatrix on AMD; load the MFMA operand layout from LDS with ordinary loads. "
            + LAYOUT_NOTE
        )
    dtype = next((kind for token, kind in _DTYPES if f".{token}" in opcode(mma)), None)
    options = matrix_data()["mfma"].get(dtype or "", [])
    targets = set(ctx.config.targets)
    chosen = [o for o in options if targets & set(o["targets"])] or options
    if not chosen:
        return f"PTX {opcodes}: no MFMA builtin for this data type; use rocWMMA or Composable Kernel. " + LAYOUT_NOTE
    builtins = "; ".join(f"`{o['builtin']}` ({', '.join(o['targets'])})" for o in chosen)
    return f"PTX {opcodes} ({dtype}): use {builtins}. " + LAYOUT_NOTE
