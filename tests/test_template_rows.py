"""A kernel template's branch for rows of 32 threads keeps its warp helper's width at 32
(block_rows.template_row_paths, logical_warp.row_path_widths, the project's row widths).

torch-harmonics 0.8.0 (spherical attention) defines `WARP_SIZE (32)` in a header, hands it to its
shuffles as the width in `__warp_sum`, and launches a kernel template with the block's x from a
template argument: `if constexpr (BDIM_X == 32)` reduces each 32-thread row with `__warp_sum`,
several rows to a block. Widening WARP_SIZE, which porter's WRP006 did, adds two rows together on
a 64-lane wavefront; kept at 32, the helper reduces each row alone on any wavefront, and so does
every other use of it. corpus/emulate/template_rows.cu runs the kernel at 32 and 64 lanes
(tests/test_emulator.py): as porter leaves it, it passes; widened, its row branch fails at 64.
"""

from __future__ import annotations

from porter.config import Config
from porter.scan import scan

UTILS = """#pragma once
#define WARP_SIZE (32)
#define FULL_MASK (0xFFFFFFFF)

template <typename T>
__device__ T warp_total(T v) {
  #pragma unroll
  for (int i = WARP_SIZE / 2; i; i /= 2) {
    v += __shfl_xor_sync(FULL_MASK, v, i, WARP_SIZE);
  }
  return v;
}
"""

KERNELS = """#include "utils.cuh"

template <int BDIM_X, int BDIM_Y>
__global__ void row_softmax(const float* in, float* out, int n) {
  const int row = blockIdx.x * BDIM_Y + threadIdx.y;
  float total = 0.f;
  for (int i = threadIdx.x; i < n; i += BDIM_X) total += __expf(in[row * n + i]);
  if constexpr (BDIM_X == 32) {
    total = warp_total(total);
  } else {
    __shared__ float partial[BDIM_X / WARP_SIZE];
    total = warp_total(total);
    if (threadIdx.x % WARP_SIZE == 0) partial[threadIdx.x / WARP_SIZE] = total;
    __syncthreads();
    total = threadIdx.x < BDIM_X / WARP_SIZE ? partial[threadIdx.x] : 0.f;
    total = warp_total(total);
  }
  for (int i = threadIdx.x; i < n; i += BDIM_X) out[row * n + i] = __expf(in[row * n + i]) / total;
}

template <int BDIM_X, int BDIM_Y>
void launch(const float* in, float* out, int rows, int n) {
  dim3 block(BDIM_X, BDIM_Y);
  row_softmax<BDIM_X, BDIM_Y><<<(rows + BDIM_Y - 1) / BDIM_Y, block>>>(in, out, n);
}

void softmax(const float* in, float* out, int rows, int n, int threads) {
  dim3 generic(WARP_SIZE, threads / WARP_SIZE);
  if (n <= 128) launch<32, 4>(in, out, rows, n);
  else launch<256, 1>(in, out, rows, n);
}
"""


def _warp_findings(tmp_path, kernels: str) -> list[tuple[str, int, str]]:
    (tmp_path / "utils.cuh").write_text(UTILS)
    (tmp_path / "kernels.cu").write_text(kernels)
    found = scan([tmp_path], Config(), jobs=1).findings
    return sorted((f.file, f.line, f.rule) for f in found if f.rule.startswith(("WRP", "MSK", "LDS")))


def test_a_row_branch_reducing_with_the_helper_keeps_the_width(tmp_path):
    # the mask is still 32 bits; WARP_SIZE, its lanes, warps and slots are right as written
    assert _warp_findings(tmp_path, KERNELS) == [("utils.cuh", 3, "MSK001")]


def test_without_the_row_branch_the_width_is_widened_as_before(tmp_path):
    """The same project whose kernel has no branch for rows of 32: WARP_SIZE is a warp width
    (WRP006 on its definition, which carries the fix for its uses)."""
    wide_only = KERNELS.replace("if constexpr (BDIM_X == 32) {\n    total = warp_total(total);\n  } else ", "")
    found = _warp_findings(tmp_path, wide_only)
    assert ("utils.cuh", 2, "WRP006") in found and ("utils.cuh", 3, "MSK001") in found


def test_a_branch_on_a_parameter_the_launch_does_not_make_the_block_x_is_not_a_row(tmp_path):
    """`if constexpr (BDIM_Y == 32)`: the launch gives the block's y from BDIM_Y, not its x."""
    on_y = KERNELS.replace("if constexpr (BDIM_X == 32)", "if constexpr (BDIM_Y == 32)")
    assert ("utils.cuh", 2, "WRP006") in _warp_findings(tmp_path, on_y)
