"""WRP015: HIP code written for CDNA's 64 lanes, on RDNA's 32; and the project facts it stands on
(a project's own ROCm marker learned from its code, platform branches inside include guards)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from compilers import hip_compile, require_hip
from corpus_cases import CORPUS
from typer.testing import CliRunner

from porter.cli import app
from porter.config import Config, load_config
from porter.parse import parse
from porter.rules.branches import (
    Branches,
    ProjectConditions,
    Side,
    hip_written_headers,
    learned_rocm_markers,
    marker_conditions,
)
from porter.scan import scan
from porter.source import FileKind, SourceFile
from porter.verify import emulate
from porter.verify.run import verify

runner = CliRunner()


def test_a_projects_rocm_marker_is_learned_from_what_its_arm_holds():
    assert learned_rocm_markers([b"#ifdef WITH_HIP\n#include <hip/hip_runtime_api.h>\n#endif\n"]) == {"WITH_HIP"}
    # the HIP arm is the #else of an #ifndef, or a call of HIP's runtime under `#if defined(X)`
    assert learned_rocm_markers([b"#ifndef ON_AMD\nint cuda;\n#else\nint v; hipGetDevice(&v);\n#endif\n"]) == {"ON_AMD"}
    assert learned_rocm_markers([b"#if defined(GPU_AMD)\n  hipMalloc(&p, n);\n#endif\n"]) == {"GPU_AMD"}
    assert learned_rocm_markers([b"#if defined(ON_ROCM)  // AMD\n#include <hip/hip_runtime.h>\n#endif\n"]) == {
        "ON_ROCM"
    }
    # nothing learned: HIP in the other arm, a compound test, an enclosing conditional (only the
    # innermost is credited), a known macro, or no HIP at all
    assert (
        learned_rocm_markers([b"#ifdef USE_CUDA\n#include <cuda.h>\n#else\n#include <hip/hip_runtime.h>\n#endif\n"])
        == set()
    )
    assert learned_rocm_markers([b"#if defined(A) && defined(B)\n#include <hip/hip_runtime.h>\n#endif\n"]) == set()
    assert (
        learned_rocm_markers([b"#ifdef OUTER\n#ifdef __cplusplus\n#include <hip/hip_runtime.h>\n#endif\n#endif\n"])
        == set()
    )
    assert learned_rocm_markers([b"#ifdef __HIPCC__\n#include <hip/hip_runtime.h>\n#endif\n"]) == set()
    assert learned_rocm_markers([b"#ifdef SHIP_IT\nint ship;\n#endif\n"]) == set()
    gpu = b"#ifdef USE_GPU\n#include <cuda_runtime.h>\n#include <hip/hip_runtime.h>\n#endif\n"
    assert learned_rocm_markers([gpu, b"#ifdef USE_GPU\nhipFree(p);\n#endif\n"]) == set()


def test_a_marker_is_learned_from_an_arm_that_includes_the_projects_own_hip_header():
    """llama.cpp's `#if defined(GGML_USE_HIP)` / `#include "vendors/hip.h"`: the arm includes a header
    of the project's that is written for HIP (it includes HIP's headers and none of CUDA's)."""
    shim = b"#pragma once\n#include <hip/hip_runtime.h>\n#define cudaStream_t hipStream_t\n"
    dual = b"#ifdef X\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n#endif\n"
    headers = hip_written_headers([("hip.h", shim), ("gpu.h", dual)])
    assert headers == {"hip.h"}
    common = b'#if defined(MY_USE_HIP)\n#include "vendors/hip.h"\n#else\n#include "vendors/cuda.h"\n#endif\n'
    assert learned_rocm_markers([common], headers) == {"MY_USE_HIP"}
    assert learned_rocm_markers([common]) == set()
    assert learned_rocm_markers([b'#ifdef MY_GPU\n#include "gpu.h"\n#endif\n'], headers) == set()


