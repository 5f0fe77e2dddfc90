"""Inline PTX (category `inline-asm`): every asm statement, inventoried by opcode and translated."""

from __future__ import annotations

import re
from collections.abc import Iterable

from porter.findings import Edit, Finding, FixKind, Severity
from porter.parse import captures
from porter.rules.base import FileContext, Rule
from porter.rules.block_rows import block_rows
from porter.rules.consteval import evaluate
from porter.rules.device import IDENT, literal_value, template_parameters
from porter.rules.lane_mask import THIRTY_TWO_BIT_TYPES, WIDE_MASK_TYPES, widened_mask_type
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
        "to a 64-lane wavefront (porter.rules.block_rows), the lane is the row's: `lane = porter_lane_id() % 32`. "
        "A lane mask (`%lanemask_lt`, `_le`, `_gt`, `_ge`, `_eq`) is the wavefront's 64 lanes on wave64: "
        "`below = porter_lanemask_lt();` with `below` declared `porter_lane_mask_t` (porter widens a variable "
        "declared alone; HIP's own `__lanemask_lt()` counts only the active lanes), and within the row, "
        "`(unsigned)(porter_lanemask_lt() >> (porter_lane_id() & 32))`, in a kernel of 32-thread rows."
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
            use = _lop3_use(ctx, statement, instruction) or use
        uses.append(f"`{opcode(instruction)}` → {use}")
    message = "PTX: " + "; ".join(dict.fromkeys(uses))
    edit = _exact_edit(statement, own, in_rows)
    widened = () if edit is None or in_rows else _widened_lane_mask(ctx, statement, own[0][0])
    if edit is not None and widened is not None:
        edits = (edit, *widened)
        return PTX_TRANSLATABLE.finding(ctx, statement.start, statement.end, message, edits=edits, fix=FixKind.AUTO)
    return PTX_TRANSLATABLE.finding(ctx, statement.start, statement.end, message)


def _widened_lane_mask(ctx: FileContext, statement: AsmStatement, instruction: str) -> tuple[Edit, ...] | None:
    """For a read of a PTX lane-mask register (`%lanemask_lt`), the edit that widens the variable it
    is written to, declared alone in 32 bits in the same function, to porter_lane_mask_t: 64 lanes'
    mask kept in 32 bits drops lanes 32-63, so without one the rewrite would be wrong and is not
    made (None). What the variable is handed to is the lane-mask rules' (it holds a mask: device.py),
    as a vote's result is. () for any other instruction, or a variable already 64 bits wide."""
    if "%lanemask_" not in instruction:
        return ()
    if len(statement.operands) != 1 or not IDENT.fullmatch(statement.operands[0]):
        return None
    declared = _declared_type_before(ctx, statement, statement.operands[0])
    if declared is None:
        return None
    spelled = re.sub(r"\s+", " ", ctx.source.text(declared.start_byte, declared.end_byte)).strip()
    if WIDE_MASK_TYPES.search(spelled):
        return ()
    if not THIRTY_TWO_BIT_TYPES.match(spelled):
        return None
    # a signed `int` takes the signed mask type, an int on NVIDIA still: its shifts and comparisons stay
    return (Edit(declared.start_byte, declared.end_byte, widened_mask_type(spelled)),)


def _declared_type_before(ctx: FileContext, statement: AsmStatement, name: str):
    """The type node of the last declaration before the statement, in its function, that declares
    `name` and nothing else (`unsigned below;`); None where there is none."""
    node = ctx.parsed.root.descendant_for_byte_range(statement.start, statement.end) if ctx.parsed.root else None
    while node is not None and node.type != "function_definition":
        node = node.parent
    if node is None:
        return None
    found = None
    for declaration in captures("(declaration) @d", node).get("d", []):
        if declaration.start_byte >= statement.start:
            break
        declarators = [c for c in declaration.named_children if c.type in ("identifier", "init_declarator")]
        if len(declarators) != 1 or declaration.child_by_field_name("type") is None:
            continue
        declarator = declarators[0]
        if declarator.type == "init_declarator":
            declarator = declarator.child_by_field_name("declarator")
        if (
            declarator is not None
            and declarator.type == "identifier"
            and ctx.source.text(declarator.start_byte, declarator.end_byte) == name
        ):
            found = declaration.child_by_field_name("type")
    return found


def _lop3_use(ctx: FileContext, statement: AsmStatement, instruction: str) -> str | None:
    """The bitwise expression of `lop3.b32 d, a, b, c, LUT`: LUT written in the template (`0xE8`), or
    an operand (`%4`) that is a constant, or the enclosing template's parameter (marlin's
    `template <int lut> lop3(...)`: each instantiation in the file, `lop3<(0xf0 & 0xcc) | 0xaa>`).
    None where the table is not known here."""
    parts = instruction.split(" ", 1)[1].split(",") if " " in instruction else []
    if len(parts) != 5:
        return None
    table = parts[4].strip()
    operand = re.fullmatch(r"%(\d+)", table)
    if operand is None:
        value = literal_value(table)
        return None if value is None else _lop3_text(value)
    index = int(operand.group(1))
    if index >= len(statement.operands):
        return None
    expression = statement.operands[index]
    instantiated = _template_argument_values(ctx, statement, expression)
    if instantiated is None:  # no template parameter: a constant, or unknown
        value = evaluate(expression, ctx.shared_constants)
        return None if value is None else _lop3_text(value)
    function_name, values = instantiated
    if not values:
        return None
    tables = "; ".join(f"`{function_name}<{value:#04x}>`: {lop3_expression(value & 0xFF)}" for value in values)
    return f"per instantiation, {tables}{_SOURCES}"


_SOURCES = " (a, b, c: the three sources)"


def _lop3_text(value: int) -> str:
    return f"{lop3_expression(value & 0xFF)}{_SOURCES}"


def _template_argument_values(ctx: FileContext, statement: AsmStatement, name: str) -> tuple[str, list[int]] | None:
    """The function around the statement, by name, and the values the file instantiates its
    template parameter `name` with (`f<0xEA>(...)`), in order; None where `name` is no such parameter."""
    root = ctx.parsed.root
    node = root.descendant_for_byte_range(statement.start, statement.end) if root is not None else None
    function = ctx.device.function_of(node) if node is not None else None
    if function is None or function.node is None:
        return None
    parameters = template_parameters(function.node)
    names = [ctx.source.text(p.start_byte, p.end_byte).split("=")[0].split()[-1] for p in parameters]
    if name not in names:
        return None
    function_name = function.name.split("(")[0].strip().split("::")[-1]
    position = names.index(name)
    values: set[int] = set()
    for arguments in captures("(template_argument_list) @t", root).get("t", []):
        template = arguments.parent
        called = template.child_by_field_name("name") if template is not None else None
        if called is None or ctx.source.text(called.start_byte, called.end_byte) != function_name:
            continue
        given = arguments.named_children
        value = ctx.value_of(given[position]) if len(given) > position else None
        if value is not None:
            values.add(value)
    return function_name, sorted(values)


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
