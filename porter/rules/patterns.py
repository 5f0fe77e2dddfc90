"""Token patterns in code: the shared matcher for rules that look for API names.

A pattern matches in the raw bytes (so macro bodies and files with ERROR nodes count), and the
tree-sitter context then drops matches inside comments and string literals.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from porter.findings import Finding
from porter.parse import Context
from porter.rules.base import FileContext, Rule
from porter.source import IDENTIFIER_BYTES

CODE_CONTEXTS = (Context.CODE, Context.MACRO_BODY)


# `(?<![\w$])`: an identifier starts here. Leading a pattern, a lookbehind keeps Python's regex
# engine from its fast search for the first literal or character set: it tries the pattern at every
# byte (0.24 s for one six-way pattern over a 5 MB tree). Matching without it and checking the byte
# before each match gives the same matches several times faster.
WORD_START = rb"(?<![\w$])"


@cache
def word_led(regex: re.Pattern[bytes]) -> re.Pattern[bytes] | None:
    """`regex` without WORD_START where every top-level alternative begins with it and it stands
    nowhere else (so it always tests the match's first byte); otherwise None."""
    alternatives = _top_level_alternatives(regex.pattern)
    if not all(a.startswith(WORD_START) and WORD_START not in a[len(WORD_START) :] for a in alternatives):
        return None
    return re.compile(b"|".join(a[len(WORD_START) :] for a in alternatives), regex.flags)


def _top_level_alternatives(regex: bytes) -> list[bytes]:
    parts, depth, start, escaped, in_class = [], 0, 0, False, False
    for index, char in enumerate(regex):
        if escaped:
            escaped = False
        elif char == ord("\\"):
            escaped = True
        elif in_class:
            in_class = char != ord("]")
        elif char == ord("["):
            in_class = True
        elif char == ord("("):
            depth += 1
        elif char == ord(")"):
            depth -= 1
        elif char == ord("|") and depth == 0:
            parts.append(regex[start:index])
            start = index + 1
    return [*parts, regex[start:]]


def finditer(regex: re.Pattern[bytes], data: bytes):
    """The matches of `regex.finditer(data)`, found faster where the regex is word-led."""
    fast = word_led(regex)
    if fast is None:
        yield from regex.finditer(data)
        return
    position, end = 0, len(data)
    while position <= end:
        match = fast.search(data, position)
        if match is None:
            return
        if match.start() > 0 and data[match.start() - 1] in IDENTIFIER_BYTES:
            position = match.start() + 1  # not at an identifier's start: look again one byte on
            continue
        yield match
        position = match.end() if match.end() > match.start() else match.end() + 1


def finditer_each(regexes: Iterable[re.Pattern[bytes]], data: bytes) -> list[re.Match[bytes]]:
    """The matches of several patterns in order of position: one alternation split by leading
    literal, each part found by a fast scan (an alternation over different leads is tried at every byte)."""
    return sorted((match for regex in regexes for match in finditer(regex, data)), key=lambda m: m.start())


def search(regex: re.Pattern[bytes], data: bytes) -> re.Match[bytes] | None:
    """`regex.search(data)`, found faster where the regex is word-led."""
    return next(finditer(regex, data), None)


def search_fast(
    data: bytes, needles: Iterable[bytes], regex: re.Pattern[bytes], requires: tuple[bytes, ...] = ()
) -> bool:
    """`regex.search(data)` as a yes or no, found with `in` (a memchr scan) where it can be: each of
    `needles` is a match of `regex` by itself, and every other match holds one of `requires` (when
    given). The regex, tried at every byte when its alternatives lead differently, runs last."""
    if any(needle in data for needle in needles):
        return True
    if requires and not any(part in data for part in requires):
        return False
    return regex.search(data) is not None


@dataclass(frozen=True)
class Pattern:
    regex: re.Pattern[bytes]
    rule: Rule
    message: Callable[[str], str]
    contexts: tuple[Context, ...] = CODE_CONTEXTS
    needles: tuple[bytes, ...] = ()  # cheap substrings, one of which any match contains


def pattern(
    regex: str, rule: Rule, message: str | Callable[[str], str], include: bool = False, needles: tuple[str, ...] = ()
) -> Pattern:
    contexts = (*CODE_CONTEXTS, Context.INCLUDE) if include else CODE_CONTEXTS
    render = message if callable(message) else (lambda text, m=message: m.format(text=text))
    return Pattern(re.compile(regex.encode()), rule, render, contexts, tuple(n.encode() for n in needles))


def find_patterns(ctx: FileContext, patterns: Iterable[Pattern]) -> Iterable[Finding]:
    data = ctx.source.data
    for item in patterns:
        if item.needles and not any(needle in data for needle in item.needles):
            continue
        for match in finditer(item.regex, data):
            if ctx.parsed.context_at(match.start(), match.end()) not in item.contexts:
                continue
            text = match.group().decode("utf-8", "replace")
            yield item.rule.finding(ctx, match.start(), match.end(), item.message(text))