def test_a_learned_marker_decides_branches_inside_an_include_guard():
    """The ROCm arm of a guarded header is ROCm's (before, the guard made every arm undecided), and a
    width defined there is a platform macro: 64 for HIP, 32 for CUDA."""
    text = b"#ifndef W_H\n#define W_H\n#ifdef WITH_HIP\n#define WS 64\nint rocm;\n#else\n#define WS 32\nint cuda;\n#endif\n#endif\n"
    source = SourceFile(path=Path("w.h"), rel="w.h", kind=FileKind.HEADER, data=text)
    branches = Branches(source, parse(source).root, ProjectConditions(marker_conditions({"WITH_HIP"})))
    assert branches.side_at(text.index(b"int rocm")) is Side.ROCM
    assert branches.side_at(text.index(b"int cuda")) is Side.CUDA_ONLY
    assert branches.platform_macros()["WS"] == {"cuda": 32, "rocm-cdna": 64, "rocm-rdna": 64, "rocm-host": 64}


def _findings(tmp_path: Path, name: str, text: str, targets=("gfx1100",)) -> list[tuple[int, str, str]]:
    (tmp_path / name).write_text(text)
    config = Config()
    config.targets = targets
    result = scan([tmp_path / name], config, jobs=1)
    return [(f.line, f.rule, f.fix) for f in result.findings if f.rule == "WRP015"]


KERNEL = """__global__ void k(float* out) {
  int lane = threadIdx.x & 63;
  float v = out[threadIdx.x];
  for (int o = 32; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (lane == 0) out[threadIdx.x / 64] = v;
}
"""


def test_64_counts_as_lanes_only_in_code_written_for_rocm(tmp_path):
    """In a .cu that NVIDIA compiles, `& 63` and a ladder from 32 are threads and tiles; in a HIP
    file they are a wavefront's lanes, flagged at RDNA targets only."""
    assert _findings(tmp_path, "plain.cu", KERNEL) == []
    hip = [(2, "WRP015", "suggested"), (4, "WRP015", "suggested"), (5, "WRP015", "suggested")]
    assert _findings(tmp_path, "port.hip", KERNEL) == hip
    assert _findings(tmp_path, "port.cu", "#include <hip/hip_runtime.h>\n" + KERNEL) == [
        (n + 1, r, f) for n, r, f in hip
    ]
    assert _findings(tmp_path, "port.hip", KERNEL, targets=("gfx942",)) == []


def test_a_headers_slots_are_judged_by_the_launches_of_the_files_that_include_it(tmp_path):
    """corpus/wave32/slots_elsewhere: the header's kernels are launched by launch.hip. Alone, the
    header's 8 slots read by a loop to 8 count 32-lane warps (WRP012 at CDNA) and no block size is
    known (no WRP015 at RDNA); beside the launcher, the 512-thread launch makes them 8 wavefronts of
    64, right on CDNA and overrun on RDNA."""
    case = CORPUS / "wave32" / "slots_elsewhere"
    header = tmp_path / "alone"
    header.mkdir()
    shutil.copy(case / "block_partials.h", header)

    def rules(tree, target):
        config = Config()
        config.targets = (target,)
        return sorted((f.line, f.rule) for f in scan([tree], config, jobs=1).findings)

    assert rules(header, "gfx942") == [(24, "WRP012")]
    assert rules(header, "gfx1100") == []
    assert rules(case, "gfx942") == []
    assert rules(case, "gfx1100") == [(17, "WRP015"), (30, "WRP015")]


def test_an_unrolled_step_of_32_is_left_to_a_person(tmp_path):
    """`v += __shfl_xor(v, 32)` before the 16, 8, … steps: on 32 lanes the step must go, and shrinking
    it to 16 would add each pair twice, so the finding carries no edit."""
    text = "__global__ void k(float* out) {\n  float v = out[threadIdx.x];\n  v += __shfl_xor(v, 32);\n  v += __shfl_xor(v, 16);\n  out[threadIdx.x] = v;\n}\n"
    (tmp_path / "b.hip").write_text(text)
    config = Config()
    config.targets = ("gfx1100",)
    [finding] = [f for f in scan([tmp_path / "b.hip"], config, jobs=1).findings if f.rule == "WRP015"]
    assert (finding.line, finding.fix, finding.edits) == (3, "manual", ())


