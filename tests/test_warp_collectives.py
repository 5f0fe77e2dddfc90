"""CUB's warp collectives in kernels whose 32-thread rows share a wavefront (WRP020), and lanes that
take chunks of consecutive elements (WRP005).

bitsandbytes' 4-bit GEMV takes a row per 32 threads, counting the rows before its block from its
template width (`row = (THREADS / 32) * blockIdx.x + threadIdx.x / 32`, launched as
`<T, 128, BITS><<<(m + 3) / 4, 128>>>`), and sums the row with `cub::WarpReduce<float>`. porter
widened its 32s; the host's 4 rows a block and the lanes' stride of 32 chunks stayed, and on 64
lanes half the rows went unwritten and the others summed chunks twice (corpus/emulate's warp_gemv
cases run that port and porter's on the CPU device). The kernel is now a row kernel: its 32s stay,
and hipCUB's WarpReduce, as wide as the wavefront by default, is given the row's 32. hip-clang
shows which width the port instantiates for gfx942.
"""

from __future__ import annotations

import re
import shutil
import subprocess

from compilers import nvcc_compile, require_hip
from corpus_cases import CORPUS

from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.scan import scan

GEMV = CORPUS / "emulate" / "warp_gemv.cu"


def _findings(path, rules=None):
    return [f for f in scan([path], Config()).findings if rules is None or f.rule in rules]


def test_the_rows_stay_and_the_reduction_gets_the_rows_width():
    found = _findings(GEMV, {"WRP001", "WRP003", "WRP005", "WRP008", "WRP020"})
    assert [(f.rule, f.line) for f in found] == [("WRP020", 19)]
    (edit,) = found[0].edits
    source = GEMV.read_bytes()
    assert source[edit.start : edit.end] == b"" and edit.replacement == b", 32"
    assert source[edit.start - len(b"<float") : edit.start + 1] == b"<float>"


def _device_ir(port_source: str, tmp_path, target: str = "gfx942") -> str:
    hip = require_hip()
    tree = tmp_path / "ir"
    tree.mkdir(exist_ok=True)
    (tree / "kernel.cu").write_text(port_source, encoding="utf-8")
    shutil.copy(tmp_path / "port" / "porter_compat.h", tree / "porter_compat.h")
    out = tree / "device.ll"
    command = hip.command(
        ["-std=c++17", "-O0", *hip.hip_flags(), f"--offload-arch={target}", "--cuda-device-only", "-S", "-emit-llvm",
         str(tree / "kernel.cu"), "-o", str(out)]
    )  # fmt: skip
    built = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-2000:]
    return out.read_text(encoding="utf-8")


def _warp_reduce_widths(ir: str) -> set[str]:
    """The logical widths of the hipcub::WarpReduce<float, W> the device code instantiates."""
    return set(re.findall(r"_ZN6hipcub10WarpReduceIfLi(\d+)E", ir))


def _portable_port(case, tmp_path) -> str:
    source = tmp_path / "source"
    source.mkdir()
    shutil.copy(case, source / case.name)
    convert(ConvertOptions(source, tmp_path / "port", "portable"), Config(), None)
    return (tmp_path / "port" / case.name).read_text(encoding="utf-8")


def test_on_gfx942_the_ports_reduction_is_32_lanes_wide_and_the_default_64(tmp_path):
    port = _portable_port(GEMV, tmp_path)
    assert "cub::WarpReduce<float, 32>" in port and "THREADS / 32" in port
    assert _warp_reduce_widths(_device_ir(port, tmp_path)) == {"32"}
    # the same port without porter's width: hipCUB's default, the wavefront
    default = port.replace("cub::WarpReduce<float, 32>", "cub::WarpReduce<float>")
    assert _warp_reduce_widths(_device_ir(default, tmp_path)) == {"64"}


def test_a_widened_kernels_32_lane_reduction_follows_the_wavefront(tmp_path):
    """corpus/emulate/warp_partials.cu: lane and warp ids widened, `cub::WarpReduce<float, 32>`
    becomes the wavefront's width (WRP004), 64 lanes on gfx942 and 32 on gfx1100; kept at 32, the
    port's warps summed each half apart (the CPU device's warp_partials cases run both)."""
    case = CORPUS / "emulate" / "warp_partials.cu"
    found = _findings(case, {"WRP004"})
    assert [(f.line, case.read_bytes()[f.edits[0].start : f.edits[0].end]) for f in found] == [(10, b"32")]
    port = _portable_port(case, tmp_path)
    assert "cub::WarpReduce<float, PORTER_WARP_SIZE>" in port
    assert _warp_reduce_widths(_device_ir(port, tmp_path, "gfx942")) == {"64"}
    assert _warp_reduce_widths(_device_ir(port, tmp_path, "gfx1100")) == {"32"}


def test_the_originals_build_with_nvcc(tmp_path):
    for case in (GEMV, CORPUS / "emulate" / "warp_partials.cu"):
        built = nvcc_compile(case, tmp_path)
        assert built.returncode == 0, built.stderr[-2000:]


def test_a_grid_the_host_counts_in_warps_keeps_the_widening(tmp_path):
    """The same kernel launched over a grid the host works out from `THREADS / 32` is widened with
    its host (WRP008), as before: kept at 32 it would disagree with the widened grid."""
    source = GEMV.read_text(encoding="utf-8").replace(
        "warp_gemv<128><<<(rows + 3) / 4, 128, 0, stream>>>",
        "const int threads = 128;\n  const int per_block = threads / 32;\n"
        "  warp_gemv<128><<<(rows + per_block - 1) / per_block, threads, 0, stream>>>",
    )
    (tmp_path / "gemv.cu").write_text(source, encoding="utf-8")
    rules = {f.rule for f in _findings(tmp_path / "gemv.cu")}
    assert {"WRP001", "WRP005", "WRP008"} <= rules and "WRP020" not in rules


