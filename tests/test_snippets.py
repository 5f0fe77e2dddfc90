"""Short (code, expected rules) pairs, positive and negative side by side, pyupgrade style.

Each snippet is scanned as a .cu file under the given targets and ROCm version; the expected
list is every rule reported, in order of position.
"""

from __future__ import annotations

import pytest

from porter.config import Config
from porter.discover import DiscoveredFile
from porter.scan import Deep, analyze_file
from porter.source import FileKind


def rules_for(tmp_path, code: str, targets=("gfx942",), rocm="6.4", name="snippet.cu") -> list[str]:
    path = tmp_path / name
    path.write_text(code)
    config = Config(targets=tuple(targets), rocm_version=rocm)
    result = analyze_file(DiscoveredFile(path, name, FileKind.CUDA), config, Deep.NEVER, None)
    assert result.error is None, result.error
    return [f.rule for f in sorted(result.findings, key=lambda f: (f.span.start_byte, f.rule))]


K = "__global__ void k(float* x) {{ {} }}"
D = "__device__ float f(float v, int lane) {{ {} }}"

CASES = [
    # warp-size: lane and warp arithmetic on thread indices, in kernels whose warp operations reach
    # across a 64-lane wavefront's halves (a shuffle down or up, a broadcast, a vote, `warpSize`)
    (K.format("int lane = threadIdx.x & 31; x[lane] = __shfl_up(x[lane], 1);"), ["WRP001"]),
    (K.format("int w = threadIdx.x / 32; x[w] = __shfl_down(x[w], 1);"), ["WRP001"]),
    (K.format("int warp = threadIdx.x / 32; x[warp] = warpSize;"), ["WRP001"]),
    (K.format("int t = threadIdx.x; int l = t % 32; x[l] = __shfl(x[l], 0);"), ["WRP001"]),
    # a warp per row, the rows before the block counted from its width and the host's grid in rows:
    # the width a file's own constant that only the kernel uses stays the row's 32, as a literal would
    (
        "constexpr int RT = 32;\n"
        "__global__ void k(float* y, const float* x, int m) {\n"
        "  int row = blockIdx.x * (blockDim.x / RT) + threadIdx.x / RT;\n"
        "  float v = row < m ? x[row * RT + threadIdx.x % RT] : 0.f;\n"
        "  for (int o = RT / 2; o > 0; o /= 2) v += __shfl_down(v, o);\n"
        "  if (row < m && threadIdx.x % RT == 0) y[row] = v;\n"
        "}\n"
        "void f(float* y, const float* x, int m) { k<<<(m + 3) / 4, 128>>>(y, x, m); }\n",
        ["WRP016", "API006"],
    ),
    # a 2-D mapping of a block with no warp-level code is the same on any wavefront
    (K.format("int row = threadIdx.x / 32, col = threadIdx.x % 32; x[row * 33 + col] = 0;"), []),
    (K.format("int t = threadIdx.x; int u = t; int wid = u >> 5; x[wid] = __any(x[wid] > 0);"), ["WRP001"]),
    (K.format("int i = threadIdx.x & 0x1f; x[i] = __shfl_up(x[i], 1);"), ["WRP001"]),
    # ... and with no warp operation, or only a butterfly within 32 lanes, the 32s group threads as
    # they do on NVIDIA: each half of a wavefront does what one NVIDIA warp does, right as written
    (K.format("int lane = threadIdx.x & 31; x[lane] = 0;"), []),
    (K.format("int warp = threadIdx.x / 32; x[warp] = 0;"), []),
    (K.format("int t = threadIdx.x; int u = t; int wid = u >> 5; x[wid] = 0;"), []),
    (K.format("int i = threadIdx.x & 0x1f; x[i] = __shfl_xor(x[i], 1);"), []),
    # ... and the 32s that are not warps
    (K.format("int n = 1000; int words = n / 32; x[0] = words;"), []),
    (K.format("unsigned h = 12345u; x[h & 31] = 0;"), []),
    (K.format("__shared__ float tile[32][33]; tile[threadIdx.y][threadIdx.x] = 0;"), []),
    (K.format("int i = blockIdx.x * blockDim.x + threadIdx.x; atomicOr((unsigned*)x + (i >> 5), 1u << (i & 31));"), []),
    (K.format("for (int b = 0; b < 32; ++b) x[b] = 0;"), []),
    # a launch is inventoried in CUDA to port, not in code written for HIP, where it is HIP's own
    ("__global__ void k(float* x) {}\nvoid go(float* x) { k<<<1, 64>>>(x); }", ["API006"]),
    ("#include <hip/hip_runtime.h>\n__global__ void k(float* x) {}\nvoid go(float* x) { k<<<1, 64>>>(x); }", []),
    # a bit's offset, a thread's position times a width known at run time (gptqmodel's VPTQ
    # unpacking): its `>> 5` and `& 31` pick a 32-bit word and a bit; times a constant 1 it is a lane
    (
        K.format("int bits = (int)x[0]; int bit = threadIdx.x * bits; x[bit >> 5] = __shfl(x[bit & 31], 0);"),
        [],
    ),
    (K.format("int bit = threadIdx.x * 1; x[bit >> 5] = __shfl(x[bit & 31], 0);"), ["WRP001", "WRP001"]),
    (K.format("int lane = threadIdx.x % warpSize; x[lane] = 0;"), []),
    (K.format("if (threadIdx.x < blockDim.x / 32.f) x[0] = __shfl(x[0], 0);"), ["WRP001"]),
    # a quad's lane mask read on ROCm too; then one read only by the CUDA arm's shuffle, the ROCm
    # arm shuffling without a mask (mmcv's filtered_lrelu): dead where it is ported
    (K.format("unsigned m = 15u << ((threadIdx.x & 31) & ~3); x[0] = __shfl(x[0], 0) + m;"), ["WRP001"]),
    # a lane id that only a comment names again is dead too (reported before: any mention counted)
    (K.format("int lane = threadIdx.x & 31;  // lane: kept for debugging\n x[0] = __shfl(x[0], 0);"), []),
    (
        K.format(
            "unsigned m = 15u << ((threadIdx.x & 31) & ~3); float s = x[threadIdx.x];\n"
            "#if defined(__HIP_PLATFORM_AMD__)\n s += __shfl_xor(s, 1);\n#else\n s += __shfl_xor_sync(m, s, 1);\n"
            "#endif\n x[0] = __shfl(s, 0);"
        ),
        [],
    ),
    ("void f(int cols) { int threads = ((cols + 31) / 32) * 32; (void)threads; }", ["WRP008"]),
    ("void f(int cols) { int words = (cols + 31) / 32; (void)words; }", []),
    # shuffles
    (D.format("for (int i = 1; i <= 16; i *= 2) v += __shfl_up(v, i); return v;"), ["WRP002"]),
    (D.format("for (int i = 1; i <= 8; i *= 2) v += __shfl_up(v, i, 16); return v;"), []),
    (D.format("for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o); return v;"), ["WRP002"]),
    (D.format("for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_xor(v, o); return v;"), []),
    (D.format("return __shfl(v, 0, 32);"), ["WRP004"]),
    (D.format("return __shfl(v, 0, 16);"), []),
    (D.format("v += __shfl_xor(v, 32); v += __shfl_xor(v, 16); return v;"), []),
    # warp-size constants, found by their uses (the definition then carries the fix), never by name
    (
        "#define WARP_SIZE 32\n" + K.format("int lane = threadIdx.x % WARP_SIZE; x[lane] = __shfl_down(x[lane], 1);"),
        ["WRP006"],
    ),
    ("#define WARP_SIZE 32\n", []),
    (
        "static const int WS = 32;\n"
        + K.format("for (int c = threadIdx.x % WS; c < 99; c += WS) x[c] = __shfl(x[c], 0);"),
        ["WRP006"],
    ),
    ("#define WARPS_PER_BLOCK 32\n", []),
    (
        "#define TILE_DIM 32\n"
        + K.format("__shared__ float t[TILE_DIM][TILE_DIM + 1]; t[threadIdx.y][threadIdx.x] = 0;"),
        [],
    ),
    (
        "static constexpr int kWarpSize = 32;\n"
        + K.format("int w = threadIdx.x / kWarpSize; x[w] = __shfl_down(x[w], 1);"),
        ["WRP006"],
    ),
    (
        "enum { kLanes = 32 };\n" + K.format("int l = threadIdx.x & (kLanes - 1); x[l] = __shfl_xor(x[l], 1);"),
        ["WRP006"],
    ),
    (
        "#define LOG_WARP_SIZE 5\n" + K.format("int w = threadIdx.x >> LOG_WARP_SIZE; x[w] = __shfl_down(x[w], 1);"),
        ["WRP006"],
    ),
    ("#define WARP_SIZE 64\n" + K.format("int lane = threadIdx.x % WARP_SIZE; x[lane] = __shfl_down(x[lane], 1);"), []),
    # one constant, two roles (a lane's width and a word's bits): each warp use carries its own fix
    (
        "#define BITS 32\n"
        + K.format("int l = threadIdx.x % BITS; unsigned b = 1u << (blockIdx.x % BITS); x[l] = __shfl_xor(x[l], b);"),
        ["WRP001"],
    ),
    # warpSize where a constant expression is needed
    (K.format("__shared__ float s[warpSize]; s[0] = 0;"), ["WRP009"]),
    (K.format("int n = warpSize; x[0] = n;"), []),
    # warps counted from a block's threads, in a kernel that broadcasts across the wavefront, and in
    # one with no warp operation (its warps of 32 are groups of threads, as on NVIDIA)
    (
        K.format(
            "constexpr int kBlockThreads = 256; constexpr int kWarps = kBlockThreads / 32; x[kWarps] = __shfl(x[0], 0);"
        ),
        ["WRP001"],
    ),
    (K.format("int warps = (blockDim.x + 31) / 32; x[warps] = __shfl(x[0], 0);"), ["WRP001"]),
    (K.format("constexpr int kBlockThreads = 256; constexpr int kWarps = kBlockThreads / 32; x[kWarps] = 0;"), []),
    (K.format("int warps = (blockDim.x + 31) / 32; x[warps] = 0;"), []),
    # matrix, with the wmma names brought in by a using-directive
    (
        "using namespace nvcuda::wmma;\n"
        + K.format("fragment<accumulator, 16, 16, 16, float> acc; fill_fragment(acc, 0.0f);"),
        ["MMA001"],
    ),
    # launch bounds: CUDA 12.4's register cap
    ("__global__ void __maxnreg__(64) k(float* x) { x[0] = 0; }", ["LBD004"]),
    ("__global__ void __block_size__((256, 1, 1)) k(float* x) { x[0] = 0; }", ["LBD005"]),
    # FP8 conversion intrinsics
    (D.format("return (float)__nv_cvt_float_to_fp8(v, __NV_SATFINITE, __NV_E4M3);"), ["NUM001", "NUM001"]),
    # compute-capability tests, directly or through a variable
    ("int f(cudaDeviceProp* p) { int major = p->major; return major >= 9; }", ["API003", "ARC004"]),
    ("int f(int major) { return major >= 9; }", []),
    # lane masks
    (
        D.format("unsigned m = __ballot_sync(0xffffffff, v > 0); return __popc(m);"),
        ["MSK002", "SYN001", "MSK001", "MSK003"],
    ),
    (D.format("unsigned long long m = __ballot(v > 0); return __popcll(m);"), []),
    (D.format("return (float)(1u << lane);"), ["MSK004"]),
    (D.format("return (float)(1u << 3);"), []),
    (D.format("return __shfl_xor_sync(uint32_t(-1), v, 1);"), ["SYN001", "MSK001"]),
    (D.format("return __shfl_xor_sync((unsigned)-1, v, 1);"), ["SYN001", "MSK001"]),
    # `-1` holds every lane once widened, but it is an `int`, which HIP 6.4's `_sync` intrinsics refuse
    (D.format("return __shfl_xor_sync(-1, v, 1);"), ["SYN001", "MSK001"]),
    # kernel pointers where HIP takes const void*
    (
        "__global__ void k(float*);\nvoid f() { cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024); }",
        ["API001", "LBD003", "API009", "API004"],
    ),
    (
        "__global__ void k(float*);\nvoid f() { cudaFuncSetAttribute((const void*)k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024); }",
        ["API001", "LBD003", "API004"],
    ),
    # cooperative groups: a parent-typed tile held as auto, qualified or through using-directives
    (
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
        + K.format("auto t = cg::tiled_partition<16>(cg::this_thread_block()); x[0] = t.size();"),
        ["API005", "CGR003"],
    ),
    (
        "#include <cooperative_groups.h>\nusing namespace cooperative_groups;\n"
        + K.format("auto t = tiled_partition<16>(this_thread_block()); x[0] = t.size();"),
        ["API005", "CGR003"],
    ),
    (
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
        + K.format("cg::thread_block_tile<16> t = cg::tiled_partition<16>(cg::this_thread_block()); x[0] = t.size();"),
        ["API005"],
    ),
    (
        "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
        + K.format("auto g = cg::tiled_partition(cg::this_thread_block(), 16); x[0] = g.size();"),
        ["API005"],
    ),
]


