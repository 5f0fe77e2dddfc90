"""A lane read from PTX's %laneid in a kernel whose block is rows of 32 threads (WRP018, ASM001).

On NVIDIA `%laneid` is the lane within the warp, 0-31: in "one warp per row" kernels, the lane
within the row. Ported, it is `__lane_id()`, which counts a 64-lane wavefront's lanes: where two
rows share a wavefront the second reads 32-63 and indexes past its row (flashinfer's
ConcatMLAKKernel takes `get_lane_id()` from utils.cuh this way). porter takes the row's lane there,
`% 32`, at the call of a lane helper that any file of the scan defines (WRP018) or in the asm
statement itself (ASM001's row form); elsewhere the helper is `__lane_id()` as before.
corpus/emulate/lane_rows.cu runs both on the CPU device (tests/test_emulator.py).
"""

from __future__ import annotations

import pytest
from compilers import hip_compile, nvcc_compile

from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.scan import scan

HELPER = """#pragma once
__device__ __forceinline__ int get_lane_id() {
  int lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}
"""

ROWS = """#include "lane.cuh"
__global__ void __launch_bounds__(128) scale(const float* in, float* out, int rows) {
  const int row = blockIdx.x * 4 + threadIdx.x / 32;
  const int lane = get_lane_id();
  if (row < rows) out[row * 32 + lane] = in[row * 32 + lane] * 2.f;
}
"""


def tree(root, **files: str):
    root.mkdir(exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def found(path) -> list[tuple[str, int, str, str]]:
    return sorted(
        (f.file, f.line, f.rule, str(f.fix))
        for f in scan([path], Config(), jobs=1).findings
        if f.rule in ("WRP018", "ASM001")
    )


def test_a_headers_lane_helper_called_by_a_row_kernel_is_taken_within_the_row(tmp_path):
    root = tree(tmp_path / "src", **{"lane.cuh": HELPER, "rows.cu": ROWS})
    assert found(root) == [("lane.cuh", 4, "ASM001", "auto"), ("rows.cu", 4, "WRP018", "auto")]
    convert(ConvertOptions(root, tmp_path / "port"), Config(), None)
    port = tmp_path / "port"
    assert "const int lane = (get_lane_id() % 32);" in (port / "rows.cu").read_text()
    assert "lane = porter_lane_id();" in (port / "lane.cuh").read_text()  # the helper: the wavefront's lane
    assert found(port) == []  # converted once: nothing left to do


@pytest.mark.parametrize(
    "call",
    [
        "get_lane_id() % 32",  # the row's lane already
        "get_lane_id() & 31",
        "(get_lane_id()) & 0x1f",
    ],
)
def test_a_lane_already_taken_within_the_row_is_left_alone(tmp_path, call):
    root = tree(tmp_path / "src", **{"lane.cuh": HELPER, "rows.cu": ROWS.replace("get_lane_id()", call)})
    assert found(root) == [("lane.cuh", 4, "ASM001", "auto")]


NOT_ROWS = {
    # a warp per wavefront: the wavefront's lane is the warp's
    "a flat block": ROWS.replace("blockIdx.x * 4 + threadIdx.x / 32", "blockIdx.x").replace("__launch_bounds__(128) ", ""),
    # one row to a block: lanes 32-63 of the wavefront do not run, and __lane_id() is 0-31
    "one row": ROWS.replace("__launch_bounds__(128)", "__launch_bounds__(32)").replace("blockIdx.x * 4 + ", "blockIdx.x + 0 * "),
    # a zero-argument helper that reads no lane
    "another helper": ROWS.replace("get_lane_id()", "get_row()").replace('#include "lane.cuh"', '#include "lane.cuh"\n__device__ int get_row();'),
}  # fmt: skip


@pytest.mark.parametrize("case", NOT_ROWS, ids=list(NOT_ROWS))
def test_no_row_lane_where_the_kernel_has_no_two_rows_to_a_wavefront(tmp_path, case):
    root = tree(tmp_path / "src", **{"lane.cuh": HELPER, "rows.cu": NOT_ROWS[case]})
    assert found(root) == [("lane.cuh", 4, "ASM001", "auto")]


def test_a_helper_only_row_kernels_reach_reads_the_rows_lane_itself(tmp_path):
    """The helper in the row kernel's own file, reached from no other kernel: its asm becomes the
    row's lane, and the call stays as it is."""
    text = ROWS.replace('#include "lane.cuh"\n', HELPER.replace("#pragma once\n", ""))
    root = tree(tmp_path / "src", **{"rows.cu": text})
    assert found(root) == [("rows.cu", 3, "ASM001", "auto")]
    convert(ConvertOptions(root, tmp_path / "port"), Config(), None)
    port = (tmp_path / "port" / "rows.cu").read_text()
    assert "lane = porter_lane_id() % 32;" in port and "const int lane = get_lane_id();" in port


def test_a_hip_ports_lane_id_in_a_row_kernel_is_reported(tmp_path):
    """Auditing a HIP port: `__lane_id()` taken as a row's lane."""
    text = ROWS.replace('#include "lane.cuh"\n', "#include <hip/hip_runtime.h>\n").replace(
        "get_lane_id()", "__lane_id()"
    )
    root = tree(tmp_path / "src", **{"rows.hip": text})
    assert found(root) == [("rows.hip", 4, "WRP018", "auto")]


@pytest.mark.parametrize("mode", ["portable", "hip"])
def test_the_converted_row_lanes_build_with_both_compilers(tmp_path, mode):
    src = tree(tmp_path / "src", **{"lane.cuh": HELPER, "rows.cu": ROWS})
    convert(ConvertOptions(src, tmp_path / "port", mode=mode), Config(), None)
    port = tmp_path / "port" / ("rows.hip" if mode == "hip" else "rows.cu")
    hip = hip_compile(port, tmp_path, targets=("gfx90a", "gfx942"))
    assert hip.returncode == 0, hip.stderr[-3000:]
    if mode == "portable":
        nvcc = nvcc_compile(port, tmp_path)
        assert nvcc.returncode == 0, nvcc.stderr[-3000:]
