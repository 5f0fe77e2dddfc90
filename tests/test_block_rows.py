"""Kernels whose blocks are rows of 32 threads (porter.rules.block_rows): their 32s are a row's width,
right on a 64-lane wavefront where two rows share one; porter widens none of them, gives the
shuffles that could leave a row a width of 32 (WRP016) and says where a vote spans two rows (WRP017).

The shapes are those of real launches: a norm kernel's `dim3 nthrs(32, num_warps)` behind
cudaLaunchKernelEx's `config.blockDim`, a segment kernel's `dim3(32, 8)`, a dequantiser's
`<<<blocks, 32>>>`, HIP's hipLaunchKernelGGL. The converted files are built with nvcc and for
gfx90a/gfx942; corpus/emulate/row_blocks.cu runs them at 32 and 64 lanes (tests/test_emulator.py).
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

ROW_KERNEL = """
__global__ void centre(const float* in, float* out, int cols) {
  int r = blockIdx.x * blockDim.y + threadIdx.y;
  float first = __shfl_sync(0xffffffffu, in[r * cols + threadIdx.x], 0);
  float m = 0.f;
  for (int o = 16; o > 0; o >>= 1) m += __shfl_xor_sync(0xffffffffu, in[r * cols + threadIdx.x], o);
  out[r * cols + threadIdx.x] = in[r * cols + threadIdx.x] - first + m;
}
"""


def findings(tmp_path, text: str, name: str = "k.cu") -> list[tuple[int, str, str]]:
    path = tmp_path / name
    path.write_text(text)
    kind = FileKind.HIP if name.endswith(".hip") else FileKind.CUDA
    result = analyze_file(DiscoveredFile(path, name, kind), Config(), deep="never", extra_args=None)
    assert result.error is None, result.error
    return sorted((f.line, f.rule, str(f.fix)) for f in result.findings if f.category in ("warp-size", "lane-mask"))


LAUNCHES = {
    "dim3 variable": "void go(const float* a, float* b, int c) { dim3 block(32, 4); centre<<<8, block>>>(a, b, c); }",
    "inline dim3": "void go(const float* a, float* b, int c) { centre<<<8, dim3(32, 4), 0>>>(a, b, c); }",
    # a shift is no angle bracket: the width is `1 << 5`, the height 4
    "a shifted width": "void go(const float* a, float* b, int c) { dim3 block(1 << 5, 4); centre<<<8, block>>>(a, b, c); }",
    "launch config": (
        "void go(const float* a, float* b, int c) {\n  dim3 nthrs(32, 4);\n  cudaLaunchConfig_t config;\n"
        "  config.blockDim = nthrs;\n  auto kernel = centre;\n  cudaLaunchKernelEx(&config, kernel, a, b, c);\n}"
    ),
    "cudaLaunchKernel": (
        "void go(const float* a, float* b, int c) {\n  void* args[] = {&a, &b, &c};\n"
        "  cudaLaunchKernel((void*)centre, dim3(8), dim3(32, 4), args, 0, 0);\n}"
    ),
    # the block's extents are the launcher's template parameters, which the file instantiates
    "launcher template": (
        "template <int BX, int BY>\nvoid rows(const float* a, float* b, int c) { dim3 block(BX, BY); centre<<<8, block>>>(a, b, c); }\n"
        "void go(const float* a, float* b, int c) { rows<32, 4>(a, b, c); }"
    ),
    # named: a local bound once to 32, a file's constants of 32 that no warp operation takes as its width
    "a local": "void go(const float* a, float* b, int c) { int tx = 32, ty = 4; dim3 block(tx, ty); centre<<<8, block>>>(a, b, c); }",
    "a file constant": "#define WS 32\nvoid go(const float* a, float* b, int c) { centre<<<8, dim3(WS, 4)>>>(a, b, c); }",
    "a file constant, bare": "constexpr int kRow = 32;\nvoid go(const float* a, float* b, int c) { centre<<<8, kRow>>>(a, b, c); }",
    "launcher template, bare x": (
        "template <int BX>\nvoid rows(const float* a, float* b, int c) { centre<<<8, BX>>>(a, b, c); }\n"
        "void go(const float* a, float* b, int c) { rows<32>(a, b, c); rows<32>(b, b, c); }"
    ),
}


@pytest.mark.parametrize("launch", LAUNCHES, ids=list(LAUNCHES))
def test_a_launch_with_rows_of_32_keeps_the_kernels_32s(tmp_path, launch):
    found = findings(tmp_path, ROW_KERNEL + LAUNCHES[launch])
    # the ladder from 16 stays (no WRP002); the broadcast gets a width; the masks become the row's lanes
    assert [(line, rule) for line, rule, _ in found] == [(4, "MSK001"), (4, "WRP016"), (6, "MSK001")]


NOT_ROWS = {
    "64 wide": "void go(const float* a, float* b, int c) { centre<<<8, dim3(64, 4)>>>(a, b, c); }",
    # a constant of 32 that one of the file's warp operations takes as its width: porter widens it,
    # the block with it, and the kernel's warps fill the wider rows
    "a named warp width": (
        "#define WS 32\n__device__ int lane_id() { return threadIdx.x % WS; }\n"
        "void go(const float* a, float* b, int c) { centre<<<8, dim3(WS, 4)>>>(a, b, c); }"
    ),
    "a local assigned again": (
        "void go(const float* a, float* b, int c) { int tx = 32; if (c > 512) tx = 64; centre<<<8, dim3(tx, 4)>>>(a, b, c); }"
    ),
    "x set after": "void go(const float* a, float* b, int c) { dim3 block(32, 4); block.x = c; centre<<<8, block>>>(a, b, c); }",
    "a launcher also given 64": (
        "template <int BX, int BY>\nvoid rows(const float* a, float* b, int c) { dim3 block(BX, BY); centre<<<8, block>>>(a, b, c); }\n"
        "void go(const float* a, float* b, int c) { rows<32, 4>(a, b, c); rows<64, 2>(a, b, c); }"
    ),
    "a launcher never instantiated here": (
        "template <int BX, int BY>\nvoid rows(const float* a, float* b, int c) { dim3 block(BX, BY); centre<<<8, block>>>(a, b, c); }"
    ),
}


@pytest.mark.parametrize("launch", NOT_ROWS, ids=list(NOT_ROWS))
def test_a_block_not_known_to_be_32_threads_wide_is_a_warp_as_before(tmp_path, launch):
    found = findings(tmp_path, ROW_KERNEL + NOT_ROWS[launch])
    assert (6, "WRP002", "auto") in found and not any(rule in ("WRP016", "WRP017") for _, rule, _ in found)


def test_a_thread_index_linearised_over_rows_of_32_makes_a_row_kernel_without_a_launch(tmp_path):
    """flashinfer's RMSNorm shape: `thread_id = tx + ty * warp_size` with the kernel's own
    `constexpr uint32_t warp_size = 32`; its launch sits behind a dispatch macro."""
    text = """
