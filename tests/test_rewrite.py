"""The one rewriter: ordering, duplicates, conflicts, modes."""

from __future__ import annotations

import pytest

from porter.findings import Edit, Engine, Finding, FixKind, Severity, Span
from porter.rewrite import rewrite


def finding(rule: str, *edits: Edit) -> Finding:
    span = Span(edits[0].start, edits[0].end, 1, 1, 1, 1) if edits else Span(0, 0, 1, 1, 1, 1)
    return Finding(rule, "api", Severity.INFO, FixKind.AUTO, "m", "f.cu", span, Engine.TREE_SITTER, edits)


DATA = b"cudaMalloc(&p, n); cudaFree(p);"


def test_edits_apply_against_original_offsets():
    a = finding("API001", Edit(0, 10, b"hipMalloc", "hip"))
    b = finding("API001", Edit(19, 27, b"hipFree", "hip"))
    result = rewrite(DATA, [b, a], "hip")
    assert result.data == b"hipMalloc(&p, n); hipFree(p);"
    assert result.applied == [b, a] and result.conflicts == []


def test_mode_selects_edits():
    a = finding("API001", Edit(0, 10, b"hipMalloc", "hip"), Edit(0, 0, b"/*p*/", "portable"))
    assert rewrite(DATA, [a], "portable").data == b"/*p*/" + DATA
    assert rewrite(DATA, [a], "hip").data.startswith(b"hipMalloc")
    with pytest.raises(ValueError):
        rewrite(DATA, [a], "sycl")


def test_identical_edits_are_applied_once_and_credit_both():
    a = finding("WRP001", Edit(3, 5, b"XX"))
    b = finding("MSK004", Edit(3, 5, b"XX"))
    result = rewrite(DATA, [a, b], "hip")
    assert result.data == DATA[:3] + b"XX" + DATA[5:]
    assert set(map(id, result.applied)) == {id(a), id(b)}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (Edit(0, 10, b"A"), Edit(0, 10, b"B")),  # same range, different text
        (Edit(0, 10, b"A"), Edit(5, 15, b"B")),  # partial overlap
        (Edit(0, 20, b"A"), Edit(5, 8, b"B")),  # nested
        (Edit(0, 10, b"A"), Edit(5, 5, b"B")),  # an insertion inside a replacement
    ],
)
def test_conflicting_edits_are_refused_together(first, second):
    a, b = finding("API001", first), finding("WRP001", second)
    result = rewrite(DATA, [a, b], "hip")
    assert result.data == DATA
    assert result.applied == [] and set(map(id, result.conflicts)) == {id(a), id(b)}


def test_adjacent_edits_and_insertions_do_not_conflict():
    a = finding("API001", Edit(0, 10, b"A"))
    b = finding("API005", Edit(10, 10, b"|"))
    c = finding("API003", Edit(10, 11, b"["))
    d = finding("ARC002", Edit(0, 0, b">"))
    result = rewrite(DATA, [c, b, a, d], "hip")
    assert result.conflicts == []
    assert result.data == b">A|[" + DATA[11:]


def test_insertions_at_one_point_keep_rule_order():
    a = finding("ASM001", Edit(0, 0, b"1"))
    b = finding("API001", Edit(0, 0, b"2"))
    assert rewrite(DATA, [a, b], "hip").data == b"21" + DATA