@pytest.mark.parametrize(("code", "expected"), CASES, ids=[str(i) for i in range(len(CASES))])
def test_snippet(tmp_path, code, expected):
    assert rules_for(tmp_path, code) == expected


def test_wave32_targets_silence_warp_size_findings(tmp_path):
    code = K.format("int lane = threadIdx.x & 31; unsigned m = __ballot_sync(0xffffffff, lane); x[lane] = m;")
    assert rules_for(tmp_path, code, targets=("gfx1100",), rocm="7.0") == []
    assert rules_for(tmp_path, code, targets=("gfx1100", "gfx942"), rocm="7.0") == ["WRP001", "MSK002", "MSK001"]


@pytest.mark.parametrize(
    ("rocm", "expected"),
    [("6.1", ["SYN001", "SYN002"]), ("6.4", ["SYN001", "SYN002"]), ("7.0", []), ("7.2", [])],
)
def test_warp_sync_follows_the_rocm_version(tmp_path, rocm, expected):
    code = D.format("v = __shfl_down_sync(~0ull, v, 1); __syncwarp(); return v;")
    assert rules_for(tmp_path, code, rocm=rocm) == expected


def test_warp_sync_severity_by_version(tmp_path):
    from porter.scan import analyze_file as analyze

    path = tmp_path / "s.cu"
    path.write_text(D.format("return __shfl_down_sync(~0ull, v, 1);"))
    severities = {}
    for rocm in ("6.1", "6.4"):
        result = analyze(DiscoveredFile(path, "s.cu", FileKind.CUDA), Config(rocm_version=rocm), Deep.NEVER, None)
        severities[rocm] = [str(f.severity) for f in result.findings]
    assert severities == {"6.1": ["error"], "6.4": ["warning"]}


