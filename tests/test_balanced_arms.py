"""Preprocessor arms whose braces do not balance, read by the parser as one brace structure
(porter.parse.balanced_arms).

The shapes are real code's: a kernel that opens an `else {` under one arch guard and closes it
under a second (an attention library's bf16-on-sm75 bail-out, which left its 245 KB file one
ERROR node); an `if` condition split across `#ifdef`/`#else` arms, each ending in `) {` (a
ported inference library's graph-capture test), where the ERROR hid the branch that only CUDA
compiles and porter flagged code HIP never sees; a stub kernel and the real one in the two arms
of an arch guard, each closing the namespace opened above it; `extern "C" {` under
`#ifdef __cplusplus`; an include guard whose last function closes after its `#endif`."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.config import Config
from porter.parse import _parser, balanced_arms, captures, parse
from porter.scan import scan
from porter.source import FileKind, SourceFile

SPLIT_GUARD = b"""template <typename T>
__global__ void attend(const T* q, float* out) {
#if (__CUDA_ARCH__ < 800)
  if constexpr (sizeof(T) == 2) {
    __trap();
  } else {
#endif
    float v = float(q[threadIdx.x]);
    out[threadIdx.x] = v;
#if (__CUDA_ARCH__ < 800)
  }
#endif
}

__global__ void after(float* out) { out[0] = 1.f; }
"""

STUB_AND_REAL = b"""namespace kernels {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 750
__global__ void gemm(const int4* a, int4* c) {}
}  // namespace kernels
#else
__global__ void gemm(const int4* a, int4* c) {
  int warp = threadIdx.x / 32;
  c[warp] = a[warp];
}
}  // namespace kernels
#endif
"""

EXTERN_C = b"""#ifdef __cplusplus
extern "C" {
#endif
int version(void);
int flags(void);
#ifdef __cplusplus
}
#endif
"""

GUARD_CLOSED_AFTER = b"""#ifndef HALF_H
#define HALF_H
static float widen(unsigned short h) {
  return float(h);
#endif
}
"""


def _tree(data: bytes):
    return parse(SourceFile(path=Path("t.cu"), rel="t.cu", data=data, kind=FileKind.CUDA))


def _errors(data: bytes) -> int:
    return len(captures("(ERROR) @e", _tree(data).root).get("e", []))


def _functions(data: bytes) -> list[str]:
    parsed = _tree(data)
    names = []
    for node in captures("(function_definition) @f", parsed.root).get("f", []):
        declarator = node.child_by_field_name("declarator")
        name = declarator.child_by_field_name("declarator") if declarator is not None else None
        if name is not None:
            names.append(data[name.start_byte : name.end_byte].decode())
    return names


@pytest.mark.parametrize("data", [SPLIT_GUARD, STUB_AND_REAL, EXTERN_C, GUARD_CLOSED_AFTER])
def test_what_the_parser_reads_keeps_every_offset_line_and_directive(data):
    read = balanced_arms(data)
    assert len(read) == len(data)
    assert all(b == ord(" ") for a, b in zip(data, read, strict=True) if a != b)  # blanked, nothing else
    for written, parsed in zip(data.split(b"\n"), read.split(b"\n"), strict=True):
        assert written.lstrip().startswith(b"#") <= (written == parsed)  # directives as written


def test_a_block_opened_under_one_guard_and_closed_under_another_parses():
    assert _parser().parse(SPLIT_GUARD).root_node.has_error  # tree-sitter alone, on the file as written
    assert _errors(SPLIT_GUARD) == 0
    assert _functions(SPLIT_GUARD) == ["attend", "after"]


def test_of_a_stub_arm_and_the_real_one_the_real_one_is_read():
    read = balanced_arms(STUB_AND_REAL)
    assert read.count(b"}  // namespace") == 1 and read.index(b"}  // namespace") > read.index(b"#else")
    assert _errors(STUB_AND_REAL) == 0
    assert _functions(STUB_AND_REAL) == ["gemm", "gemm"]


def test_extern_c_under_cplusplus_and_an_include_guard_closed_after_endif():
    assert _errors(EXTERN_C) == 0
    assert balanced_arms(GUARD_CLOSED_AFTER) == GUARD_CLOSED_AFTER  # no later arm closes it: left as written


def test_comments_and_strings_of_an_arm_not_read_stay_comments(tmp_path):
    (tmp_path / "attrs.cu").write_bytes(
        b"int kind_of(int type) {\n"
        b"#if RUNTIME_VERSION >= 6\n"
        b"  switch (type) {\n"
        b"    case 0: return 1; /* cudaMemoryTypeHost */\n"
        b"#else\n"
        b"  switch (type + 0) {\n"
        b"    case 0: return 1; /* cudaMemoryTypeHost */\n"
        b'    case 1: return 2; /* "cudaMemoryTypeDevice" */\n'
        b"#endif\n"
        b"    default: return 0;\n"
        b"  }\n"
        b"}\n"
    )
    assert [f.rule for f in scan([tmp_path], Config(), jobs=1).findings] == []


def test_code_only_cuda_compiles_is_not_flagged_once_the_arms_balance(tmp_path):
    """The project says which branch HIP compiles (USE_HIP); HAVE_CUB is defined only in the
    other. Code under `#ifdef HAVE_CUB` needs no port, which porter can tell only from a tree in
    which that #ifdef holds it: as written, the split `if` condition made the rest of the
    function an ERROR node, and five CUDA names there were reported."""
    (tmp_path / "common.cuh").write_text(
        "#pragma once\n"
        "#if defined(USE_HIP)\n"
        "#include <hip/hip_runtime.h>\n"
        "#include <hipcub/hipcub.hpp>\n"
        "#define cudaStream_t hipStream_t\n"
        "#define cudaMemsetAsync hipMemsetAsync\n"
        "#else\n"
        "#include <cuda_runtime.h>\n"
        "#define HAVE_CUB\n"
        "#endif\n"
    )
    (tmp_path / "sum.cu").write_text(
        '#include "common.cuh"\n'
        "#ifdef HAVE_CUB\n"
        "#include <cub/cub.cuh>\n"
        "#endif\n"
        "__global__ void scale(float* out, int n) { out[0] /= n; }\n"
        "void sum_rows(const float* in, float* out, int rows, int cols, cudaStream_t stream) {\n"
        "#ifdef HAVE_CUB\n"
        "#ifdef WITH_GRAPHS\n"
        "  cudaStreamCaptureStatus capturing;\n"
        "  cudaStreamIsCapturing(stream, &capturing);\n"
        "#endif\n"
        "  if (rows == 1 &&\n"
        "#ifdef WITH_GRAPHS\n"
        "      (cols > 4096 && capturing == cudaStreamCaptureStatusNone)) {\n"
        "#else\n"
        "      cols > 4096) {\n"
        "#endif\n"
        "    size_t bytes = 0;\n"
        "    cub::DeviceReduce::Sum(nullptr, bytes, in, out, cols, stream);\n"
        "    scale<<<1, 1, 0, stream>>>(out, cols);\n"
        "    return;\n"
        "  }\n"
        "#endif\n"
        "  cudaMemsetAsync(out, 0, rows * sizeof(float), stream);\n"
        "}\n"
    )
    assert [(f.line, f.rule) for f in scan([tmp_path], Config(), jobs=1).findings] == []
