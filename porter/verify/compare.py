"""Comparison of a port's outputs with the original's: errors, ULP distance, mismatches."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from porter.verify.cases import FLOATS, Tolerance


@dataclass
class Comparison:
    passed: bool
    max_abs_err: float
    max_rel_err: float
    max_ulp: int | None
    mismatches: int
    first_mismatch: int | None
    reason: str | None = None


def as_values(bits: np.ndarray, dtype: str) -> np.ndarray:
    """Stored arrays as numbers: bf16 is kept as its 16 bits, widened here to float32."""
    if dtype == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32)
    return bits


def ulp_distance(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Distance in units in the last place, on the ordered integer line of the float format."""
    width = {2: np.int16, 4: np.int32, 8: np.int64}[expected.dtype.itemsize]

    def ordered(values):
        ints = values.view(width).astype(np.int64)
        return np.where(ints < 0, np.iinfo(width).min - ints, ints)

    return np.abs(ordered(expected) - ordered(actual))


def compare(expected: np.ndarray, actual: np.ndarray, dtype: str, tolerance: Tolerance) -> Comparison:
    if expected.shape != actual.shape:
        return Comparison(
            False, float("nan"), float("nan"), None, -1, None, f"shapes differ: {expected.shape} vs {actual.shape}"
        )
    if dtype not in FLOATS:
        bad = np.flatnonzero(expected != actual)
        diff = np.abs(expected.astype(np.float64) - actual.astype(np.float64)) if expected.size else np.zeros(0)
        return _verdict(bad, diff, diff, None, expected.size, tolerance)
    ulps = (
        ulp_distance(expected, actual)
        if dtype != "bf16"
        else ulp_distance(expected.view(np.int16), actual.view(np.int16))
    )
    want = as_values(expected, dtype).astype(np.float64)
    got = as_values(actual, dtype).astype(np.float64)
    both_nan = np.isnan(want) & np.isnan(got)
    with np.errstate(invalid="ignore", over="ignore"):
        abs_err = np.where(both_nan, 0.0, np.abs(want - got))
        rel_err = np.where(
            both_nan | (abs_err == 0), 0.0, abs_err / np.maximum(np.abs(want), np.finfo(np.float64).tiny)
        )
        close = both_nan | (abs_err <= tolerance.atol + tolerance.rtol * np.abs(want))
    if tolerance.max_ulp is not None:
        close |= ~np.isnan(want) & ~np.isnan(got) & (ulps <= tolerance.max_ulp)
    ulps = np.where(both_nan, 0, ulps)
    return _verdict(np.flatnonzero(~close), abs_err, rel_err, ulps, expected.size, tolerance)


def _verdict(bad, abs_err, rel_err, ulps, size, tolerance) -> Comparison:
    allowed = int(tolerance.mismatch_fraction * size)
    passed = len(bad) <= allowed
    reason = None if passed else f"{len(bad)} of {size} elements outside tolerance (allowed {allowed})"
    return Comparison(
        passed=passed,
        max_abs_err=float(np.nanmax(abs_err)) if size else 0.0,
        max_rel_err=float(np.nanmax(rel_err)) if size else 0.0,
        max_ulp=int(ulps.max()) if ulps is not None and size else None,
        mismatches=len(bad),
        first_mismatch=int(bad[0]) if len(bad) else None,
        reason=reason,
    )