__global__ void rms(const float* x, float* y, unsigned d) {
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  constexpr unsigned warp_size = 32;
  const unsigned thread_id = tx + ty * warp_size;
  float s = x[thread_id];
  for (unsigned offset = warp_size / 2; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffff, s, offset);
  y[thread_id] = s;
}
"""
    assert findings(tmp_path, text) == [(7, "MSK001", "auto")]
    # warpSize follows the wavefront: `tx + ty * warpSize` is a block as wide as a wavefront
    widened = text.replace("ty * warp_size", "ty * warpSize")
    assert (7, "WRP002", "auto") in findings(tmp_path, widened) or (4, "WRP006", "auto") in findings(tmp_path, widened)


def test_a_helper_shared_with_a_wider_kernel_gets_a_suggestion_not_an_edit(tmp_path):
    text = """
__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}
__global__ void rows(const float* x, float* y) { y[threadIdx.y] = warp_sum(x[threadIdx.y * 32 + threadIdx.x]); }
__global__ void flat(const float* x, float* y) {
  y[threadIdx.x / 32] = warp_sum(x[threadIdx.x]) + __popc(__ballot_sync(0xffffffff, x[threadIdx.x] > 0));
}
void go(const float* x, float* y) {
  rows<<<1, dim3(32, 8)>>>(x, y);
  flat<<<1, 256>>>(x, y);
}
"""
    # `flat` votes over its warp: it is the wavefront's (porter.rules.within_rows), not two warps of 32
    found = findings(tmp_path, text)
    assert (3, "WRP002", "suggested") in found
    assert (8, "WRP001", "auto") in found  # the wider kernel's own warp id is fixed as before


def test_one_row_blocks_vote_as_one_warp_and_two_row_blocks_are_told(tmp_path):
    text = """