def test_a_lane_taking_a_chunk_steps_by_32_chunks():
    """`for (k = lane * CHUNK; …; k += 32 * CHUNK)` in a widened kernel: the 32 of the step follows
    the lanes; a step whose other factor is not the start's chunk is not a lane's."""
    case = CORPUS / "wave64_real" / "lane_chunks.cu"
    lines = case.read_text(encoding="utf-8").splitlines()
    strides = _findings(case, {"WRP005"})
    assert [f.line for f in strides] == [17]
    (edit,) = strides[0].edits
    assert case.read_bytes()[edit.start : edit.end] == b"32"
    assert "32 * CHUNK" in lines[16]


WIDTH_LAUNCHER = """
#include <cub/cub.cuh>
template <int THREADS, int WIDTH>
__global__ void width_sums(const float* x, float* out) {
  typedef cub::WarpReduce<float, WIDTH> R;
  __shared__ typename R::TempStorage t[8];
  out[blockIdx.x] = R(t[threadIdx.x / 64]).Sum(x[blockIdx.x * THREADS + threadIdx.x]);
}
template <int CTA_N, int TILE_N>
__global__ void tile_copy(const float* a, float* c) {
  for (int j = threadIdx.x; j < TILE_N; j += blockDim.x) c[blockIdx.x * CTA_N + j] = a[j];
}
void launch(const float* x, float* out, int n) {
  constexpr int THREADS = 256, WIDTH = 32, CTA_N = 128, TILE_N = 32;
  constexpr int NUM_WARPS = THREADS / WIDTH;
  constexpr int NUM_TILE_WARPS = CTA_N / TILE_N;
  width_sums<THREADS, WIDTH><<<n / NUM_WARPS, THREADS>>>(x, out);
  tile_copy<CTA_N, TILE_N><<<n, dim3(64, NUM_TILE_WARPS)>>>(x, out);
}
"""


def test_a_constant_the_kernel_takes_as_a_warp_collectives_width_still_counts_warps(tmp_path):
    """A launcher's `THREADS / WIDTH`, WIDTH = 32 handed to a kernel that gives it to
    `cub::WarpReduce<float, WIDTH>`, counts warps (WRP008); `CTA_N / TILE_N`, TILE_N handed to a
    kernel that takes it for a shape alone, counts tiles (AWQ's GEMM launcher)."""
    (tmp_path / "k.cu").write_text(WIDTH_LAUNCHER, encoding="utf-8")
    assert [f.line for f in _findings(tmp_path / "k.cu", {"WRP008"})] == [15]


ALIAS_ROWS = CORPUS / "emulate" / "alias_rows.cu"


def test_a_namespace_alias_used_by_row_kernels_gets_the_rows_width(tmp_path):
    """`using WarpReduce = cub::WarpReduce<float>;` at namespace scope, used by a kernel whose
    block is `dim3(32, 4)`: the alias itself is given the row's 32 (the CPU device's alias_rows
    cases run the port, and the one that leaves hipCUB's default)."""
    (found,) = _findings(ALIAS_ROWS, {"WRP020"})
    assert (found.line, str(found.fix), found.edits[0].replacement) == (11, "auto", b", 32")
    port = _portable_port(ALIAS_ROWS, tmp_path)
    assert "using WarpReduce = cub::WarpReduce<float, 32>;" in port
    assert _warp_reduce_widths(_device_ir(port, tmp_path)) == {"32"}
    # the same alias as a typedef
    typedef = ALIAS_ROWS.read_text(encoding="utf-8").replace(
        "using WarpReduce = cub::WarpReduce<float>;", "typedef cub::WarpReduce<float> WarpReduce;"
    )
    (tmp_path / "typedef.cu").write_text(typedef, encoding="utf-8")
    assert [(f.line, str(f.fix)) for f in _findings(tmp_path / "typedef.cu", {"WRP020"})] == [(11, "auto")]


def test_an_alias_shared_with_a_widened_kernel_is_left_to_a_person(tmp_path):
    """The same alias used by a kernel whose warps follow the wavefront too: one width cannot serve
    both, so the finding says so and edits nothing."""
    widened = (
        "\n__global__ void block_sums(float* out, const float* in) {\n"
        "  __shared__ WarpStorage storage[8];\n"
        "  float v = WarpReduce(storage[threadIdx.x / 32]).Sum(in[blockIdx.x * blockDim.x + threadIdx.x]);\n"
        "  if (threadIdx.x % 32 == 0) atomicAdd(out + blockIdx.x, v);\n}\n"
    )
    (tmp_path / "mixed.cu").write_text(ALIAS_ROWS.read_text(encoding="utf-8") + widened, encoding="utf-8")
    (found,) = _findings(tmp_path / "mixed.cu", {"WRP020"})
    assert (found.line, str(found.fix), found.edits) == (11, "manual", ())
    assert "alias of their own" in found.message
    # a file whose kernels are none of them rows: the alias follows the wavefront, and nothing is said
    (tmp_path / "mixed.cu").write_text(
        ALIAS_ROWS.read_text(encoding="utf-8").replace("dim3 block(32, ROWS_PER_BLOCK)", "dim3 block(256)")
    )
    assert _findings(tmp_path / "mixed.cu", {"WRP020"}) == []
