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


# The shape of bitsandbytes' common header after its PR 2012 and before PR 2059: the width is
# chosen by a project macro (`IS_CDNA`) that a list of targets defines, not by the target macros
# themselves; the list left out gfx90a's elders (gfx900-gfx906, gfx940/gfx941), which then read 32.
# The macro and the kernel are porter's own.
CHOSEN_BY_A_PROJECT_MACRO = """#include <hip/hip_runtime.h>
#if defined(__gfx942__) || defined(__gfx950__)
#define IS_NEW_CDNA 1
#endif
#if defined(IS_NEW_CDNA)
#define LANES 64
#else
#define LANES 32
#endif
#if defined(__GFX9__)
static_assert(LANES == 64, "a gfx9 device pass reads 32");
#endif
__global__ void sums(const float* x, float* y) {
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int off = LANES / 2; off > 0; off /= 2) v += __shfl_xor(v, off);
  if (threadIdx.x % LANES == 0) atomicAdd(y, v);
}
"""


def test_a_width_chosen_by_a_macro_that_a_list_of_targets_defines_is_reported(tmp_path):
    assert _findings(tmp_path, CHOSEN_BY_A_PROJECT_MACRO, "gfx942") == []
    ((line, message),) = _findings(tmp_path, CHOSEN_BY_A_PROJECT_MACRO, "gfx90a", "gfx942", "gfx1100")
    assert line == 8 and message.startswith("`LANES` is 32 in the device pass of gfx90a, whose wavefront has 64 lanes")


def test_a_width_chosen_by_a_condition_macro_over_a_list_of_targets_is_reported(tmp_path):
    text = CHOSEN_BY_A_PROJECT_MACRO.replace(
        "#if defined(__gfx942__) || defined(__gfx950__)\n#define IS_NEW_CDNA 1\n#endif",
        "#define IS_NEW_CDNA (defined(__gfx942__) || defined(__gfx950__))",
    ).replace("#if defined(IS_NEW_CDNA)", "#if IS_NEW_CDNA")
    ((line, message),) = _findings(tmp_path, text, "gfx90a", "gfx942")
    assert line == 6 and "`LANES` is 32 in the device pass of gfx90a" in message


def test_a_target_macro_defined_in_another_header_chooses_the_width_there(tmp_path):
    """The list in one header, the width in another that names only the project's macro: the
    project's headers tell each other which targets define it (ProjectConditions.guards)."""
    (tmp_path / "arch.h").write_text(
        "#pragma once\n#if defined(__HIP_PLATFORM_AMD__)\n#if defined(__gfx942__) || defined(__gfx950__)\n"
        "#define IS_NEW_CDNA 1\n#endif\n#endif\n"
    )
    (tmp_path / "width.h").write_text(
        '#pragma once\n#include "arch.h"\n#ifdef IS_NEW_CDNA\nconstexpr int kWarp = 64;\n#else\nconstexpr int kWarp = 32;\n#endif\n'
    )
    (tmp_path / "use.hip").write_text('#include "width.h"\n__global__ void k(int* o) { o[threadIdx.x] = kWarp; }\n')

    def reported(*targets):
        config = Config()
        config.targets = targets
        return [(f.file, f.line, f.message) for f in scan([tmp_path], config).findings if f.rule == "WRP022"]

    assert reported("gfx942", "gfx950") == []
    ((file, line, message),) = reported("gfx90a", "gfx942")
    assert (file, line) == ("width.h", 6) and "`kWarp` is 32 in the device pass of gfx90a" in message


def test_the_compiler_reads_the_macro_chosen_width_as_porter_does(tmp_path):
    """hip-clang's gfx90a pass takes the `#else` arm's 32 (the static_assert stops it); gfx942's the 64."""
    source = tmp_path / "chosen.hip"
    source.write_text(CHOSEN_BY_A_PROJECT_MACRO)
    assert hip_compile(source, tmp_path, targets=("gfx942",), device_only=True).returncode == 0
    built = hip_compile(source, tmp_path, targets=("gfx90a",), device_only=True)
    assert built.returncode != 0 and "a gfx9 device pass reads 32" in built.stderr
