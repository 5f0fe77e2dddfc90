"""Brackets and function heads in raw text, for the facts read from a file's text rather than its
tree (a project's headers, read once for the whole scan; a file whose parse broke).

Text-level: a bracket in a comment or a string counts too. The facts that use these look at a few
lines around a match (a wrapper, a forwarding function), where a miscount only loses that one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from porter.source import IDENTIFIER_BYTES, WORD_BYTES

WINDOW = 4096  # bytes these look through, around the match they start from
# words a `(` follows that name no function: statements (`if constexpr (…) {` too), operators, the
# preprocessor's `defined`
NOT_FUNCTIONS = frozenset(
    {
        "if",
        "for",
        "while",
        "switch",
        "catch",
        "return",
        "sizeof",
        "defined",
        "constexpr",
        "decltype",
        "alignof",
        "static_assert",
    }
)


def enclosing_opener(data: bytes, at: int, opener: int = 0x7B, closer: int = 0x7D) -> int | None:
    """The innermost `opener` before `at` not closed before it: the `{` of the block holding `at`,
    or, with `(` and `)` and `at` on a `)`, that parenthesis's own `(`."""
    depth = 0
    for index in range(at - 1, max(-1, at - WINDOW), -1):
        byte = data[index]
        if byte == closer:
            depth += 1
        elif byte == opener:
            if depth == 0:
                return index
            depth -= 1
    return None


def closing_of(data: bytes, opening: int, opener: int = 0x7B, closer: int = 0x7D, window: int = WINDOW) -> int | None:
    """The `closer` that matches the `opener` at `opening`, within `window` bytes of it."""
    depth = 0
    for match in _brackets(opener, closer).finditer(data, opening, min(len(data), opening + window)):
        if data[match.start()] == opener:
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return match.start()
    return None


_PART_TOKENS = re.compile(r"<<|>>|->|[()\[\]{}<>,]")


def top_level_parts(text: str) -> list[str]:
    """`a, f(b, c), k<2, 4>(), d` as its four parts, each stripped: the commas outside brackets, a
    template's angle brackets among them (`<<` and `>>` are shifts, `->` a member: `dim3(1 << 5, 4)`
    is two)."""
    parts, depth, start = [], 0, 0
    for match in _PART_TOKENS.finditer(text):
        token = match.group()
        if token in ("<<", ">>", "->"):
            continue
        if token == ",":
            if depth == 0:
                parts.append(text[start : match.start()].strip())
                start = match.end()
        else:
            depth += 1 if token in "([{<" else -1
    parts.append(text[start:].strip())
    return parts


@cache
def _brackets(opener: int, closer: int) -> re.Pattern[bytes]:
    # a search for the two bytes alone: a Python loop over every byte cost a kernel's 100 KB body 10 ms
    return re.compile(b"[" + re.escape(bytes((opener, closer))) + b"]")


def function_named_before(data: bytes, brace: int) -> str | None:
    """The name of the function whose body opens at `brace` (`name(parameters) const {`), its
    parameters matched back from their `)` however many lines they take; None for a block of a
    statement (`if (…) {`) or anything else."""
    at = _skip_back(data, brace - 1)
    for qualifier in (b"noexcept", b"const"):
        if data[max(0, at - len(qualifier) + 1) : at + 1] == qualifier:
            at = _skip_back(data, at - len(qualifier))
    if at < 0 or data[at] != 0x29:  # )
        return None
    opening = enclosing_opener(data, at, 0x28, 0x29)
    if opening is None:
        return None
    end = opening
    while end > 0 and data[end - 1] in b" \t":
        end -= 1
    start = end
    while start > 0 and data[start - 1] in IDENTIFIER_BYTES:
        start -= 1
    name = data[start:end].decode("ascii", "replace")
    return name if name and name not in NOT_FUNCTIONS else None


def _skip_back(data: bytes, at: int) -> int:
    while at >= 0 and data[at] in b" \t\r\n":
        at -= 1
    return at


def called_names(body: bytes) -> set[str]:
    """The names `body` calls (`f(`, `f<T>(`; not a member's `.f(` or `->f(`), statements' words left out."""
    return {word.decode() for word in _CALLED.findall(body)} - NOT_FUNCTIONS


BODY_LIMIT = 1 << 18  # a function body read for its calls: longer is a brace the text scan mismatched


def body_at(data: bytes, brace: int) -> bytes:
    """The body whose `{` is at `brace`, braces included; empty where its `}` is not found within
    BODY_LIMIT bytes."""
    closing = closing_of(data, brace, window=BODY_LIMIT)
    return data[brace : closing + 1] if closing is not None else b""


def function_braces(data: bytes, name: str) -> Iterator[int]:
    """The offset of the `{` that opens each function `name` the text defines: `name(…) {`, `name(…) const {`."""
    word = name.encode()
    at = data.find(word)
    while at >= 0:
        end = at + len(word)
        if at == 0 or data[at - 1] not in _NOT_BEFORE_A_DEFINITION:
            head = _PARAMETERS_THEN_BODY.match(data, end)
            if head is not None:
                yield head.end() - 1
        at = data.find(word, end)


_CALLED = re.compile(rb"(?<![\w.>])([A-Za-z_]\w*)\s*(?:<[^;{}()]*>\s*)?\(")
_NOT_BEFORE_A_DEFINITION = WORD_BYTES | {ord("."), ord(">")}
_PARAMETERS_THEN_BODY = re.compile(rb"\s*\([^;{]*\)\s*(?:const\s*)?\{")