__global__ void one(const int* x, int* y) {
  unsigned b = __ballot_sync(0xffffffff, x[threadIdx.x] > 0);
  if (b == 0xffffffff) y[0] = 1;
}
__global__ void two(const int* x, int* y) {
  unsigned b = __ballot_sync(0xffffffff, x[threadIdx.y * 32 + threadIdx.x] > 0);
  bool all = __all_sync(0xffffffff, x[threadIdx.x] > 0);
  y[threadIdx.y] = __popc(b) + all;
}
void go(const int* x, int* y) {
  one<<<1, 32>>>(x, y);
  two<<<1, dim3(32, 2)>>>(x, y);
}
"""
    found = findings(tmp_path, text)
    # one row: the ballot's unused bits are 0, so `== 0xffffffff` stays; two rows: the ballot becomes the row's
    # 32 bits (porter_row_ballot), and `__all_sync` with the row's mask answers per row (no WRP017)
    assert (4, "MSK001", "auto") not in found
    assert (7, "WRP017", "auto") in found and not any(line == 8 and rule == "WRP017" for line, rule, _ in found)
    assert not any(line in (7, 9) and rule in ("MSK002", "MSK003") for line, rule, _ in found)  # 32 bits, a row's


RANKS = """
__global__ void ranks(const float* in, int* out) {
  unsigned hits = __ballot_sync(0xffffffffu, in[threadIdx.y * 32 + threadIdx.x] > 0.f);
  out[threadIdx.y * 32 + threadIdx.x] = __popc(hits & ((1u << threadIdx.x) - 1));
}
void go_ranks(const float* a, int* b) { ranks<<<1, dim3(32, 2)>>>(a, b); }
"""


@pytest.mark.parametrize("mode", ["portable", "hip"])
def test_converted_row_kernels_build_with_both_compilers(tmp_path, mode):
    path = tmp_path / "k.cu"
    path.write_text(ROW_KERNEL + LAUNCHES["dim3 variable"] + "\n" + RANKS)
    file = DiscoveredFile(path=path, rel=path.name, kind=FileKind.CUDA)
    found = analyze_file(file, Config(), deep="never", extra_args=None, cap=None).findings
    port = tmp_path / "port" / path.name
    port.parent.mkdir()
    port.write_bytes(convert_source(SourceFile.read(path, path.name, FileKind.CUDA), found, mode, Config()))
    (port.parent / "porter_compat.h").write_text(render_header({}, Config().targets), encoding="utf-8")
    converted = port.read_text()
    assert "__shfl_sync(PORTER_ROW_MASK, in[r * cols + threadIdx.x], 0, 32)" in converted
    assert "for (int o = 16;" in converted and "__shfl_xor_sync(PORTER_ROW_MASK," in converted
    assert "unsigned hits = porter_row_ballot(PORTER_ROW_MASK, " in converted and "__popc(hits" in converted
    hip = hip_compile(port, tmp_path, targets=("gfx90a", "gfx942"))
    assert hip.returncode == 0, hip.stderr[-3000:]
    if mode == "portable":
        nvcc = nvcc_compile(port, tmp_path)
        assert nvcc.returncode == 0, nvcc.stderr[-3000:]


def test_a_kernel_in_a_header_launched_with_rows_from_another_file_is_a_row_kernel(tmp_path):
    """The kernel in a `.cuh`, its launch with `dim3(32, 4)` in the `.cu` that includes it: the
    scan's serial phase reads the project's launches, as it reads its headers' constants."""
    from porter.scan import scan

    (tmp_path / "rows.cuh").write_text(ROW_KERNEL)
    (tmp_path / "launch.cu").write_text('#include "rows.cuh"\n' + LAUNCHES["inline dim3"] + "\n")
    both = scan([tmp_path], Config(), jobs=1)
    header = sorted((f.line, f.rule) for f in both.findings if f.file == "rows.cuh" and f.category == "warp-size")
    assert header == [(4, "WRP016")]
    alone = scan([tmp_path / "rows.cuh"], Config(), jobs=1)
    assert (6, "WRP002") in {(f.line, f.rule) for f in alone.findings}
    (tmp_path / "other.cu").write_text(
        '#include "rows.cuh"\nvoid again(const float* a, float* b, int c) { centre<<<8, 256>>>(a, b, c); }\n'
    )
    mixed = scan([tmp_path], Config(), jobs=1)  # launched 256 wide too: a warp as before
    assert (6, "WRP002") in {(f.line, f.rule) for f in mixed.findings if f.file == "rows.cuh"}


