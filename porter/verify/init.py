"""`porter verify --init`: verification cases proposed from kernel signatures, for a person to complete."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from porter.config import Config
from porter.discover import discover
from porter.parse import captures, parse
from porter.rules.consteval import stand_ins
from porter.source import SourceFile

C_TYPES = {
    "double": "f64", "float": "f32", "__half": "f16", "half": "f16", "__nv_bfloat16": "bf16",
    "int64_t": "i64", "long long": "i64", "long": "i64", "int": "i32", "int32_t": "i32", "int16_t": "i16",
    "short": "i16", "int8_t": "i8", "char": "i8", "uint64_t": "u64", "unsigned long long": "u64",
    "size_t": "u64", "uint32_t": "u32", "unsigned": "u32", "unsigned int": "u32", "uint8_t": "u8",
    "unsigned char": "u8", "bool": "u8",
}  # fmt: skip


def _parameters(source: SourceFile, function) -> list[tuple[str, str]]:
    """(type text, name) per parameter, as written."""
    declarator = function.child_by_field_name("declarator")
    found = captures("(parameter_declaration) @p", declarator).get("p", []) if declarator is not None else []
    out = []
    for parameter in sorted(found, key=lambda node: node.start_byte):
        text = " ".join(source.text(parameter.start_byte, parameter.end_byte).split())
        match = re.match(r"(.*?)([A-Za-z_]\w*)\s*(\[\s*\])?$", text)
        if match:
            kind = match.group(1).strip() + ("*" if match.group(3) else "")
            out.append((kind, match.group(2)))
    return out


def _arg_line(kind: str, name: str, type_parameters: set[str]) -> str:
    pointer = "*" in kind
    base = re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict)\b|\*", " ", kind)
    base = " ".join(base.split())
    dtype = "f32" if base in type_parameters else C_TYPES.get(base)
    if dtype is None:
        return f"  # TODO {name}: `{kind}` has no dtype porter generates; wrap the kernel or pick a dtype"
    if not pointer:
        return f'  {{ name = "{name}", dtype = "{dtype}", value = 0 }},  # TODO value'
    output = "" if re.search(r"\bconst\b", kind) else ", output = true"
    init = "zeros" if output else "randn" if dtype.startswith(("f", "b")) else "range(0, 100)"
    return f'  {{ name = "{name}", dtype = "{dtype}", size = "n", init = "{init}"{output} }},'


def _case(rel: str, name: str, kernel: str, parameters: list[tuple[str, str]], type_parameters: set[str]) -> str:
    template = bool(type_parameters)
    lines = [
        "[[verify.case]]",
        f'name = "{name}"',
        f'source = "{rel}"',
        f'kernel = "{kernel}<{", ".join("float" for _ in type_parameters)}>"  # TODO a template: check the instantiation'
        if template
        else f'kernel = "{kernel}"',
        "params = { n = 4096 }  # TODO sizes",
        'grid = "(n + 255) / 256"  # TODO',
        "block = 256",
        "args = [",
        *(_arg_line(kind, pname, type_parameters) for kind, pname in parameters),
        "]",
        "",
    ]
    return "\n".join(lines)


def _type_parameters(source: SourceFile, function) -> set[str]:
    """A template kernel's type parameters; the proposal instantiates them with float."""
    parent = function.parent
    if parent is None or parent.type != "template_declaration":
        return set()
    text = source.text(parent.start_byte, function.start_byte)
    return set(re.findall(r"\b(?:typename|class)\s+([A-Za-z_]\w*)", text))


def propose(root: Path, config: Config) -> str:
    proposals = []
    blocks = ["# Proposed by `porter verify --init` from the kernels' signatures: complete the TODOs.", ""]
    for found in discover([root], config).files:
        if not found.kind.is_c_family:
            continue
        source = SourceFile.read(found.path, found.rel, found.kind)
        parsed = parse(source, stand_ins(source.data))
        if parsed.tree is None:
            continue
        for function in captures("(function_definition) @f", parsed.tree.root_node).get("f", []):
            specifiers = {child.type for child in function.children}
            if "__global__" not in specifiers:
                continue
            declarator = function.child_by_field_name("declarator")
            name_node = declarator.child_by_field_name("declarator") if declarator is not None else None
            if name_node is None:
                continue
            name = source.text(name_node.start_byte, name_node.end_byte)
            proposals.append((source.rel, name, _parameters(source, function), _type_parameters(source, function)))
    counts = Counter(name for _, name, _, _ in proposals)
    for rel, name, parameters, template in proposals:
        case_name = name if counts[name] == 1 else f"{Path(rel).with_suffix('').as_posix().replace('/', '_')}_{name}"
        blocks.append(_case(rel, case_name, name, parameters, template))
    return "\n".join(blocks)
