"""Token patterns in code: the shared matcher for rules that look for API names.

A pattern matches in the raw bytes (so macro bodies and files with ERROR nodes count), and the
tree-sitter context then drops matches inside comments and string literals.
"""

from __future__ import annotations

import bisect
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


def _syntax(regex: bytes):
    """(index, character, depth) of each character of a pattern that is neither escaped nor in a
    class: its grouping and alternation; `depth` counts the groups open before the character."""
    depth, escaped, in_class = 0, False, False
    for index, char in enumerate(regex):
        if escaped:
            escaped = False
        elif char == ord("\\"):
            escaped = True
        elif in_class:
            in_class = char != ord("]")
        elif char == ord("["):
            in_class = True
        else:
            yield index, char, depth
            depth += (char == ord("(")) - (char == ord(")"))


def _top_level_alternatives(regex: bytes) -> list[bytes]:
    parts, start = [], 0
    for index, char, depth in _syntax(regex):
        if char == ord("|") and depth == 0:
            parts.append(regex[start:index])
            start = index + 1
    return [*parts, regex[start:]]


def finditer(regex: re.Pattern[bytes], data: bytes):
    """The matches of `regex.finditer(data)`, found faster where the regex is led by literals or is word-led."""
    leads = lead_literals(regex)
    if leads is not None and len({lead[:1] for lead in leads}) > 1:
        yield from _finditer_from_leads(regex, data, leads)
        return
    fast = word_led(regex)
    if fast is None and leads is not None and _led_by_lookbehind(regex):
        yield from _finditer_from_leads(regex, data, leads)
        return
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


@cache
def _led_by_lookbehind(regex: re.Pattern[bytes]) -> bool:
    """Does an alternative of `regex` start with a look-behind? The regex engine tries such a
    pattern at every byte even where one literal follows (`(?<=[<"])cuda/barrier`: 110 ms over
    5.5 MB, against ~1 ms for the literal's scan)."""
    return any(a.startswith((b"(?<=", b"(?<!")) for a in _top_level_alternatives(regex.pattern))


def _finditer_from_leads(regex: re.Pattern[bytes], data: bytes, leads: tuple[bytes, ...]):
    """`regex.finditer(data)` where every match starts with one of `leads`, found by a fast scan
    (`bytes.find`): an alternation over different leads would be tried at every byte (0.04 s for
    one over a 5 MB tree, against 0.01 s)."""
    return finditer_at(regex, data, literal_starts(data, leads))


def literal_starts(data: bytes, literals: Iterable[bytes]) -> set[int]:
    """Every place one of `literals` occurs in `data`, overlaps included."""
    starts = set()
    for literal in set(literals):
        index = data.find(literal)
        while index >= 0:
            starts.add(index)
            index = data.find(literal, index + 1)
    return starts


def finditer_at(regex: re.Pattern[bytes], data: bytes, starts: Iterable[int]):
    """`regex.finditer(data)`, given every place a match can start (more do no harm): the regex is
    tried there only, in order, each from the end of the last match, as finditer goes."""
    position = 0
    for start in sorted(set(starts)):
        if start < position:
            continue
        match = regex.match(data, start)  # a lookbehind still sees the bytes before `start`
        if match is not None:
            yield match
            position = max(match.end(), start + 1)


_META = frozenset(b"\\.^$*+?{}[]()|")
_OPTIONAL = frozenset(b"*?{")
MIN_LEAD = 3  # shorter leads occur so often that trying the regex at each costs more than it saves


@cache
def lead_literals(regex: re.Pattern[bytes]) -> tuple[bytes, ...] | None:
    """The literal text every match of `regex` starts with, one per alternative (a leading
    lookbehind skipped, a leading group of alternatives looked into); None where an alternative
    starts otherwise, or a lead is shorter than MIN_LEAD, or the regex ignores case or blanks."""
    if regex.flags & (re.IGNORECASE | re.VERBOSE):
        return None
    leads = _alternative_leads(regex.pattern)
    return tuple(leads) if leads and all(len(lead) >= MIN_LEAD for lead in leads) else None


def _alternative_leads(pattern: bytes) -> list[bytes] | None:
    leads = []
    for alternative in _top_level_alternatives(pattern):
        body = _after_lookbehind(alternative)
        if body.startswith((b"(?:", b"(")) and not body.startswith((b"(?<", b"(?=", b"(?!", b"(?P", b"(?i", b"(?#")):
            close = _closing(body)
            if close is None or body[close + 1 : close + 2] in (b"?", b"*", b"{"):
                return None  # an optional group: its alternatives need not lead
            inner = _alternative_leads(body[(3 if body.startswith(b"(?:") else 1) : close])
            if inner is None:
                return None
            leads += inner
            continue
        lead = _literal_prefix(body)
        if not lead:
            return None
        leads.append(lead)
    return leads


def _after_lookbehind(alternative: bytes) -> bytes:
    while alternative.startswith((b"(?<=", b"(?<!")):
        close = _closing(alternative)
        if close is None:
            return alternative
        alternative = alternative[close + 1 :]
    return alternative


def _closing(text: bytes) -> int | None:
    """The index of the `)` closing the group `text` opens."""
    return next((index for index, char, depth in _syntax(text) if char == ord(")") and depth == 1), None)


def _literal_prefix(body: bytes) -> bytes:
    """The plain characters `body` starts with (`\\:` counts as `:`; `\\s`, a class or a group ends it;
    a character a quantifier makes optional is left out)."""
    lead, index = bytearray(), 0
    while index < len(body):
        char, step = body[index], 1
        if char == ord("\\"):
            if index + 1 >= len(body) or chr(body[index + 1]).isalnum():
                break  # `\\s`, `\\d`, `\\b`...: a class or an assertion, not a character
            char, step = body[index + 1], 2
        elif char in _META:
            break
        if body[index + step : index + step + 1] and body[index + step] in _OPTIONAL:
            break
        lead.append(char)
        index += step
    return bytes(lead)


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
    present: dict[bytes, bool] = {}  # a needle several patterns share is looked for once
    for item in patterns:
        if item.needles and not any(
            present[needle] if needle in present else present.setdefault(needle, needle in data)
            for needle in item.needles
        ):
            continue
        for match in finditer(item.regex, data):
            if ctx.parsed.context_at(match.start(), match.end()) not in item.contexts:
                continue
            text = match.group().decode("utf-8", "replace")
            yield item.rule.finding(ctx, match.start(), match.end(), item.message(text))


def within_any(spans: list[tuple[int, int]]) -> Callable[[int], bool]:
    """Is an offset inside one of the [start, end) spans (nested or overlapping: an #if's block holds
    the #ifs inside it)? The spans merged once, then a binary search per offset: a generated file's
    thousands of sites were each set against every span."""
    merged: list[list[int]] = []
    for start, end in sorted(span for span in spans if span[0] < span[1]):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    starts = [start for start, _ in merged]

    def inside(offset: int) -> bool:
        index = bisect.bisect_right(starts, offset) - 1
        return index >= 0 and offset < merged[index][1]

    return inside