def test_a_one_row_kernel_found_by_its_stride_alone(tmp_path):
    """`for (i = threadIdx.x; …; i += 32)`: threadIdx.x itself strides by 32, so its block is 32
    threads wide (with more, two threads would take each element); no launch in sight."""
    text = """
__global__ void row_min(const float* x, float* out, int n) {
  float m = 1e30f;
  for (int i = threadIdx.x; i < n; i += 32) m = fminf(m, x[i]);
  for (int o = 16; o > 0; o >>= 1) m = fminf(m, __shfl_down_sync(0xffffffff, m, o));
  if (threadIdx.x == 0) *out = m;
}
"""
    assert [(line, rule) for line, rule, _ in findings(tmp_path, text)] == [(5, "MSK001"), (5, "WRP016")]


def test_a_template_width_given_32_in_a_row_kernel_stays_and_elsewhere_widens(tmp_path):
    text = """
template <int width>
__device__ float warp_sum(float v) {
  for (int o = width / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}
__global__ void rows(const float* x, float* y) { y[threadIdx.y] = warp_sum<32>(x[threadIdx.y * 32 + threadIdx.x]); }
__global__ void flat(const float* x, float* y) { y[blockIdx.x] = warp_sum<32>(x[threadIdx.x]); }
void go(const float* x, float* y) {
  rows<<<1, dim3(32, 8)>>>(x, y);
  flat<<<1, 256>>>(x, y);
}
"""
    found = findings(tmp_path, text)
    assert (8, "WRP002", "auto") in found and not any(line == 7 and rule == "WRP002" for line, rule, _ in found)


# "one warp per row" in a one-dimensional block: each 32 threads take a row, R rows to a block
WARP_ROWS = """
#define ROWS 8
__global__ void row_max(const float* x, float* y, int rows, int cols) {
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int row = blockIdx.x * ROWS + warp;
  float m = -1e30f;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[row * cols + c]);
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
  y[row] = __shfl_sync(0xffffffff, m, 0);
}
"""
WARP_ROW_LAUNCHES = {
    "rows times 32": "void go(const float* x, float* y, int r, int c) { row_max<<<r / ROWS, ROWS * 32>>>(x, y, r, c); }",
    "a literal": "void go(const float* x, float* y, int r, int c) { row_max<<<r / ROWS, 256>>>(x, y, r, c); }",
    "a constant of the file": (
        "constexpr int kThreads = 32 * ROWS;\n"
        "void go(const float* x, float* y, int r, int c) { row_max<<<r / ROWS, dim3(kThreads)>>>(x, y, r, c); }"
    ),
}


@pytest.mark.parametrize("launch", WARP_ROW_LAUNCHES, ids=list(WARP_ROW_LAUNCHES))
def test_a_block_of_rows_of_32_indexed_by_warp_keeps_its_32s(tmp_path, launch):
    """flashinfer's MLA K/V pack: `token = blockIdx.x * kWarpsPerBlock + (threadIdx.x >> 5)`,
    launched with `32 * kWarpsPerBlock` threads. Widened, the kernel would take 4 rows of the 8 its
    block is given; kept, only the shuffles that could leave a row change (the broadcast's width)."""
    found = findings(tmp_path, WARP_ROWS + WARP_ROW_LAUNCHES[launch])
    assert [(line, rule) for line, rule, _ in found] == [(8, "MSK001"), (9, "MSK001"), (9, "WRP016")]


WARP_ROWS_NOT = {
    "launched wider than its rows": "void go(const float* x, float* y, int r, int c) { row_max<<<r / ROWS, 512>>>(x, y, r, c); }",
    # a warp width porter widens, in the kernel (`% WS`) and so in the launch: both follow the wavefront
    "a warp width both sides share": (
        "#define WS 32\n__device__ int lane_id() { return threadIdx.x % WS; }\n"
        "void go(const float* x, float* y, int r, int c) { row_max<<<r / ROWS, ROWS * WS>>>(x, y, r, c); }"
    ),
    "no launch in the file": "",
}


