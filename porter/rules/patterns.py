"""Token patterns in code: the shared matcher for rules that look for API names.

A pattern matches in the raw bytes (so macro bodies and files with ERROR nodes count), and the
tree-sitter context then drops matches inside comments and string literals.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from porter.findings import Finding
from porter.parse import Context
from porter.rules.base import FileContext, Rule

CODE_CONTEXTS = (Context.CODE, Context.MACRO_BODY)


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
        for match in item.regex.finditer(data):
            if ctx.parsed.context_at(match.start(), match.end()) not in item.contexts:
                continue
            text = match.group().decode("utf-8", "replace")
            yield item.rule.finding(ctx, match.start(), match.end(), item.message(text))
