"""The one rewriter: applies the byte-range edits of findings to a file's bytes.

Rules only propose edits. Here they are chosen by conversion mode, ordered, checked for
overlaps and applied in one pass over the original bytes, so every offset refers to the input.

- Identical edits (two findings proposing the same change) are applied once.
- An edit that lies wholly inside another finding's edit range with a different replacement,
  or edits that partly overlap, are a conflict: none of the edits involved is applied, and the
  findings are reported as conflicts, never turned into broken code.
- Insertions (start == end) at the same offset are applied in rule order.
- Applicability decides what is applied, as ruff's fix safety does: the edits of `auto` findings
  always, those of `suggested` findings only when the caller asks for unsafe fixes, and `manual`
  findings carry none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from porter.findings import Edit, Finding, FixKind

MODES = ("portable", "hip")


@dataclass
class RewriteResult:
    data: bytes
    applied: list[Finding] = field(default_factory=list)
    conflicts: list[Finding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.applied)


def edits_for_mode(finding: Finding, mode: str) -> tuple[Edit, ...]:
    """A finding's edits that apply in this conversion mode."""
    return tuple(e for e in finding.edits if e.mode in ("any", mode))


def applicable(finding: Finding, unsafe_fixes: bool = False) -> bool:
    """Whether a finding's edits may be applied: automatic fixes, and suggested ones when asked for."""
    return finding.fix is FixKind.AUTO or (unsafe_fixes and finding.fix is FixKind.SUGGESTED)


def rewrite(
    data: bytes,
    findings: list[Finding],
    mode: str,
    extra: list[tuple[Finding | None, Edit]] = (),
    unsafe_fixes: bool = False,
) -> RewriteResult:
    """Apply the edits of `findings` that their applicability allows (and `extra` edits the converter
    adds, which are its own) to `data`."""
    if mode not in MODES:
        raise ValueError(f"unknown conversion mode {mode!r}")
    proposals: list[tuple[Edit, Finding | None]] = [
        (e, f) for f in findings if applicable(f, unsafe_fixes) for e in edits_for_mode(f, mode)
    ]
    proposals.extend((edit, owner) for owner, edit in extra)
    chosen, conflicts = _resolve(proposals)
    pieces: list[bytes] = []
    cursor = 0
    for edit, _ in chosen:
        pieces.append(data[cursor : edit.start])
        pieces.append(edit.replacement)
        cursor = edit.end
    pieces.append(data[cursor:])
    applied_ids = {id(f) for _, owners in chosen for f in owners if f is not None}
    conflict_ids = {id(f) for f in conflicts}
    applied = [f for f in findings if id(f) in applied_ids and id(f) not in conflict_ids]
    return RewriteResult(b"".join(pieces), applied, conflicts)


def _resolve(proposals: list[tuple[Edit, Finding | None]]):
    """Deterministic order; identical edits merged; overlapping, different edits refused together."""
    groups: dict[tuple[int, int, bytes], list[Finding | None]] = {}
    for edit, finding in sorted(proposals, key=_key):
        groups.setdefault((edit.start, edit.end, edit.replacement), []).append(finding)
    items = [(Edit(start, end, replacement), owners) for (start, end, replacement), owners in groups.items()]
    items.sort(key=lambda item: (item[0].start, item[0].end))  # stable: insertions keep rule order
    conflicted: set[int] = set()
    for i, (edit, _) in enumerate(items):
        for j in range(i + 1, len(items)):
            other = items[j][0]
            if other.start > edit.end or (other.start == edit.end and edit.start != edit.end):
                break
            if _overlaps(edit, other):
                conflicted.update((i, j))
    chosen = [item for k, item in enumerate(items) if k not in conflicted]
    conflicts = [f for k in sorted(conflicted) for f in items[k][1] if f is not None]
    return chosen, conflicts


def _key(item: tuple[Edit, Finding | None]) -> tuple:
    edit, finding = item
    return (edit.start, edit.end, finding.rule if finding else "", edit.replacement)


def _overlaps(a: Edit, b: Edit) -> bool:
    if a.start == a.end or b.start == b.end:
        # an insertion conflicts only with a replacement that spans its point from both sides
        point, span = (a, b) if a.start == a.end else (b, a)
        return span.start < point.start < span.end
    return a.start < b.end and b.start < a.end
