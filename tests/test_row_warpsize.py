"""`warpSize` in a kernel whose block is rows of 32 threads (WRP021).

A kernel launched `<<<rows, 32>>>` whose author wrote `warpSize` for the row (`threadIdx.x %
warpSize`, `i += warpSize`, a ladder from `warpSize / 2`) is right on NVIDIA, where the two are one.
On gfx9 warpSize is 64 and the row still 32 threads: the stride skips half the row and the ladder's
first shuffle leaves it. porter writes the row's 32 there (corpus/emulate/warpsize_rows.cu: its port
passes at 64 and 32 lanes on the CPU device, the port without it fails at 64). In a constant
expression the 32 also answers WRP009, which then stays silent there; for RDNA alone (wave32, where
the row is the wavefront) WRP021 has nothing to say and WRP009 stands.
"""

from __future__ import annotations

import shutil

from compilers import hip_compile, nvcc_compile
from corpus_cases import CORPUS

from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.scan import scan

CASE = CORPUS / "emulate" / "warpsize_rows.cu"

CONSTANT_ROW = """
__global__ void row_max(const float* x, float* out, int cols) {
  __shared__ float buf[warpSize];
  constexpr int kLanes = warpSize;
  const int lane = threadIdx.x % warpSize;
  buf[lane] = x[blockIdx.x * cols + lane];
  if (lane == 0) out[blockIdx.x] = buf[kLanes - 1];
}
void go(const float* x, float* out, int rows, int cols) { row_max<<<rows, 32>>>(x, out, cols); }
"""


def _rules(path, targets=("gfx942",)) -> list[tuple[int, str, bytes]]:
    return [
        (f.line, f.rule, b"".join(e.replacement for e in f.edits))
        for f in scan([path], Config(targets=targets)).findings
        if f.rule.startswith("WRP")
    ]


def test_a_row_kernels_warpsize_becomes_the_rows_32():
    found = _rules(CASE)
    assert [(line, rule, edit) for line, rule, edit in found if rule == "WRP021"] == [
        (9, "WRP021", b"32"), (11, "WRP021", b"32"), (12, "WRP021", b"32"),
    ]  # fmt: skip
    assert not any(rule in ("WRP001", "WRP002", "WRP005") for _, rule, _ in found)


def test_a_constant_warpsize_in_a_row_kernel_is_one_edit_not_two(tmp_path):
    (tmp_path / "k.cu").write_text(CONSTANT_ROW, encoding="utf-8")
    assert sorted({(line, rule) for line, rule, _ in _rules(tmp_path / "k.cu")}) == [
        (3, "WRP021"), (4, "WRP021"), (5, "WRP021"),
    ]  # fmt: skip
    # wave32 alone: the row is the wavefront, and warpSize in a constant expression is WRP009's
    assert {(line, rule) for line, rule, _ in _rules(tmp_path / "k.cu", ("gfx1100",))} == {(3, "WRP009"), (4, "WRP009")}


def test_the_port_builds_for_gfx942_and_the_original_with_nvcc(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    shutil.copy(CASE, source / CASE.name)
    convert(ConvertOptions(source, tmp_path / "port", "portable"), Config(), None)
    port = (tmp_path / "port" / CASE.name).read_text(encoding="utf-8")
    code = [line.split("//")[0] for line in port.splitlines()]
    assert not any("warpSize" in line for line in code) and any("i += 32" in line for line in code)
    built = hip_compile(tmp_path / "port" / CASE.name, tmp_path, targets=("gfx942",))
    assert built.returncode == 0, built.stderr[-2000:]
    original = nvcc_compile(CASE, tmp_path)
    assert original.returncode == 0, original.stderr[-2000:]
