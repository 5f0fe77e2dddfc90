"""Limits of the scan itself (category `scan-limits`): what porter did not fully analyse, said as findings.

A pathological file (generated tables, a 10 MB single line) must neither stall a scan nor hide that
it was not analysed like the others. Above `FULL_ANALYSIS_BYTES` a file gets the token-level pass
only (the API, library and build tables, which need no syntax tree); past `FINDINGS_PER_RULE`
findings of one rule in one file, the rest are counted in one finding instead of listed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from porter.findings import Finding, FixKind, Severity
from porter.rules.base import FileContext, Rule
from porter.source import SourceFile

FULL_ANALYSIS_BYTES = 8 * 1024 * 1024
FINDINGS_PER_RULE = 1000

FILE_TOO_LARGE = Rule(
    id="SCN001",
    name="file-too-large-for-full-analysis",
    category="scan-limits",
    severity=Severity.WARNING,
    fix=FixKind.MANUAL,
    summary="A file too large for the full analysis got the token-level pass only",
    what=f"Reports a source file larger than {FULL_ANALYSIS_BYTES // (1024 * 1024)} MiB.",
    why="""
        Such files are almost always generated (lookup tables, unrolled kernels, amalgamations).
        Building a syntax tree and running the dataflow rules over them costs memory in proportion
        to their size, so porter checks them only against its name tables (CUDA APIs, libraries,
        headers). Warp-width, lane-mask, guard and other semantic rules did not run on the file.
        """,
    example="// kernels_generated.cu: 12 MiB of unrolled kernels",
    use_instead="Port the generator instead of its output, or scan the generator's smaller outputs.",
)

FINDINGS_CAPPED = Rule(
    id="SCN002",
    name="findings-capped",
    category="scan-limits",
    severity=Severity.INFO,
    fix=FixKind.MANUAL,
    summary="One rule found more in one file than a report lists",
    what=f"Stands for the findings of one rule in one file past the first {FINDINGS_PER_RULE}.",
    why="""
        Thousands of identical findings in one file say nothing more than the first thousand, and
        listing them all costs memory and report space. `porter convert` is not capped: it
        applies every automatic fix.
        """,
    example="200,000 copies of `v += __shfl_down(v, 16);`",
    use_instead="Fix the pattern (often in a generator) and scan again.",
)

RULES = (FILE_TOO_LARGE, FINDINGS_CAPPED)


def check(ctx: FileContext) -> Iterable[Finding]:
    """Nothing per node: the scan asks `needs_token_pass` and `capped` around the other families."""
    return ()


def needs_token_pass(source: SourceFile) -> bool:
    """A C-family file too large for a syntax tree and the dataflow rules."""
    return source.kind.is_c_family and len(source.data) > FULL_ANALYSIS_BYTES


def too_large(ctx: FileContext) -> Finding:
    size = len(ctx.source.data)
    return FILE_TOO_LARGE.finding(
        ctx,
        0,
        0,
        f"{size / (1024 * 1024):.1f} MiB is past the {FULL_ANALYSIS_BYTES // (1024 * 1024)} MiB limit of the full "
        "analysis: only CUDA API, library and header names were checked in this file",
    )


def capped(ctx: FileContext, findings: list[Finding], limit: int | None = FINDINGS_PER_RULE) -> list[Finding]:
    """The findings with at most `limit` per rule (the first in the file), and one SCN002 per capped rule."""
    if limit is None:
        return findings
    counts = Counter(f.rule for f in findings)
    if all(n <= limit for n in counts.values()):
        return findings
    kept, seen = [], Counter()
    for finding in findings:
        seen[finding.rule] += 1
        if seen[finding.rule] <= limit:
            kept.append(finding)
    for rule, count in sorted(counts.items()):
        if count > limit:
            first = next(f for f in findings if f.rule == rule)
            kept.append(
                FINDINGS_CAPPED.finding(
                    ctx,
                    first.span.start_byte,
                    first.span.end_byte,
                    f"{rule}: {count} findings in this file; the first {limit} are listed, {count - limit} more are not",
                )
            )
    return kept
