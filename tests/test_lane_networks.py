"""A 32-lane network (xor shuffles combined by each lane's bit of the offset: a Hadamard butterfly, a
bitonic step) is sized by its data, not by the warp: on wave64 each half-wavefront runs its own, as
written. Its 32s, and the lane math of the functions that call it, get no automatic fix; a warp
sum's ladder beside it (every lane keeps the one sum) still does."""

from __future__ import annotations

from porter.config import Config
from porter.discover import DiscoveredFile
from porter.findings import FixKind
from porter.scan import Deep, analyze_file, scan
from porter.source import FileKind

# exllamav3's shape (quant/hadamard_inner.cuh): a butterfly helper and a 128-value transform that
# indexes its chunk by `threadIdx.x & 31`, whose callers live in other files; then a warp sum
HEADER = """\
__device__ inline float butterfly32(float v, const int lane_id)
{
    for (int i = 1; i < 32; i <<= 1)
    {
        float pv = __shfl_xor_sync(0xffffffff, v, i);
        v = (lane_id & i) ? pv - v : v + pv;
    }
    return v;
}

__device__ inline void had_128(const float* in, float* out)
{
    int t = threadIdx.x & 31;
    out[t] = butterfly32(in[t], t);
}

__device__ inline float warp_sum(float v)
{
    for (int i = 1; i < 32; i <<= 1)
        v += __shfl_xor_sync(0xffffffff, v, i);
    return v;
}

__device__ inline float lane_sum(const float* in)
{
    int lane = threadIdx.x & 31;
    return warp_sum(in[lane]);
}
"""


def _warp_findings(tmp_path) -> dict[tuple[int, str], object]:
    """(line, rule) → finding, for the warp-size rules."""
    path = tmp_path / "networks.cuh"
    path.write_text(HEADER)
    config = Config(targets=("gfx942",), rocm_version="6.4")
    result = analyze_file(DiscoveredFile(path, path.name, FileKind.CUDA), config, Deep.NEVER, None)
    assert result.error is None, result.error
    return {(f.span.line, f.rule): f for f in result.findings if f.rule.startswith("WRP")}


def _line(text: str, occurrence: int = 0) -> int:
    numbers = [n for n, line in enumerate(HEADER.splitlines(), 1) if line.strip() == text]
    return numbers[occurrence]


LADDER = "for (int i = 1; i < 32; i <<= 1)"


def test_a_networks_32s_and_its_callers_lane_math_are_not_fixed_automatically(tmp_path):
    found = _warp_findings(tmp_path)
    loop = found[(_line(LADDER, 0), "WRP002")]  # the butterfly's
    lane = found[(_line("int t = threadIdx.x & 31;"), "WRP001")]  # had_128 calls the butterfly
    assert loop.fix is FixKind.SUGGESTED and "32-lane network" in loop.message
    assert lane.fix is FixKind.SUGGESTED and "32-lane network" in lane.message


def test_a_warp_sum_beside_a_network_is_still_fixed(tmp_path):
    found = _warp_findings(tmp_path)
    assert found[(_line(LADDER, 1), "WRP002")].fix is FixKind.AUTO
    assert found[(_line("int lane = threadIdx.x & 31;"), "WRP001")].fix is FixKind.AUTO


# exllamav3's GEMM kernels (quant/exl3_gemm_kernel.cuh) in another file: each 32-lane group takes a
# 128-value chunk (`this_warp * 128`) for the header's transform; a second block of the same kernel
# reuses the names for columns and calls no network
KERNEL = """\
#include "networks.cuh"

__global__ void gemm_kernel(const float* A, float* A_had, float* C, int size_m, int size_k)
{
    {
        int total_warps = size_m * size_k / 128;
        int warps_grid = gridDim.x * blockDim.x / 32;
        int this_warp = threadIdx.x / 32 + blockDim.x / 32 * blockIdx.x;
        for (; this_warp < total_warps; this_warp += warps_grid)
            had_128(A + this_warp * 128, A_had + this_warp * 128);
    }
    {
        int this_warp = threadIdx.x / 32;
        int this_lane = threadIdx.x % 32;
        C[this_warp] += __shfl_down_sync(0xffffffff, C[this_lane], 1);
    }
}
"""


def _project_findings(tmp_path, files: dict[str, str]) -> dict[tuple[int, str], list]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = scan([tmp_path], Config(targets=("gfx942",), rocm_version="6.4"), jobs=1, deep=Deep.NEVER)
    found: dict[tuple[int, str], list] = {}
    for finding in result.findings:
        if finding.file.endswith("gemm.cu") and finding.rule == "WRP001":
            found.setdefault((finding.span.line, finding.rule), []).append(finding)
    return found


def _kernel_line(text: str, occurrence: int = 0) -> int:
    return [n for n, line in enumerate(KERNEL.splitlines(), 1) if line.strip() == text][occurrence]


def test_a_callers_group_math_that_feeds_a_network_of_another_file_is_suggested(tmp_path):
    found = _project_findings(tmp_path, {"networks.cuh": HEADER, "gemm.cu": KERNEL})
    fed = [
        *found[(_kernel_line("int warps_grid = gridDim.x * blockDim.x / 32;"), "WRP001")],
        *found[(_kernel_line("int this_warp = threadIdx.x / 32 + blockDim.x / 32 * blockIdx.x;"), "WRP001")],
    ]
    assert len(fed) == 3
    assert all(f.fix is FixKind.SUGGESTED and "`had_128`, a 32-lane network" in f.message for f in fed)
    # the second block's names are other variables, and its lanes meet a shuffle: fixed as before
    kept = found[(_kernel_line("int this_warp = threadIdx.x / 32;"), "WRP001")]
    assert [f.fix for f in kept] == [FixKind.AUTO]


def test_without_the_networks_header_the_callers_math_keeps_its_fix(tmp_path):
    found = _project_findings(tmp_path, {"gemm.cu": KERNEL})
    fed = found[(_kernel_line("int this_warp = threadIdx.x / 32 + blockDim.x / 32 * blockIdx.x;"), "WRP001")]
    assert [f.fix for f in fed] == [FixKind.AUTO, FixKind.AUTO]