def test_opt_in_macro_silences_the_preview_warning(tmp_path):
    code = "#define HIP_ENABLE_WARP_SYNC_BUILTINS\n" + D.format("return __shfl_down_sync(~0ull, v, 1);")
    assert rules_for(tmp_path, code, rocm="6.4") == []


def test_typed_tile_is_an_error_before_the_fixed_release(tmp_path):
    code = "#include <cooperative_groups.h>\n" + K.format(
        "auto t = cooperative_groups::tiled_partition<8>(cooperative_groups::this_thread_block()); x[0] = t.size();"
    )
    path = tmp_path / "tile.cu"
    path.write_text(code)
    for rocm, severity in (("5.7", "error"), ("6.4", "info")):
        config = Config(targets=("gfx942",), rocm_version=rocm)
        result = analyze_file(DiscoveredFile(path, "tile.cu", FileKind.CUDA), config, Deep.NEVER, None)
        (finding,) = [f for f in result.findings if f.rule == "CGR003"]
        assert finding.severity.value == severity


@pytest.mark.parametrize(
    ("name", "code", "expected"),
    [
        # a decode table built on the CPU, in PyTorch's software FP8: the same format on every platform
        (
            "floatx_cpu.cpp",
            "#include <c10/util/Float8_e4m3fn.h>\nfloat decode(c10::Float8_e4m3fn v) { return float(v); }",
            [],
        ),
        # ... and in an extension that hands the tensor to a GPU kernel, the format gfx942's kernels must take
        (
            "ops.cpp",
            "#include <ATen/cuda/CUDAContext.h>\nbool ok(at::Tensor t) { return t.scalar_type() == c10::kFloat8_e4m3fn; }",
            ["NUM001"],
        ),
        # an FNUZ type already names the format gfx942 computes in
        ("fnuz.cu", "__device__ float f(c10::Float8_e4m3fnuz v) { return float(v); }", []),
        ("ocp.cu", "__device__ float f(c10::Float8_e4m3fn v) { return float(v); }", ["NUM001"]),
    ],
)
def test_fp8_types_that_carry_a_target_dependent_format(tmp_path, name, code, expected):
    assert [r for r in rules_for(tmp_path, code, name=name) if r.startswith("NUM")] == expected


