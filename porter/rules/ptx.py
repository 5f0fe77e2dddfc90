"""Inline PTX: the asm statements of a file, their instructions and operands, and what each becomes.

Shared by the inline-asm, matrix and async-copy families, which each own some opcodes
(data/ptx.json says which). Asm statements inside macro bodies, which tree-sitter leaves
unparsed, are found by a token scan of the macro text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

import tree_sitter

from porter.parse import captures
from porter.rules.tables import read_data
from porter.source import SourceFile, encoded_length

_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'", "r": ""}
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_MACRO_ASM = re.compile(r"\b(?:asm|__asm__|__asm)\s*(?:volatile|__volatile__)?\s*\(")


@dataclass(frozen=True)
class PtxEntry:
    pattern: re.Pattern[str]
    family: str
    rule: str | None
    use: str | None
    template: str | None
    row_template: str | None = None  # what an instruction that reads the lane becomes in a 32-thread row
    row_use: str | None = None
    dropped: str | None = None  # why a HIP program loses nothing without the instruction


@dataclass
class AsmStatement:
    start: int  # the asm expression's bytes
    end: int
    statement_end: int | None  # end of `asm(...)` without the `;`, when it is a whole statement
    template: str
    instructions: list[str]
    operands: list[str]  # C++ operand expressions, outputs first
    in_macro: bool

    def entries(self) -> list[tuple[str, PtxEntry | None]]:
        return [(i, classify(i)) for i in self.instructions]


@cache
def ptx_table() -> list[PtxEntry]:
    raw = read_data("ptx.json")
    return [
        PtxEntry(
            re.compile(e["match"]),
            e["family"],
            e.get("rule"),
            e.get("use"),
            e.get("template"),
            e.get("row_template"),
            e.get("row_use"),
            e.get("dropped"),
        )
        for e in raw["instructions"]
    ]


@cache  # the same instructions recur across a file's asm statements and macros
def classify(instruction: str) -> PtxEntry | None:
    for entry in ptx_table():
        if entry.pattern.search(instruction):
            return entry
    return None


def opcode(instruction: str) -> str:
    return instruction.split(" ", 1)[0]


def _unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


def split_instructions(template: str) -> list[str]:
    """Instructions of a PTX template, whitespace folded, predicates, labels and directives dropped."""
    return list(_split_instructions(template))


@cache  # a template recurs wherever its macro or inline function is used
def _split_instructions(template: str) -> tuple[str, ...]:
    instructions = []
    for piece in re.split(r"[;\n]", template):
        piece = re.sub(r"\s+", " ", piece.replace("{", " { ").replace("}", " } ")).strip()
        piece = re.sub(r"^[{}\s]+", "", piece)
        piece = re.sub(r"^@!?%?\w+\s+", "", piece)
        piece = re.sub(r"^\w+:\s*", "", piece)
        piece = re.sub(r"\s*}\s*$", "", piece).strip()
        if not piece or piece.startswith(".") or piece.startswith("//"):
            continue
        piece = re.sub(r"\{ ", "{", piece)
        piece = re.sub(r" \}", "}", piece)
        instructions.append(piece)
    return tuple(instructions)


def _template_of(node: tree_sitter.Node, source: SourceFile) -> str:
    code = node.child_by_field_name("assembly_code")
    if code is None:
        return ""
    return _template_from(source.text(code.start_byte, code.end_byte))


def asm_template(code: str) -> str:
    """The PTX an asm statement's code holds: its string literals, joined and unescaped."""
    return _template_from(code)


@lru_cache(maxsize=4096)  # a generated file repeats its few templates thousands of times
def _template_from(code: str) -> str:
    return "".join(_unescape(m.group(1)) for m in _STRING.finditer(code))


def _operands(node: tree_sitter.Node, source: SourceFile) -> list[str]:
    operands = []
    for field in ("output_operands", "input_operands"):
        block = node.child_by_field_name(field)
        if block is None:
            continue
        for operand in block.named_children:
            value = operand.child_by_field_name("value")
            if value is not None:
                text = source.text(value.start_byte, value.end_byte).strip()
                operands.append(text[1:-1].strip() if text.startswith("(") and text.endswith(")") else text)
    return operands


