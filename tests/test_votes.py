"""Votes through wrappers (porter.rules.votes): a lane mask handed on by a project's shim, torch's
WARP_BALLOT or a function with a branch per platform is a lane mask all the same (MSK001-003)."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest
from compilers import hip_compile, nvcc_compile
from corpus_cases import CORPUS
from typer.testing import CliRunner

from porter.cli import app
from porter.config import Config
from porter.rules.votes import LIBRARY_MASKS, vote_wrappers
from porter.scan import scan

runner = CliRunner()


def test_wrappers_are_the_functions_and_macros_whose_value_is_a_vote():
    text = b"""#define BALLOT(m, p) __ballot(p)
#define WIDE(p) (static_cast<unsigned long long>( \\
    __ballot(p)))
#define COUNT(p) __popc(__ballot_sync(0xffffffffu, p))
__device__ unsigned vote(bool p) {
#ifdef __HIP_PLATFORM_AMD__
  return __ballot(p);
#else
  return __ballot_sync(0xffffffffu, p);
#endif
}
__device__ int leaders(bool p) { return __popc(__ballot_sync(__activemask(), p)); }
__device__ unsigned maybe(bool p, bool q) { if (q) { return __ballot(p); } return 0; }
__device__ bool all_in(bool p) { return __ballot(p) == __activemask(); }
"""
    # counts, comparisons and a vote inside a branch of a larger function are not masks handed on
    assert vote_wrappers(text) == {"BALLOT", "WIDE", "vote"}
    assert vote_wrappers(b"int f(int x) { return x; }") == set()


def test_torch_declares_its_lane_masks_64_bits_wide_under_rocm():
    """The library table, checked against its authority: torch's ATen/cuda headers declare each
    name `unsigned long long int` in their USE_ROCM arm."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("torch is not installed (the torch extra)")
    include = Path(spec.submodule_search_locations[0]) / "include" / "ATen" / "cuda"
    text = (include / "DeviceUtils.cuh").read_bytes() + (include / "AsmUtils.cuh").read_bytes()
    assert "WARP_BALLOT" in vote_wrappers(text)
    rocm_arms = re.findall(rb"#if defined ?\(USE_ROCM\)(.*?)#else", text, re.S)
    declared = {name.decode() for arm in rocm_arms for name in re.findall(rb"unsigned long long int (\w+)\s*\(", arm)}
    assert set(LIBRARY_MASKS) <= declared, set(LIBRARY_MASKS) - declared


SHIM = """#include <cuda_runtime.h>
#include <ATen/cuda/DeviceUtils.cuh>

__device__ __forceinline__ unsigned vote(int p) {
#if defined(USE_ROCM)
  return __ballot(p);
#else
  return __ballot_sync(0xffffffffu, p);
#endif
}

__global__ void compact(const float* in, int* out, int* count) {
  const int lane = threadIdx.x & 31;
  bool keep = in[blockIdx.x * blockDim.x + threadIdx.x] > 0.f;
  unsigned int votes = WARP_BALLOT(keep);
  int before = __popc(votes & ((1u << lane) - 1));
  unsigned other = vote(keep);
  if (lane == 0) atomicAdd(count, __popc(other));
  if (keep) out[before] = lane;
}
"""


def _masks(result) -> list[tuple[str, int, str]]:
    return sorted((f.file, f.line, f.rule) for f in result.findings if f.rule.startswith("MSK"))


def test_a_wrappers_result_is_a_lane_mask_in_the_file_that_defines_or_includes_it(tmp_path):
    """torch's WARP_BALLOT and the file's own `vote` (32 bits wide on ROCm too): the wrapper's
    return type, the variables its masks land in and the counts read from them."""
    (tmp_path / "shim.cu").write_text(SHIM)
    found = _masks(scan([tmp_path], Config(), jobs=1))
    assert found == [
        ("shim.cu", 4, "MSK002"),  # `unsigned vote(...)`
        ("shim.cu", 15, "MSK002"),
        ("shim.cu", 16, "MSK003"),
        ("shim.cu", 16, "MSK004"),
        ("shim.cu", 17, "MSK002"),
        ("shim.cu", 18, "MSK003"),
    ]


def test_a_wrapper_in_a_project_header_is_known_to_every_file(tmp_path):
    (tmp_path / "wrap.h").write_text(
        "#pragma once\n__device__ __forceinline__ unsigned long long lane_vote(bool p) {\n"
        "#ifdef __HIP_PLATFORM_AMD__\n  return __ballot(p);\n#else\n  return __ballot_sync(0xffffffffu, p);\n#endif\n}\n"
    )
    (tmp_path / "use.cu").write_text(
        '#include "wrap.h"\n__global__ void k(const int* f, int* t) {\n  unsigned m = lane_vote(f[threadIdx.x] != 0);\n'
        "  if (threadIdx.x == 0) atomicAdd(t, __popc(m));\n  unsigned bit = m & 1u;\n}\n"
    )
    # `m & 1u` keeps one lane's bit: 32 bits hold it
    assert _masks(scan([tmp_path], Config(), jobs=1)) == [("use.cu", 3, "MSK002"), ("use.cu", 4, "MSK003")]


def test_the_converted_wrappers_build_for_amd(tmp_path):
    """corpus/emulate/vote_wrappers.cu converted (its emulated runs at 64 and 32 lanes are
    test_emulator.py's): hip-clang builds the port for gfx942 and gfx1100."""
    tree = tmp_path / "tree"
    tree.mkdir()
    shutil.copy(CORPUS / "emulate" / "vote_wrappers.cu", tree)
    converted = runner.invoke(app, ["convert", str(tree), "-o", str(tmp_path / "port")])
    assert converted.exit_code == 0, converted.output
    port = (tmp_path / "port" / "vote_wrappers.cu").read_text()
    assert "porter_lane_mask_t warp_vote(" in port and "__ballot_sync(PORTER_FULL_MASK, (predicate))" in port
    built = hip_compile(tmp_path / "port" / "vote_wrappers.cu", tmp_path, ("gfx942", "gfx1100"))
    assert built.returncode == 0, built.stderr[-2000:]