@pytest.mark.parametrize("launch", WARP_ROWS_NOT, ids=list(WARP_ROWS_NOT))
def test_a_warp_indexed_kernel_without_a_matching_launch_is_widened_as_before(tmp_path, launch):
    found = findings(tmp_path, WARP_ROWS + WARP_ROWS_NOT[launch])
    assert (4, "WRP001", "auto") in found and not any(rule == "WRP016" for _, rule, _ in found)


def test_rows_counted_by_the_block_width_are_rows_unless_the_host_counts_warps(tmp_path):
    """`blockIdx.x * (blockDim.x / 32) + warp` is the grid's 32-thread group. Launched over a grid
    the host sizes in rows (`r / ROWS` blocks of 256), the 32s stay: widened, a block would take 4
    of its 8 rows (corpus/emulate/block_width_rows.cu runs both on the CPU device). Where the host
    works the grid out from `threads / 32`, WRP008 widens it, and the kernel widens with it."""
    kernel = WARP_ROWS.replace("blockIdx.x * ROWS", "blockIdx.x * (blockDim.x / 32)")
    kept = findings(tmp_path, kernel + WARP_ROW_LAUNCHES["a literal"])
    assert [(line, rule) for line, rule, _ in kept] == [(8, "MSK001"), (9, "MSK001"), (9, "WRP016")]
    host_counts_warps = (
        "void go(const float* x, float* y, int r, int c) {\n"
        "  const int threads = 256, per_block = threads / 32;\n"
        "  row_max<<<(r + per_block - 1) / per_block, threads>>>(x, y, r, c);\n}"
    )
    widened = findings(tmp_path, kernel + host_counts_warps)
    assert (4, "WRP001", "auto") in widened and any(rule == "WRP008" for _, rule, _ in widened)


BOUNDED = """
__device__ __forceinline__ int uniform(int x) { return __shfl_sync(0xffffffff, x, 0); }
__global__ __launch_bounds__(BOUND) void gather(const float* x, float* y, int tokens) {
  const int tid = threadIdx.x;
  const int warp = uniform(tid / 32), lane = tid % 32;
  const int token = blockIdx.x * 8 + warp;
  if (token >= tokens) return;
  y[token * 32 + lane] = __shfl_sync(0xffffffff, x[token * 32 + lane], lane & 7);
}
"""


def test_a_kernel_bounded_at_its_rows_of_32_keeps_its_32s_without_a_launch_in_sight(tmp_path):
    """flashinfer's generated DSv4 rope-insert kernels: `__launch_bounds__(256)`,
    `warp = make_warp_uniform(tid / 32)`, `blockIdx.x * 8 + warp`, launched from Python. The block
    holds its 8 rows of 32 (a launch porter widened past the bound would not start): the 32s stay
    and the broadcast gets its row's width. Bounded at 512, the rows per block say nothing: the lane
    math is reported, suggested (`token * 32 + lane` rebuilds the row's index with a 32 no fix widens)."""
    kept = findings(tmp_path, BOUNDED.replace("BOUND", "256"))
    assert not any(rule == "WRP001" for _, rule, _ in kept)
    assert (8, "WRP016", "auto") in kept
    wider = findings(tmp_path, BOUNDED.replace("BOUND", "512"))
    assert (5, "WRP001", "suggested") in wider and not any(rule == "WRP016" for _, rule, _ in wider)


# flashinfer's POD kernel (attention/pod.cuh), reconstructed: each operation's branch bounds the
# block's threads by its own count of 32-thread groups and splits them into lane and group by 32
TWO_BOUNDED_BRANCHES = """
__device__ float lane_sum(float v) {
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}
__global__ void two_ops(const float* x, float* y, int op) {
  if (op == 0) {
    const unsigned tid = threadIdx.x;
    if (tid >= 32 * 4 * 2) return;
    const dim3 t(tid % 32, (tid / 32) % 4, (tid / 32) / 4);
    y[t.z * 128 + t.y * 32 + t.x] = lane_sum(x[tid]);
  } else {
    const unsigned tid = threadIdx.x;
    if (tid >= 32 * 2) return;
    const dim3 t(tid % 32, tid / 32, 0);
    y[t.y * 32 + t.x] = lane_sum(x[tid]);
  }
}
"""


