"""Table names as they occur in one file: the shared first step of the api and library families.

Matching works on tokens, where tokens suffice: a regex pre-filter finds identifiers that start
like a table name, the table decides, and the tree-sitter tree says whether the token is code,
a macro body (which tree-sitter leaves unparsed, and which is code all the same), a comment or
a string. This works in files whose parse has ERROR nodes, since the token is still there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from porter.parse import Context
from porter.rules.tables import NameEntry

if TYPE_CHECKING:
    from porter.rules.base import FileContext

NAME_CONTEXTS = (Context.CODE, Context.MACRO_BODY)


@dataclass(frozen=True)
class NameHit:
    start: int
    end: int
    entry: NameEntry
    context: Context


def find_table_names(ctx: FileContext) -> list[NameHit]:
    if not ctx.source.kind.is_c_family:
        return []
    identifiers = ctx.tables.identifiers
    hits: list[NameHit] = []
    for match in ctx.tables.candidate_pattern.finditer(ctx.source.data):
        entry = identifiers.get(match.group().decode("ascii", "replace"))
        if entry is None:
            continue
        context = ctx.parsed.context_at(match.start(), match.end())
        if context in NAME_CONTEXTS:
            hits.append(NameHit(match.start(), match.end(), entry, context))
    return hits


def include_paths(ctx: FileContext):
    """(start, end, path) of each #include's path text, without the <> or "" delimiters."""
    root = ctx.parsed.root
    if root is None:
        return
    from porter.parse import captures

    for node in captures("(preproc_include path: (_) @path)", root).get("path", []):
        start, end = node.start_byte + 1, node.end_byte - 1
        if end > start:
            yield start, end, ctx.source.text(start, end)
