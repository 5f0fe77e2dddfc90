"""Kernels whose every warp operation stays within 32 lanes as written (porter.rules.within_rows).

exllamav3's Hadamard helpers (vendored by gptqmodel) give each 32-lane warp a 128-element chunk, 4
values to a lane, mixed by a butterfly of `__shfl_xor_sync` below 32. porter used to widen the lane,
the ladder and the warp count; on 64 lanes the port then read past each warp's chunk (the CPU device
runs that port, corpus/emulate/planted/hadamard_chunks_widened.cu, and it fails at 64 lanes). On
wave64 each 32-lane half of the wavefront runs such a kernel exactly as one NVIDIA warp does, so its
32s stay and only its mask changes. A kernel that asks for the wavefront (warpSize, 64-lane
arithmetic), shuffles across the halves (a shuffle down), or calls a project function that holds
warp operations of its own is widened as before.
"""

from __future__ import annotations

import pytest
from compilers import hip_compile, nvcc_compile
from corpus_cases import CORPUS

from porter.config import Config
from porter.convert import convert_source
from porter.convert.compat import render_header
from porter.discover import DiscoveredFile
from porter.scan import analyze_file, scan
from porter.source import FileKind, SourceFile

HADAMARD = CORPUS / "emulate" / "hadamard_chunks.cu"
WIDTH_RULES = {"WRP001", "WRP002", "WRP003", "WRP005", "WRP008"}

BLOCK_SUM = """
__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  float v = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) v += in[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? partial[lane] : 0.f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    if (lane == 0) *out = v;
  }
}
"""


def rules_by_line(tmp_path, text: str) -> list[tuple[int, str]]:
    path = tmp_path / "k.cu"
    path.write_text(text)
    result = analyze_file(DiscoveredFile(path, path.name, FileKind.CUDA), Config(), deep="never", extra_args=None)
    assert result.error is None, result.error
    return sorted((f.line, f.rule) for f in result.findings if f.rule in WIDTH_RULES | {"MSK001"})


def test_a_butterfly_kernel_keeps_its_32s_and_widens_its_mask(tmp_path):
    assert rules_by_line(tmp_path, BLOCK_SUM) == [(7, "MSK001"), (12, "MSK001")]


def test_ptx_that_keeps_to_its_lanes_asks_for_nothing(tmp_path):
    """Loads, copies and conversions in inline PTX read no other lane, and a PTX `shfl.sync` stays
    within 32 lanes by the ISA (flashinfer's generated MoE kernels broadcast a warp index so, and
    write most of their bodies in such PTX): the kernel's 32s stay as written."""
    helper = (
        "__device__ __forceinline__ int make_warp_uniform(int x) {\n"
        "  int result;\n"
        '  asm volatile("shfl.sync.idx.b32 %0, %1, 0, 0x1F, 0xFFFFFFFF;" : "=r"(result) : "r"(x));\n'
        "  return result;\n}\n"
    )
    text = helper + GROUP_SLOTS.replace(
        "__syncthreads();",
        'asm volatile("cp.async.commit_group;");\n  int w = make_warp_uniform(threadIdx.x / 32);\n  __syncthreads();',
        1,
    )
    assert text != helper + GROUP_SLOTS
    assert "WRP001" not in {rule for _, rule in rules_by_line(tmp_path, text)}


@pytest.mark.parametrize(
    "change",
    [
        # the lane counts the wavefront: the ladder from 16 then sums half of it
        ("threadIdx.x & 31, warp", "threadIdx.x % warpSize, warp"),
        # a lane counted to 64: written for the wavefront
        ("threadIdx.x & 31, warp", "threadIdx.x & 63, warp"),
        # a shuffle down reaches across the halves
        ("v += __shfl_xor_sync(0xffffffff, v, o);\n  if", "v += __shfl_down_sync(0xffffffff, v, o);\n  if"),
        # a mask made from the lane: on wave64 lanes 32-63 would name the lower half's lanes
        ("v += __shfl_xor_sync(0xffffffff, v, o);\n  if", "v += __shfl_xor_sync(0xfu << (lane & ~3), v, o);\n  if"),
        # a butterfly whose first offset is a name porter may widen
        ("for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n  if",
         "for (int o = HALF; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n  if"),
    ],
)  # fmt: skip
def test_a_kernel_that_is_not_two_32_lane_warps_is_widened(tmp_path, change):
    before, after = change
    assert before in BLOCK_SUM
    text = ("#define HALF 16\n" if "HALF" in after else "") + BLOCK_SUM.replace(before, after, 1)
    assert {rule for _, rule in rules_by_line(tmp_path, text)} & {"WRP001", "WRP002"}


