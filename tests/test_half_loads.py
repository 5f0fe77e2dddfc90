"""`__ldg` of `at::Half` (TRX004): torch declares that overload for NVIDIA compilers only.

torch-scatter 2.1.2's segment kernels load `scalar_t` through `__ldg` and are dispatched with Half;
its ROCm branch defines the overload itself. Stripped of that branch and converted, the kernels
did not compile for gfx942 ("no matching function for call to '__ldg'"): the compat header now
declares a plain load for 16-bit classes, and the scan names the loads. The corpus case
(corpus/torch_ext/half_loads) is built here with nvcc and hip-clang against torch's own headers.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from compilers import hip_compile, nvcc_compile
from corpus_cases import CORPUS

from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.scan import scan

CASE = CORPUS / "torch_ext" / "half_loads"

PROJECT_OVERLOAD = """#pragma once
#include <c10/util/Half.h>
#ifdef USE_ROCM
__device__ __inline__ at::Half __ldg(const at::Half* ptr) { return __ldg(reinterpret_cast<const __half*>(ptr)); }
#endif
"""

# a `.h` header whose only finding is TRX004: a kernel template launched through the project's own
# helper (no launch syntax, no CUDA API to rename), dispatched with Half
LAUNCHED_BY_A_HELPER = """#pragma once
#include <ATen/Dispatch.h>
#include <c10/util/Half.h>

template <typename scalar_t>
__global__ void copy_rows(const scalar_t* __restrict__ src, scalar_t* __restrict__ out, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = __ldg(src + i);
}

template <typename Kernel>
void launch_rows(Kernel kernel, const void* src, void* out, int64_t n);  // the project's launcher

inline void copy_rows_of(c10::ScalarType type, const void* src, void* out, int64_t n) {
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(type, "copy_rows", [&] { launch_rows(copy_rows<scalar_t>, src, out, n); });
}
"""


def _torch_include() -> str:
    torch = pytest.importorskip("torch")
    return str(Path(torch.__file__).parent / "include")


def _rules(tree: Path) -> list[tuple[str, int]]:
    return [(f.rule, f.line) for f in scan([tree], Config()).findings if f.rule == "TRX004"]


def test_the_original_has_no_load_of_half_under_hipcc_and_the_port_builds_for_both(tmp_path):
    include = _torch_include()
    original = hip_compile(CASE / "half_loads.cu", tmp_path, targets=("gfx942",), extra=(f"-I{include}",))
    assert original.returncode != 0 and "no matching function for call to '__ldg'" in original.stderr
    out = tmp_path / "port"
    convert(ConvertOptions(CASE, out, "portable"), Config(), None)
    port = hip_compile(out / "half_loads.cu", tmp_path, targets=("gfx90a", "gfx942"), extra=(f"-I{include}",))
    assert port.returncode == 0, port.stderr[-2000:]
    nvidia = nvcc_compile(out / "half_loads.cu", tmp_path, extra=(f"-I{include}",))
    assert nvidia.returncode == 0, nvidia.stderr[-2000:]


def test_the_hip_port_builds_too(tmp_path):
    include = _torch_include()
    out = tmp_path / "port"
    convert(ConvertOptions(CASE, out, "hip"), Config(), None)
    port = hip_compile(out / "half_loads.hip", tmp_path, targets=("gfx942",), extra=(f"-I{include}",))
    assert port.returncode == 0, port.stderr[-2000:]


def test_a_project_that_defines_the_overload_is_left_alone(tmp_path):
    shutil.copy(CASE / "half_loads.cu", tmp_path / "half_loads.cu")
    assert _rules(tmp_path) == [("TRX004", 17)]
    (tmp_path / "utils.cuh").write_text(PROJECT_OVERLOAD, encoding="utf-8")
    assert _rules(tmp_path) == []


def test_a_template_this_file_does_not_dispatch_with_half_is_left_alone(tmp_path):
    text = (CASE / "half_loads.cu").read_text(encoding="utf-8")
    (tmp_path / "floats.cu").write_text(
        text.replace("AT_DISPATCH_FLOATING_TYPES_AND_HALF", "AT_DISPATCH_FLOATING_TYPES")
    )
    assert _rules(tmp_path) == []


def test_a_dispatch_named_in_a_comment_is_no_dispatch(tmp_path):
    text = (CASE / "half_loads.cu").read_text(encoding="utf-8")
    floats = text.replace("AT_DISPATCH_FLOATING_TYPES_AND_HALF", "AT_DISPATCH_FLOATING_TYPES")
    (tmp_path / "floats.cu").write_text(floats + "// TODO: AT_DISPATCH_FLOATING_TYPES_AND_HALF once at::Half loads\n")
    assert _rules(tmp_path) == []


def test_a_dispatch_in_the_files_own_macro_counts(tmp_path):
    text = (CASE / "half_loads.cu").read_text(encoding="utf-8")
    wrapped = text.replace("AT_DISPATCH_FLOATING_TYPES_AND_HALF", "DISPATCH_ROWS")
    macro = "#define DISPATCH_ROWS(...) AT_DISPATCH_FLOATING_TYPES_AND_HALF(__VA_ARGS__)\n"
    (tmp_path / "wrapped.cu").write_text(macro + wrapped, encoding="utf-8")
    assert _rules(tmp_path) == [("TRX004", 18)]


def test_a_load_through_a_pointer_to_half_is_named(tmp_path):
    """Non-template code of at::Half compiles under clang's CUDA mode, where torch declares the
    overload in both passes: its loads are named whatever the file dispatches."""
    (tmp_path / "k.cu").write_text(
        "#include <c10/util/Half.h>\n"
        "__global__ void k(const at::Half* in, const c10::Half* other, at::Half* out, int n) {\n"
        "  int i = threadIdx.x;\n"
        "  out[i] = __ldg(in + i + n) + __ldg((const at::Half*)other) + __ldg(&other[i]);\n"
        "}\n",
        encoding="utf-8",
    )
    assert _rules(tmp_path) == [("TRX004", 4)] * 3


def test_a_second_conversion_of_the_port_changes_nothing(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    convert(ConvertOptions(CASE, first, "portable"), Config(), None)
    convert(ConvertOptions(first, second, "portable"), Config(), None)
    assert (second / "half_loads.cu").read_bytes() == (first / "half_loads.cu").read_bytes()
    assert _rules(first) == []


def test_a_header_whose_only_fix_is_the_compat_headers_load_includes_it(tmp_path):
    tree, out = tmp_path / "tree", tmp_path / "out"
    tree.mkdir()
    (tree / "copy_rows.h").write_text(LAUNCHED_BY_A_HELPER, encoding="utf-8")
    assert _rules(tree) == [("TRX004", 8)]
    convert(ConvertOptions(tree, out, "portable"), Config(), None)
    assert (out / "copy_rows.h").read_text(encoding="utf-8").count('#include "porter_compat.h"') == 1
