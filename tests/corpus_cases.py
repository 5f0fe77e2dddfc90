"""Reading the expectations that corpus cases carry on their own lines."""

from __future__ import annotations

import re
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
# `// expect: RULE …` at the default target; `// expect[gfx1100]: RULE …` when that target alone is scanned
EXPECT = re.compile(rb"(?://|#|/\*)\s*expect(?:\[(\w+)\])?:\s*((?:[A-Z]+[0-9]+(?::\w+)?[ ]*)+)")
CASE_SUFFIXES = {".cu", ".cuh", ".hip", ".cpp", ".h", ".hpp", ".cmake", ".py", ".txt"}


def corpus_files() -> list[Path]:
    """Every case file: sources, headers, build files; Python only where porter reads it (setup.py,
    CUDA in strings), not helpers such as a verify case's CPU reference."""
    return sorted(
        p
        for p in CORPUS.rglob("*")
        if p.is_file() and p.suffix in CASE_SUFFIXES and p.name != "README.md" and (p.suffix != ".py" or _read(p))
    )


def _read(path: Path) -> bool:
    """Does porter read this Python file (discovery's own test)?"""
    from porter.embedded import embeds_device_code
    from porter.source import FileKind, kind_of

    return kind_of(path) is FileKind.SETUP_PY or embeds_device_code(path.read_bytes())


def expected_findings(path: Path, with_libclang: bool, target: str | None = None) -> list[tuple[int, str]]:
    """(line, rule) pairs, sorted; `ID:libclang` entries only when libclang is available. With a
    target, the pairs written for a scan at that target alone (`expect[gfx1100]:`)."""
    expected = []
    for number, line in enumerate(path.read_bytes().split(b"\n"), start=1):
        match = next((m for m in EXPECT.finditer(line) if m.group(1) == (target.encode() if target else None)), None)
        if not match:
            continue
        for token in match.group(2).decode().split():
            rule, _, engine = token.partition(":")
            if engine == "libclang" and not with_libclang:
                continue
            expected.append((number, rule))
    return sorted(expected)


def other_targets(path: Path) -> set[str]:
    """The targets a case writes expectations for besides the default (`expect[gfx1100]:`)."""
    return {m.group(1).decode() for m in EXPECT.finditer(path.read_bytes()) if m.group(1)}


def directives(path: Path) -> set[str]:
    """Words after `corpus:` in a case's first lines: nvcc (must compile with nvcc), broken, torch, planted
    (a deliberate failure on AMD that a test expects: excluded from the build-everything tests),
    nohipify (torch's hipify breaks the original itself: left out of the test that hipifies the port)."""
    head = path.read_bytes().split(b"\n", 3)[:3]
    words: set[str] = set()
    for line in head:
        match = re.search(rb"corpus:\s*([\w ,-]+)", line)
        if match:
            words.update(match.group(1).decode().replace(",", " ").split())
    return words
