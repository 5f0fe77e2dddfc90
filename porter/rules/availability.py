"""Is a HIP name there in the ROCm release the user targets?

`since` in the tables is the earliest checked HIP release whose headers declare a name
(5.7, 6.4 or 7.2). A name marked 6.4 appeared somewhere after 5.7, so for a target between
the two the answer is "probably not, check", never a confident yes or no.
"""

from __future__ import annotations

from enum import StrEnum

from porter.findings import FixKind, Severity
from porter.rules.tables import NameEntry
from porter.targets import RocmVersion

CHECKED_RELEASES = ("5.7", "6.4", "7.2")


class Availability(StrEnum):
    AVAILABLE = "available"
    UNCERTAIN = "uncertain"
    TOO_NEW = "too-new"
    MISSING = "missing"


def availability(entry: NameEntry, rocm_version: RocmVersion, checked_from: str = CHECKED_RELEASES[0]) -> Availability:
    """`checked_from`: the first checked release whose headers hold the entry's library at all.

    A name first seen in that release may be older than it (hipBLASLt's headers are read
    from 7.2 only), so a target before it is uncertain, not too new.
    """
    if entry.hip is None:
        return Availability.MISSING
    since = entry.since or CHECKED_RELEASES[0]
    target = rocm_version.release
    if target >= RocmVersion.of(since).release:
        return Availability.AVAILABLE
    if since == checked_from and since != CHECKED_RELEASES[0]:
        return Availability.UNCERTAIN
    previous = CHECKED_RELEASES[CHECKED_RELEASES.index(since) - 1] if since in CHECKED_RELEASES[1:] else None
    if previous and target > RocmVersion.of(previous).release:
        return Availability.UNCERTAIN
    return Availability.TOO_NEW


def severity_and_fix(state: Availability) -> tuple[Severity, FixKind]:
    return {
        Availability.AVAILABLE: (Severity.INFO, FixKind.AUTO),
        Availability.UNCERTAIN: (Severity.WARNING, FixKind.SUGGESTED),
        Availability.TOO_NEW: (Severity.ERROR, FixKind.MANUAL),
        Availability.MISSING: (Severity.ERROR, FixKind.MANUAL),
    }[state]


def describe(entry: NameEntry, state: Availability, rocm_version: RocmVersion) -> str:
    if state is Availability.AVAILABLE:
        return f"`{entry.cuda}` is `{entry.hip}` in HIP"
    if state is Availability.UNCERTAIN:
        return (
            f"`{entry.cuda}` is `{entry.hip}` in HIP; porter's checked headers first show it in {entry.since}, "
            f"so check that ROCm {rocm_version} has it"
        )
    if state is Availability.TOO_NEW:
        return f"`{entry.cuda}` maps to `{entry.hip}`, which needs ROCm {entry.since} (targeting {rocm_version})"
    if entry.unverified_hip:
        return (
            f"`{entry.cuda}` has no HIP equivalent: hipify renames it to `{entry.unverified_hip}`, "
            "which no HIP release declares"
        )
    return f"`{entry.cuda}` has no HIP equivalent"
