"""Which platform each preprocessor branch is compiled for (porter.rules.branches)."""

from __future__ import annotations

from pathlib import Path

from porter.parse import parse
from porter.rules.branches import Branches, Side
from porter.source import FileKind, SourceFile

TEXT = b"""#if defined(USE_ROCM)
#define HAS_PTX 0
#else
#define HAS_PTX 1
#endif
#ifndef USE_ROCM
int cuda_side;
#elif __CUDA_ARCH__ >= 800
int undecided;
#endif
#if HAS_PTX
int ptx_side;
#endif
#if __CUDA_ARCH__ >= 800
int arch_test;
#endif
__global__ void k() {
#if defined(__gfx1100__) || defined(__gfx1101__)
  int rdna;
#elif defined(__HIP_DEVICE_COMPILE__)
  int cdna;
#else
  int nvidia;
#endif
}
#if 0
int nowhere;
#endif
"""


def _sides() -> dict[str, Side | None]:
    source = SourceFile(path=Path("t.cu"), rel="t.cu", kind=FileKind.CUDA, data=TEXT)
    branches = Branches(source, parse(source).root)
    names = ("cuda_side", "undecided", "ptx_side", "arch_test", "rdna", "cdna", "nvidia", "nowhere")
    return {name: branches.side_at(TEXT.index(name.encode())) for name in names}


def test_each_branch_is_decided_by_platform_markers_only():
    assert _sides() == {
        "cuda_side": Side.CUDA_ONLY,
        # never NVIDIA's (the `#ifndef USE_ROCM` arm is): HIP code, though its `__CUDA_ARCH__` test
        # leaves open whether ROCm compiles it (the arch-guard rules judge that test)
        "undecided": Side.ROCM,
        "ptx_side": Side.CUDA_ONLY,  # a project macro set to 0 on the ROCm side
        "arch_test": None,
        "rdna": Side.ROCM_WAVE32,
        "cdna": Side.ROCM,
        "nvidia": Side.CUDA_ONLY,
        "nowhere": Side.DEAD,
    }


def test_deep_nesting_does_not_recurse():
    text = b"#ifdef USE_ROCM\n" * 3000 + b"int x;\n" + b"#endif\n" * 3000
    source = SourceFile(path=Path("t.cu"), rel="t.cu", kind=FileKind.CUDA, data=text)
    assert Branches(source, parse(source).root).side_at(text.index(b"int x")) is Side.ROCM


def test_a_conditional_nested_in_a_first_arm_is_found_inside_it():
    """The arms of a chain are recorded before what nests in them: the innermost arm must still win."""
    text = b"#ifdef USE_ROCM\nint a;\n#if defined(__gfx1100__)\nint rdna;\n#endif\nint b;\n#else\nint cuda;\n#endif\n"
    source = SourceFile(path=Path("t.cu"), rel="t.cu", kind=FileKind.CUDA, data=text)
    branches = Branches(source, parse(source).root)
    sides = {name: branches.side_at(text.index(name.encode())) for name in ("int a", "rdna", "int b", "cuda")}
    assert sides == {"int a": Side.ROCM, "rdna": Side.ROCM_WAVE32, "int b": Side.ROCM, "cuda": Side.CUDA_ONLY}


def test_a_header_included_for_one_platform_only_is_that_platforms():
    """llama.cpp's common.cuh includes vendors/hip.h under its ROCm marker and vendors/cuda.h under
    the `#else`: the one is HIP code, the other never compiled for ROCm. `<cuda.h>` elsewhere is
    CUDA's own header, not the project's cuda.h; an include outside any arm makes a header both's."""
    from porter.rules.branches import header_sides

    common = (
        b'#if defined(MY_USE_MUSA)\n#include "vendors/musa.h"\n#elif defined(MY_USE_HIP)\n#include "vendors/hip.h"\n'
        b'#else\n#include "vendors/cuda.h"\n#endif\n#ifndef USE_ROCM\n#include "nv_only.h"\n#endif\n'
        b'#include "shared.h"\n'
    )
    driver = b'#include <cuda.h>\n#if MY_USE_HIP\n#include "hip_runtime_shim.h"\n#elif !defined(NO_GPU)\n#include "cuda_runtime_shim.h"\n#endif\n'
    anywhere = (
        b'#include "nv_both.h"\n#if defined(USE_ROCM) && defined(__gfx1100__)  // RDNA3 only\n#include "rdna.h"\n'
        b'#else\n#include "rest.h"\n#endif\n#if !defined(USE_ROCM) && CUDA_VERSION >= 12000\n#include "graphs.h"\n#endif\n'
    )
    both = b'#ifdef USE_ROCM\n#include "nv_both.h"\n#endif\n'
    headers = {
        "musa.h",
        "hip.h",
        "cuda.h",
        "nv_only.h",
        "shared.h",
        "nv_both.h",
        "hip_runtime_shim.h",
        "cuda_runtime_shim.h",
        "rdna.h",
        "rest.h",
        "graphs.h",
    }
    sides = header_sides([common, driver, anywhere, both], headers, {"MY_USE_HIP"}, {"cuda.h"}.__contains__)
    # musa.h's arm tests no ROCm marker: it is left undecided, as are the headers included anywhere
    assert sides == {
        "hip.h": Side.ROCM,
        "cuda.h": Side.CUDA_ONLY,
        "nv_only.h": Side.CUDA_ONLY,
        "hip_runtime_shim.h": Side.ROCM,  # cupy's `#if CUPY_USE_HIP`: a value test of the marker
        "cuda_runtime_shim.h": Side.CUDA_ONLY,
        # a conjunction decides its first arm only: rest.h is everything but RDNA3's
        "rdna.h": Side.ROCM,
        "graphs.h": Side.CUDA_ONLY,
    }
