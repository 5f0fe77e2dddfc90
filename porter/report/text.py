"""The default `porter scan` listing: compact, grouped by file, one line per finding."""

from __future__ import annotations

from itertools import groupby

from porter.findings import Finding


def format_findings(findings: list[Finding], summary: dict) -> str:
    lines: list[str] = []
    for file, group in groupby(findings, key=lambda f: f.file):
        lines.append(file)
        for f in group:
            where = f"{f.span.line}:{f.span.column}"
            lines.append(f"  {where:>9}  {f.rule}  {f.severity:<7}  {f.fix:<9}  {f.message}")
        lines.append("")
    lines.append(_summary_line(summary))
    for error in summary.get("file_errors", []):
        lines.append(f"error: {error['file']}: {error['error']}")
    clang = summary.get("libclang", {})
    if clang.get("unavailable"):
        lines.append(
            f"note: {clang['unavailable']} file(s) needed libclang, which is not set up "
            "(`porter setup cuda-headers`; see `porter doctor`); their tree-sitter findings stand"
        )
    if clang.get("failed"):
        lines.append(f"note: libclang could not parse {clang['failed']} file(s); their tree-sitter findings stand")
    return "\n".join(lines) + "\n"


def _summary_line(summary: dict) -> str:
    severities = ", ".join(f"{n} {s}" for s, n in summary["by_severity"].items()) or "none"
    fixes = ", ".join(f"{n} {k}" for k, n in summary["by_fix"].items()) or "none"
    return (
        f"{summary['findings']} finding(s) in {summary['files']} file(s), {summary['lines']} lines "
        f"[{severities}] [fix: {fixes}] in {summary['seconds']:.2f}s"
    )
