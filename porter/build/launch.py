"""Launch geometry read from the source: each kernel's block size, from `__launch_bounds__` or a
constant launch configuration, with the build's own `-D` integers (occupancy needs it)."""

from __future__ import annotations

import re
from pathlib import Path

from porter.parse import captures, kernel_launches, parse
from porter.rules.consteval import evaluate, file_constants, stand_ins
from porter.source import FileKind, SourceFile


def _command_line_constants(flags: list[str]) -> dict[str, int]:
    """Integer macros the build defines (-DTILE=128), which launch bounds often use."""
    constants = {}
    for flag in flags:
        match = re.fullmatch(r"-D(\w+)=(\d+)", flag)
        if match:
            constants[match.group(1)] = int(match.group(2))
    return constants


def block_sizes(root: Path, rel: str, flags: list[str]) -> dict[str, int]:
    """Kernel name → block size, from __launch_bounds__ or a constant launch configuration."""
    path = root / rel
    kind = FileKind.HIP if path.suffix == ".hip" else FileKind.CUDA
    source = SourceFile.read(path, rel, kind)
    parsed = parse(source, stand_ins(source.data))
    if parsed.root is None:
        return {}
    constants = {**_command_line_constants(flags), **file_constants(source, parsed.root)}
    sizes: dict[str, int] = {}
    for function in captures("(function_definition) @f", parsed.root).get("f", []):
        bounds = [c for c in function.children if c.type == "launch_bounds"]
        declarator = function.child_by_field_name("declarator")
        name_node = declarator.child_by_field_name("declarator") if declarator is not None else None
        if name_node is None:
            continue
        if bounds:
            arguments = [a for a in bounds[0].named_children if a.type != "comment"]
            first = source.text(arguments[0].start_byte, arguments[0].end_byte) if arguments else None
        else:  # the port's `PORTER_LAUNCH_BOUNDS(threads, blocks)`, a macro to the parser
            macro = _PORTED_BOUNDS.search(source.data, function.start_byte, declarator.start_byte)
            first = macro.group(1).decode("utf-8", "replace") if macro else None
        value = evaluate(first, constants) if first else None
        if value:
            sizes[source.text(name_node.start_byte, name_node.end_byte).split("::")[-1]] = value
    for launch in kernel_launches(parsed.root):
        function, arguments = launch.function, launch.arguments
        if function is None or len(arguments) < 2:
            continue
        name = re.sub(r"<.*", "", source.text(function.start_byte, function.end_byte)).split("::")[-1].strip()
        value = evaluate(source.text(arguments[1].start_byte, arguments[1].end_byte), constants)
        if value and name not in sizes:
            sizes[name] = value
    return sizes


_PORTED_BOUNDS = re.compile(rb"PORTER_LAUNCH_BOUNDS\s*\(\s*([^,()]+)")


def base_name(demangled: str) -> str:
    """`void ns::kernel<float, 4>(float*, int)` → `kernel`: template arguments, parameters and the
    return type (demangled names of templates carry one) removed."""
    name = demangled.replace("(anonymous namespace)", "anonymous")
    while re.search(r"<[^<>]*>", name):
        name = re.sub(r"<[^<>]*>", "", name)
    words = name.split("(")[0].split("::")[-1].split()
    return words[-1] if words else name