def test_three_argument_bounds_read_their_blocks_and_keep_the_compat_macro(tmp_path):
    """tree-sitter-cuda wraps the middle of three bound arguments in an ERROR node with its comma:
    the blocks are read through it, and one block still takes the compat macro (which drops the
    cluster size for hip-clang), where two arguments with one block need nothing."""
    path = tmp_path / "bounds.cu"
    path.write_text(
        "__global__ void __launch_bounds__(256, 2, 4) k(float* x) { x[0] = 0; }\n"
        "__global__ void __launch_bounds__(256, 1, 4) j(float* x) { x[0] = 0; }\n"
        "__global__ void __launch_bounds__(256, 1) i(float* x) { x[0] = 0; }\n"
    )
    result = analyze_file(DiscoveredFile(path, path.name, FileKind.CUDA), Config(), Deep.NEVER, None)
    blocks = [f for f in result.findings if f.rule == "LBD001"]
    assert [f.span.line for f in blocks] == [1, 2]
    assert blocks[0].message.startswith("`__launch_bounds__(256, 2, 4)`: hip-clang reads 2 as waves per SIMD")
    assert "the same occupancy is 2 on wave64" in blocks[0].message
    assert all(
        f.message.endswith("drops the maximum cluster size `4`, a third argument hip-clang rejects") for f in blocks
    )
    assert all(edit.replacement == b"PORTER_LAUNCH_BOUNDS" for f in blocks for edit in f.edits)
