"""Every corpus case: the findings porter reports are exactly the ones written on its lines."""

from __future__ import annotations

from collections import defaultdict

import pytest
from corpus_cases import CORPUS, corpus_files, expected_findings, other_targets

from porter.config import Config
from porter.scan import scan

CASES = corpus_files()


@pytest.mark.parametrize("path", CASES, ids=[p.relative_to(CORPUS).as_posix() for p in CASES])
def test_case_findings(path, corpus_scan, libclang_available):
    rel = path.relative_to(CORPUS).as_posix()
    by_file = defaultdict(list)
    for finding in corpus_scan.findings:
        by_file[finding.file].append((finding.line, finding.rule))
    errors = [r.error for r in corpus_scan.files if r.rel == rel and r.error]
    assert not errors, errors
    actual, expected = sorted(by_file[rel]), expected_findings(path, libclang_available)
    missing = sorted(set(expected) - set(actual))
    unexpected = sorted(set(actual) - set(expected))
    assert (missing, unexpected) == ([], []), f"missing {missing}, unexpected {unexpected}"
    assert actual == expected


AT_TARGET = [(path, target) for path in CASES for target in sorted(other_targets(path))]


@pytest.mark.parametrize(
    ("path", "target"), AT_TARGET, ids=[f"{p.relative_to(CORPUS).as_posix()}@{t}" for p, t in AT_TARGET]
)
def test_case_findings_at_another_target(path, target, libclang_available):
    """`// expect[gfx1100]: RULE`: what a scan at that target alone reports (the case's folder is scanned,
    so its headers and project constants are read as in the whole corpus's scan)."""
    config = Config()
    config.targets = (target,)
    result = scan([path.parent], config, jobs=1)
    actual = sorted((f.line, f.rule) for f in result.findings if f.file == path.name)
    assert actual == expected_findings(path, libclang_available, target)


def test_every_case_was_scanned(corpus_scan):
    scanned = {r.rel for r in corpus_scan.files}
    missing = [p.relative_to(CORPUS).as_posix() for p in CASES if p.relative_to(CORPUS).as_posix() not in scanned]
    assert missing == [] or all(m.endswith("README.md") for m in missing)
