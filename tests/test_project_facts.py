"""Warp-width constants are settled across the files of a scan (porter.rules.project): a constant
is one by its uses in any file, its definition carries the fix, and a second role keeps it."""

from __future__ import annotations

from porter.config import Config
from porter.scan import Deep, scan

HEADER = "#pragma once\nstatic const int WS = 32;  // defined here, used elsewhere\n"
KERNEL = """#include "common.h"
__global__ void k(float* x) {
  int lane = threadIdx.x % WS;
  for (int c = lane; c < 1000; c += WS) x[c] = __shfl_down_sync(0xffffffffu, x[c], 1);
}
"""
BITS = """#include "common.h"
__global__ void bits(unsigned* words, int i) { atomicOr(words + i / WS, 1u << (i % WS)); }
"""


def _rules_by_file(root, use_cache=False) -> dict[str, list[tuple[int, str]]]:
    result = scan([root], Config(), deep=Deep.NEVER, use_cache=use_cache)
    found: dict[str, list[tuple[int, str]]] = {}
    for finding in result.findings:
        if finding.category == "warp-size":
            found.setdefault(finding.file, []).append((finding.span.line, finding.rule))
    return found


def test_a_header_constant_used_as_the_warp_width_elsewhere_is_fixed_at_its_definition(tmp_path):
    (tmp_path / "common.h").write_text(HEADER)
    (tmp_path / "kernel.cu").write_text(KERNEL)
    found = _rules_by_file(tmp_path)
    assert found == {"common.h": [(2, "WRP006")]}  # the uses in kernel.cu need no fix of their own


def test_a_constant_that_also_counts_bits_keeps_its_definition_and_each_warp_use_is_fixed(tmp_path):
    (tmp_path / "common.h").write_text(HEADER)
    (tmp_path / "kernel.cu").write_text(KERNEL)
    (tmp_path / "bits.cu").write_text(BITS)
    found = _rules_by_file(tmp_path)
    assert "common.h" not in found
    assert sorted(found["kernel.cu"]) == [(3, "WRP001"), (4, "WRP005")]
    assert "bits.cu" not in found


def test_a_source_files_own_constant_is_settled_by_that_file_alone(tmp_path):
    (tmp_path / "unused.cu").write_text("#define WS 32  // unused here\n__global__ void k(float* x) { x[0] = 1; }\n")
    (tmp_path / "used.cu").write_text("#define WS 32\n" + KERNEL.split("\n", 1)[1])
    found = _rules_by_file(tmp_path)
    assert found == {"used.cu": [(1, "WRP006")]}


# a kernel of 32-thread groups with no warp operation (gptqmodel's marlin repack, which names
# marlin.cuh's `tile_size = 16`), beside a kernel that shuffles
GROUPS = """#include "common.h"
__global__ void groups(int* out) {
  int group = threadIdx.x / 32;
  int slot = threadIdx.x % 32;
  out[blockIdx.x * WS * 8 + group * WS + slot] = slot;
}
__global__ void shifts(float* v) {
  float x = __shfl_down_sync(0xffffffffu, v[threadIdx.x], 1);
  if (threadIdx.x % 32 == 0) v[threadIdx.x / 32] = x;
}
"""


def test_a_group_kernel_naming_a_header_constant_no_file_claims_keeps_its_32s(tmp_path):
    (tmp_path / "common.h").write_text(HEADER)
    (tmp_path / "groups.cu").write_text(GROUPS)
    found = _rules_by_file(tmp_path)
    assert "common.h" not in found  # WS stays 32 in the port: the groups stay groups of 32
    assert [line for line, _ in found["groups.cu"]] == [9, 9]  # the shuffling kernel's alone


def _cached_tree(tmp_path, monkeypatch, files: dict[str, str]):
    """A tree of `files` beside its own scan cache."""
    monkeypatch.setenv("PORTER_CACHE", str(tmp_path / "cache"))
    tree = tmp_path / "tree"
    tree.mkdir()
    for name, text in files.items():
        (tree / name).write_text(text)
    return tree


def test_a_group_kernel_naming_a_header_constant_another_file_widens_is_widened_with_it(tmp_path, monkeypatch):
    # kernel.cu takes WS as its warp's width: WS becomes 64
    tree = _cached_tree(tmp_path, monkeypatch, {"common.h": HEADER, "groups.cu": GROUPS, "kernel.cu": KERNEL})
    for use_cache in (False, True, True):  # cold, then cached: the cache keeps the first reading
        found = _rules_by_file(tree, use_cache=use_cache)
        assert found["common.h"] == [(2, "WRP006")]
        assert sorted(found["groups.cu"]) == [(3, "WRP001"), (4, "WRP001"), (9, "WRP001"), (9, "WRP001")]