HEADER_FUNCTIONS = {
    "a shuffle": "__device__ float combine(float v) {\n"
    "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n  return v;\n}\n",
    "a lane taken with 32": "__device__ float combine(float v) {\n  return (threadIdx.x & 31) ? v : 0.f;\n}\n",
    # neither name says it works across the warp: only `fold`'s body does, one call away
    "a call to a function that shuffles": "__device__ float fold(float v) {\n"
    "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n  return v;\n}\n"
    "__device__ float combine(float v) { return fold(v) * 0.5f; }\n",
}


@pytest.mark.parametrize("header", HEADER_FUNCTIONS.values(), ids=HEADER_FUNCTIONS.keys())
def test_a_call_to_a_project_function_with_32s_of_its_own_keeps_the_kernel_wide(tmp_path, header):
    """The header's `combine` shuffles down with offsets from 16, or takes the lane with `& 31`: its
    32s settle in its own file and are widened there, so the kernel that calls it is widened too."""
    (tmp_path / "combine.cuh").write_text(header)
    kernel = BLOCK_SUM.replace(
        "if (warp == 0) {", "v = combine(v);\n  if (warp == 0) {"
    )  # the kernel's own operations stay butterflies below 32
    (tmp_path / "k.cu").write_text('#include "combine.cuh"\n' + kernel)
    found = scan([tmp_path], Config(), jobs=1).findings
    assert ("k.cu", "WRP001") in {(f.file, f.rule) for f in found}


def test_a_call_to_a_header_function_that_reaches_no_warp_operation_keeps_the_32s(tmp_path):
    """`combine` calls `scale` and `clamp01`, neither of which reads another lane: the kernel's own
    butterflies stay below 32, so its 32s stay."""
    (tmp_path / "combine.cuh").write_text(
        "__device__ float scale(float v) { return v * 0.5f; }\n"
        "__device__ float clamp01(float v) { return v < 0.f ? 0.f : (v > 1.f ? 1.f : v); }\n"
        "__device__ float combine(float v) { return clamp01(scale(v)); }\n"
    )
    kernel = BLOCK_SUM.replace("if (warp == 0) {", "v = combine(v);\n  if (warp == 0) {")
    (tmp_path / "k.cu").write_text('#include "combine.cuh"\n' + kernel)
    found = scan([tmp_path], Config(), jobs=1).findings
    assert {f.rule for f in found if f.file == "k.cu"} & WIDTH_RULES == set()
    assert ("k.cu", "MSK001") in {(f.file, f.rule) for f in found}


GROUP_SLOTS = (CORPUS / "emulate" / "group_slots.cu").read_text()


def test_a_kernel_with_no_warp_operation_keeps_its_32s(tmp_path):
    """corpus/emulate/group_slots.cu counts its threads in 32s and reads no lane of a warp: each
    32-thread group does on wave64 what it does on NVIDIA. porter at 62abe92 widened its `% 32`
    (the CPU device fails that port at 64 lanes: planted/group_slots_widened.cu)."""
    assert rules_by_line(tmp_path, GROUP_SLOTS) == []


def test_a_comment_that_names_the_wavefront_asks_for_nothing(tmp_path):
    commented = GROUP_SLOTS.replace("__syncthreads();", "__syncthreads();  // not warpSize: groups of 32")
    assert commented != GROUP_SLOTS
    assert rules_by_line(tmp_path, commented) == []