def test_lane_math_on_a_name_its_block_bounds_by_32_thread_groups_is_suggested(tmp_path):
    """`if (tid >= 32 * 4 * 2) return;` counts the block's threads in groups of 32: the split of
    `tid` into lane and group by 32 widened alone would leave the bound's 32, and half the groups
    idle (corpus/emulate/bounded_groups.cu runs a planted port of it on the CPU device). Each
    branch's split cites its own branch's bound, where each declares `tid` anew."""
    path = tmp_path / "k.cu"
    path.write_text(TWO_BOUNDED_BRANCHES)
    result = analyze_file(DiscoveredFile(path, "k.cu", FileKind.CUDA), Config(), deep="never", extra_args=None)
    lane_math = [f for f in result.findings if f.rule == "WRP001"]
    assert {f.line for f in lane_math} == {10, 15} and all(str(f.fix) == "suggested" for f in lane_math)
    for finding in lane_math:
        bound = "tid >= 32 * 4 * 2" if finding.line == 10 else "tid >= 32 * 2"
        assert f"but `{bound}` bounds it by a count of these 32-thread groups" in finding.message


GLOBAL_WARPS = """
__global__ void row_max(const float* x, float* y, int rows, int cols) {
  const int gwarp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  LOOP
    float m = -1e30f;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[row * cols + c]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    if (lane == 0) y[row] = m;
  }
}
"""


def test_a_warp_per_item_of_the_grid_keeps_its_32s_unless_it_strides_the_grid(tmp_path):
    """flashinfer's ConcatMLAKKernel, CuPy's partition kernels: `(blockIdx.x * blockDim.x +
    threadIdx.x) / 32` picks each 32 threads' item, and the host sizes the grid at 32 threads an
    item; widened, the kernel would take half of them. A grid-stride loop over the warps covers
    every item at any width: its 32s stay where its only warp operation is a butterfly below 32
    (porter.rules.within_rows), and are widened as before where it shuffles down across the halves."""
    one = findings(tmp_path, GLOBAL_WARPS.replace("LOOP", "{ const int row = gwarp; if (row >= rows) return;"))
    assert not any(rule.startswith("WRP00") for _, rule, _ in one), one
    strided = GLOBAL_WARPS.replace("LOOP", "for (int row = gwarp; row < rows; row += gridDim.x * blockDim.x / 32) {")
    assert not any(rule.startswith("WRP00") for _, rule, _ in findings(tmp_path, strided))
    shuffled_down = strided.replace("__shfl_xor_sync", "__shfl_down_sync")
    assert (3, "WRP001", "auto") in findings(tmp_path, shuffled_down)


# -- a header's helpers that row kernels of other files call -----------------------------------------

ROW_HELPERS = """#pragma once
__device__ inline float row_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}
__device__ inline float wide_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}
"""
ROW_CALLER = """#include "helpers.cuh"
__global__ void norms(const float* x, float* y) {
  float v = row_sum(x[blockIdx.x * 32 + threadIdx.x]);
  if (threadIdx.x == 0) y[blockIdx.x] = v;
}
void go(const float* x, float* y, int rows) { norms<<<rows, 32>>>(x, y); }
"""
# a kernel of 32-thread blocks that calls its own file's `wide_sum`, not the header's
OWN_HELPER = """__device__ float wide_sum(float v) { return v; }
__global__ void __launch_bounds__(32) copies(const float* x, float* y) { y[threadIdx.x] = wide_sum(x[threadIdx.x]); }
"""


