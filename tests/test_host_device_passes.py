"""hip-clang's host and device passes (porter.rules.branches): what each pass compiles, the
project headers' platform and condition macros, and WRP013 on a width the passes disagree on.
The premise of each is checked with the real HIP compiler, pass by pass."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from compilers import hip_compile, require_hip

from porter.config import Config
from porter.parse import parse
from porter.rules.branches import Branches, PassSplit, Side
from porter.rules.consteval import header_constants
from porter.scan import scan
from porter.source import FileKind, SourceFile

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "wave64_real"
WIDTH_HEADER = CORPUS / "host_pass_width.h"


def _branches(data: bytes, project=None) -> Branches:
    source = SourceFile(path=Path("t.cu"), rel="t.cu", kind=FileKind.CUDA, data=data)
    return Branches(source, parse(source).root, project)


def test_the_real_compiler_gives_the_corpus_width_two_values(tmp_path):
    probe = tmp_path / "probe.hip"
    probe.write_text(
        f'#include "{WIDTH_HEADER}"\n'
        "#if defined(__HIP_DEVICE_COMPILE__)\n"
        'static_assert(HPW_WARP == 64, "device pass");\n'
        "#else\n"
        'static_assert(HPW_WARP == 32, "host pass");\n'
        "#endif\n"
        'static_assert(HPW_LANES_BOTH_PASSES == 64, "both passes");\n'
    )
    result = hip_compile(probe, tmp_path, targets=("gfx942",))
    assert result.returncode == 0, result.stderr


def test_the_host_launches_an_instantiation_the_device_pass_never_compiled(tmp_path):
    """`scale_rows<HPW_WARP>` launched from host code: each pass instantiates it at its own width."""
    hip = require_hip()
    probe = tmp_path / "probe.hip"
    probe.write_text(f'#include <hip/hip_runtime.h>\n#include "{CORPUS / "host_pass_width.cu"}"\n')
    widths = {}
    for side in ("device", "host"):
        out = tmp_path / f"{side}.s"
        command = [*hip.hip_flags(), "-std=c++17", "--offload-arch=gfx942", f"--cuda-{side}-only", "-S"]
        command += ["-emit-llvm"] * (side == "host") + ["-o", str(out), str(probe)]
        compiled = subprocess.run(hip.command(command), capture_output=True, text=True, timeout=600)
        assert compiled.returncode == 0, compiled.stderr
        widths[side] = set(re.findall(r"_Z10scale_rowsILi(\d+)EE", out.read_text())) - {"1", "2", "3"}
    assert widths == {"device": {"64"}, "host": {"32"}}


def test_the_split_is_found_through_condition_macros():
    constants = header_constants([WIDTH_HEADER.read_bytes()])
    assert constants.width_splits == {"HPW_WARP": PassSplit(device=64, host=32, target="gfx942")}
    assert constants.conditions.macros["HPW_ROCM"] == {"cuda": 0, "rocm-cdna": 1, "rocm-rdna": 1, "rocm-host": 1}


def test_a_constexpr_under_target_macros_splits_too():
    data = b"""#if defined(__gfx90a__) || defined(__gfx942__)
constexpr int kLanes = 64;
#else
constexpr int kLanes = 32;
#endif
#if defined(__HIP_PLATFORM_AMD__)
constexpr int kBoth = 64;
#else
constexpr int kBoth = 32;
#endif
"""
    assert _branches(data).pass_splits({}) == {"kLanes": PassSplit(64, 32, "gfx942")}


def test_a_condition_macro_is_expanded_where_an_if_names_it():
    data = b"""#define ON_CDNA3 (defined(__gfx942__) || \\
                 defined(__gfx950__))
