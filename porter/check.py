"""The CI gate: findings compared with a baseline, so that only new ones fail a build.

A finding's key survives unrelated edits: its rule, its file, and a fingerprint of the code it
concerns (the matched text and its line, whitespace folded, suppression comments dropped), plus
its rank among findings with the same key. Line numbers are not part of it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from porter import __version__
from porter.errors import PorterError
from porter.findings import SEVERITY_RANK, Finding, Severity
from porter.scan import ScanResult

BASELINE_FORMAT = 1


class BaselineError(PorterError):
    """A baseline file is missing or malformed; the message names it."""


def _normalised(text: str) -> str:
    text = re.sub(r"(//|#|/\*)\s*porter:.*$", "", text)
    return re.sub(r"\s+", " ", text).strip()


def fingerprints(result: ScanResult) -> list[tuple[str, Finding]]:
    """(fingerprint, finding) for every finding; identical code on several lines gets ranks 0, 1, ..."""
    seen: Counter[str] = Counter()
    keyed = []
    for finding in result.findings:
        base = "\x1f".join((finding.rule, finding.file, _normalised(finding.snippet)))
        digest = hashlib.sha256(base.encode("utf-8", "surrogateescape")).hexdigest()[:20]
        keyed.append((f"{digest}:{seen[digest]}", finding))
        seen[digest] += 1
    return keyed


def write_baseline(result: ScanResult, output: Path) -> int:
    entries = [
        {
            "fingerprint": key,
            "rule": f.rule,
            "file": f.file,
            "line": f.line,
            "severity": str(f.severity),
            "message": f.message,
        }
        for key, f in fingerprints(result)
    ]
    document = {
        "format": BASELINE_FORMAT,
        "porter_version": __version__,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "findings": entries,
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(document, indent=1) + "\n")
    return len(entries)


def read_baseline(path: Path) -> set[str]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise BaselineError(
            f"{path}: no such baseline (write one with `porter baseline PATH --output {path}`)"
        ) from exc
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise BaselineError(f"{path}: not a porter baseline: {exc}") from exc
    if (
        not isinstance(document, dict)
        or document.get("format") != BASELINE_FORMAT
        or not isinstance(document.get("findings"), list)
    ):
        raise BaselineError(f"{path}: not a porter baseline (format {BASELINE_FORMAT} expected)")
    entries = document["findings"]
    if not all(isinstance(entry, dict) and isinstance(entry.get("fingerprint"), str) for entry in entries):
        raise BaselineError(f"{path}: not a porter baseline: every finding needs a text `fingerprint`")
    return {entry["fingerprint"] for entry in entries}


@dataclass
class CheckResult:
    new: list[Finding]
    known: int
    below_threshold: int
    suppressed: int
    fail_on: Severity

    @property
    def failed(self) -> bool:
        return bool(self.new)

    def to_json(self) -> dict:
        return {
            "porter_version": __version__,
            "fail_on": str(self.fail_on),
            "failed": self.failed,
            "new": [f.to_json() for f in self.new],
            "known": self.known,
            "new_below_threshold": self.below_threshold,
            "suppressed": self.suppressed,
        }


def check(result: ScanResult, baseline: set[str], fail_on: Severity) -> CheckResult:
    new, known, below = [], 0, 0
    for key, finding in fingerprints(result):
        if key in baseline:
            known += 1
        elif SEVERITY_RANK[finding.severity] >= SEVERITY_RANK[fail_on]:
            new.append(finding)
        else:
            below += 1
    suppressed = sum(len(r.suppressed) for r in result.files)
    return CheckResult(new, known, below, suppressed, fail_on)
