"""The finding model: what a rule reports, and the byte-range edits that fix it.

Rules never rewrite anything themselves. They report findings; each finding may carry
edits (byte ranges plus replacement bytes) that the one rewriter applies later.
"""

from __future__ import annotations

import operator
import re
import sys
from dataclasses import dataclass, field
from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class FixKind(StrEnum):
    AUTO = "auto"
    SUGGESTED = "suggested"
    MANUAL = "manual"


class Engine(StrEnum):
    TREE_SITTER = "tree-sitter"
    LIBCLANG = "libclang"


_INCLUDE_LINE = re.compile(r"\s*#\s*include\s*[<\"]([^>\"]+)[>\"]")
SEVERITY_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


def _pickled_by_constructor(cls):
    """The slotted dataclass `cls`, pickled as a call of its constructor with its fields (read from
    its slots, in their order, by one attrgetter): a slotted dataclass's own state methods look its
    fields up again for every object, and a scan's workers send every finding back to the main
    process (flashinfer-python's 8,348, gc off as in a scan: 0.19 s to pickle and 0.215 s to
    unpickle, of ~6.5 s of CPU in all, against 0.046 s and 0.077 s so)."""
    fields = operator.attrgetter(*cls.__slots__)
    cls.__reduce__ = lambda self: (cls, fields(self))
    return cls


# slots, here and on Span and Finding: a large tree's scan holds hundreds of thousands of findings
# (553,320 over flashinfer's whole package), and an instance dictionary each, for a finding, its
# span and its edits, was a quarter of what they held.
@_pickled_by_constructor
@dataclass(frozen=True, order=True, slots=True)
class Edit:
    """Replace bytes [start, end) of a file with `replacement`.

    `mode` says which conversion mode the edit belongs to: "hip" edits rename to HIP
    names (the portable mode keeps CUDA names and maps them in its compat header),
    "any" edits apply in every mode.
    """

    start: int
    end: int
    replacement: bytes
    mode: str = "any"

    @classmethod
    def from_json(cls, data: dict) -> Edit:
        return cls(data["start"], data["end"], data["replacement"].encode("utf-8", "surrogateescape"), data["mode"])

    def to_json(self) -> dict:
        return {
            "start": self.start,
            "end": self.end,
            "replacement": self.replacement.decode("utf-8", "surrogateescape"),
            "mode": self.mode,
        }


@_pickled_by_constructor
@dataclass(frozen=True, slots=True)
class Span:
    """A located byte range: 1-based lines and columns, end exclusive."""

    start_byte: int
    end_byte: int
    line: int
    column: int
    end_line: int
    end_column: int


@_pickled_by_constructor
@dataclass(frozen=True, slots=True)
class Finding:
    rule: str
    category: str
    severity: Severity
    fix: FixKind
    message: str
    file: str
    span: Span
    engine: Engine = Engine.TREE_SITTER
    edits: tuple[Edit, ...] = field(default=())
    snippet: str = ""

    def __post_init__(self) -> None:
        # One string object for each distinct text: a tree's findings repeat a few thousand
        # messages and lines (flashinfer's whole package: 541,462 findings, 3,549 messages, 38,424
        # snippets), and each finding a worker sent, or the cache read back, had its own copies:
        # 160 MB of a 467 MB scan. Shared, a worker's result also pickles each text once.
        for name in ("rule", "category", "message", "file", "snippet"):
            object.__setattr__(self, name, sys.intern(getattr(self, name)))

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def included_header(self) -> str | None:
        """The header of the `#include` the finding sits on, if it sits on one (a fact of the code)."""
        match = _INCLUDE_LINE.match(self.snippet)
        return match.group(1) if match else None

    def sort_key(self) -> tuple:
        return (self.file, self.span.start_byte, self.rule, self.span.end_byte)

    def to_row(self) -> list:
        """The finding as one JSON list (the scan cache's form: a file's entry holds thousands, and
        a list is written and read in a fraction of a dict's time)."""
        span = self.span
        return [
            self.file, self.rule, self.category, self.severity, self.fix, self.engine, self.message, self.snippet,
            span.start_byte, span.end_byte, span.line, span.column, span.end_line, span.end_column,
            [[e.start, e.end, e.replacement.decode("utf-8", "surrogateescape"), e.mode] for e in self.edits],
        ]  # fmt: skip

    @classmethod
    def from_row(cls, row: list) -> Finding:
        file, rule, category, severity, fix, engine, message, snippet, *span, edits = row
        return cls(
            rule=rule,
            category=category,
            severity=Severity(severity),
            fix=FixKind(fix),
            message=message,
            file=file,
            span=Span(*span),
            engine=Engine(engine),
            edits=tuple(
                Edit(start, end, text.encode("utf-8", "surrogateescape"), mode) for start, end, text, mode in edits
            ),
            snippet=snippet,
        )

    @classmethod
    def from_json(cls, data: dict) -> Finding:
        span = Span(
            data["start_byte"], data["end_byte"], data["line"], data["column"], data["end_line"], data["end_column"]
        )
        return cls(
            rule=data["rule"],
            category=data["category"],
            severity=Severity(data["severity"]),
            fix=FixKind(data["fix"]),
            message=data["message"],
            file=data["file"],
            span=span,
            engine=Engine(data["engine"]),
            edits=tuple(Edit.from_json(e) for e in data["edits"]),
            snippet=data.get("snippet", ""),
        )

    def to_json(self) -> dict:
        return {
            "file": self.file,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "rule": self.rule,
            "category": self.category,
            "severity": str(self.severity),
            "message": self.message,
            "fix": str(self.fix),
            "engine": str(self.engine),
            "edits": [e.to_json() for e in self.edits],
            "snippet": self.snippet,
            "start_byte": self.span.start_byte,
            "end_byte": self.span.end_byte,
        }
