"""The text every command prints: scan's listing (compact, grouped by file, one line per finding),
and the summaries of convert, build, verify, check, doctor and rules. cli.py only dispatches here."""

from __future__ import annotations

from itertools import groupby

from porter.findings import Finding


def findings_listing(findings: list[Finding], summary: dict) -> list[bytes]:
    """The listing as UTF-8, in parts of whole lines: one per file, then the closing lines. The
    parts are written one after another (cli.write_output, memo.record) and never joined: a large
    tree's text beside its results and the copies a join and an encoding make of it was most of a
    scan's memory (flashinfer's whole package: 541,462 findings, 149 MB of text, its arrows making
    it two bytes a character, and a 531 MB peak)."""
    parts = [_file_listing(file, group) for file, group in groupby(findings, key=lambda f: f.file)]
    lines = [_summary_line(summary)]
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
    parts.extend(_encoded(line + "\n") for line in lines)
    return parts


def _encoded(text: str) -> bytes:
    # a path that was not UTF-8 on disk comes back as its own bytes
    return text.encode("utf-8", "surrogateescape")


def _file_listing(file: str, findings) -> bytes:
    """The file's name, a line per finding and an empty line."""
    lines = [file]
    for f in findings:
        where = f"{f.span.line}:{f.span.column}"
        lines.append(f"  {where:>9}  {f.rule}  {f.severity:<7}  {f.fix:<9}  {f.message}")
    lines.append("\n")
    return _encoded("\n".join(lines))


def _summary_line(summary: dict) -> str:
    severities = ", ".join(f"{n} {s}" for s, n in summary["by_severity"].items()) or "none"
    fixes = ", ".join(f"{n} {k}" for k, n in summary["by_fix"].items()) or "none"
    return (
        f"{summary['findings']} finding(s) in {summary['files']} file(s), {summary['lines']} lines "
        f"[{severities}] [fix: {fixes}] in {summary['seconds']:.2f}s"
    )


def convert_summary(summary: dict) -> str:
    lines = [
        f"converted {summary['files_scanned']} file(s) to {summary['output']} ({summary['mode']}): "
        f"{summary['files_changed']} changed, {summary['fixes_applied']} fix(es) applied"
    ]
    lines += [f"  {category}: {count}" for category, count in summary["fixes_by_category"].items()]
    lines += [f"not copied: {rel}: {why}" for rel, why in summary["not_copied"].items()]
    if summary["conflicts"]:
        lines.append(f"{len(summary['conflicts'])} finding(s) not applied: their edits conflict")
        lines += [f"  {c['file']}:{c['line']} {c['rule']} {c['message']}" for c in summary["conflicts"]]
    by_rule = ", ".join(f"{r} {n}" for r, n in summary["left_by_rule"].items())
    lines.append(f"{summary['left_for_a_person']} finding(s) left for a person" + (f": {by_rule}" if by_rule else ""))
    return "\n".join(lines) + "\n"


def build_listing(result) -> str:
    """One line per unit and target (its class and first diagnostic when it failed), then the kernels."""
    lines = [f"gfx units built with {result.hip}"] if getattr(result, "hip", None) else []
    width = max((len(unit.target) for unit in result.units), default=7)  # `gfx942 rocm6.4` in a matrix
    for unit in result.units:
        status = unit.status + (f" [{unit.cls}]" if unit.cls else "") + (" (cached)" if unit.cached else "")
        lines.append(
            f"{unit.target:<{width}} {unit.variant:<10} {unit.file}: {status}"
            + (f"\n        {unit.diagnostic}" if unit.diagnostic else "")
        )
    lines += ["", f"{'kernel':<40} {'target':<16} {'regs':>5} {'shared':>7} {'spill':>6} {'occupancy':>9}  limiter"]
    for kernel in result.kernels:
        for target, res in kernel["targets"].items():
            occupancy = "" if res.get("occupancy") is None else f"{res['occupancy']:g}"
            lines.append(
                f"{kernel['name'][:40]:<40} {target:<16} {res.get('registers', ''):>5} {res.get('shared_bytes', ''):>7} "
                f"{res.get('spill_bytes', ''):>6} {occupancy:>9}  {res.get('limiter') or ''}"
            )
    return "\n".join(lines) + "\n"


def verify_listing(result) -> str:
    gpus = ", ".join(g for names in result.gpus.values() for g in names) or "none"
    lines = [f"GPUs: {gpus}"]
    for case in result.cases:
        figures = "" if case.max_abs_err is None else f"  max abs {case.max_abs_err:.3g}, mismatches {case.mismatches}"
        timing = "" if case.time_ratio is None else f"  time x{case.time_ratio:.2f}"
        reason = f"  ({case.reason})" if case.reason else ""
        lines.append(f"{case.target:<7} {case.variant:<14} {case.name}: {case.status}{figures}{timing}{reason}")
    return "\n".join(lines) + "\n"


def check_listing(outcome, fail_on: str) -> str:
    lines = [f"{f.file}:{f.line}:{f.span.column}: {f.rule} {f.severity}: {f.message}" for f in outcome.new]
    lines.append(
        f"porter check: {len(outcome.new)} new finding(s) at or above {fail_on}; "
        f"{outcome.known} in the baseline, {outcome.below_threshold} new below {fail_on}, "
        f"{outcome.suppressed} suppressed inline"
    )
    return "\n".join(lines) + "\n"


DOCTOR_MARKS = {"ok": "ok", "missing": "MISSING", "unavailable": "unavailable"}


def doctor_listing(checks) -> str:
    lines = []
    for check in checks:
        lines.append(f"{DOCTOR_MARKS[check.status]:<12} {check.name}: {check.detail}")
        if check.status != "ok" and check.advice:
            lines.append(f"{'':<12} get it: {check.advice}")
    return "\n".join(lines) + "\n"


def rules_listing(rules) -> str:
    return "".join(f"{r.id}  {r.name:<32} {r.category:<18} {r.severity:<8} {r.fix:<9} {r.summary}\n" for r in rules)
