"""WRP009 (`warpSize` where ROCm 7 needs a constant or host code reads it): its fixes where they
could change a width the code relied on, and macros that carry `warpSize` from a header.

Before ROCm 7 HIP gave host code a `warpSize` of 64 whatever the targets: a gfx1100-only build's host
pass holds `static_assert(warpSize == 64)` (checked here through the real compiler). porter's host
fixes (`porter_warp_size()`, asked of the device; the compat header's host `PORTER_WARP_SIZE`, the
targets' largest wavefront) keep that 64 on gfx9 but give 32 for RDNA: there the fix is suggested,
not applied. And a macro that carries `warpSize` into a kernel whose own `warpSize`s become a
32-thread row's 32 (WRP021) would disagree with them once it read the wavefront: suggested too.

A header's `#define WARP_SIZE warpSize` (the ROCm arm of a project's width macro) breaks under ROCm 7
where another file uses it as a constant: the header's definition is reported, and carries the fix,
once a use somewhere claims it (porter.rules.project).
"""

from __future__ import annotations

from pathlib import Path

from compilers import hip_compile, nvcc_compile

from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.findings import FixKind
from porter.scan import scan

HOST_READS = """#include <hip/hip_runtime.h>

#define NUM_WARPS (1024 / warpSize)

__global__ void fill(float* y) {
  __shared__ float sums[NUM_WARPS];
  sums[threadIdx.x % NUM_WARPS] = 1.0f;
  __syncthreads();
  y[threadIdx.x] = sums[0];
}

void launch(float* y, hipStream_t stream) {
  int lanes = warpSize;
  constexpr int kLanes = warpSize;
  hipLaunchKernelGGL(fill, dim3(1), dim3(NUM_WARPS * lanes + kLanes * 0), 0, stream, y);
}
"""

ROW_KERNEL = """#include <hip/hip_runtime.h>

#define ROW_SLOTS (512 / warpSize)

__global__ void per_row(float* y) {
  __shared__ float slots[ROW_SLOTS];
  for (int i = threadIdx.x; i < 128; i += warpSize) y[i] = 1.0f;
  slots[threadIdx.x % ROW_SLOTS] = y[0];
  y[threadIdx.x] = slots[0];
}

void launch_rows(float* y, int rows, hipStream_t stream) {
  hipLaunchKernelGGL(per_row, dim3(rows), dim3(32), 0, stream, y);
}
"""


def _wrp009(tmp_path: Path, text: str, targets: tuple[str, ...], rocm: str = "6.4") -> dict[int, FixKind]:
    path = tmp_path / "k.hip"
    path.write_text(text)
    config = Config().with_overrides(list(targets), rocm)
    return {f.line: f.fix for f in scan([path], config, jobs=1).findings if f.rule == "WRP009"}


def test_host_warpsize_before_rocm7_is_64_in_an_rdna_only_build(tmp_path):
    (tmp_path / "h.hip").write_text(
        "#include <hip/hip_runtime.h>\n"
        "#ifndef __HIP_DEVICE_COMPILE__\n"
        'static_assert(warpSize == 64, "host warpSize");\n'
        "#endif\n"
        "int host_width() { return warpSize; }\n"
    )
    built = hip_compile(tmp_path / "h.hip", tmp_path, targets=("gfx1100",))
    assert built.returncode == 0, built.stderr[-2000:]


def test_host_fixes_keep_64_on_gfx9_and_are_suggested_where_rdna_gives_32(tmp_path):
    auto, suggested = FixKind.AUTO, FixKind.SUGGESTED
    # gfx942 alone: the macro, the host read and the host constant all stay 64
    assert _wrp009(tmp_path, HOST_READS, ("gfx942",)) == {3: auto, 13: auto, 14: auto}
    # gfx1100 alone: porter_warp_size() is 32 there, and so is the host's PORTER_WARP_SIZE
    assert _wrp009(tmp_path, HOST_READS, ("gfx1100",)) == {3: suggested, 13: suggested, 14: suggested}
    # both: the host's PORTER_WARP_SIZE is the largest wavefront, 64; the device's width is not
    assert _wrp009(tmp_path, HOST_READS, ("gfx942", "gfx1100")) == {3: auto, 13: suggested, 14: auto}
    # under ROCm 7 the code does not compile as written: nothing of its meaning to keep
    assert _wrp009(tmp_path, HOST_READS, ("gfx1100",), rocm="7.0") == {3: auto, 13: auto, 14: auto}


def test_a_macro_read_beside_a_rows_own_warpsize_is_reported_for_review(tmp_path):
    path = tmp_path / "k.hip"
    path.write_text(ROW_KERNEL)
    findings = scan([path], Config().with_overrides(["gfx942"], "6.4"), jobs=1).findings
    assert {(f.line, f.rule, f.fix) for f in findings if f.rule in ("WRP009", "WRP021")} == {
        (3, "WRP009", FixKind.SUGGESTED),  # was not reported: its use sits in a row kernel
        (7, "WRP021", FixKind.AUTO),
    }