@pytest.mark.parametrize(
    "change",
    [
        # it asks for the wavefront: its 32s beside `warpSize` are a 32-lane assumption
        ("(threadIdx.x & 31) >> 2;", "(threadIdx.x & 31) >> 2 | warpSize;"),
        # a broadcast from lane 0 reads across the halves of a wavefront
        ("slot[group] = x[blockIdx.x * blockDim.x + threadIdx.x];",
         "slot[group] = __shfl_sync(0xffffffff, x[blockIdx.x * blockDim.x + threadIdx.x], 0);"),
        # a function porter does not see, whose name says it works across the warp
        ("slot[group] = x[blockIdx.x * blockDim.x + threadIdx.x];",
         "slot[group] = warp_sum(x[blockIdx.x * blockDim.x + threadIdx.x]);"),
        # a WMMA fragment's operations take the whole wavefront on AMD (porter_wmma.h), and so does a
        # HIP port's wavefront builtin
        ("__syncthreads();", "__syncthreads();\n  nvcuda::wmma::load_matrix_sync(frag, tile + group * 256, 16);"),
        ("const int lane", "const int first = __builtin_amdgcn_readfirstlane(threadIdx.x);\n  const int lane"),
        # a matrix multiply-accumulate of code porter does not see (a header's `mma_m16n8k16` helper)
        ("slot[group] = x[blockIdx.x * blockDim.x + threadIdx.x];",
         "slot[group] = mma_m16n8k16(x[blockIdx.x * blockDim.x + threadIdx.x]);"),
        # PTX that reads across the warp (a vote, the active lanes), written `__asm__`
        ("__syncthreads();", "unsigned active;\n  __asm__ volatile(\"activemask.b32 %0;\" : \"=r\"(active));\n  __syncthreads();"),
        ("__syncthreads();", "unsigned votes;\n  asm(\"vote.sync.ballot.b32 %0, 1, 0xffffffff;\" : \"=r\"(votes));\n  __syncthreads();"),
        # assembly that is not PTX (AMD's DPP): taken to work across the wavefront
        ("__syncthreads();", "int moved;\n  asm volatile(\"v_mov_b32_dpp %0, %1 row_shr:1\" : \"=v\"(moved) : \"v\"(1));\n  __syncthreads();"),
        # the host counts the grid in warps of 32 (WRP008 widens it): the kernel must widen with it
        ("", "void run(const float* x, float* f, int* q, int n) { group_slots<<<n / 32 / 8, 256>>>(x, f, q); }\n"),
        # its block is sized from a warp width porter widens (the shuffles' WARP_SIZE): the port
        # launches twice the threads, which the kernel must take in groups as wide
        ("", "#define WARP_SIZE 32\n"
             "__device__ float warp_sum(float v) {\n"
             "  for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n  return v;\n}\n"
             "void run(const float* x, float* f, int* q, int n) { group_slots<<<n, WARP_SIZE * 8>>>(x, f, q); }\n"),
        # ... or its dynamic shared memory: the port gives it half the slots
        ("", "#define WARP_SIZE 32\n"
             "__device__ float warp_sum(float v) {\n"
             "  for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n  return v;\n}\n"
             "void run(const float* x, float* f, int* q, int n) {\n"
             "  group_slots<<<n, 256, (256 / WARP_SIZE) * sizeof(float)>>>(x, f, q);\n}\n"),
    ],
)  # fmt: skip
def test_a_kernel_with_32s_and_a_warp_wide_question_is_widened(tmp_path, change):
    before, after = change
    assert before in GROUP_SLOTS
    text = GROUP_SLOTS.replace(before, after, 1) if before else GROUP_SLOTS + after
    assert "WRP001" in {rule for _, rule in rules_by_line(tmp_path, text)}


def test_the_hadamard_port_keeps_the_chunk_layout_and_builds_for_both_vendors(tmp_path):
    path = tmp_path / HADAMARD.name
    path.write_bytes(HADAMARD.read_bytes())
    file = DiscoveredFile(path=path, rel=path.name, kind=FileKind.CUDA)
    found = analyze_file(file, Config(), deep="never", extra_args=None, cap=None).findings
    assert sorted(f.rule for f in found) == ["MSK001", "SYN001"]
    port = tmp_path / "port" / path.name
    port.parent.mkdir()
    port.write_bytes(convert_source(SourceFile.read(path, path.name, FileKind.CUDA), found, "portable", Config()))
    (port.parent / "porter_compat.h").write_text(render_header({}, Config().targets), encoding="utf-8")
    converted = port.read_text()
    for kept in ("threadIdx.x & 31", "i < 32", "threadIdx.x / 32", "w * 128"):
        assert kept in converted, kept
    assert "__shfl_xor_sync(PORTER_ROW_MASK, v[j], i)" in converted
    # the port scanned again is still two 32-lane warps to a wavefront: nothing more to change
    rescanned = analyze_file(DiscoveredFile(port, port.name, FileKind.CUDA), Config(), deep="never", extra_args=None)
    assert not [f for f in rescanned.findings if f.rule in WIDTH_RULES | {"MSK001"}]
    hip = hip_compile(port, tmp_path, targets=("gfx942",))
    assert hip.returncode == 0, hip.stderr[-3000:]
    nvcc = nvcc_compile(port, tmp_path)
    assert nvcc.returncode == 0, nvcc.stderr[-3000:]