def asm_statements(source: SourceFile, root: tree_sitter.Node | None) -> list[AsmStatement]:
    if root is None or (b"asm" not in source.data):
        return []
    found = []
    for node in captures("(gnu_asm_expression) @a", root).get("a", []):
        template = _template_of(node, source)
        statement = node.parent if node.parent is not None and node.parent.type == "expression_statement" else None
        found.append(
            AsmStatement(
                start=node.start_byte,
                end=node.end_byte,
                statement_end=node.end_byte if statement is not None else None,
                template=template,
                instructions=split_instructions(template),
                operands=_operands(node, source),
                in_macro=False,
            )
        )
    for body in captures("(preproc_arg) @b", root).get("b", []):
        found.extend(_macro_asm(source, body))
    return found


def _macro_asm(source: SourceFile, body: tree_sitter.Node) -> list[AsmStatement]:
    text = source.text(body.start_byte, body.end_byte)
    found = []
    for match in _MACRO_ASM.finditer(text):
        tail = text[match.end() :]
        stop = re.search(r"[:)]", _STRING.sub(lambda m: " " * len(m.group()), tail))
        literal_text = tail[: stop.start()] if stop else tail
        template = "".join(_unescape(m.group(1)) for m in _STRING.finditer(literal_text))
        start = body.start_byte + encoded_length(text[: match.start()])
        end = body.start_byte + encoded_length(text[: match.end() + (stop.start() if stop else len(tail))])
        found.append(AsmStatement(start, end, None, template, split_instructions(template), [], in_macro=True))
    return found


# AMD's own assembly: LLVM intrinsic names used as asm labels (`__asm("llvm.amdgcn.s.sleep")`) and
# GCN/CDNA mnemonics (`v_mfma_…`, `s_waitcnt`, `ds_read_b128`, `buffer_load_dword`), as
# composable_kernel and ROCm branches write them. None of it is PTX.
_AMD_ASSEMBLY = re.compile(r"^(llvm\.amdgcn\.|(v|s|ds|buffer|global|flat|scratch|image|exp)_[a-z0-9_]+\b)")


def looks_like_ptx(statement: AsmStatement) -> bool:
    if statement.instructions and all(_AMD_ASSEMBLY.match(i) for i in statement.instructions):
        return False
    return any(
        re.match(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+\b", i) or "%%" in i or "%" in i for i in statement.instructions
    )


def fill_template(template: str, operands: list[str], instruction: str) -> str | None:
    """The template with {N} replaced by the C++ operand that PTX operand %N names."""
    references = [int(n) for n in re.findall(r"%(\d+)", instruction)]
    try:
        values = [operands[n] for n in references]
    except IndexError:
        return None
    try:
        return template.format(*values)
    except (IndexError, KeyError):
        return None


def lop3_expression(immediate: int) -> str:
    """The boolean function of a, b, c that a lop3 lookup table encodes, as C++."""
    known = {0x96: "a ^ b ^ c", 0xE8: "(a & b) | (a & c) | (b & c)", 0xCA: "(a & b) | (~a & c)", 0xF8: "a | (b & c)",
             0xEA: "(a & b) | c", 0x80: "a & b & c", 0xFE: "a | b | c", 0x78: "a ^ (b & c)", 0x1E: "a ^ (b | c)",
             0x6A: "(a & b) ^ c", 0xC0: "a & b", 0xFC: "a | b", 0x3C: "a ^ b"}  # fmt: skip
    if immediate in known:
        return known[immediate]
    terms = []
    for index in range(8):
        if immediate >> index & 1:
            a, b, c = index >> 2 & 1, index >> 1 & 1, index & 1
            terms.append("(" + " & ".join(v if bit else f"~{v}" for v, bit in (("a", a), ("b", b), ("c", c))) + ")")
    return " | ".join(terms) or "0"
