"""A warp of 32 that a ported project keeps on purpose (porter.rules.logical_warp).

llama.cpp's ggml keeps `#define WARP_SIZE 32` on ROCm, passes it to its shuffles as their width and
asks for the wavefront apart (`ggml_cuda_get_physical_warp_size()`). Its lane and warp arithmetic,
per-warp slots, host counts and width-32 shuffles are right on wave64 as written, so porter reports
none of them; the same project without its wavefront query is a plain CUDA project, where each is
reported as before. corpus/emulate/logical_warp.cu runs such a kernel at 32 and 64 lanes
(tests/test_emulator.py): as porter leaves it, it passes at both; widened, it fails at 64.
"""

from __future__ import annotations

from porter.config import Config
from porter.scan import Deep, scan

COMMON = """#pragma once
#define WARP_SIZE 32

static constexpr __device__ int physical_warp_size() {
#if defined(PROJ_USE_HIP) && (defined(__GFX9__) || defined(__GFX8__))
    return 64;
#else
    return 32;
#endif
}

template<int width = WARP_SIZE>
static __device__ __forceinline__ float warp_reduce_sum(float x) {
    for (int offset = width/2; offset > 0; offset >>= 1) {
        x += __shfl_xor_sync(0xffffffff, x, offset, width);
    }
    return x;
}

template<int width = WARP_SIZE>
static __device__ __forceinline__ int warp_reduce_all(int x) {
    if (width == physical_warp_size()) {
        return __all_sync(0xffffffff, x);
    }
    for (int offset = width/2; offset > 0; offset >>= 1) {
        x = __shfl_xor_sync(0xffffffff, x, offset, width) && x;
    }
    return x;
}
"""

VENDOR = """#pragma once
#ifdef PROJ_USE_HIP
#include <hip/hip_runtime.h>
#else
#include <cuda_runtime.h>
#endif
"""

KERNELS = """#include "vendor.h"
#include "common.cuh"

template <int block_size>
static __global__ void norm_f32(const float * x, float * dst, const int ncols) {
    const int tid = threadIdx.x;
    float sum = 0.0f;
    for (int col = tid; col < ncols; col += block_size) {
        sum += x[col] * x[col];
    }
    sum = warp_reduce_sum(sum);
    if (block_size > WARP_SIZE) {
        __shared__ float s_sum[32];
        const int warp_id = threadIdx.x / WARP_SIZE;
        const int lane_id = threadIdx.x % WARP_SIZE;
        if (lane_id == 0) {
            s_sum[warp_id] = sum;
        }
        __syncthreads();
        sum = s_sum[lane_id];
        sum = warp_reduce_sum(sum);
    }
    for (int col = tid; col < ncols; col += block_size) {
        dst[col] = x[col] * rsqrtf(sum / ncols);
    }
}

static __global__ void row_max(const float * x, float * dst, const int ncols) {
    constexpr int warp_size = 32;
    float v = x[blockIdx.x * ncols + threadIdx.x];
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(0xFFFFFFFF, v, mask, WARP_SIZE));
    }
    v = warp_reduce_sum<warp_size>(v);
    if (threadIdx.x % warp_size == 0) dst[blockIdx.x] = v;
}

void launch(const float * x, float * dst, int ncols, int nrows, cudaStream_t stream) {
    const int num_threads = (ncols + WARP_SIZE - 1) / WARP_SIZE * WARP_SIZE;
    norm_f32<1024><<<nrows, 1024, 0, stream>>>(x, dst, ncols);
    row_max<<<nrows, num_threads, 0, stream>>>(x, dst, ncols);
}
"""


def _warp_findings(root) -> list[tuple[str, int, str]]:
    result = scan([root], Config(), deep=Deep.NEVER)
    return sorted((f.file, f.span.line, f.rule) for f in result.findings if f.category == "warp-size")


def _project(root, common: str) -> None:
    (root / "common.cuh").write_text(common)
    (root / "vendor.h").write_text(VENDOR)
    (root / "kernels.cu").write_text(KERNELS)


def test_a_project_that_asks_for_the_wavefront_apart_keeps_its_warp_of_32(tmp_path):
    _project(tmp_path, COMMON)
    assert _warp_findings(tmp_path) == []


def test_without_the_wavefront_query_the_same_32_is_the_warp_width_to_fix(tmp_path):
    # the physical query gone: a CUDA project whose 32 is its warp, fixed at its definitions
    without = COMMON.replace("if (width == physical_warp_size())", "if (width == 64)")
    without = without[: without.index("static constexpr __device__")] + without[without.index("template<int width") :]
    _project(tmp_path, without)
    assert _warp_findings(tmp_path) == [
        ("common.cuh", 2, "WRP006"),  # WARP_SIZE, which carries the fix of its uses
        ("kernels.cu", 13, "WRP003"),  # `s_sum[32]` read at a lane id
        ("kernels.cu", 29, "WRP006"),  # row_max's own `warp_size = 32`
        ("kernels.cu", 32, "WRP002"),  # the ladder from 16 given its width of 32
        ("kernels.cu", 40, "WRP008"),  # the host's rounding to warps (divisor and factor)
        ("kernels.cu", 40, "WRP008"),
    ]


def test_a_query_of_64_on_both_platforms_is_no_wavefront_query(tmp_path):
    # 64 wherever it compiles: a tile's size, not the wavefront asked for per platform
    tile = COMMON.replace("    return 32;\n#endif", "    return 64;\n#endif")
    _project(tmp_path, tile)
    assert ("common.cuh", 2, "WRP006") in _warp_findings(tmp_path)


GATHERS = """#include "vendor.h"
#include "common.cuh"

static __global__ void pack_pairs(const float * x, float * y, const int n) {
    const int i = blockDim.x * blockIdx.x + threadIdx.x;
    const int lane = threadIdx.x % WARP_SIZE;
    const float v = i < n ? x[i] : 0.0f;
    const float odd = __shfl_sync(0xffffffff, v, (lane & ~1) + 1);
    const float kept = __shfl_sync(0xffffffff, v, (lane & ~1) + 1, WARP_SIZE);
    if ((lane & 1) == 0 && i < n) y[i / 2] = v + odd + kept;
}

static __global__ void broadcast(const float * x, float * y) {
    y[threadIdx.x] = __shfl_sync(0xffffffff, x[threadIdx.x], 0);
}
"""


def test_a_shuffle_without_a_width_where_lanes_count_the_logical_warp_gets_its_width(tmp_path):
    """llama-cpp-turboquant's KV-cache writers (pull request 328): `lane = j % WARP_SIZE` with the
    project's logical 32, then `__shfl_sync` without a width, which on wave64 reads the other
    logical warp's lanes. The shuffle that gives WARP_SIZE, and a function whose lanes do not
    count the logical warp, are left alone."""
    _project(tmp_path, COMMON)
    (tmp_path / "gathers.cu").write_text(GATHERS)
    result = scan([tmp_path], Config(), deep=Deep.NEVER)
    found = [f for f in result.findings if f.file == "gathers.cu" and f.category == "warp-size"]
    assert [(f.span.line, f.rule) for f in found] == [(8, "WRP016")]
    assert [edit.replacement for edit in found[0].edits] == [b", WARP_SIZE"]
