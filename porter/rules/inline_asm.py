"""Inline PTX (category `inline-asm`): every asm statement, inventoried by opcode and translated."""

from __future__ import annotations

import re
from collections.abc import Iterable

from porter.findings import Edit, Finding, FixKind, Severity
from porter.rules.base import FileContext, Rule
from porter.rules.block_rows import block_rows
from porter.rules.ptx import AsmStatement, fill_template, looks_like_ptx, lop3_expression, opcode

WHY_PTX = """
    PTX is NVIDIA's virtual ISA: hipcc cannot assemble it, so every `asm` statement that holds
    PTX stops the AMD build. Most inline PTX in the wild does something HIP already offers as
    an intrinsic or plain C++ (read the lane id, a non-caching load, a byte permute, a fused
    multiply-add); those translate mechanically. The rest needs a person.
    """

PTX_TRANSLATABLE = Rule(
    id="ASM001",
    name="ptx-with-hip-equivalent",
    category="inline-asm",
    severity=Severity.ERROR,
    fix=FixKind.SUGGESTED,
    summary="Inline PTX whose instructions all have HIP or C++ equivalents",
    what="Finds asm statements whose every PTX instruction maps to a HIP intrinsic or plain C++ (`%laneid`, `ld.global.nc`, `shfl.sync`, `prmt`, `bfe`/`bfi`, `lop3`, `cvt.rn.f16x2.f32`, `mov.b32` packing, `fma.rn`, `red`/`atom`, fences, ...).",
    why=WHY_PTX,
    example='asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));',
    use_instead=(
        "`lane = __lane_id();` — porter rewrites single-instruction statements with an exact equivalent itself "
        "(fix: auto) and names the equivalent for the others. In a kernel whose block is rows of 32 threads, two "
        "to a 64-lane wavefront (porter.rules.block_rows), the lane is the row's: `lane = porter_lane_id() % 32`."
    ),
)

PTX_UNTRANSLATABLE = Rule(
    id="ASM002",
    unsupported_on_amd=True,
    name="ptx-without-equivalent",
    category="inline-asm",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="Inline PTX with an instruction porter cannot map",
    what="Finds asm statements holding PTX instructions that have no known HIP or C++ equivalent; the finding lists their opcodes.",
    why=WHY_PTX,
    example='asm volatile("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));',
    use_instead="Rewrite the operation in C++ or with `__builtin_amdgcn_*` builtins, and keep the PTX path for NVIDIA behind `#ifndef __HIP_PLATFORM_AMD__`.",
)

RULES = (PTX_TRANSLATABLE, PTX_UNTRANSLATABLE)


def check(ctx: FileContext) -> Iterable[Finding]:
    if not ctx.source.kind.is_c_family:
        return
    for statement in ctx.asm_statements:
        if not looks_like_ptx(statement):
            continue
        own = [(i, e) for i, e in statement.entries() if e is None or e.family == "inline-asm"]
        if not own:
            continue  # owned wholly by the matrix or async-copy families
        unknown = [opcode(i) for i, e in own if e is None]
        if unknown:
            yield PTX_UNTRANSLATABLE.finding(
                ctx, statement.start, statement.end,
                f"PTX with no HIP equivalent: {', '.join(dict.fromkeys(unknown))}",
            )  # fmt: skip
            continue
        yield _translation(ctx, statement, own)


def _translation(ctx: FileContext, statement: AsmStatement, own) -> Finding:
    # two 32-thread rows to a wavefront: what reads the lane reads it within the row
    in_rows = bool(ctx.wave64_targets) and block_rows(ctx).two_rows_at(statement.start)
    uses = []
    for instruction, entry in own:
        use = (entry.row_use if in_rows else None) or entry.use or "plain C++"
        if instruction.startswith("lop3"):
            immediate = re.search(r"(0x[0-9a-fA-F]+|\d+)\s*$", instruction)
            if immediate:
                use = f"{lop3_expression(int(immediate.group(1), 0))} (a, b, c: the three sources)"
        uses.append(f"`{opcode(instruction)}` → {use}")
    message = "PTX: " + "; ".join(dict.fromkeys(uses))
    edit = _exact_edit(statement, own, in_rows)
    if edit is not None:
        return PTX_TRANSLATABLE.finding(ctx, statement.start, statement.end, message, edits=(edit,), fix=FixKind.AUTO)
    return PTX_TRANSLATABLE.finding(ctx, statement.start, statement.end, message)


def _exact_edit(statement: AsmStatement, own, in_rows: bool) -> Edit | None:
    """A whole-statement rewrite, when the statement is one instruction with an exact template (its
    row template `in_rows`, where it has one)."""
    if statement.in_macro or statement.statement_end is None or len(own) != 1 or len(statement.instructions) != 1:
        return None
    instruction, entry = own[0]
    if entry is None:
        return None
    template = (entry.row_template if in_rows else None) or entry.template
    if template is None:
        return None
    replacement = fill_template(template, statement.operands, instruction)
    if replacement is None:
        return None
    # operands are the file's own bytes, decoded with surrogateescape: encode them back the same way
    return Edit(statement.start, statement.end, replacement.encode("utf-8", "surrogateescape"))
