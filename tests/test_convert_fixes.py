"""Convert bugs found on real files (issue 14), each built after the fix with nvcc and for gfx942.

The HIP toolchain here is HIP 5.7, so the compat header's pre-6.2 path (no `_sync` intrinsics)
is the one compiled for `__match_all_sync`.
"""

from __future__ import annotations

import pytest
from compilers import hip_compile, nvcc_compile

from porter.config import Config
from porter.convert import convert_source
from porter.convert.compat import render_header
from porter.discover import DiscoveredFile
from porter.scan import analyze_file
from porter.source import FileKind, SourceFile

CASES = {
    "unrolled_butterfly": """
#define WARP_SIZE 32
__global__ void warp_sums(const float* in, float* out) {
  __shared__ float partial[256 / WARP_SIZE];
  const int lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
  float v = in[threadIdx.x];
  v += __shfl_xor_sync(~0, v, 16);
  v = fmaxf(v, __shfl_xor_sync(-1, v, 8));
  v += __shfl_xor_sync(0xffffffff, v, 4);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0] + partial[1];
}
__global__ void warp_pairs(const float* in, float* out) {
  const int lane = threadIdx.x % WARP_SIZE;
  float v = in[threadIdx.x];
  float other = __shfl_xor_sync(0xffffffff, v, 16);
  v += other;
  v += __shfl_xor_sync(0xffffffff, v, 8);
  if (lane == 0) out[threadIdx.x / WARP_SIZE] = v;
}
""",
    "cluster_launch_bounds": """
__global__ void __launch_bounds__(256, 2, 1) scale(float* x) { x[threadIdx.x] *= 2.0f; }
__global__ void __launch_bounds__(128, 4) shift(float* x) { x[threadIdx.x] += 1.0f; }
""",
    "ffs_of_a_copied_mask": """
__global__ void first_set(const int* in, int* out) {
  unsigned active = __ballot_sync(0xffffffff, in[threadIdx.x] > 0);
  unsigned copy = active;
  out[threadIdx.x] = __ffs(active) + __ffs(copy);
}
""",
    "cast_vote": """
__global__ void counts(const int* in, int* out) {
  unsigned int votes = (unsigned int)__ballot_sync(0xffffffff, in[threadIdx.x] > 0);
  unsigned more = static_cast<unsigned>(__ballot_sync(0xffffffff, in[threadIdx.x] > 1));
  out[threadIdx.x] = __popc(votes) + __popc(more);
}
""",
    "match_all": """
__global__ void uniform(const int* in, int* out) {
  int same = 0;
  unsigned mask = __match_all_sync(0xffffffff, in[threadIdx.x], &same);
  out[threadIdx.x] = same + (mask != 0);
}
""",
    "round_up_to_warps": """
__global__ void rows(float* x) {
  int lane = threadIdx.x % 32;
  x[lane] = __shfl_down_sync(0xffffffff, x[lane], 1);
}
void launch(float* x, int cols) {
  int threads = ((cols + 31) / 32) * 32;
  dim3 block(cols);
  block.x = 32 * ((block.x + 31) / 32);
  rows<<<1, threads>>>(x);
  rows<<<1, block>>>(x);
}
""",
    "host_constant_expressions": """
#define WS 32
__global__ void k(float* x) {
  int lane = threadIdx.x % WS;
  x[lane] = __shfl_down_sync(0xffffffff, x[lane], 1);
}
enum { WARPS = 4, THREADS = WARPS * WS };
struct Plan {
  static constexpr int kThreads = WARPS * WS;
  int lane = threadIdx.x % WS;  // a member initialiser read on the device
};
void launch(float* x, int n) {
  int threads = WARPS * WS;
  k<<<n, THREADS>>>(x);
  k<<<n, Plan::kThreads>>>(x);
  k<<<n, threads>>>(x);
}
""",
}