def test_the_gfx942_port_builds_and_keeps_its_host_width(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    # the host pass and gfx942's device pass both read 64, before the port and after it
    (source / "k.hip").write_text(HOST_READS + 'static_assert(NUM_WARPS * 64 == 1024, "one width");\n')
    convert(ConvertOptions(source, tmp_path / "port", "portable"), Config().with_overrides(["gfx942"], "6.4"), None)
    port = tmp_path / "port" / "k.hip"
    code = [line.split("//")[0] for line in port.read_text(encoding="utf-8").splitlines()]
    assert not any("warpSize" in line for line in code)
    built = hip_compile(port, tmp_path, targets=("gfx942",))
    assert built.returncode == 0, built.stderr[-2000:]
    original = hip_compile(source / "k.hip", tmp_path, targets=("gfx942",))
    assert original.returncode == 0, original.stderr[-2000:]


UTILS = """#pragma once
#if defined(USE_ROCM)
#include <hip/hip_runtime.h>
#define WARP_SIZE warpSize  // 64 on gfx9
#else
#define WARP_SIZE 32
#endif
#define MAX_WARPS (1024 / WARP_SIZE)
"""

BLOCK_SUM = """#include "utils.cuh"

template <int W>
__device__ float reduce(float v) {
  for (int o = W / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}

__global__ void block_sum(const float* x, float* y) {
  __shared__ float partial[MAX_WARPS];
  float v = reduce<WARP_SIZE>(x[threadIdx.x]);
  if (threadIdx.x % WARP_SIZE == 0) partial[threadIdx.x / WARP_SIZE] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (int i = 0; i < blockDim.x / WARP_SIZE; ++i) s += partial[i];
    y[blockIdx.x] = s;
  }
}
"""

RUN_TIME_ONLY = """#include "utils.cuh"

__global__ void lanes(int* y) {
  y[threadIdx.x] = threadIdx.x % WARP_SIZE;
#ifndef USE_ROCM
  __shared__ int slots[MAX_WARPS];  // NVIDIA's arm: 32, a constant
  slots[0] = 0;
#endif
}
"""


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    tree = tmp_path / "tree"
    tree.mkdir()
    for name, text in files.items():
        (tree / name).write_text(text)
    return tree


def test_a_headers_macro_carries_warpsize_into_another_files_constants(tmp_path):
    tree = _tree(tmp_path, {"utils.cuh": UTILS, "block_sum.cu": BLOCK_SUM})
    found = [f for f in scan([tree], Config(), jobs=1).findings if f.rule == "WRP009"]
    # the fix belongs to the definition: reported in the header, at its `warpSize`
    assert [(f.file, f.line, f.fix) for f in found] == [("utils.cuh", 4, FixKind.AUTO)]
    assert "another of the project's files" in found[0].message


def test_a_headers_carrier_read_at_run_time_only_is_left_alone(tmp_path):
    tree = _tree(tmp_path, {"utils.cuh": UTILS, "lanes.cu": RUN_TIME_ONLY})
    assert [f for f in scan([tree], Config(), jobs=1).findings if f.rule == "WRP009"] == []


def test_the_port_of_a_headers_carrier_builds_for_rocm_and_the_original_for_nvidia(tmp_path):
    tree = _tree(tmp_path, {"utils.cuh": UTILS, "block_sum.cu": BLOCK_SUM})
    convert(ConvertOptions(tree, tmp_path / "port", "portable"), Config(), None)
    header = (tmp_path / "port" / "utils.cuh").read_text(encoding="utf-8")
    assert "#define WARP_SIZE PORTER_WARP_SIZE" in header
    assert [f.rule for f in scan([tmp_path / "port"], Config(), jobs=1).findings if f.rule == "WRP009"] == []
    built = hip_compile(tmp_path / "port" / "block_sum.cu", tmp_path, targets=("gfx942",), extra=("-DUSE_ROCM",))
    assert built.returncode == 0, built.stderr[-2000:]
    original = nvcc_compile(tree / "block_sum.cu", tmp_path)
    assert original.returncode == 0, original.stderr[-2000:]


FUNCTION_LIKE = """#pragma once
#include <hip/hip_runtime.h>
#define WARPS(threads) ((threads) / warpSize)
#define LANES(warpSize) (warpSize * 2)  // its own parameter, not HIP's
"""

FUNCTION_LIKE_USE = """#include "warps.h"

__global__ void partial_sums(const float* x, float* y) {
  __shared__ float partial[WARPS(1024)];
  partial[threadIdx.x % WARPS(1024)] = x[threadIdx.x] * LANES(1);
  __syncthreads();
  y[threadIdx.x] = partial[0];
}
"""


def test_a_function_like_macro_carries_warpsize_too(tmp_path):
    tree = _tree(tmp_path, {"warps.h": FUNCTION_LIKE, "partial_sums.hip": FUNCTION_LIKE_USE})
    found = [(f.file, f.line) for f in scan([tree], Config(), jobs=1).findings if f.rule == "WRP009"]
    assert found == [("warps.h", 3)]
    # and within one file
    (tmp_path / "one.hip").write_text(FUNCTION_LIKE.replace("#pragma once\n", "") + FUNCTION_LIKE_USE[21:])
    found = [(f.file, f.line) for f in scan([tmp_path / "one.hip"], Config(), jobs=1).findings if f.rule == "WRP009"]
    assert found == [("one.hip", 2)]


def test_a_chain_of_header_macros_reaches_the_warpsize_its_first_link_writes(tmp_path):
    width = "#pragma once\n#if defined(USE_ROCM)\n#define WARP_SIZE warpSize\n#else\n#define WARP_SIZE 32\n#endif\n"
    warps = '#pragma once\n#include "width.h"\n#define MAX_WARPS (1024 / WARP_SIZE)\n'
    use = '#include "warps.h"\n__global__ void k(float* y) {\n  __shared__ float s[MAX_WARPS];\n  s[0] = y[0];\n  y[1] = s[0];\n}\n'
    tree = _tree(tmp_path, {"width.h": width, "warps.h": warps, "k.cu": use})
    found = [(f.file, f.line) for f in scan([tree], Config(), jobs=1).findings if f.rule == "WRP009"]
    assert found == [("width.h", 3)]
