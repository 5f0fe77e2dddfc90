"""CGR004 against the compiler: the group shuffles HIP refuses are exactly the ones porter flags."""

from __future__ import annotations

import re

from compilers import hip_compile, require_hip
from corpus_cases import CORPUS

from porter.config import Config
from porter.convert import ConvertOptions, convert

CASE = "cooperative_groups/typed_shuffles.cu"
# hip-clang names the line of each group shuffle it instantiated and refused
_REFUSED = re.compile(
    r"typed_shuffles\.cu:(\d+):\d+: note: in instantiation of function template specialization 'cooperative_groups::[^']*shfl"
)


def test_the_shuffles_hip_refuses_are_the_ones_flagged(tmp_path):
    require_hip()
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "typed_shuffles.cu").write_bytes((CORPUS / CASE).read_bytes())
    result = convert(ConvertOptions(tree, tmp_path / "port", "portable"), Config())
    flagged = {f.line for f in result.scan.findings if f.rule == "CGR004"}
    port = tmp_path / "port" / "typed_shuffles.cu"
    compiled = hip_compile(port, tmp_path, targets=("gfx942",))
    refused = {
        _original_line(port, tree / "typed_shuffles.cu", int(line)) for line in _REFUSED.findall(compiled.stderr)
    }
    assert compiled.returncode != 0
    assert refused == flagged and len(flagged) == 4, compiled.stderr[-3000:]
    # and nothing else in the port fails: the other shuffles (a float, a template's float, a class
    # of the project's own) compile
    errors = [line for line in compiled.stderr.splitlines() if "error:" in line]
    assert all("Neither an integer or float type" in e or "__shfl" in e for e in errors), errors


def _original_line(port, original, line: int) -> int:
    """The original's line that the port's line `line` is (portable mode keeps a shuffle's line as
    written; its includes become blocks, so lines move)."""
    text = port.read_bytes().splitlines()[line - 1]
    lines = original.read_bytes().splitlines()
    assert lines.count(text) == 1, text
    return lines.index(text) + 1
