"""The one target table, checked against its authorities: the AMD facts against the compiler that
builds each target (wavefront width, LDS limit, the occupancy ceiling), the ROCm releases and the
typed values every command carries."""

from __future__ import annotations

import re

import pytest
from compilers import hip_compile, require_hip

from porter.errors import PorterError
from porter.targets import RocmVersion, Variant, Vendor, all_targets, parse_targets, target

# Builtins, not threadIdx or __syncthreads: no device library is needed (the sysroot's lack gfx12).
KERNEL = """
#include <hip/hip_runtime.h>
static_assert(__AMDGCN_WAVEFRONT_SIZE == WAVE, "wavefront");
__global__ void fill(float* x) {{
  __shared__ float tile[{floats}];
  unsigned id = __builtin_amdgcn_workitem_id_x();
  tile[id] = 1.0f;
  __builtin_amdgcn_s_barrier();
  x[id] = tile[({floats} - 1) - id];
}}
"""


def compiled_amd_targets() -> list[str]:
    hip = require_hip()
    return [t.id for t in all_targets().values() if t.is_amd and hip.supports(t)]


@pytest.mark.parametrize("name", [t.id for t in all_targets().values() if t.is_amd])
def test_amd_facts_match_the_compiler(tmp_path, name):
    if name not in compiled_amd_targets():
        pytest.skip(f"this HIP compiler does not know {name}")
    chosen = target(name)
    fits = tmp_path / "fits.hip"
    fits.write_text(KERNEL.format(floats=chosen.lds_bytes // 4))
    done = hip_compile(
        fits,
        tmp_path,
        (name,),
        ("--cuda-device-only", "-nogpulib", f"-DWAVE={chosen.wavefront}", "-Rpass-analysis=kernel-resource-usage"),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    occupancy = int(re.search(r"Occupancy \[waves/SIMD\]: (\d+)", done.stderr).group(1))
    assert occupancy <= chosen.max_waves
    empty = tmp_path / "empty.hip"
    empty.write_text(
        "#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[__builtin_amdgcn_workitem_id_x()] = 1; }\n"
    )
    done = hip_compile(
        empty, tmp_path, (name,), ("--cuda-device-only", "-nogpulib", "-Rpass-analysis=kernel-resource-usage")
    )
    assert int(re.search(r"Occupancy \[waves/SIMD\]: (\d+)", done.stderr).group(1)) == chosen.max_waves
    too_big = tmp_path / "too_big.hip"
    too_big.write_text(KERNEL.format(floats=chosen.lds_bytes // 4 + 1024))
    done = hip_compile(too_big, tmp_path, (name,), ("--cuda-device-only", "-nogpulib", f"-DWAVE={chosen.wavefront}"))
    assert done.returncode != 0 and f"exceeds limit ({chosen.lds_bytes})" in done.stderr


def test_targets_parse_once_with_one_message():
    assert [t.id for t in parse_targets(["sm_90,gfx942", "gfx942"])] == ["sm_90", "gfx942"]
    assert target("gfx950").lds_bytes == 160 * 1024 and target("gfx1100").wavefront == 32
    assert target("sm_90").vendor is Vendor.NVIDIA and Variant.built_for(target("sm_90")) is Variant.CUDA
    with pytest.raises(PorterError, match="unknown target 'gfx9'"):
        target("gfx9")
    with pytest.raises(PorterError, match="is not an AMD target"):
        parse_targets(["sm_90"], vendor=Vendor.AMD)


def test_rocm_versions_compare_and_unknown_ones_are_refused():
    assert RocmVersion.parse("6.4") < RocmVersion.parse("7.0") < RocmVersion.parse("7.2")
    assert RocmVersion.parse("6.4.3") > RocmVersion.parse("6.4") and str(RocmVersion.parse("6.4.3")) == "6.4.3"
    assert RocmVersion.parse("7.2").release >= (7, 0)
    for bad in ("99", "6", "six", "6.4.3.1", "8.0"):
        with pytest.raises(PorterError, match="unknown ROCm version"):
            RocmVersion.parse(bad)
