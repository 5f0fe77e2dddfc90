"""A half intrinsic HIP lacks (NUM003) that the project defines itself where ROCm compiles it.

llama.cpp's common.cuh defines `__hgt2_mask` under `#if CUDART_VERSION < CUDART_HMASK`, a test
hipcc takes (it leaves CUDART_VERSION undefined), so its ROCm build uses the project's function;
porter reported the definition and each use as HIP lacking it. flashinfer's `__floats2bfloat162_rn`
for sm_75 and older, under `defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800`, is no such function for
hipcc, whose device pass defines no `__CUDA_ARCH__`. corpus/numeric_format/polyfills holds one
function hipcc compiles and two it does not; hip-clang, compiling the portable port for gfx942,
stops at the uses of the two, the lines porter reports, and nowhere else.
"""

from __future__ import annotations

import re

from compilers import hip_compile, nvcc_compile
from corpus_cases import CORPUS

from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.scan import scan

CASE = CORPUS / "numeric_format" / "polyfills"


def _missing(tree) -> list[tuple[str, int]]:
    return [(f.file, f.line) for f in scan([tree], Config()).findings if f.rule == "NUM003"]


def test_only_the_use_rocm_has_no_function_for_is_reported():
    assert _missing(CASE) == [("mask_compare.cu", 16), ("mask_compare.cu", 23)]


def test_hip_clang_stops_where_porter_reports_and_nowhere_else(tmp_path):
    port = tmp_path / "port"
    convert(ConvertOptions(CASE, port, "portable"), Config(), None)
    built = hip_compile(port / "mask_compare.cu", tmp_path, targets=("gfx942",))
    errors = re.findall(r"mask_compare\.cu:(\d+):\d+: error: use of undeclared identifier '(\w+)'", built.stderr)
    assert built.returncode != 0
    assert [name for _, name in errors] == ["__hlt2_mask", "__hge2_mask"], built.stderr[-2000:]
    assert built.stderr.count("error:") == 2
    # the port's lines are the original's lines 16 and 23, the ones porter reports (the port adds an include above)
    port_lines = (port / "mask_compare.cu").read_text(encoding="utf-8").splitlines()
    original_lines = (CASE / "mask_compare.cu").read_text(encoding="utf-8").splitlines()
    assert [port_lines[int(line) - 1] for line, _ in errors] == [original_lines[16 - 1], original_lines[23 - 1]]


def test_the_original_builds_with_nvcc(tmp_path):
    built = nvcc_compile(CASE / "mask_compare.cu", tmp_path)
    assert built.returncode == 0, built.stderr[-2000:]


def test_a_file_scanned_without_the_projects_header_reports_both_uses():
    assert _missing(CASE / "mask_compare.cu") == [
        ("mask_compare.cu", 9),
        ("mask_compare.cu", 16),
        ("mask_compare.cu", 23),
    ]


RAW_KERNEL = """import cupy as cp

pack = cp.RawKernel(r'''
#include <cuda_bf16.h>
extern "C" __global__ void pack(__nv_bfloat162* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __floats2bfloat162_rn(1.0f, 2.0f);
}
''', 'pack')
"""


def test_in_a_python_files_strings_the_finding_is_held_for_a_person_with_the_others(tmp_path):
    """porter rewrites nothing inside Python strings (EMB001): NUM003 there carries no edit, though
    the compat header has the function, and EMB001 counts it."""
    (tmp_path / "kernels.py").write_text(RAW_KERNEL, encoding="utf-8")
    findings = scan([tmp_path], Config()).findings
    (missing,) = [f for f in findings if f.rule == "NUM003"]
    assert (str(missing.fix), missing.edits) == ("manual", ())
    (held,) = [f for f in findings if f.rule == "EMB001"]
    assert held.message.startswith(f"{len(findings) - 1} findings")