# a host count of 32-thread groups beside two kernels: one kept at 32 (no warp operation), one that
# reduces across the wavefront and is widened
GROUP_COUNTS = """
__global__ void group_sums(const float* in, float* partial, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int slot = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (i < n && threadIdx.x % 32 == 0) {
    float s = 0.f;
    for (int k = 0; k < 32 && i + k < n; ++k) s += in[i + k];
    partial[slot] = s;
  }
}
__global__ void lane_sums(float* v, int warps) {
  float x = v[threadIdx.x];
  for (int o = 16; o > 0; o /= 2) x += __shfl_down_sync(0xffffffff, x, o);
  if (threadIdx.x % 32 == 0 && threadIdx.x / 32 < warps) v[threadIdx.x / 32] = x;
}
void launch(const float* in, float* v, int n) {
  int threads = 256;
  int blocks = (n + threads - 1) / threads;
  int warps = threads / 32;
  float* partial;
  cudaMalloc(&partial, blocks * warps * sizeof(float));
  group_sums<<<blocks, threads>>>(in, partial, n);
  lane_sums<<<1, threads>>>(v, LANE_WARPS);
}
"""


@pytest.mark.parametrize(
    ("lane_warps", "fix"),
    [
        # the count sizes group_sums' slots alone: group_sums keeps its 32-thread groups, and
        # widened, the count would allocate half the slots it writes
        ("8", "suggested"),
        # the widened kernel takes the count: both sides widen together
        ("warps", "auto"),
    ],
)
def test_a_host_count_of_warps_widens_automatically_only_with_a_kernel_it_reaches(tmp_path, lane_warps, fix):
    path = tmp_path / "k.cu"
    path.write_text(GROUP_COUNTS.replace("LANE_WARPS", lane_warps))
    result = analyze_file(DiscoveredFile(path, path.name, FileKind.CUDA), Config(), deep="never", extra_args=None)
    counts = [(f.line, str(f.fix)) for f in result.findings if f.rule == "WRP008"]
    assert counts == [(19, fix)]
    assert not [f for f in result.findings if f.rule == "WRP001" and f.line <= 10]  # group_sums kept
    assert [f.line for f in result.findings if f.rule == "WRP001" and f.fix.value == "auto"] == [14, 14, 14]


# exllamav3's reconstruct kernel (vendored by gptqmodel): a warp's 32 lanes hold a tensor-core
# fragment, shuffled down within 32 lanes under the active-lane mask, with a __syncwarp barrier
FRAGMENT_SHIFTS = """
__global__ void fragment_shifts(const float* in, float* out) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float v = in[(blockIdx.x * 8 + warp) * 32 + lane];
  // __activemask() names the lanes that run, on either vendor
  float below = __shfl_down_sync(__activemask(), v, 4, 32);
  __syncwarp();
  out[(blockIdx.x * 8 + warp) * 32 + lane] = v + below;
}
"""


def _warp_rules(tmp_path, text: str) -> list[tuple[int, str]]:
    path = tmp_path / "k.cu"
    path.write_text(text)
    result = analyze_file(DiscoveredFile(path, path.name, FileKind.CUDA), Config(), deep="never", extra_args=None)
    return sorted((f.line, f.rule) for f in result.findings if f.rule.startswith(("WRP", "MSK")))


def test_a_fragment_kernel_shuffling_under_the_active_mask_keeps_its_32s(tmp_path):
    """As a `_sync` call's mask, `__activemask()` names whichever lanes run, on either wavefront;
    `__syncwarp()` reads no lane. porter at 9dae229 widened the lane and warp (a 64-lane warp then
    reads past its fragment) and the shuffle's width."""
    assert _warp_rules(tmp_path, FRAGMENT_SHIFTS) == []


def test_a_kernel_that_counts_its_active_lanes_is_widened(tmp_path):
    counted = FRAGMENT_SHIFTS.replace("v + below;", "v + below + __popc(__activemask());")
    assert (3, "WRP001") in _warp_rules(tmp_path, counted)
