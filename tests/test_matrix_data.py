"""porter/rules/data/matrix.json checked against the compiler: each MFMA builtin it names builds with
clang 21 (the HIP 6.4 root) for exactly the targets it lists, of gfx90a, gfx942 and gfx950."""

from __future__ import annotations

import pytest
from compilers import hip_compile

from porter.rules.matrix import matrix_data
from porter.targets import toolchains

CHECKED = ("gfx90a", "gfx942", "gfx950")
# each builtin's operands: (A, B, C/D) as vector types declared below
OPERANDS = {
    "__builtin_amdgcn_mfma_f32_16x16x16f16": ("v_half4", "v_half4", "v_float4"),
    "__builtin_amdgcn_mfma_f32_16x16x32_f16": ("v_half8", "v_half8", "v_float4"),
    "__builtin_amdgcn_mfma_f32_16x16x16bf16_1k": ("v_short4", "v_short4", "v_float4"),
    "__builtin_amdgcn_mfma_f32_16x16x32_bf16": ("v_bf16x8", "v_bf16x8", "v_float4"),
    "__builtin_amdgcn_mfma_f32_16x16x8_xf32": ("v_float2", "v_float2", "v_float4"),
    "__builtin_amdgcn_mfma_f64_16x16x4f64": ("double", "double", "v_double4"),
    "__builtin_amdgcn_mfma_i32_16x16x16i8": ("int", "int", "v_int4"),
    "__builtin_amdgcn_mfma_i32_16x16x32_i8": ("long", "long", "v_int4"),
    "__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8": ("long", "long", "v_float4"),
}
TYPES = """#include <hip/hip_runtime.h>
typedef _Float16 v_half4 __attribute__((ext_vector_type(4)));
typedef _Float16 v_half8 __attribute__((ext_vector_type(8)));
typedef short v_short4 __attribute__((ext_vector_type(4)));
typedef __bf16 v_bf16x8 __attribute__((ext_vector_type(8)));
typedef float v_float2 __attribute__((ext_vector_type(2)));
typedef float v_float4 __attribute__((ext_vector_type(4)));
typedef double v_double4 __attribute__((ext_vector_type(4)));
typedef int v_int4 __attribute__((ext_vector_type(4)));
"""
ENTRIES = [(dtype, entry) for dtype, entries in matrix_data()["mfma"].items() for entry in entries]


@pytest.mark.slow
@pytest.mark.parametrize("dtype, entry", ENTRIES, ids=[e["builtin"] for _, e in ENTRIES])
def test_each_builtin_builds_for_exactly_its_targets(dtype, entry, tmp_path):
    if toolchains.find_rocm_root_toolchain() is None:
        pytest.skip("gfx950 needs the HIP 6.4 root (clang 21): `porter setup rocm`")
    a, b, c = OPERANDS[entry["builtin"]]
    source = tmp_path / "mfma.hip"
    source.write_text(
        TYPES + f"__global__ void k({c}* out, {a} x, {b} y) {{ *out = {entry['builtin']}(x, y, *out, 0, 0, 0); }}\n",
        encoding="utf-8",
    )
    builds = [
        t for t in CHECKED if hip_compile(source, tmp_path, targets=(t,), extra=("--cuda-device-only",)).returncode == 0
    ]
    assert builds == [t for t in CHECKED if t in entry["targets"]], (dtype, builds)
