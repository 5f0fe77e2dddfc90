"""The corpus covers every rule, and every CUDA name with a HIP equivalent in it is reported."""

from __future__ import annotations

import re

from corpus_cases import CORPUS, corpus_files, expected_findings, other_targets

from porter.parse import Context, parse
from porter.rules import all_rules
from porter.rules.branches import (
    Branches,
    ProjectConditions,
    Side,
    header_sides,
    hip_written_headers,
    learned_rocm_markers,
    marker_conditions,
)
from porter.rules.consteval import HEADER_SUFFIXES
from porter.rules.names import ShimIndex, hip_shims
from porter.rules.tables import load_tables
from porter.source import SourceFile, kind_of

IDENTIFIER = re.compile(rb"(?<![\w$])[A-Za-z_]\w*")


# The scan-limit rules need an 8 MiB file or a thousand findings of one rule: no corpus file is
# that large; tests/test_scan_limits.py generates what fires them.
GENERATED_ONLY = {"SCN001", "SCN002"}


def test_every_rule_fires_somewhere_in_the_corpus(corpus_scan, libclang_available):
    fired = {f.rule for f in corpus_scan.findings}
    # a rule for other targets (WRP015 at wave32 RDNA ones) fires where a case expects it there:
    # test_corpus.py's scan at that target holds each such case to its expectations
    fired |= {
        rule
        for path in corpus_files()
        for target in other_targets(path)
        for _, rule in expected_findings(path, libclang_available, target)
    }
    assert set(all_rules()) - fired - GENERATED_ONLY == set()


def test_every_cuda_name_with_a_hip_equivalent_is_reported(corpus_scan):
    """An independent pass: every identifier token of code, looked up in the table directly."""
    tables = load_tables()
    reported = {(f.file, f.span.start_byte) for f in corpus_scan.findings if f.category in ("api", "library")}
    unreported = []
    checked = 0
    sources = [(path, kind) for path in sorted(CORPUS.rglob("*")) if (kind := kind_of(path)) and kind.is_c_family]
    # a project's own NVIDIA-only arms (`#else` of its learned ROCm marker) are not to be ported
    headers = [(p.name, p.read_bytes()) for p, _ in sources if p.suffix in HEADER_SUFFIXES]
    learned = learned_rocm_markers([p.read_bytes() for p, _ in sources], hip_written_headers(headers))
    markers = ProjectConditions(marker_conditions(learned))
    # nor the headers its files include in such arms alone (llama.cpp's vendors/cuda.h, vendors/musa.h)
    nvidia_headers = {
        name
        for name, side in header_sides(
            [p.read_bytes() for p, _ in sources],
            frozenset(name for name, _ in headers),
            learned,
            lambda included: included in tables.includes,
            [p.name for p, _ in sources],
        ).items()
        if side is Side.CUDA_ONLY
    }
    # names a project maps onto HIP's itself (its compat header) need no rename (test_project_facts.py)
    shim_index = ShimIndex.of(headers)
    for path, kind in sources:
        if path.name in nvidia_headers:
            continue
        rel = path.relative_to(CORPUS).as_posix()
        parsed = parse(SourceFile.read(path, rel, kind))
        branches = Branches(parsed.source, parsed.root, markers)
        shims = hip_shims(parsed.source.data) | shim_index.reachable_from(parsed.source.data)
        for match in IDENTIFIER.finditer(parsed.source.data):
            if markers.mentioned_in(parsed.source.data) and branches.side_at(match.start()) is Side.CUDA_ONLY:
                continue
            entry = tables.identifiers.get(match.group().decode())
            if entry is None or entry.hip is None or entry.cuda in shims:
                continue
            if parsed.context_at(match.start(), match.end()) not in (Context.CODE, Context.MACRO_BODY):
                continue
            checked += 1
            if (rel, match.start()) not in reported:
                unreported.append((rel, match.group().decode()))
    assert checked > 100
    assert unreported == []


def test_comments_and_strings_stay_silent(corpus_scan):
    clean = [f for f in corpus_scan.findings if f.file == "api/clean_negatives.cu"]
    assert clean == []