def test_the_settlement_holds_through_the_scan_cache(tmp_path, monkeypatch):
    tree = _cached_tree(tmp_path, monkeypatch, {"common.h": HEADER, "kernel.cu": KERNEL})
    cold = _rules_by_file(tree, use_cache=True)
    warm = _rules_by_file(tree, use_cache=True)
    assert cold == warm == {"common.h": [(2, "WRP006")]}


CG = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"


def test_a_tile_as_wide_as_a_qualified_constant_makes_it_a_warp_width(tmp_path):
    (tmp_path / "sort.cu").write_text(
        CG
        + "namespace ns {\nconstexpr int ws = 32;\n}\n"
        + "__global__ void k(int* x) {\n"
        + "  auto warp = cg::tiled_partition<ns::ws>(cg::this_thread_block());\n"
        + "  x[threadIdx.x] = warp.thread_rank();\n}\n"
    )
    assert _rules_by_file(tmp_path) == {"sort.cu": [(4, "WRP006")]}


def test_the_edge_of_a_square_tile_keeps_its_definition(tmp_path):
    """`[TILE][TILE + 1]` and `dim3 block(TILE, TILE)`: doubling the edge would quadruple the block."""
    (tmp_path / "transpose.cu").write_text(
        CG
        + "#define TILE 32\n"
        + "__global__ void k(float* x) {\n"
        + "  __shared__ float t[TILE][TILE + 1];\n"
        + "  auto g = cg::tiled_partition<TILE>(cg::this_thread_block());\n"
        + "  t[threadIdx.y][threadIdx.x] = g.thread_rank();\n"
        + "  x[threadIdx.x] = t[threadIdx.x][threadIdx.y];\n}\n"
        + "void launch(float* x) { dim3 block(TILE, TILE); k<<<1, block>>>(x); }\n"
    )
    found = _rules_by_file(tmp_path)["transpose.cu"]
    assert (3, "WRP006") not in found and (6, "WRP007") in found


SPECIFIER_HEADER = """#pragma once
#ifdef __CUDACC__
#define DS_D_INLINE __device__ __forceinline__
#else
#define DS_D_INLINE inline
#endif
"""
HELPERS = """#pragma once
#include "macros.h"
DS_D_INLINE float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}
"""


def test_a_function_declared_through_a_project_macro_that_expands_to_device_is_device_code(tmp_path):
    """The macro's CUDA definition in another header, not its name, makes the helper device code:
    its shuffle ladder from 16 halves a wave64 reduction."""
    (tmp_path / "macros.h").write_text(SPECIFIER_HEADER)
    (tmp_path / "helpers.cuh").write_text(HELPERS)
    assert (4, "WRP002") in _rules_by_file(tmp_path)["helpers.cuh"]


def test_a_lambda_marked_through_a_specifier_macro_is_device_code(tmp_path):
    """`[=] DEV_FN (int t) {…}` is an extended device lambda when DEV_FN expands to `__device__`:
    its last-lane test is a warp's."""
    (tmp_path / "launch.cu").write_text(
        "#define DEV_FN __host__ __device__\n"
        "template <typename F> __global__ void run(F f) { f(threadIdx.x); }\n"
        "void launch(float* out) {\n"
        "  run<<<1, 64>>>([=] DEV_FN (int t) {\n"
        "    const int lane = t % 32;\n"
        "    if (lane == 31) out[t / 32] = 1.f;\n"
        "  });\n"
        "}\n"
    )
    assert _rules_by_file(tmp_path)["launch.cu"] == [(6, "WRP001")]


SHIM_HEADER = """#pragma once
#ifdef __HIP_PLATFORM_AMD__
#include <hip/hip_runtime.h>
#define cudaMalloc hipMalloc
typedef hipStream_t cudaStream_t;
static inline hipError_t cudaFree(void* p) { return hipFree(p); }
static inline hipError_t cudaMemcpy2DAsync(void*        destination,
                                           size_t       destination_pitch,
                                           const void*  source,
                                           size_t       source_pitch,
                                           size_t       width_in_bytes,
                                           size_t       height_in_rows,
                                           hipMemcpyKind direction_of_the_copy,
                                           hipStream_t  stream_to_order_it_on) {
  return hipMemcpy2DAsync(destination, destination_pitch, source, source_pitch, width_in_bytes,
                          height_in_rows, direction_of_the_copy, stream_to_order_it_on);
}
#endif
"""
USES = (
    "void run(cudaStream_t s, void** p) { cudaMalloc(p, 64); cudaFree(*p); cudaDeviceSynchronize(); }\n"
    "void copy(void* d, void* h, cudaStream_t s) { cudaMemcpy2DAsync(d, 64, h, 64, 64, 4, hipMemcpyDefault, s); }\n"
)


