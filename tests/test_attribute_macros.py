"""Attribute macros (consteval.stand_ins, parse.parse): the parser reads what a macro that stands
for function attributes expands to, where that fits in the name's width, so a definition or loop
behind CUTLASS_DEVICE or an unroll pragma macro is a tree the rules can read, not an ERROR node.
Every offset stays, and every rule reads the file as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.config import Config
from porter.parse import captures, parse
from porter.rules.consteval import header_constants, stand_ins
from porter.scan import Deep, scan
from porter.source import FileKind, SourceFile

# CUTLASS's macros, defined in its headers, out of this tree's sight: the library table knows them
LIBRARY_HELPER = b"""#include <cuda_runtime.h>
CUTLASS_DEVICE float warp_max(float value) {
  CUTLASS_PRAGMA_UNROLL
  for (int offset = 16; offset >= 1; offset /= 2) {
    value = fmaxf(value, __shfl_xor_sync(0xffffffff, value, offset));
  }
  return value;
}
"""


def _make(data: bytes, name: str) -> SourceFile:
    return SourceFile(path=Path(name), rel=name, data=data, kind=FileKind.CUDA)


def _warp_rules(root) -> list[tuple[str, int, str]]:
    result = scan([root], Config(), deep=Deep.NEVER)
    return sorted((f.file, f.span.line, f.rule) for f in result.findings if f.category == "warp-size")


def test_a_ladder_behind_library_attribute_macros_is_found(tmp_path):
    (tmp_path / "reduce.cu").write_bytes(LIBRARY_HELPER)
    assert _warp_rules(tmp_path) == [("reduce.cu", 4, "WRP002")]


def test_an_attribute_macro_defined_in_a_project_header_is_read_in_the_files_that_use_it(tmp_path):
    (tmp_path / "macros.h").write_text(
        "#pragma once\n#define PROJECT_INLINE inline __attribute__((always_inline)) __device__\n"
        '#define PROJECT_UNROLL _Pragma("unroll")\n'
    )
    (tmp_path / "reduce.cu").write_text(
        '#include "macros.h"\n'
        "PROJECT_INLINE float warp_sum(float v) {\n"
        "  PROJECT_UNROLL\n"
        "  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);\n"
        "  return v;\n"
        "}\n"
    )
    assert _warp_rules(tmp_path) == [("reduce.cu", 4, "WRP002")]


def test_the_tree_keeps_every_offset_and_the_rules_read_the_file_as_written():
    source = _make(LIBRARY_HELPER, "reduce.cu")
    parsed = parse(source, stand_ins(source.data))
    assert not parsed.has_errors
    (function,) = captures("(function_definition) @f", parsed.root)["f"]
    assert function.start_byte == LIBRARY_HELPER.index(b"CUTLASS_DEVICE")
    assert parsed.root.end_byte == len(LIBRARY_HELPER)
    assert source.data == LIBRARY_HELPER
    assert parse(source).has_errors  # without the stand-ins: the ERROR nodes this is for


def test_stand_ins_keep_directives_short_names_and_names_defined_otherwise():
    data = (
        b"#define DINLINE __device__ __forceinline__\n"  # narrower than `__device__`: kept
        b"#define CUTE_HOST_DEVICE 1\n"  # the project's own meaning wins over the library's
        b"#define LONG_ENOUGH_FN __host__ __device__ inline\n"
        b"#ifdef LONG_ENOUGH_FN\n"
        b"LONG_ENOUGH_FN int f() { return 1; }\n"
        b"#endif\n"
        b"DINLINE int g() { return 2; }\n"
        b"CUTE_HOST_DEVICE int h() { return 3; }\n"
    )
    found = stand_ins(data)
    assert found[b"LONG_ENOUGH_FN"] == b"__device__    "  # `__host__ __device__` is wider than the name
    assert b"DINLINE" not in found and b"CUTE_HOST_DEVICE" not in found
    parsed = parse(_make(data, "k.cu"), found)
    names = [d.start_byte for d in captures("(preproc_ifdef) @d", parsed.root)["d"]]
    assert names == [data.index(b"#ifdef")]  # the directive still names the macro


def test_a_macro_the_project_defines_as_something_else_in_one_header_is_never_stood_in():
    headers = [b"#define FAST_FN __device__ inline\n", b"#define FAST_FN static\n", b"#define CUTE_DEVICE 1\n"]
    constants = header_constants(headers)
    assert constants.attributes == {"CUTE_DEVICE": None}  # a library name overridden; FAST_FN is nothing to say
    assert stand_ins(b"FAST_FN int f();\nCUTE_DEVICE int g();", constants.attributes) == {}


def test_cudas_align_reads_as_alignas_so_declarations_keep_their_shape():
    data = b"struct __align__(16) Quad { float x, y, z, w; };\n__global__ void k() { __shared__ __align__(16) float t[8][8]; }\n"
    parsed = parse(_make(data, "k.cu"), stand_ins(data))
    assert not parsed.has_errors
    assert len(captures("(struct_specifier) @s", parsed.root)["s"]) == 1  # as written, a function definition
    array = captures("(array_declarator) @a", parsed.root)["a"][0]  # the outer of `t[8]` and `t[8][8]`
    assert data[array.start_byte : array.end_byte] == b"t[8][8]"


def test_a_macro_made_of_another_attribute_macro_counts_by_its_expansion(tmp_path):
    # as mmcv's box_iou_rotated_utils.hpp defines them
    (tmp_path / "utils.hpp").write_text(
        "#pragma once\n#ifdef __CUDACC__\n#define HOST_DEVICE __host__ __device__\n"
        "#define HOST_DEVICE_INLINE HOST_DEVICE __forceinline__\n#else\n#define HOST_DEVICE\n"
        "#define HOST_DEVICE_INLINE HOST_DEVICE inline\n#endif\n"
    )
    constants = header_constants([(tmp_path / "utils.hpp").read_bytes()])
    assert constants.attributes["HOST_DEVICE_INLINE"] is not None
    data = b"template <typename T>\nHOST_DEVICE_INLINE T dot_2d(const T& a, const T& b) { return a * b; }\n"
    parsed = parse(_make(data, "k.cu"), stand_ins(data, constants.attributes))
    assert not parsed.has_errors


def test_cudas_align_macro_for_vector_types_reads_as_alignas_too():
    data = b"typedef struct __CUDA_ALIGN__(32) {\n  float array[8];\n} float8;\n"  # as cuda_bf16.h's users write it
    assert parse(_make(data, "k.h")).has_errors
    assert not parse(_make(data, "k.h"), stand_ins(data)).has_errors


@pytest.mark.parametrize(
    "attribute",
    [b"__cluster_dims__(NClusters, 1, 1)", b"__block_size__((256, 1, 1), (NClusters, 1, 1))", b"__maxnreg__(64)"],
)
def test_a_kernel_behind_a_function_like_attribute_is_a_kernel_and_the_attribute_is_still_read(tmp_path, attribute):
    # as flashinfer's fast_topk_clusters_exact.cuh writes it: as written, the tree reads a function
    # named as the attribute and the kernel's own name as nothing
    data = (
        b"template <typename T, int NClusters>\n"
        b"__global__ __launch_bounds__(1024) void " + attribute + b"\n"
        b"    topk_kernel(const T* __restrict__ logits, int* out) {\n"
        b"  int cluster = blockIdx.x / NClusters;\n  out[cluster] = (int)logits[threadIdx.x];\n}\n"
    )
    parsed = parse(_make(data, "k.cu"), stand_ins(data))
    assert not parsed.has_errors
    (definition,) = captures("(function_definition) @f", parsed.root)["f"]
    name = definition.child_by_field_name("declarator").child_by_field_name("declarator")
    assert data[name.start_byte : name.end_byte] == b"topk_kernel"
    (tmp_path / "k.cu").write_bytes(data)
    result = scan([tmp_path], Config(), jobs=1, deep=Deep.NEVER)
    assert [k["name"] for k in result.files[0].kernels] == ["topk_kernel"]
    if attribute.startswith(b"__cluster_dims__"):  # the rules read the file as written
        cluster = [f for f in result.findings if f.rule == "ASY004"]
        assert [data[f.span.start_byte : f.span.end_byte] for f in cluster] == [b"__cluster_dims__"]


def test_an_attribute_named_in_a_comment_with_an_open_parenthesis_blanks_only_its_name():
    # the argument list would run into the code after the comment: only the name is blanked
    data = (
        b"// the attribute: __cluster_dims__(x, y, z\n"
        b"__global__ void k(float* out) { out[0] = 1.0f; }\n"
        b"// where (x, y, z) are the cluster's extents)\n"
    )
    parsed = parse(_make(data, "k.cu"), stand_ins(data))
    assert not parsed.has_errors
    (definition,) = captures("(function_definition) @f", parsed.root)["f"]
    assert data[definition.start_byte : definition.end_byte].startswith(b"__global__ void k(")
