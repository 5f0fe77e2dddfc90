"""`porter report`: one merged document, rendered by the output's suffix (.html, .md, .json, .sarif)."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path

import jinja2
import markupsafe

from porter.build.classify import FAILURE_CLASSES
from porter.build.resources import library_of
from porter.errors import PorterError
from porter.report.charts import elide_middle, paired_bars, stacked_bars
from porter.report.merge import EFFORT_WEIGHTS, SCORE_FORMULA, effort_bucket, effort_of, malformed_results
from porter.targets import Vendor, all_targets

FORMATS = (".html", ".md", ".json", ".sarif")


class ReportError(PorterError):
    """The report cannot be rendered as asked; the message says why."""


@cache
def _templates() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("porter.report", "templates"),
        # Every template here renders HTML, and all of it carries text from scanned trees (code,
        # file names, diagnostics): escape everything, always. select_autoescape keyed on the
        # suffix missed `report.html.j2`; only the SVG charts porter draws are marked safe.
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["elide"] = elide_middle
    environment.filters["inline_code"] = inline_code
    return environment


_BACKTICKED = re.compile(r"`([^`\n]+)`")


def inline_code(text: object) -> markupsafe.Markup:
    """A finding's message as HTML: escaped first, then its `backticked` spans as <code> (Markdown's
    one construct messages use), so names read as code and nothing in them becomes markup."""
    escaped = str(markupsafe.escape("" if text is None else text))
    return markupsafe.Markup(_BACKTICKED.sub(r"<code>\1</code>", escaped))


def render(merged: dict, output: Path) -> str:
    with malformed_results(merged.get("sources", [])):
        return _render(merged, output)


def _render(merged: dict, output: Path) -> str:
    suffix = output.suffix.lower()
    if suffix == ".html":
        return render_html(merged)
    if suffix == ".md":
        return render_markdown(merged)
    if suffix == ".json":
        return json.dumps(merged, indent=2) + "\n"
    if suffix == ".sarif":
        return render_sarif(merged)
    raise ReportError(f"{output}: unknown report format {suffix or '(none)'}; use one of {', '.join(FORMATS)}")


def _file_views(scan: dict) -> list[dict]:
    """Findings per file, grouped by kernel (a finding inside a kernel's lines) and the rest."""
    kernels_by_file = defaultdict(list)
    for kernel in scan["summary"].get("kernels", []):
        kernels_by_file[kernel["file"]].append(kernel)
    by_file = defaultdict(list)
    for finding in scan["findings"]:
        by_file[finding["file"]].append(finding)
    views = []
    for name, findings in by_file.items():
        groups = []
        rest = list(findings)
        for kernel in kernels_by_file.get(name, []):
            inside = [f for f in rest if kernel["line"] <= f["line"] <= kernel["end_line"]]
            if inside:
                groups.append(
                    {
                        "title": f"kernel {kernel['name']} (lines {kernel['line']}-{kernel['end_line']})",
                        "findings": inside,
                    }
                )
                rest = [f for f in rest if f not in inside]
        if rest:
            groups.insert(0, {"title": "outside kernels" if groups else "findings", "findings": rest})
        points = sum(EFFORT_WEIGHTS[effort_of(f)] for f in findings)
        views.append(
            {
                "name": name,
                "findings": findings,
                "auto": sum(1 for f in findings if f["fix"] == "auto"),
                "effort": f"{effort_bucket(points)}, {points} points",
                "points": points,
                "groups": groups,
            }
        )
    return sorted(views, key=lambda v: (-v["points"], v["name"]))


def _category_chart(scan: dict) -> str:
    counts: dict[str, Counter] = defaultdict(Counter)
    for finding in scan["findings"]:
        counts[finding["category"]][finding["fix"]] += 1
    rows = sorted(((category, dict(c)) for category, c in counts.items()), key=lambda row: -sum(row[1].values()))
    return stacked_bars(rows)


def _occupancy_chart(project_kernels: list[dict]) -> str:
    """Occupancy as a share of each target's maximum (warps per SM, waves per SIMD), so the two bars
    compare; the project's kernels only (a library's internal kernels are folded in the table)."""
    rows = []
    for kernel in project_kernels:
        shares = {Vendor.NVIDIA: None, Vendor.AMD: None}
        for key, resources in kernel.get("targets", {}).items():
            chosen = all_targets().get(key.split()[0])
            occupancy = resources.get("occupancy")
            if chosen is not None and occupancy is not None and shares[chosen.vendor] is None:
                shares[chosen.vendor] = round(100 * occupancy / chosen.max_waves)
        if any(v is not None for v in shares.values()):
            rows.append((kernel["name"], shares[Vendor.NVIDIA], shares[Vendor.AMD]))
    return paired_bars(rows, "NVIDIA (% of max warps/SM)", "AMD (% of max waves/SIMD)", unit="%")


def _performance_chart(verify: dict) -> str:
    rows = [
        (f"{c['name']} {c.get('variant', '')}"[:28], 1.0, c["time_ratio"])
        for c in verify.get("cases", [])
        if c.get("time_ratio")
    ]
    return paired_bars(rows, "original", "port", unit="×")


def _kernels_by_owner(build: dict) -> tuple[list[dict], dict[str, list[dict]]]:
    """The project's own kernels, and the internal kernels of each library it instantiates (rocPRIM,
    CUB, Thrust, PyTorch): those fold into one row per library."""
    own: list[dict] = []
    by_library: dict[str, list[dict]] = defaultdict(list)
    for kernel in build.get("kernels", []):
        library = library_of(kernel["name"])
        (own if library is None else by_library[library]).append(kernel)
    return own, dict(sorted(by_library.items()))


def _column(unit: dict) -> str:
    """A matrix column: the target, and the variant where it is not the target's usual one."""
    return f"{unit['target']} (HIP on NVIDIA)" if unit.get("variant") == "hip-nvidia" else unit["target"]


def _source_name(unit: dict) -> str:
    """The HIP-on-NVIDIA tree renames `x.cu` to `x.hip`: one row per source, whatever tree built it."""
    return (
        unit["file"][: -len(".hip")] + ".cu"
        if unit.get("variant") == "hip-nvidia" and unit["file"].endswith(".hip")
        else unit["file"]
    )


def _class_rank(cls: str) -> int:
    """Where a failure class stands: FAILURE_CLASSES's order, then `ok`, then a class it does not know."""
    order = [*FAILURE_CLASSES, "ok"]
    return order.index(cls) if cls in order else len(order)


def _row_class(cells: dict[str, dict]) -> str:
    """A row's group: its most pressing failure class (FAILURE_CLASSES is in that order), else `ok`."""
    failed = {cell.get("class") or "port-error" for cell in cells.values() if cell["status"] != "ok"}
    return next((cls for cls in FAILURE_CLASSES if cls in failed), "ok" if not failed else sorted(failed)[0])


def _column_order(column: str) -> tuple[bool, str]:
    """NVIDIA's columns first, then AMD's, each by name."""
    chosen = all_targets().get(column.split()[0])
    return (chosen is not None and chosen.vendor is Vendor.AMD, column)


def _build_matrix(build: dict) -> tuple[list[str], list[dict]]:
    """The matrix's columns and its rows grouped by failure class, each group with whose problem it is."""
    units = build.get("units", [])
    columns = sorted({_column(u) for u in units}, key=_column_order)
    rows: dict[str, dict[str, dict]] = defaultdict(dict)
    for unit in units:
        rows[_source_name(unit)][_column(unit)] = unit
    groups: dict[str, list] = defaultdict(list)
    for name, cells in sorted(rows.items()):
        groups[_row_class(cells)].append((name, cells))
    return columns, [
        {
            "class": cls,
            "whose": FAILURE_CLASSES[cls][0] if cls in FAILURE_CLASSES else "",
            "meaning": FAILURE_CLASSES[cls][1] if cls in FAILURE_CLASSES else "built on every target",
            "toolchain": FAILURE_CLASSES.get(cls, ("",))[0] == "the toolchain's",
            "rows": groups[cls],
        }
        for cls in sorted(groups, key=_class_rank)
    ]


def render_html(merged: dict) -> str:
    scan, build, verify = merged.get("scan"), merged.get("build"), merged.get("verify")
    columns, groups = _build_matrix(build or {})
    project_kernels, library_kernels = _kernels_by_owner(build or {})
    return (
        _templates()
        .get_template("report.html.j2")
        .render(
            scan=scan,
            convert=merged.get("convert"),
            build=build,
            verify=verify,
            overview=merged.get("overview") or {},
            score_formula=SCORE_FORMULA,
            provenance=merged["provenance"],
            sources=merged.get("sources", []),
            files=_file_views(scan) if scan else [],
            category_chart=_category_chart(scan) if scan else "",
            occupancy_chart=_occupancy_chart(project_kernels),
            performance_chart=_performance_chart(verify) if verify else "",
            build_columns=columns,
            build_groups=groups,
            failure_classes=FAILURE_CLASSES,
            project_kernels=project_kernels,
            library_kernels=library_kernels,
        )
    )


def render_markdown(merged: dict) -> str:
    """A short summary for a pull-request comment."""
    lines = ["## porter port report", ""]
    overview = merged.get("overview") or {}
    scan = merged.get("scan")
    if scan:
        lines.append(
            f"**Portability score {overview['score']}/100** · {overview['files']} files, {overview['kernels']} kernels · "
            f"{overview['findings']} findings, {round(overview['auto_share'] * 100)}% fixed automatically · effort {overview['effort_points']} points"
        )
        if overview.get("unfixed_wave_errors"):
            lines.append(
                f"\n**{overview['unfixed_wave_errors']} wave64 correctness error(s) porter cannot fix by itself**: "
                "wrong results on MI200/MI300 until a person fixes them."
            )
        lines.append(f"\nScore: {SCORE_FORMULA}.")
        lines += ["", "| category | auto | suggested | manual |", "|---|---:|---:|---:|"]
        counts: dict[str, Counter] = defaultdict(Counter)
        for finding in scan["findings"]:
            counts[finding["category"]][finding["fix"]] += 1
        for category, c in sorted(counts.items(), key=lambda item: -sum(item[1].values())):
            lines.append(f"| {category} | {c['auto']} | {c['suggested']} | {c['manual']} |")
        hardest = [v for v in _file_views(scan) if v["points"]][:5]
        if hardest:
            lines += ["", "Most effort: " + ", ".join(f"`{v['name']}` ({v['effort']})" for v in hardest)]
        if overview.get("suppressed"):
            lines.append("Suppressed inline: " + ", ".join(f"{r} {n}" for r, n in overview["suppressed"].items()))
    build, verify = merged.get("build"), merged.get("verify")
    lines.append("")
    if build:
        units = build.get("units", [])
        ok = sum(1 for u in units if u["status"] == "ok")
        failed = Counter(u.get("class") or "port-error" for u in units if u["status"] != "ok")
        breakdown = "; ".join(
            f"{n} {cls} ({FAILURE_CLASSES[cls][0] if cls in FAILURE_CLASSES else 'unclassified'} problem)"
            for cls, n in sorted(failed.items(), key=lambda item: _class_rank(item[0]))
        )
        lines.append(f"Build: {ok} of {len(units)} units built" + (f"; not built: {breakdown}." if breakdown else "."))
    else:
        lines.append("Build: not run.")
    if verify:
        cases = verify.get("cases", [])
        statuses = Counter(c["status"] for c in cases)
        lines.append("Verify: " + ", ".join(f"{n} {s}" for s, n in statuses.items()) + "." + _where_verify_ran(verify))
    else:
        lines.append("Verify: not run — numerical and performance equivalence are unproven.")
    return "\n".join(lines) + "\n"


def _where_verify_ran(verify: dict) -> str:
    """Say in the summary, not only in the HTML, when no GPU ran the cases."""
    gpus = [name for names in (verify.get("gpus") or {}).values() for name in names]
    if gpus:
        return f" On {', '.join(sorted(set(gpus)))}."
    return (
        " No GPU here: the cases ran on porter's CPU device (the original at 32 lanes, the port at the "
        "target's wavefront); timings need a GPU."
    )


def render_sarif(merged: dict) -> str:
    from porter.findings import Engine, Finding, FixKind, Severity, Span
    from porter.report.sarif import to_sarif

    scan = merged.get("scan")
    if not scan:
        raise ReportError("SARIF is made from scan results, and none were given")
    findings = [
        Finding(
            f["rule"], f["category"], Severity(f["severity"]), FixKind(f["fix"]), f["message"], f["file"],
            Span(0, 0, f["line"], f["column"], f["end_line"], f["end_column"]), Engine(f["engine"]),
        )
        for f in scan["findings"]
    ]  # fmt: skip
    root = Path(scan["summary"].get("root", ".")).resolve().as_uri() + "/"
    return json.dumps(to_sarif(findings, root), indent=2) + "\n"
