"""Function-like macros read from text, for the one question the scan asks of a preprocessor:
which names does a use of a pasting macro build?

`#define CALL(f, ...) cuda##f(__VA_ARGS__)` used as `CALL(Malloc, &p, n)` builds `cudaMalloc`,
a name that appears nowhere in the source. Reading the definition and the use's arguments
answers that without a compiler: the scan used to parse such files with libclang, at a second
or more per file (the torch headers), for answers this text reading gives in microseconds.

Text-level, one expansion deep: a use inside a comment or string is the caller's to leave out,
and a name built by a macro that another macro calls is found where the inner macro is used.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from porter.source import IDENTIFIER_BYTES

_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)\n]*)\)", re.M)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_PASTE = re.compile(r"\s*##\s*")
_VARIADIC = "__VA_ARGS__"


@dataclass(frozen=True)
class Macro:
    """A function-like macro: its parameters (`...` read as `__VA_ARGS__`) and its body, its
    continuation lines joined."""

    name: str
    parameters: tuple[str, ...]
    body: str
    variadic: bool  # the last parameter takes the rest of the arguments


def pasting_macros(data: bytes, pastes_api: re.Pattern[bytes]) -> dict[str, Macro]:
    """The text's function-like macros whose body `pastes_api` finds a pasted API name in."""
    if b"##" not in data:
        return {}
    found = {}
    for match in _DEFINE.finditer(data):
        body = _logical_rest(data, match.end())
        if b"##" in body and pastes_api.search(body):
            name, written = match.group(1).decode("ascii"), match.group(2).decode("utf-8", "replace")
            parameters = [p.strip() for p in written.split(",") if p.strip()]
            variadic = bool(parameters) and parameters[-1].endswith("...")
            if variadic:  # `...` is __VA_ARGS__; GNU's `args...` names it
                parameters[-1] = parameters[-1].removesuffix("...").strip() or _VARIADIC
            found[name] = Macro(name, tuple(parameters), body.decode("utf-8", "replace"), variadic)
    return found


def _logical_rest(data: bytes, start: int) -> bytes:
    """The rest of a directive's logical line from `start`: continuation lines joined."""
    parts = []
    at = start
    while True:
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        line = data[at:end].rstrip(b"\r")
        if line.endswith(b"\\"):
            parts.append(line[:-1])
            at = end + 1
            continue
        parts.append(line)
        return b" ".join(parts)


@dataclass(frozen=True)
class MacroUse:
    macro: Macro
    start: int  # the macro's name
    end: int  # past the closing parenthesis
    arguments: tuple[str, ...]


def uses(data: bytes, macro: Macro) -> Iterator[MacroUse]:
    """Each `NAME(…)` in the text but the macro's own definition, with its arguments."""
    name = macro.name.encode()
    at = data.find(name)
    while at >= 0:
        after = at + len(name)
        if (at == 0 or data[at - 1] not in IDENTIFIER_BYTES) and not _defines(data, at):
            opening = _skip_blanks(data, after)
            if opening < len(data) and data[opening] == 0x28:  # (
                parsed = _arguments(data, opening)
                if parsed is not None:
                    arguments, end = parsed
                    yield MacroUse(macro, at, end, arguments)
        at = data.find(name, after)


def _defines(data: bytes, at: int) -> bool:
    """Is the name at `at` the one a `#define` defines (or undefines)?"""
    line = data[data.rfind(b"\n", 0, at) + 1 : at]
    return re.fullmatch(rb"[ \t]*#[ \t]*(?:define|undef|ifdef|ifndef)[ \t]+", line) is not None


def _skip_blanks(data: bytes, at: int) -> int:
    while at < len(data) and data[at] in b" \t\r\n":
        at += 1
    return at


_OPENERS, _CLOSERS = b"([{", b")]}"


def _arguments(data: bytes, opening: int) -> tuple[tuple[str, ...], int] | None:
    """The comma-separated arguments of the call whose `(` is at `opening` (commas inside nested
    brackets and literals are not separators), and the offset past its `)`; None where it does
    not close within a few thousand bytes."""
    depth, quote, start, arguments = 0, None, opening + 1, []
    for index in range(opening, min(len(data), opening + 8192)):
        byte = data[index]
        if quote is not None:
            if byte == quote and data[index - 1] != 0x5C:  # an unescaped closing quote
                quote = None
        elif byte in b"\"'":
            quote = byte
        elif byte in _OPENERS:
            depth += 1
        elif byte in _CLOSERS:
            depth -= 1
            if depth == 0:
                arguments.append(data[start:index])
                return tuple(a.decode("utf-8", "replace").strip() for a in arguments), index + 1
        elif byte == 0x2C and depth == 1:  # ,
            arguments.append(data[start:index])
            start = index + 1
    return None


def pasted_names(use: MacroUse) -> set[str]:
    """The identifiers the use builds by pasting: `cudaMalloc` from `cuda##f` with `f` = `Malloc`.
    Names the body or the arguments spell out whole are not among them."""
    values = _bound(use.macro, use.arguments)
    pieces = [_substituted(piece, values) for piece in _PASTE.split(use.macro.body)]
    text, junctions = pieces[0], []
    for piece in pieces[1:]:
        junctions.append(len(text))
        text += piece
    return {
        match.group()
        for match in _IDENTIFIER.finditer(text)
        if any(match.start() < junction < match.end() for junction in junctions)
    }


def _bound(macro: Macro, arguments: tuple[str, ...]) -> dict[str, str]:
    values = {}
    for index, parameter in enumerate(macro.parameters):
        if macro.variadic and index == len(macro.parameters) - 1:
            values[parameter] = ", ".join(arguments[index:])
        else:
            values[parameter] = arguments[index] if index < len(arguments) else ""
    return values


def _substituted(piece: str, values: dict[str, str]) -> str:
    return _IDENTIFIER.sub(lambda m: values.get(m.group(), m.group()), piece)


def all_uses(data: bytes, macros: Iterable[Macro]) -> Iterator[MacroUse]:
    for macro in macros:
        if macro.name.encode() in data:
            yield from uses(data, macro)