#if ON_CDNA3
int cdna_only;
#endif
"""
    assert _branches(data).side_at(data.index(b"cdna_only")) is Side.ROCM


HEADER = """#pragma once
#if defined(__HIPCC__)
#include <hip/hip_runtime.h>
#endif
#if !defined(__HIP_PLATFORM_AMD__)
#define HAS_FAST_CVT
#endif
"""
USER = """#include "fast.h"
__device__ float to_float(double v) {
#ifdef HAS_FAST_CVT
  float r;
  asm("cvt.rn.f32.f64 %0, %1;" : "=f"(r) : "d"(v));
  return r;
#else
  return static_cast<float>(v);
#endif
}
"""


def test_a_platform_macro_of_a_project_header_decides_another_files_branch(tmp_path):
    (tmp_path / "fast.h").write_text(HEADER)
    (tmp_path / "user.cu").write_text(USER)
    # the ROCm build compiles the portable arm: the PTX arm is NVIDIA's own
    assert hip_compile(tmp_path / "user.cu", tmp_path, targets=("gfx942",)).returncode == 0
    assert [f.rule for f in scan([tmp_path], Config()).findings if f.rule.startswith("ASM")] == []
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "user.cu").write_text(USER.replace('#include "fast.h"\n', ""))
    assert [f.rule for f in scan([alone], Config()).findings if f.rule.startswith("ASM")] == ["ASM001"]


def test_wrp013_reports_host_uses_only(tmp_path):
    findings = scan([CORPUS / "host_pass_width.cu", WIDTH_HEADER], Config()).findings
    wrp013 = sorted((f.file, f.line) for f in findings if f.rule == "WRP013")
    assert wrp013 == [("host_pass_width.cu", n) for n in (19, 25, 29, 36, 36)]
    rdna_only = scan([CORPUS / "host_pass_width.cu", WIDTH_HEADER], Config(targets=["gfx1100"])).findings
    assert not [f for f in rdna_only if f.rule == "WRP013"]  # RDNA's device pass reads 32 as well


def test_a_condition_macro_with_bytes_that_are_not_utf8_is_read_as_written():
    data = b"#define ON_X (defined(__gfx942__) && \xff\xfe)\n#if ON_X\nint x;\n#endif\n"
    assert _branches(data).side_at(data.index(b"int x")) is None  # undecided, and no error


# The shape of Lucebox's RMSNorm launcher (Luce-Org/lucebox#500): the width taken from the
# wavefront macro, the shared memory sized on the host by the warps it counts with it. hip-clang's
# host pass defines the macro too, as 64 whatever the targets: on CDNA the passes agree, on RDNA
# (gfx1100, 32 lanes) the host counts half the warps the device writes. The kernel is porter's own.
WAVEFRONT_MACRO_WIDTH = """#include <hip/hip_runtime.h>
#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE == 64
#define WARP 64
#else
#define WARP 32
#endif
__global__ void sums(const float* x, float* y) {
  extern __shared__ float part[];
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = WARP / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (threadIdx.x % WARP == 0) part[threadIdx.x / WARP] = v;
}
void launch(const float* x, float* y, int n, hipStream_t s) {
  const int threads = 256;
  const int warps = threads / WARP;
  sums<<<n / threads, threads, warps * sizeof(float), s>>>(x, y);
}
"""


def _width_splits_reported(tmp_path, target: str) -> list[tuple[int, str]]:
    path = tmp_path / "sums.hip"
    path.write_text(WAVEFRONT_MACRO_WIDTH)
    config = Config()
    config.targets = (target,)
    return [(f.line, f.message) for f in scan([path], config).findings if f.rule == "WRP013"]


def test_a_width_from_the_wavefront_macro_is_the_host_pass_s_64():
    """The host pass reads the macro as 64: CDNA's device pass agrees, RDNA's 32 splits from it."""
    assert _branches(WAVEFRONT_MACRO_WIDTH.encode()).pass_splits({}) == {"WARP": PassSplit(32, 64, "gfx1100")}


def test_a_wavefront_macro_width_splits_on_rdna_and_not_on_cdna(tmp_path):
    assert _width_splits_reported(tmp_path, "gfx942") == []  # reported as 64 against 32 until the host read 64
    ((line, message),) = _width_splits_reported(tmp_path, "gfx1100")
    assert line == 15 and message.startswith("`WARP` is 32 in gfx1100's device pass but 64 in the host pass")


def test_the_real_compiler_defines_the_wavefront_macro_in_the_host_pass(tmp_path):
    """hip-clang's host pass reads WARP as 64 for CDNA and RDNA targets alike; each device pass its own."""
    probe = tmp_path / "probe.hip"
    for target, device in (("gfx942", 64), ("gfx1100", 32)):
        probe.write_text(
            WAVEFRONT_MACRO_WIDTH
            + "#if defined(__HIP_DEVICE_COMPILE__)\n"
            + f'static_assert(WARP == {device}, "device pass");\n'
            + "#else\n"
            + 'static_assert(WARP == 64, "host pass");\n'
            + "#endif\n"
        )
        result = hip_compile(probe, tmp_path, targets=(target,))
        assert result.returncode == 0, result.stderr
