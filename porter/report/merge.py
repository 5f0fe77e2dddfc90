"""Reading result files (scan, convert, build, verify) and merging them into one document."""

from __future__ import annotations

import contextlib
import json
import platform
import subprocess
import sys
from collections import Counter
from pathlib import Path

import jinja2

from porter import __version__
from porter.errors import PorterError
from porter.rules import WAVE_CORRECTNESS


class ResultsError(PorterError):
    """A results file cannot be read or is not porter output; the message names it."""


KINDS = ("scan", "convert", "build", "verify")
EFFORT_WEIGHTS = {"none": 0, "low": 1, "medium": 3, "high": 8}


def kind_of_result(document: dict) -> str | None:
    if "findings" in document and "summary" in document:
        return "scan"
    if "summary" in document and "files" in document and "mode" in document.get("summary", {}):
        return "convert"
    if "units" in document:
        return "build"
    if "cases" in document:
        return "verify"
    if "merged" in document:
        return "merged"
    return None


def load_results(paths: list[Path]) -> dict:
    """Files named, or every *.json in a directory named, merged by kind (a later file wins)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(path.glob("*.json")))
        elif path.is_file():
            files.append(path)
        else:
            raise ResultsError(f"{path}: no such file or directory")
    merged: dict = {"merged": True, "porter_version": __version__, "sources": []}
    for file in files:
        try:
            document = json.loads(file.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
            raise ResultsError(f"{file}: not JSON: {exc}") from exc
        kind = kind_of_result(document) if isinstance(document, dict) else None
        if kind is None:
            raise ResultsError(f"{file}: not a porter result (scan, convert, build or verify JSON)")
        if kind == "merged":
            merged.update({k: v for k, v in document.items() if k in KINDS})
        else:
            merged[kind] = document
        merged["sources"].append(str(file))
    if not any(k in merged for k in KINDS):
        raise ResultsError("no results given: pass scan/convert/build/verify JSON files or a directory holding them")
    with malformed_results(merged["sources"]):
        merged["provenance"] = provenance(merged)
        merged["overview"] = overview(merged)
    return merged


# What reading a result of the wrong shape raises: a key missing, a list where a table goes, text
# where a number goes, nesting past the stack.
SHAPE_ERRORS = (KeyError, TypeError, AttributeError, ValueError, IndexError, RecursionError, jinja2.TemplateError)


@contextlib.contextmanager
def malformed_results(sources: list[str]):
    """Results edited by hand or cut short name their files in one error, never a traceback."""
    try:
        yield
    except SHAPE_ERRORS as exc:
        raise ResultsError(
            f"{', '.join(sources)}: not porter results of the shape this porter writes "
            f"({exc.__class__.__name__}: {str(exc)[:200]}); write them again with this porter"
        ) from None


def effort_of(finding: dict) -> str:
    if finding["fix"] == "auto":
        return "none"
    if finding["fix"] == "suggested":
        return "low"
    return "high" if finding["severity"] == "error" else "medium"


# Each wave-correctness error porter cannot fix by itself multiplies the score by this: one such
# bug (a strided lane loop, a host warp count of 32) is a wrong answer on every MI300, so a file
# with one must not read as nearly done.
UNFIXED_WAVE_FACTOR = 0.6
SCORE_FORMULA = (
    f"100 × (automatic + ½ × suggested) / all findings, × {UNFIXED_WAVE_FACTOR:g} for each error in the "
    f"{', '.join(WAVE_CORRECTNESS[:-1])} or {WAVE_CORRECTNESS[-1]} categories that porter does not fix automatically"
)


def is_unfixed_wave_error(finding: dict) -> bool:
    return finding["severity"] == "error" and finding["fix"] != "auto" and finding["category"] in WAVE_CORRECTNESS


def portability_score(auto: int, suggested: int, total: int, unfixed_wave_errors: int) -> int:
    """The share of findings porter fixes (suggested worth half), lowered by unfixed wave-correctness errors.

    100 is a tree that ports by itself; it is a summary for comparing trees, not a promise.
    """
    share = (auto + 0.5 * suggested) / total if total else 1.0
    return round(100 * share * UNFIXED_WAVE_FACTOR**unfixed_wave_errors)


def overview(merged: dict) -> dict:
    """The figures the summary shows: shares, effort, score."""
    scan = merged.get("scan")
    if not scan:
        return {}
    findings = scan["findings"]
    total = len(findings)
    by_fix = Counter(f["fix"] for f in findings)
    effort_by_file: dict[str, int] = {}
    for finding in findings:
        effort_by_file[finding["file"]] = effort_by_file.get(finding["file"], 0) + EFFORT_WEIGHTS[effort_of(finding)]
    auto_share = by_fix["auto"] / total if total else 1.0
    unfixed_wave = sum(1 for f in findings if is_unfixed_wave_error(f))
    score = portability_score(by_fix["auto"], by_fix["suggested"], total, unfixed_wave)
    return {
        "files": scan["summary"]["files"],
        "lines": scan["summary"]["lines"],
        "kernels": len(scan["summary"].get("kernels", [])),
        "findings": total,
        "auto_share": round(auto_share, 3),
        "effort_points": sum(effort_by_file.values()),
        "effort_by_file": dict(sorted(effort_by_file.items(), key=lambda item: -item[1])),
        "effort_buckets": dict(Counter(effort_of(f) for f in findings)),
        "score": score,
        "unfixed_wave_errors": unfixed_wave,
        "suppressed": scan["summary"].get("suppressed", {}),
    }


def effort_bucket(points: int) -> str:
    return "none" if points == 0 else "low" if points <= 3 else "medium" if points <= 15 else "high"


def _git_commit(root: str | None) -> str | None:
    if not root:
        return None
    try:
        out = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def provenance(merged: dict) -> dict:
    from porter.build.doctor import run_checks

    scan = merged.get("scan") or {}
    root = scan.get("summary", {}).get("root")
    return {
        "porter": merged.get("porter_version", __version__),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "toolchains": {c.name: c.detail if c.status == "ok" else c.status for c in run_checks()},
        "gpus": sorted({c.get("gpu") for c in (merged.get("verify") or {}).get("cases", []) if c.get("gpu")})
        or ["none"],
        "targets": scan.get("summary", {}).get("targets"),
        "rocm_version": scan.get("summary", {}).get("rocm_version"),
        "root": root,
        "commit": _git_commit(root),
    }