def _convert(name: str, text: str, tmp_path):
    path = tmp_path / f"{name}.cu"
    path.write_text(text, encoding="utf-8")
    file = DiscoveredFile(path=path, rel=path.name, kind=FileKind.CUDA)
    findings = analyze_file(file, Config(), deep="never", extra_args=None, cap=None).findings
    port = tmp_path / "port" / path.name
    port.parent.mkdir()
    port.write_bytes(convert_source(SourceFile.read(path, path.name, FileKind.CUDA), findings, "portable", Config()))
    (port.parent / "porter_compat.h").write_text(render_header({}, Config().targets), encoding="utf-8")
    return path, port


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_port_builds_with_nvcc_and_for_gfx942(name, tmp_path):
    original, port = _convert(name, CASES[name], tmp_path)
    assert nvcc_compile(original, tmp_path).returncode == 0
    for result in (nvcc_compile(port, tmp_path), hip_compile(port, tmp_path, targets=("gfx942",))):
        assert result.returncode == 0, result.stderr[-1500:]


def test_an_unrolled_butterfly_gets_a_step_of_32_before_its_16(tmp_path):
    """Steps 32, 8, 4 (the 16 replaced) would never combine lanes that differ in bit 4: the port runs the
    first step for 32 and 16 on wave64. `~0` and `-1` hold every lane but are `int`s, which HIP 6.4's
    `_sync` intrinsics refuse. A first step whose shuffle is stored apart is left to a person."""
    _, port = _convert("unrolled_butterfly", CASES["unrolled_butterfly"], tmp_path)
    text = port.read_text()
    steps = "for (int porter_offset = PORTER_WARP_SIZE / 2; porter_offset >= 16; porter_offset /= 2)"
    assert f"  {steps}\n    v += __shfl_xor_sync(PORTER_FULL_MASK, v, porter_offset);" in text
    assert "v = fmaxf(v, __shfl_xor_sync(PORTER_FULL_MASK, v, 8));" in text
    assert text.count(steps) == 1
    assert "float other = __shfl_xor_sync(PORTER_FULL_MASK, v, 16);" in text
    path = tmp_path / "unrolled_butterfly.cu"
    result = analyze_file(DiscoveredFile(path, path.name, FileKind.CUDA), Config(), deep="never", extra_args=None)
    kinds = {f.span.line: f.fix.value for f in result.findings if f.rule == "WRP002"}
    assert kinds == {7: "auto", 17: "manual"}


def test_a_copied_mask_is_widened_and_ffs_takes_64_bits(tmp_path):
    _, port = _convert("ffs_of_a_copied_mask", CASES["ffs_of_a_copied_mask"], tmp_path)
    text = port.read_text()
    assert "porter_lane_mask_t copy = active;" in text
    assert "__ffsll((porter_lane_mask_t)(copy))" in text


def test_a_round_up_to_whole_warps_is_rewritten_whole(tmp_path):
    """`(n + 31) / 32 * 32` with only the divisor changed would round down, to fewer threads than n."""
    _, port = _convert("round_up_to_warps", CASES["round_up_to_warps"], tmp_path)
    text = port.read_text()
    width = "porter_warp_size()"
    assert f"int threads = ((cols + ({width} - 1)) / {width}) * {width};" in text
    assert f"block.x = {width} * ((block.x + ({width} - 1)) / {width});" in text


def test_host_sizes_in_constant_expressions_take_the_compile_time_width(tmp_path):
    """An enumerator or a static constexpr cannot call `porter_warp_size()`; a run-time size asks the device."""
    _, port = _convert("host_constant_expressions", CASES["host_constant_expressions"], tmp_path)
    text = port.read_text()
    assert "#define WS PORTER_WARP_SIZE" in text
    assert "THREADS = WARPS * PORTER_WARP_SIZE" in text
    assert "static constexpr int kThreads = WARPS * PORTER_WARP_SIZE;" in text
    assert "int threads = WARPS * porter_warp_size();" in text
    assert "int lane = threadIdx.x % WS;  // a member" in text


def test_a_vote_cast_to_32_bits_is_widened_with_its_variable(tmp_path):
    """`(unsigned int)__ballot_sync(…)`: the declaration widened alone would still hold the cast's 32 bits."""
    _, port = _convert("cast_vote", CASES["cast_vote"], tmp_path)
    text = port.read_text()
    assert "porter_lane_mask_t votes = (porter_lane_mask_t)__ballot_sync(" in text
    assert "porter_lane_mask_t more = static_cast<porter_lane_mask_t>(__ballot_sync(" in text
