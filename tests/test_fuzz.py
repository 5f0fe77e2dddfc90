"""The fuzz campaign (bench/fuzz.py) at CI size: mutated sources through scan and convert, mutated
documents through every JSON/TOML reader; no traceback, no internal error, no hang, no unsound span.
The long run (100,000 inputs) is in reports/fuzz.md."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fuzz import campaign  # noqa: E402


def test_a_ci_sized_fuzz_campaign_finds_no_failure_and_no_hang():
    tally = campaign(seed=2026, indices=range(400))
    assert tally.inputs == 400 and len(tally.by_kind) == 6
    assert tally.failures == [] and tally.hangs == []
