"""A warp width chosen by a list of AMD targets (WRP022, porter.rules.target_widths): the target a
list of 64-lane GPUs leaves out reads the other arm's 32. The shape of HIPRT's BVH builder before
it added gfx950 to its list (GPUOpen-LibrariesAndSDKs/HIPRT#68); the kernel is porter's own."""

from __future__ import annotations

import pytest
from compilers import hip_compile

from porter.config import Config
from porter.scan import scan
from porter.targets import target, toolchains

LISTED = """#include <hip/hip_runtime.h>
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
constexpr int WarpSize = 64;
#else
constexpr int WarpSize = 32;
#endif
#if defined(__GFX9__)
static_assert(WarpSize == 64, "a gfx9 device pass reads 32");
#endif
__global__ void sums(const float* x, float* y) {
  const int lane = threadIdx.x % WarpSize;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int off = WarpSize / 2; off > 0; off /= 2) v += __shfl_xor(v, off);
  if (lane == 0) atomicAdd(y, v);
}
"""


def _findings(tmp_path, text: str, *targets: str):
    path = tmp_path / "widths.hip"
    path.write_text(text)
    config = Config()
    config.targets = targets
    return [(f.line, f.message) for f in scan([path], config).findings if f.rule == "WRP022"]


def test_a_list_of_64_lane_targets_that_leaves_out_a_targeted_cdna_gpu_is_reported(tmp_path):
    assert _findings(tmp_path, LISTED, "gfx942") == []
    ((line, message),) = _findings(tmp_path, LISTED, "gfx90a", "gfx942", "gfx950", "gfx1100")
    assert line == 5
    assert message.startswith("`WarpSize` is 32 in the device pass of gfx950, whose wavefront has 64 lanes")


def test_a_list_of_32_lane_targets_that_takes_in_a_newer_rdna_gpu_is_reported(tmp_path):
    text = LISTED.replace("defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)",
                          "defined(__gfx1100__) || defined(__gfx1101__)")  # fmt: skip
    text = text.replace("= 64;\n#else\nconstexpr int WarpSize = 32;", "= 32;\n#else\nconstexpr int WarpSize = 64;")
    ((line, message),) = _findings(tmp_path, text, "gfx942", "gfx1100", "gfx1200")
    assert line == 5 and "64 in the device pass of gfx1200, whose wavefront has 32 lanes" in message


@pytest.mark.parametrize("macro", ["defined(__GFX9__)", "__AMDGCN_WAVEFRONT_SIZE == 64"])
def test_a_width_the_compiler_gives_every_target_is_not_reported(tmp_path, macro):
    text = LISTED.replace(LISTED.splitlines()[1], f"#if {macro}")
    assert _findings(tmp_path, text, "gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1200") == []


def test_the_compiler_reads_the_list_as_porter_does(tmp_path):
    """hip-clang's gfx950 pass takes the `#else` arm (the static_assert stops it); gfx942's the list's."""
    hip = toolchains.find_hip_toolchain()
    if hip is None or not hip.supports(target("gfx950")):
        pytest.skip("gfx950 needs the HIP 6.4 root (clang 21): `porter setup rocm`")
    source = tmp_path / "widths.hip"
    source.write_text(LISTED)
    assert hip_compile(source, tmp_path, targets=("gfx942",), extra=("--cuda-device-only",)).returncode == 0
    built = hip_compile(source, tmp_path, targets=("gfx950",), extra=("--cuda-device-only",))
    assert built.returncode != 0 and "a gfx9 device pass reads 32" in built.stderr