@pytest.mark.slow
def test_the_suggested_fixes_run_right_at_both_widths_and_build_for_both(tmp_path):
    """corpus/emulate/planted/warp_sum_wave64.cu fails at 32 lanes (test_emulator.py); converted with
    --unsafe-fixes it gives the CUDA original's sums on the CPU device at 64 and 32 lanes, and hip-clang
    builds it for gfx942 and gfx1100 without a deprecation warning."""
    if emulate.host_compiler() is None:
        pytest.skip("no host C++ compiler")
    tree = tmp_path / "emulate"
    shutil.copytree(CORPUS / "emulate", tree)
    converted = runner.invoke(
        app,
        ["convert", str(tree / "planted"), "-o", str(tree / "fixed"), "--target", "gfx942,gfx1100", "--unsafe-fixes"],
    )
    assert converted.exit_code == 0, converted.output
    fixed = (tree / "fixed" / "warp_sum_wave64.cu").read_text()
    assert "(PORTER_WARP_SIZE / 2)" in fixed and "(PORTER_WARP_SIZE - 1)" in fixed
    config_text = (tree / "porter.toml").read_text()
    [case] = [
        "[[verify.case]]" + c for c in config_text.split("[[verify.case]]") if '"warp_sum_atomic_wave64_planted"' in c
    ]
    case = case.replace('"planted/warp_sum_wave64.cu"', '"fixed/warp_sum_wave64.cu"').replace(
        'expect = "fail"\nwritten_for = 64\n', ""
    )
    (tree / "porter.toml").write_text(case.replace("_wave64_planted", "_wave64_fixed"))
    result = verify(tree, ("gfx942", "gfx1100"), load_config(tree), gpus={"nvidia": [], "amd": []})
    assert {(c.target, c.status) for c in result.cases} == {
        ("cpu-w32", "pass"),
        ("gfx942", "pass"),
        ("gfx1100", "pass"),
    }
    # clang 21 deprecates the wavefront-size macros: PORTER_WARP_SIZE must not reach them there
    built = hip_compile(
        tree / "fixed" / "warp_sum_wave64.cu",
        tmp_path,
        ("gfx942", "gfx1100"),
        (f"-I{tree / 'fixed'}", "-Werror=deprecated-pragma"),
    )
    assert built.returncode == 0, built.stderr[-2000:]


def test_the_hip_build_defines_the_markers_the_scan_learned():
    """The scan reads PROJ_WITH_HIP's arms as the project's ROCm build; porter build's HIP variant
    compiles them so (before, it compiled the CUDA arm, whose 32-bit mask HIP refuses: a port-error)."""
    from porter.build.flags import project_flags

    tree = CORPUS / "wave32" / "project_marker"
    flags = project_flags(tree)
    assert flags.rocm_markers == ("PROJ_WITH_HIP",)
    assert "-DPROJ_WITH_HIP" in flags.for_unit("pixel_dot.cu", tree, "hip")
    assert "-DPROJ_WITH_HIP" not in flags.for_unit("pixel_dot.cu", tree, "cuda")
    assert "-DPROJ_WITH_HIP" not in flags.for_unit("pixel_dot.cu", tree, "hip-nvidia")


@pytest.mark.slow
def test_a_project_built_with_its_learned_marker_builds_for_amd(tmp_path):
    require_hip()
    out = tmp_path / "build.json"
    arguments = [
        "build",
        str(CORPUS / "wave32"),
        "--target",
        "gfx942",
        "--no-cache",
        "--format",
        "json",
        "-o",
        str(out),
    ]
    result = runner.invoke(app, arguments)
    units = {(u["file"], u["status"]) for u in json.loads(out.read_text())["units"]}
    expected = {
        ("project_marker/pixel_dot.cu", "ok"),
        ("rocm_wave64_branch.cu", "ok"),
        ("build_options.cu", "ok"),
        ("full_wave_votes.cu", "ok"),
        ("host_wavefront_macro.hip", "ok"),
        ("slots_elsewhere/launch.hip", "ok"),
    }
    assert units == expected, result.output
