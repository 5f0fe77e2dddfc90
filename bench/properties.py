"""The conversion properties on many more examples than CI runs: idempotence, untouched input, no crash.

Usage: `python bench/properties.py [--examples 500]`. Each example mutates a corpus file (bytes
inserted, deleted or replaced), converts it in both modes, converts the output again, and checks
that the second conversion changes nothing and that the input is unchanged.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from test_robustness import mutated_source  # noqa: E402

from porter.config import Config  # noqa: E402
from porter.convert import ConvertOptions, convert  # noqa: E402


def digest(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.startswith(".porter")
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=500)
    args = parser.parse_args()
    counter = {"n": 0}
    started = time.perf_counter()

    @settings(max_examples=args.examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(case=mutated_source())
    def check(case):
        suffix, data = case
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "src"
            src.mkdir()
            (src / f"case{suffix}").write_bytes(data)
            for mode in ("portable", "hip"):
                once, twice = Path(tmp) / f"{mode}1", Path(tmp) / f"{mode}2"
                convert(ConvertOptions(src, once, mode), Config(), None)
                convert(ConvertOptions(once, twice, mode), Config(), None)
                assert digest(once) == digest(twice), f"{mode} conversion is not idempotent"
            assert (src / f"case{suffix}").read_bytes() == data, "the input changed"
        counter["n"] += 1
        if counter["n"] % 50 == 0:
            print(f"[properties] {counter['n']} examples, {time.perf_counter() - started:.0f}s", file=sys.stderr)

    check()
    print(f"properties hold on {counter['n']} examples ({time.perf_counter() - started:.0f}s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
