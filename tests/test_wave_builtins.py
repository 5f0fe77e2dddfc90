"""A lane id from `__builtin_amdgcn_mbcnt_lo` alone (WRP023, porter.rules.wave_builtins): right on
RDNA's 32 lanes, 32 for every lane past 31 on a 64-lane wavefront. The fix wraps it in mbcnt_hi,
which adds the high half's count there and nothing on wave32."""

from __future__ import annotations

import pytest
from compilers import hip_compile

from porter.config import Config
from porter.convert import convert_source
from porter.convert.compat import render_header
from porter.discover import DiscoveredFile
from porter.scan import analyze_file
from porter.source import FileKind, SourceFile

LANES = """#include <hip/hip_runtime.h>
__device__ unsigned lane_id() { return __builtin_amdgcn_mbcnt_lo(~0u, 0u); }
__device__ bool in_high_half() { return __builtin_amdgcn_mbcnt_lo(0xffffffff, 0) == 32; }
__device__ unsigned lanes_before(unsigned mask) { return __builtin_amdgcn_mbcnt_lo(mask, 0u); }
__global__ void scatter(const float* x, float* y) {
  y[blockIdx.x * 64 + lane_id()] = x[blockIdx.x * blockDim.x + threadIdx.x] + in_high_half() + lanes_before(5u);
}
#if defined(__gfx1100__)
__device__ unsigned rdna_lane() { return __builtin_amdgcn_mbcnt_lo(~0u, 0u); }
#endif
"""


def _analysed(tmp_path, text: str, *targets: str):
    path = tmp_path / "lanes.hip"
    path.write_text(text)
    config = Config()
    config.targets = targets or config.targets
    file = DiscoveredFile(path=path, rel=path.name, kind=FileKind.HIP)
    found = analyze_file(file, config, deep="never", extra_args=None).findings
    return path, config, [f for f in found if f.rule == "WRP023"]


def test_a_lane_id_from_the_low_half_alone_is_wrapped_in_mbcnt_hi(tmp_path):
    """Only the lane id: not a test of which half the lane is in, not a count under another mask,
    not RDNA's own arm."""
    _, _, found = _analysed(tmp_path, LANES)
    assert [(f.line, str(f.fix)) for f in found] == [(2, "auto")]
    assert found[0].edits[0].replacement == b"__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u))"


@pytest.mark.parametrize(
    "text, targets",
    [
        (LANES, ("gfx1100",)),  # a wave32 scan: the low half is the whole wavefront
        (LANES + "__device__ unsigned wide() { return __builtin_amdgcn_mbcnt_hi(~0u, 0u); }\n", ()),
        (LANES + "__device__ void m(float* o) { o[0] = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32; }\n", ()),
    ],
    ids=["wave32 targets", "a file that knows the high half", "RDNA's matrix builtins"],
)
def test_code_written_for_wave32_knowingly_is_left_alone(tmp_path, text, targets):
    assert _analysed(tmp_path, text, *targets)[2] == []


def test_the_fixed_lane_id_builds_for_cdna_and_rdna(tmp_path):
    path, config, found = _analysed(tmp_path, LANES)
    fixed = tmp_path / "fixed.hip"
    fixed.write_bytes(convert_source(SourceFile.read(path, path.name, FileKind.HIP), found, "hip", config))
    (tmp_path / "porter_compat.h").write_text(render_header({}, config.targets), encoding="utf-8")
    assert b"__builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u))" in fixed.read_bytes()
    for target in ("gfx942", "gfx1100"):
        built = hip_compile(fixed, tmp_path, targets=(target,), extra=("--cuda-device-only",))
        assert built.returncode == 0, (target, built.stderr)


EXEC = """#include <hip/hip_runtime.h>
#include <cstdint>
__global__ void active_counts(int* y) {
  uint32_t active = __builtin_amdgcn_read_exec();
  uint32_t low = __builtin_amdgcn_read_exec_lo();
  if (threadIdx.x == 0) y[blockIdx.x] = __popc(active) + __popc(low);
}
"""


def test_the_exec_mask_read_into_32_bits_is_a_truncated_vote(tmp_path):
    """`__builtin_amdgcn_read_exec()` is the wavefront's active mask, 64 bits on wave64: held in 32
    it loses lanes 32-63 (MSK002, MSK003). `read_exec_lo()` is 32 bits by its name, and no vote."""
    path = tmp_path / "exec.hip"
    path.write_text(EXEC)
    file = DiscoveredFile(path=path, rel=path.name, kind=FileKind.HIP)
    found = analyze_file(file, Config(), deep="never", extra_args=None).findings
    assert sorted((f.line, f.rule) for f in found if f.category == "lane-mask") == [(4, "MSK002"), (6, "MSK003")]
