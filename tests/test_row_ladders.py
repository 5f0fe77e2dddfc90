"""Shuffles written for 64 lanes in kernels whose blocks are rows of 32 threads (WRP019).

A row is 32 lanes wide whatever the wavefront, so a butterfly from 32 (or from `warpSize / 2` on
a 64-lane wavefront) leaves it: it adds the other row's values where two rows share a wavefront,
and reads lanes the block never ran where a block is one row (TileLang's HIP reduction, NaN on
CDNA). Only code written for ROCm is judged: CUDA code has no ladder from 32. The CPU device runs
the planted form (corpus/emulate/planted/row_max_ladder_32.cu, tests/test_emulator.py).
"""

from __future__ import annotations

import pytest
from compilers import hip_compile

from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.scan import scan

ONE_ROW = """#include <hip/hip_runtime.h>
__device__ float row_max(float v) {
  for (int o = 32; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor(v, o));
  return v;
}
__global__ void maxes(const float* x, float* y) {
  float v = row_max(x[blockIdx.x * 32 + threadIdx.x]);
  if (threadIdx.x == 0) y[blockIdx.x] = v;
}
void go(const float* x, float* y, int n) { hipLaunchKernelGGL(maxes, dim3(n), dim3(32), 0, 0, x, y); }
"""

TWO_ROWS = """#include <hip/hip_runtime.h>
__global__ void sums(const float* x, float* y) {
  float v = x[(blockIdx.x * 4 + threadIdx.y) * 32 + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_xor(v, o);
  v += __shfl_down(v, 32);
  if (threadIdx.x == 0) y[blockIdx.x * 4 + threadIdx.y] = v;
}
void go(const float* x, float* y, int n) { hipLaunchKernelGGL(sums, dim3(n), dim3(32, 4), 0, 0, x, y); }
"""

ROCM_BRANCH = """__global__ void maxes(const float* x, float* y) {
  float v = x[blockIdx.x * 32 + threadIdx.x];
#ifdef __HIP_PLATFORM_AMD__
  for (int o = 32; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor(v, o));
#else
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
#endif
  if (threadIdx.x == 0) y[blockIdx.x] = v;
}
void go(const float* x, float* y, int n) { maxes<<<n, 32>>>(x, y); }
"""


def row_findings(tmp_path, name: str, text: str, targets=("gfx942",)) -> list[tuple[int, str, str]]:
    (tmp_path / name).write_text(text)
    config = Config()
    config.targets = targets
    found = scan([tmp_path / name], config, jobs=1).findings
    return sorted((f.line, f.rule, str(f.fix)) for f in found if f.rule in ("WRP015", "WRP019"))


def test_a_butterfly_from_32_in_a_one_row_block_is_started_at_16(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    assert row_findings(source, "k.hip", ONE_ROW) == [(3, "WRP019", "auto")]
    convert(ConvertOptions(source, tmp_path / "port", mode="hip"), Config(), None)
    port = tmp_path / "port" / "k.hip"
    assert "for (int o = 16; o > 0; o >>= 1)" in port.read_text()
    assert row_findings(port.parent, "k.hip", port.read_text()) == []  # converted once: nothing left
    built = hip_compile(port, tmp_path, targets=("gfx942",))
    assert built.returncode == 0, built.stderr[-3000:]


def test_two_rows_to_a_wavefront_take_a_ladder_from_the_wavefronts_half_and_a_step_of_32(tmp_path):
    # `warpSize / 2` is 32 on a 64-lane wavefront; the unrolled step of 32 goes to a person
    assert row_findings(tmp_path, "k.hip", TWO_ROWS) == [(4, "WRP019", "auto"), (5, "WRP019", "manual")]


def test_a_projects_rocm_branch_is_judged_and_its_cuda_branch_is_not(tmp_path):
    assert row_findings(tmp_path, "k.cu", ROCM_BRANCH) == [(4, "WRP019", "auto")]


@pytest.mark.parametrize(
    ("case", "text"),
    [
        # a block of 256 threads: the wavefront is the warp, and a ladder from 32 is right on CDNA
        ("a wide block", ONE_ROW.replace("dim3(32)", "dim3(256)").replace("blockIdx.x * 32", "blockIdx.x * 256")),
        # CUDA code that NVIDIA compiles too: a 32 there is not a 64-lane wavefront's half
        ("code NVIDIA compiles", ROCM_BRANCH.replace("#ifdef __HIP_PLATFORM_AMD__", "#if 1")),
    ],
)
def test_no_row_ladder_where_there_is_no_row_or_the_code_is_not_rocms(tmp_path, case, text):
    assert [rule for _, rule, _ in row_findings(tmp_path, "k.hip" if "hip_runtime" in text else "k.cu", text)] == []


def test_at_rdna_alone_the_wave32_rule_speaks_and_both_targets_give_one_fix(tmp_path):
    assert row_findings(tmp_path, "k.hip", ONE_ROW, targets=("gfx1100",)) == [(3, "WRP015", "suggested")]
    # with CDNA and RDNA both, the row's 16 is right at either width: one finding, not two edits
    assert row_findings(tmp_path, "k.hip", ONE_ROW, targets=("gfx942", "gfx1100")) == [(3, "WRP019", "auto")]