def test_a_header_helper_that_a_row_kernel_elsewhere_calls_keeps_its_32s_and_takes_the_row_mask(tmp_path):
    from porter.config import load_config
    from porter.scan import scan

    (tmp_path / "helpers.cuh").write_text(ROW_HELPERS)
    (tmp_path / "norms.cu").write_text(ROW_CALLER)
    (tmp_path / "copies.cu").write_text(OWN_HELPER)
    result = scan([tmp_path], load_config(tmp_path), jobs=1, use_cache=False, deep="never")
    header = sorted(
        (f.line, f.rule, str(f.fix), f.message, [e.replacement for e in f.edits])
        for f in result.findings if f.file == "helpers.cuh" and f.category in ("warp-size", "lane-mask")
    )  # fmt: skip
    row = [f for f in header if f[0] in (3, 4)]
    assert [(line, rule, fix) for line, rule, fix, _, _ in row] == [(3, "MSK001", "auto"), (3, "WRP002", "suggested")]
    assert "`norms` (norms.cu) also calls this with blocks of 32-thread rows" in row[1][3]
    assert row[0][4] == [b"PORTER_ROW_MASK"]  # the row's half of a wavefront, as in the row kernel's own file
    # `wide_sum` is called by no row kernel (copies.cu's is its own): widened, as before
    wide = [(line, rule, fix, edits) for line, rule, fix, _, edits in header if line in (7, 8)]
    assert wide == [(7, "MSK001", "auto", [b"PORTER_FULL_MASK"]), (7, "WRP002", "auto", [b"(PORTER_WARP_SIZE / 2)"])]


TILE_ROWS = """#define TILE 32
#define ROWS 8
__global__ void tile_rows(const float* x, float* y, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  const int warp = threadIdx.x / TILE, lane = threadIdx.x % TILE;
  const int row = blockIdx.x * ROWS + warp;
  float s = 0.f;
  for (int c = lane; c < cols; c += TILE) s += x[row * cols + c];
  tile[warp][lane] = s;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
  y[row] = s + tile[warp][0];
}
void go(const float* x, float* y, int r, int c) { tile_rows<<<r / ROWS, ROWS * TILE>>>(x, y, c); }
"""


def test_a_square_tiles_edge_that_is_the_rows_width_is_read_as_its_32(tmp_path):
    """TILE is both edges of the tile, so its definition stays at 32; it is also the width of the
    block's rows (`blockIdx.x * ROWS + threadIdx.x / TILE`, launched with ROWS * TILE threads). A
    constant that stays is read as its literal: the kernel is a row kernel, its lane math kept and
    its ladder given the row's width, exactly as with `32` written. Before, each warp use of TILE was
    widened on its own, the row index still counting rows of 32 (corpus/emulate/tile_rows.cu)."""
    literal = TILE_ROWS.replace("[TILE][TILE + 1]", "[32][33]").replace("TILE", "32")
    assert findings(tmp_path, TILE_ROWS) == findings(tmp_path, literal, "literal.cu")
    assert [(line, rule) for line, rule, _ in findings(tmp_path, TILE_ROWS)] == [
        (10, "MSK001"),
        (10, "WRP016"),
    ]


XOR_ROWS = """__global__ void row_sums(const float* x, float* y, int rows, int cols) {
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int row = blockIdx.x * 8 + warp;
  if (row >= rows) return;
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += x[row * cols + c];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
  if (lane == 0) y[row] = s;
}
"""


@pytest.mark.parametrize(
    "launch, widened",
    [
        ("int threads = 8 * prop.warpSize;\n  row_sums<<<(rows + 7) / 8, threads>>>(x, y, rows, cols);", True),
        ("row_sums<<<(rows + 7) / 8, 256>>>(x, y, rows, cols);", False),
    ],
    ids=["block from the device's warp size", "block of 8 rows of 32"],
)
def test_a_block_sized_from_the_devices_warp_size_widens_the_kernel_with_it(tmp_path, launch, widened):
    """Every warp operation of the kernel stays within 32 lanes, so as written each 32-lane half of
    a wavefront would run it as one NVIDIA warp. But the host sizes the block at 8 warps of the
    device's own width, 512 threads on CDNA: kept at 32, the kernel would take 16 rows a block where
    the grid counts 8. Widened, it takes 8 rows of 64, as the host plans."""
    host = f"void go(const float* x, float* y, int rows, int cols) {{\n  cudaDeviceProp prop;\n  cudaGetDeviceProperties(&prop, 0);\n  {launch}\n}}\n"
    rules = {(line, rule) for line, rule, _ in findings(tmp_path, XOR_ROWS + host)}
    assert ((2, "WRP001") in rules and (7, "WRP002") in rules) is widened
    assert (7, "MSK001") in rules
