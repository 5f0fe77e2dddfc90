"""Tensor cores (category `matrix`): WMMA to rocWMMA, mma.sync/ldmatrix PTX to MFMA builtins."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import cache

from porter.findings import Edit, Finding, FixKind, Severity
from porter.parse import Context
from porter.rules.base import WMMA_HEADER, FileContext, Rule
from porter.rules.consteval import evaluate
from porter.rules.patterns import within_any
from porter.rules.ptx import opcode
from porter.rules.tables import read_data
from porter.targets import known as known_targets

LAYOUT_NOTE = (
    "MFMA operands are laid out differently across the 64 lanes of a wavefront than mma.sync's "
    "across 32, so the loads that fill the fragments change too"
)

WMMA_API = Rule(
    id="MMA001",
    name="wmma-on-mfma",
    category="matrix",
    severity=Severity.INFO,
    fix=FixKind.AUTO,
    summary="`nvcuda::wmma` use: runs on the MFMA matrix cores through porter_wmma.h",
    what="Finds the WMMA API (`<mma.h>`, `nvcuda::wmma` fragments, `load_matrix_sync`, `mma_sync`, `store_matrix_sync`, `fill_fragment`) in the subset porter_wmma.h implements: 16x16x16 fragments of half or bfloat16, float or half accumulators, either layout.",
    why="""
        WMMA is CUDA-only, and AMD's rocWMMA is not packaged where porter builds. porter_wmma.h,
        generated beside the compat header, implements that subset of `nvcuda::wmma` on the MFMA
        builtins of gfx90a, gfx942 and gfx950 with AMD's operand layouts (under nvcc it is
        `<mma.h>`): the include is the only edit. A fragment is held by a 64-lane wavefront there,
        so warps per block and tile ownership must count the wavefront (the warp-size rules).
        """,
    example="#include <mma.h>\nwmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;",
    use_instead='`#include "porter_wmma.h"`; the fragments and calls keep their names.',
    references=("AMD matrix instruction calculator: https://github.com/ROCm/amd_matrix_instruction_calculator",),
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
    name="wmma-shape-without-mfma-port",
    category="matrix",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="WMMA fragment shape porter_wmma.h does not implement",
    what="Finds WMMA fragments of a shape other than 16x16x16: m32n8k16, m8n32k16, m16n16k8 (tf32), m8n8k4 (f64), m8n8k32 (4-bit), m8n8k128 (1-bit).",
    why="porter_wmma.h runs the 16x16x16 MFMA forms; other shapes change the tiling around them (rocWMMA's blocks are 16x16 or 32x32).",
    example="wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> a;",
    use_instead="Re-tile to 16x16x16 fragments.",
)

WMMA_TYPE = Rule(
    id="MMA004",
    unsupported_on_amd=True,
    name="wmma-type-without-mfma-port",
    category="matrix",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="WMMA element type or operation porter_wmma.h does not implement",
    what="Finds 16x16x16 fragments of other element types (`precision::tf32`, `signed char`, `unsigned char`, `int`, `double`, `experimental::precision`) and WMMA operations outside the subset (`bmma_sync`, `__float_to_tf32`).",
    why="porter_wmma.h implements half and bfloat16 inputs with float or half accumulators. MFMA has integer, tf32 (gfx942) and f64 forms, but their fragments are not written yet.",
    example="wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> a;",
    use_instead="Half or bfloat16 inputs, or the MFMA builtin for the type by hand (`__builtin_amdgcn_mfma_i32_16x16x32_i8` on gfx942).",
)

RULES = (WMMA_API, PTX_MMA, WMMA_SHAPE, WMMA_TYPE)

_WMMA_USE = re.compile(
    rb"(?<![\w$])(?:nvcuda\s*::\s*)?wmma\s*::\s*(fragment|load_matrix_sync|store_matrix_sync|mma_sync|fill_fragment|bmma_sync|__float_to_tf32)\b"
)
_WMMA_BARE = re.compile(
    rb"(?<![\w$:.])(fragment)\s*<|(?<![\w$:.])(load_matrix_sync|store_matrix_sync|mma_sync|fill_fragment|bmma_sync|__float_to_tf32)\s*\("
)
_MMA_INCLUDE = re.compile(rb"#\s*include\s*(<mma\.h>|\"mma\.h\")")
_MFMA_INPUTS = frozenset({"half", "__half", "__nv_bfloat16", "nv_bfloat16", "__hip_bfloat16"})
_UNSUPPORTED_OPERATIONS = {
    "bmma_sync": "1-bit matrix products have no MFMA form",
    "__float_to_tf32": "tf32 fragments are not written yet",
}
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
    yield from _wmma_includes(ctx)
    ported = ctx.portable or WMMA_HEADER.encode() in data
    seen_lines: set[int] = set()
    uses = list(_WMMA_USE.finditer(data))
    if _USING_WMMA.search(data):
        qualified = within_any([use.span() for use in uses])
        uses += [m for m in _WMMA_BARE.finditer(data) if not qualified(m.start())]
    for match in sorted(uses, key=lambda m: m.start()):
        if ctx.parsed.context_at(match.start(), match.end()) not in (Context.CODE, Context.MACRO_BODY):
            continue
        line = ctx.source.position(match.start())[0]
        api = (match.group(1) or match.group(2) or b"").decode(errors="replace")
        missing = _outside_subset(ctx, data, match, api)
        if missing is not None:
            rule, end, message = missing
            seen_lines.add(line)
            yield rule.finding(ctx, match.start(), end, message)
            continue
        if line in seen_lines or ported:
            continue  # a converted file (compat header or porter_wmma.h included) has nothing left to do here
        seen_lines.add(line)
        yield WMMA_API.finding(ctx, match.start(), match.end(), f"`wmma::{api}` runs on MFMA through porter_wmma.h")


def _wmma_includes(ctx: FileContext) -> Iterable[Finding]:
    """`#include <mma.h>` becomes porter_wmma.h (at the tree's root, beside the compat header); on a
    target without MFMA (RDNA's matrix instructions are WMMA, wave32) the include is work for a person."""
    header = os.path.relpath(WMMA_HEADER, os.path.dirname(ctx.source.rel) or ".").replace(os.sep, "/")
    without_mfma = [t.id for t in known_targets(ctx.config.targets) if t.is_amd and t.matrix != "mfma"]
    for include in _MMA_INCLUDE.finditer(ctx.source.data):
        if without_mfma:
            yield WMMA_TYPE.finding(
                ctx, include.start(1), include.end(1),
                f"WMMA on {', '.join(without_mfma)}: porter_wmma.h runs on MFMA (gfx90a, gfx942, gfx950); "
                "RDNA's wave32 WMMA instructions are not written yet",
            )  # fmt: skip
        yield WMMA_API.finding(
            ctx,
            include.start(1),
            include.end(1),
            "`<mma.h>` is CUDA's WMMA header: porter_wmma.h runs the same API on the MFMA matrix cores",
            edits=(Edit(include.start(1), include.end(1), f'"{header}"'.encode()),),
        )


def _outside_subset(ctx: FileContext, data: bytes, match: re.Match, api: str) -> tuple[Rule, int, str] | None:
    """The rule, end and message of a WMMA use porter_wmma.h cannot run, or None."""
    if api in _UNSUPPORTED_OPERATIONS:
        return WMMA_TYPE, match.end(), f"`wmma::{api}` is not in porter_wmma.h ({_UNSUPPORTED_OPERATIONS[api]})"
    if api != "fragment":
        return None
    arguments = _template_arguments(data, match.end(1))
    if arguments is None or len(arguments) < 5:
        return None
    use, shape, element = arguments[0], arguments[1:4], re.sub(r"\s+", " ", arguments[4])
    values = [evaluate(text, ctx.shared_constants) for text in shape]
    end = match.end(1) + 1
    if None not in values and values != [16, 16, 16]:
        key = "x".join(str(v) for v in values)
        note = matrix_data()["wmma_shapes"].get(key, {}).get("note", "no 16x16x16 MFMA form")
        shape_name = "m{}n{}k{}".format(*values)
        return WMMA_SHAPE, end, f"WMMA shape {shape_name}: porter_wmma.h runs 16x16x16 fragments ({note})"
    accumulator = use.split("::")[-1] == "accumulator"
    element_name = element.split("::")[-1]
    if element_name in _MFMA_INPUTS or (accumulator and element_name == "float"):
        return None
    return WMMA_TYPE, end, f"WMMA fragments of `{element}`: porter_wmma.h runs half and bfloat16 (float accumulators)"


def _template_arguments(data: bytes, start: int) -> list[str] | None:
    """The top-level arguments of the `<…>` that opens at or after `start` (on one statement)."""
    opening = data.find(b"<", start, start + 40)
    if opening < 0:
        return None
    depth, current, arguments = 0, bytearray(), []
    for index in range(opening + 1, min(len(data), opening + 400)):
        char = data[index : index + 1]
        if char in b"<([":
            depth += 1
        elif char in b")]" or (char == b">" and depth):
            depth -= 1
        elif char == b">":
            arguments.append(current.decode(errors="replace").strip())
            return arguments
        elif char == b"," and depth == 0:
            arguments.append(current.decode(errors="replace").strip())
            current = bytearray()
            continue
        elif char == b";":
            return None
        current += char
    return None


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
    return (
        f"PTX {opcodes} ({dtype}): use {builtins}.{_tiles_per_mfma(opcode(mma), chosen[0]['builtin'])} " + LAYOUT_NOTE
    )


def _tiles_per_mfma(ptx: str, builtin: str) -> str:
    """How many of the PTX instruction's tiles one MFMA covers: `m16n8k16` into 16x16x16 is two along n."""
    tile = re.search(r"\.m(\d+)n(\d+)k(\d+)", ptx)
    mfma = re.search(r"_(\d+)x(\d+)x(\d+)", builtin)
    if tile is None or mfma is None:
        return ""
    (m, n, k), (mm, nn, kk) = (tuple(int(v) for v in g.groups()) for g in (tile, mfma))
    if mm % m or nn % n or (kk % k and k % kk):
        return f" The PTX tile m{m}n{n}k{k} does not divide the builtin's {mm}x{nn}x{kk}: re-tile."
    steps = f"{k // kk} MFMA steps along k" if k > kk else f"{(mm // m) * (nn // n) * (kk // k)} PTX tile(s) per MFMA"
    return f" The PTX tile m{m}n{n}k{k} maps onto the builtin's {mm}x{nn}x{kk}: {steps}."


def wmma_header_needed(findings: Iterable[Finding]) -> bool:
    """Does a conversion of these findings include porter_wmma.h (so convert must write it)?"""
    return any(f.rule == WMMA_API.id and f.edits for f in findings)