SHIMMED_SHUFFLE = """#if defined(USE_ROCM)
#define __shfl_xor_sync(mask, var, laneMask) __shfl_xor(var, laneMask)
#endif
__global__ void sums(const float* x, float* y) {
  float s = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffff, s, offset);
  if (threadIdx.x % warpSize == 0) atomicAdd(y, s);
}
"""


def test_a_files_own_macro_that_drops_the_mask_for_rocm_is_the_projects_port(tmp_path):
    """exllamav2's rms_norm.cu maps `__shfl_xor_sync` onto HIP's maskless `__shfl_xor` under
    USE_ROCM, without naming HIP anywhere: the 32-bit mask and the ROCm version requirement never
    reach hip-clang, so neither is reported, and the file builds for gfx942 as written (HIP's runtime
    header included as torch's would include it)."""
    path = tmp_path / "k.cu"
    path.write_text(SHIMMED_SHUFFLE)
    rules = {f.rule for f in scan([path], Config()).findings}
    assert not rules & {"MSK001", "SYN001"}, rules
    built = hip_compile(path, tmp_path, targets=("gfx942",), extra=("-DUSE_ROCM", "-include", "hip/hip_runtime.h"))
    assert built.returncode == 0, built.stderr


LANE_MASK_HELPER = """__device__ __forceinline__ unsigned lanes_below() {
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}
"""


def test_a_ptx_lane_mask_register_is_a_lane_mask_where_it_lands(tmp_path):
    """`%lanemask_lt` read inline holds the wavefront's 64 lanes once ported: the count taken
    from it and the 32-bit copy of it lose lanes 32-63 (as flashinfer's msa_decode kernels keep
    one in `uint32_t`), and a header's helper that returns one is a wrapper to every file."""
    (tmp_path / "lanes.cuh").write_text("#pragma once\n" + LANE_MASK_HELPER)
    (tmp_path / "k.cu").write_text(
        '#include "lanes.cuh"\n__global__ void k(int* out) {\n  unsigned lt;\n'
        '  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));\n  out[threadIdx.x] = __popc(lt);\n'
        "  unsigned copy = lt;\n  unsigned helper = lanes_below();\n  out[threadIdx.x + 64] = copy + helper;\n}\n"
    )
    found = scan([tmp_path], Config(), jobs=1).findings
    assert sorted((f.file, f.line, f.rule) for f in found if f.rule.startswith(("MSK", "ASM"))) == [
        ("k.cu", 4, "ASM001"),
        ("k.cu", 5, "MSK003"),
        ("k.cu", 6, "MSK002"),
        ("k.cu", 7, "MSK002"),
        ("lanes.cuh", 2, "MSK002"),  # the helper's `unsigned` return type
        ("lanes.cuh", 4, "ASM001"),
    ]
    assert all(f.fix.value == "auto" for f in found if f.rule.startswith(("MSK", "ASM")))


@pytest.mark.parametrize(
    ("declaration", "fix", "widened"),
    [
        ("unsigned mask;", "auto", [b"porter_lane_mask_t"]),  # widened with the rewrite
        ("int mask;", "auto", [b"porter_signed_lane_mask_t"]),  # an int on NVIDIA still
        ("unsigned long long mask;", "auto", []),  # 64 bits already
        ("unsigned mask, other;", "suggested", None),  # widening the line would widen `other` too
    ],
)
def test_a_lane_mask_register_is_rewritten_only_with_its_variable_widened(tmp_path, declaration, fix, widened):
    (tmp_path / "k.cu").write_text(LANE_MASK_HELPER.replace("unsigned mask;", declaration))
    (finding,) = [f for f in scan([tmp_path], Config(), jobs=1).findings if f.rule == "ASM001"]
    assert finding.fix.value == fix
    if fix == "auto":
        assert [edit.replacement for edit in finding.edits] == [b"mask = porter_lanemask_lt()", *widened]


def test_a_vote_kept_in_a_signed_int_stays_signed_on_nvidia(tmp_path):
    """`int votes = __ballot_sync(…)`: widened to porter_signed_lane_mask_t, an int on NVIDIA still,
    so `votes >> 1` shifts in the sign and `votes < 0` reads lane 31 there as the code wrote it;
    porter_lane_mask_t would make both unsigned. The port builds for both vendors."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "k.cu").write_text(
        "__global__ void k(const int* f, int* out) {\n"
        "  int votes = __ballot_sync(0xffffffff, f[threadIdx.x] > 0);\n"
        "  unsigned kept = __ballot_sync(0xffffffff, f[threadIdx.x] > 1);\n"
        "  out[threadIdx.x] = (votes >> 1) + (votes < 0) + __popc(kept);\n}\n"
    )
    converted = runner.invoke(app, ["convert", str(tree), "-o", str(tmp_path / "port")])
    assert converted.exit_code == 0, converted.output
    port = tmp_path / "port" / "k.cu"
    text = port.read_text()
    assert "porter_signed_lane_mask_t votes" in text and "porter_lane_mask_t kept" in text
    for compile in (lambda: hip_compile(port, tmp_path, ("gfx942", "gfx1100")), lambda: nvcc_compile(port, tmp_path)):
        built = compile()
        assert built.returncode == 0, built.stderr[-2000:]