def _api_names(root) -> dict[str, list[str]]:
    result = scan([root], Config(), deep=Deep.NEVER)
    found: dict[str, list[str]] = {}
    for finding in result.findings:
        if finding.category == "api":
            source = (root / finding.file).read_bytes()
            found.setdefault(finding.file, []).append(source[finding.span.start_byte : finding.span.end_byte].decode())
    return found


def test_names_a_project_maps_onto_hip_itself_need_no_rename_where_its_header_is_included(tmp_path):
    """A compat header's macro, alias and forwarding functions (llama.cpp's vendors/hip.h, cupy's ROCm
    backend, whose forwarding functions list their parameters over many lines): the files that include it, directly or through another header, use those names as
    they are; a name it does not map stays a finding, and so does every name in a file that does not
    include it."""
    (tmp_path / "vendors").mkdir()
    (tmp_path / "vendors" / "hip_compat.h").write_text(SHIM_HEADER)
    (tmp_path / "common.h").write_text('#pragma once\n#include "vendors/hip_compat.h"\n')
    (tmp_path / "through.cpp").write_text('#include "common.h"\n' + USES)
    (tmp_path / "alone.cpp").write_text(USES)
    found = _api_names(tmp_path)
    assert found["through.cpp"] == ["cudaDeviceSynchronize"]
    assert sorted(found["alone.cpp"]) == [
        "cudaDeviceSynchronize", "cudaFree", "cudaMalloc", "cudaMemcpy2DAsync", "cudaStream_t", "cudaStream_t"
    ]  # fmt: skip
    assert "vendors/hip_compat.h" not in found  # its definitions are the mapping, not uses to rename


OWN_WARPSIZE_HEADER = "#pragma once\nnamespace ssm {\nconstexpr unsigned warpSize = 32;\n}\n"
OWN_WARPSIZE_KERNEL = """#include "common.h"
namespace ssm {
__global__ void sums(const float* x, float* out) {
  float v = x[threadIdx.x];
  for (int s = warpSize / 2; s > 0; s /= 2) v += __shfl_xor_sync(0xffffffffu, v, s);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}
inline void launch(const float* x, float* out, int rows) {
  static_assert(128 % warpSize == 0, "whole warps");
  sums<<<rows, dim3(warpSize)>>>(x, out);
}
}
"""


def test_a_project_constant_named_warpsize_is_not_hips_before_or_after_its_port(tmp_path):
    """A header's own `warpSize` (flashinfer's mamba kernels) is a warp width of 32 (WRP006 at its
    definition), not HIP's variable: its uses in constant expressions and host code are no WRP009,
    and stay none once the port writes `= PORTER_WARP_SIZE`, a value the scan cannot evaluate."""
    from porter.convert import ConvertOptions, convert

    source = tmp_path / "src"
    source.mkdir()
    (source / "common.h").write_text(OWN_WARPSIZE_HEADER)
    (source / "kernel.cu").write_text(OWN_WARPSIZE_KERNEL)
    assert _rules_by_file(source) == {"common.h": [(3, "WRP006")]}
    convert(ConvertOptions(source, tmp_path / "port", mode="portable"), Config(), None)
    assert "warpSize = PORTER_WARP_SIZE" in (tmp_path / "port" / "common.h").read_text()
    assert _rules_by_file(tmp_path / "port") == {}


# a kernel launched one 32-thread row a block, striding its row by a header's constant
ROW_KERNEL = """#include "common.h"
__global__ void row_max(float* out, const float* a, int k) {
  int lane = threadIdx.x % WS;
  float best = -1e30f;
  for (int i = lane; i < k; i += WS) best = fmaxf(best, a[blockIdx.x * k + i]);
  if (lane == 0) out[blockIdx.x] = best;
}
void run(float* out, const float* a, int m, int k) { row_max<<<m, 32>>>(out, a, k); }
"""


def test_a_header_constant_a_launched_row_kernel_strides_by_stays_and_its_other_uses_are_fixed(tmp_path):
    """Widened at the header, WS would make row_max's 32 threads stride its row by 64 (the
    cross-file form of corpus/emulate/shared_width.cu): kernel.cu's uses take the fix instead."""
    (tmp_path / "common.h").write_text(HEADER)
    (tmp_path / "kernel.cu").write_text(KERNEL)
    (tmp_path / "rows.cu").write_text(ROW_KERNEL)
    found = _rules_by_file(tmp_path)
    assert "common.h" not in found and "rows.cu" not in found
    assert sorted(found["kernel.cu"]) == [(3, "WRP001"), (4, "WRP005")]
