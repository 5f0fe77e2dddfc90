"""Inline suppressions, the way linters do them.

    cudaMalloc(&p, n);  // porter: ignore[API001]      this line
    // porter: ignore[WRP001, MSK004]                  the line below
    // porter: ignore                                  every rule, the line below
    // porter: ignore-file[LIB010]                     the whole file (anywhere in it)

`#` works in place of `//` in CMake and setup.py. Suppressed findings leave the results, and are
counted per rule in the summary and the report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from porter.findings import Finding
from porter.source import SourceFile

_DIRECTIVE = re.compile(rb"(?://|#|/\*)\s*porter:\s*(ignore-file|ignore)(?:\[([A-Za-z0-9_,\s]+)\])?")
ALL = "*"


@dataclass
class Suppressions:
    by_line: dict[int, set[str]] = field(default_factory=dict)  # line → rule ids (or ALL)
    file_wide: set[str] = field(default_factory=set)

    def covers(self, finding: Finding) -> bool:
        for rules in (self.file_wide, self.by_line.get(finding.line, set())):
            if ALL in rules or finding.rule in rules:
                return True
        return False


def read_suppressions(source: SourceFile) -> Suppressions:
    found = Suppressions()
    if b"porter:" not in source.data:
        return found
    for number, line in enumerate(source.data.split(b"\n"), start=1):
        match = _DIRECTIVE.search(line)
        if not match:
            continue
        rules = (
            {r.strip().upper() for r in match.group(2).decode().split(",") if r.strip()} if match.group(2) else {ALL}
        )
        if match.group(1) == b"ignore-file":
            found.file_wide |= rules
            continue
        code_before = line[: match.start()].strip()
        target = number if code_before else number + 1  # a comment alone on its line covers the next
        found.by_line.setdefault(target, set()).update(rules)
        found.by_line.setdefault(number, set()).update(rules)
    return found


def apply_suppressions(source: SourceFile, findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """(kept, suppressed)."""
    suppressions = read_suppressions(source)
    if not suppressions.by_line and not suppressions.file_wide:
        return findings, []
    kept, suppressed = [], []
    for finding in findings:
        (suppressed if suppressions.covers(finding) else kept).append(finding)
    return kept, suppressed
