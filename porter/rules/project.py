"""Findings that depend on the whole project, not on one file.

A constant defined in one header and used as a warp width in another file is a warp-size
constant, and its definition is where the fix belongs; no single file can tell. Rules say so
in four kinds of fact, which each file's analysis records (and the scan cache keeps):

- a *claim* on a key (`warp-width:WS`): this file uses the constant in that role;
- a *veto* on a key: this file uses it in another role (32 bits per int), so the definition
  must stay and the uses carry their own fixes;
- a *pending* finding: reported only if its key is claimed somewhere and vetoed nowhere;
- a *withdrawal*: a finding of this file that gives way to a pending finding of that key
  (the use's fix, once the definition carries it);
- a *row width* on a key: a kernel's 32-thread row branch reduces with the constant as its
  shuffles' width (logical_warp.row_path_widths), so the constant is right as written: its
  definition's finding is not reported, nor any finding that *cites* it (every finding of a
  file whose 32 comes from the constant, recorded with its key);
- a *block limit* on a key: widening the constant would take a launch's block in this file past
  the 1024 threads a block may hold (porter.rules.block_limits): its definition's finding, where
  the project settles it, is work for a person, with the launch named;
- an *assumption* on a key: the file took a header's constant of a warp width's value (marlin's
  `tile_size = 16`) as left as written, which it is unless another file claims it. Where the
  project widens it after all (settled_keys), the scan reads the file again knowing so
  (porter.scan), since what the file concluded from it (a kernel of 32-thread groups) no longer
  holds.

`settle` applies them across the files of one scan; a lone file settles on its own.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from porter.findings import Finding, FixKind


@dataclass
class ProjectFacts:
    claims: set[str] = field(default_factory=set)
    vetoes: set[str] = field(default_factory=set)
    pending: list[tuple[str, Finding]] = field(default_factory=list)
    withdrawals: list[tuple[str, str, int, int]] = field(default_factory=list)  # key, rule, start, end
    row_widths: set[str] = field(default_factory=set)
    citing: list[tuple[str, str, int, int]] = field(default_factory=list)  # key, rule, start, end
    assumed_kept: set[str] = field(default_factory=set)
    block_limits: dict[str, str] = field(default_factory=dict)  # key → what widening does to a launch

    def claim_pending(self, key: str, finding: Finding) -> None:
        """The finding, reported unless a file of the project vetoes `key`, which this file claims:
        what HIP lacks, where the project may supply it itself (a ROCm branch's own overload)."""
        self.claims.add(key)
        self.pending.append((key, finding))

    def __bool__(self) -> bool:
        return bool(
            self.claims or self.vetoes or self.pending or self.withdrawals or self.row_widths or self.citing
            or self.assumed_kept or self.block_limits
        )  # fmt: skip

    def to_json(self) -> dict:
        return {
            "claims": sorted(self.claims),
            "vetoes": sorted(self.vetoes),
            "pending": [[key, finding.to_json()] for key, finding in self.pending],
            "withdrawals": [list(w) for w in self.withdrawals],
            "row_widths": sorted(self.row_widths),
            "citing": [list(c) for c in self.citing],
            "assumed_kept": sorted(self.assumed_kept),
            "block_limits": dict(sorted(self.block_limits.items())),
        }

    @classmethod
    def from_json(cls, data: dict | None) -> ProjectFacts:
        if not data:
            return cls()
        return cls(
            claims=set(data["claims"]),
            vetoes=set(data["vetoes"]),
            pending=[(key, Finding.from_json(f)) for key, f in data["pending"]],
            withdrawals=[tuple(w) for w in data["withdrawals"]],
            row_widths=set(data.get("row_widths", ())),
            citing=[tuple(c) for c in data.get("citing", ())],
            assumed_kept=set(data.get("assumed_kept", ())),
            block_limits=dict(data.get("block_limits", {})),
        )


def settled_keys(facts: list[ProjectFacts]) -> set[str]:
    """Keys claimed somewhere, vetoed nowhere, a row's width nowhere, and with a pending finding
    somewhere (a definition in the project to carry the fix)."""
    claimed = set().union(*(f.claims for f in facts)) if facts else set()
    vetoed = set().union(*(f.vetoes for f in facts)) if facts else set()
    defined = {key for f in facts for key, _ in f.pending}
    return (claimed - vetoed - row_width_keys(facts)) & defined


def widened_assumptions(facts: ProjectFacts, keys: set[str]) -> frozenset[str]:
    """The keys the file assumed left as written that the project's settled `keys` widen."""
    return frozenset(facts.assumed_kept & keys)


def row_width_keys(facts: list[ProjectFacts]) -> set[str]:
    """Keys some file's row kernels keep at 32 (a row's width, right as written)."""
    return set().union(*(f.row_widths for f in facts)) if facts else set()


def block_limit_keys(facts: list[ProjectFacts]) -> dict[str, str]:
    """Key → what widening it does to a launch, over the project's files (porter.rules.block_limits)."""
    return {key: detail for f in facts for key, detail in f.block_limits.items()}


def settle(
    findings: list[Finding],
    facts: ProjectFacts,
    keys: set[str],
    row_widths: set[str] = frozenset(),
    block_limits: dict[str, str] | None = None,
) -> list[Finding]:
    """One file's findings once the project's settled `keys`, `row_widths` and `block_limits` are known."""
    gone = {(rule, start, end) for key, rule, start, end in facts.withdrawals if key in keys}
    gone |= {(rule, start, end) for key, rule, start, end in facts.citing if key in row_widths}
    kept = [f for f in findings if (f.rule, f.span.start_byte, f.span.end_byte) not in gone] if gone else findings
    # one finding per place: a use that feeds two of the project's networks gives way once
    added = list(
        {
            (f.rule, f.span.start_byte, f.span.end_byte): _held(f, (block_limits or {}).get(key))
            for key, f in facts.pending
            if key in keys
        }.values()
    )
    return sorted(kept + added, key=Finding.sort_key) if added else kept


def _held(finding: Finding, block_limit: str | None) -> Finding:
    """A definition's finding whose widening would overfill a launch's block: no edit, for a person."""
    if block_limit is None:
        return finding
    return dataclasses.replace(finding, fix=FixKind.MANUAL, edits=(), message=f"{finding.message}; but {block_limit}")
