"""Table names as they occur in one file: the shared first step of the api and library families.

Matching works on tokens, where tokens suffice: a regex pre-filter finds identifiers that start
like a table name, the table decides, and the tree-sitter tree says whether the token is code,
a macro body (which tree-sitter leaves unparsed, and which is code all the same), a comment or
a string. This works in files whose parse has ERROR nodes, since the token is still there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from porter.findings import Edit
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
    for start, end, name in ctx.tables.candidates(ctx.source.data):
        entry = identifiers.get(name)
        if entry is None:
            continue
        context = ctx.parsed.context_at(start, end)
        if context in NAME_CONTEXTS:
            hits.append(NameHit(start, end, entry, context))
    return hits


@dataclass(frozen=True)
class IncludeSite:
    start: int  # the path text, without its delimiters
    end: int
    path: str
    directive_start: int  # `#include <path>` from the `#` to the closing delimiter
    directive_end: int
    quoted: bool


def include_sites(ctx: FileContext):
    root = ctx.parsed.root
    if root is None:
        return
    from porter.parse import captures

    for include in captures("(preproc_include) @i", root).get("i", []):
        node = include.child_by_field_name("path")
        if node is None:
            continue
        start, end = node.start_byte + 1, node.end_byte - 1
        if end > start:
            yield IncludeSite(
                start,
                end,
                ctx.source.text(start, end),
                node.parent.start_byte,
                node.end_byte,
                node.type == "string_literal",
            )


def include_paths(ctx: FileContext):
    """(start, end, path) of each #include's path text, without the <> or "" delimiters."""
    for site in include_sites(ctx):
        yield site.start, site.end, site.path


def portable_include(ctx: FileContext, site: IncludeSite, hip_path: str) -> Edit:
    """Replace `#include <cuda_x.h>` by a block that picks the HIP header under PORTER_HIP."""
    newline = ctx.source.newline
    cuda = ctx.source.text(site.directive_start, site.directive_end)
    hip = f'#include "{hip_path}"' if site.quoted else f"#include <{hip_path}>"
    block = newline.join(("#if defined(PORTER_HIP)", hip, "#else", cuda, "#endif"))
    return Edit(site.directive_start, site.directive_end, block.encode("utf-8", "surrogateescape"), mode="portable")
