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


# Conditionals where the tree breaks: inside a call's arguments (DeepSpeed's cublas_wrappers.cu
# picks a HIP or a CUDA data type there) and inside a template's head (llama.cpp's mmq.cuh picks
# its launch bounds there). tree-sitter parses neither `#ifdef` as a conditional, and its error
# recovery stretched another far past its `#endif`. Written for porter.
BROKEN_TREE = b"""#include <cuda_runtime.h>
#include <cublas_v2.h>
int gemm(cublasHandle_t h, const void* a, void* c, int m) {
  return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, nullptr, a,
#ifdef __HIP_PLATFORM_AMD__
                      HIPBLAS_R_16F,
#else
                      CUDA_R_16F,
#endif
                      m, a, CUDA_R_16F, m, nullptr, c, CUDA_R_16F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
template <int N>
#if defined(USE_ROCM)
__launch_bounds__(256, 2)
#else
__launch_bounds__(256, 1)

#endif
__global__ void k(float* x) { x[threadIdx.x] = N; }
void both(float* x) { k<1><<<1, 256>>>(x); }
"""


def _side_of_line(branches: Branches, source: SourceFile, line: int):
    return branches.side_at(source.line_starts[line - 1] + len(source.data.split(b"\n")[line - 1]) // 2)


def test_the_platform_arms_of_a_broken_tree_are_read_from_its_directives():
    """A file whose tree breaks has its conditionals read from its directives alone
    (parse.directive_skeleton), at the file's own offsets: each arm is its platform's, a last
    `#else` reaches its `#endif` across blank lines, and the code after the conditionals is both's."""
    source = SourceFile(path=Path("t.cu"), rel="t.cu", kind=FileKind.CUDA, data=BROKEN_TREE)
    root = parse(source).root
    assert root.has_error
    branches = Branches(source, root)
    sides = {line: _side_of_line(branches, source, line) for line in (6, 8, 10, 14, 16, 17, 19, 20)}
    assert sides == {
        6: Side.ROCM, 8: Side.CUDA_ONLY, 10: None, 14: Side.ROCM, 16: Side.CUDA_ONLY, 17: Side.CUDA_ONLY, 19: None, 20: None,
    }  # fmt: skip


def test_a_cuda_name_in_the_nvidia_arm_of_a_broken_tree_is_not_reported(tmp_path):
    from porter.config import Config
    from porter.scan import scan

    path = tmp_path / "t.cu"
    path.write_bytes(BROKEN_TREE)
    found = [(f.line, f.rule) for f in scan([path], Config()).findings]
    assert (8, "API004") not in found and (10, "API004") in found
    assert not any(line in (14, 16) for line, _ in found)  # the launch bounds of each platform's arm


# A code line with a comment inside it (`/*batch=*/`) before a conditional, in a file whose tree
# breaks: the skeleton keeps that line's comment, not its code, whose open call swallowed the
# directives after it (flashinfer's decode.cuh, where `griddepcontrol.wait` arms went unread).
COMMENTED_ARGUMENT = (
    BROKEN_TREE
    + b"""void call(float* s, int pos, int head) {
  s[0] = transform(s, s[0], /*qo_idx=*/0, /*kv_idx=*/pos,
                   head);
  bool mask = keep(s, /*qo_idx=*/0, /*kv_idx=*/pos, head,
                   pos);
  s[1] = output(s, s[1], /*batch_idx=*/0, /*qo_idx=*/0,
                head); /* a comment left open
#if 0 inside the comment is no conditional
  */
#if defined(__HIP_PLATFORM_AMD__)
  hip_path(s);
#else
  cuda_path(s);
#endif
}
"""
)


def test_a_code_line_with_a_comment_does_not_swallow_the_directives_after_it():
    source = SourceFile(path=Path("t.cu"), rel="t.cu", kind=FileKind.CUDA, data=COMMENTED_ARGUMENT)
    root = parse(source).root
    assert root.has_error
    branches = Branches(source, root)
    lines = COMMENTED_ARGUMENT.split(b"\n")
    hip, cuda = (next(n for n, line in enumerate(lines, 1) if word in line) for word in (b"hip_path", b"cuda_path"))
    assert (_side_of_line(branches, source, hip), _side_of_line(branches, source, cuda)) == (Side.ROCM, Side.CUDA_ONLY)
