"""Code nvcc compiles and hip-clang rejects (porter.rules.dialect), through the real compilers.

corpus/dialect/register_arrays.cu writes `register` as exllamav2's MLP softmax and exllama v3's
GEMM fragments do. hip-clang stops at exactly the declarations porter reports, the portable port
builds for gfx942, and nvcc builds the original and the port.
"""

from __future__ import annotations

import re
import shutil

from compilers import hip_compile, nvcc_compile
from corpus_cases import CORPUS

from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.scan import scan

CASE = CORPUS / "dialect" / "register_arrays.cu"


def _port(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    shutil.copy(CASE, source / CASE.name)
    convert(ConvertOptions(source, tmp_path / "port", "portable"), Config(), None)
    return tmp_path / "port" / CASE.name


def test_hip_clang_stops_at_the_lines_porter_reports(tmp_path):
    reported = sorted(f.line for f in scan([CASE], Config()).findings if f.rule == "DLC001")
    # the original with HIP's runtime header in place of CUDA's, so that only the dialect differs
    hip_source = tmp_path / "original.hip"
    hip_source.write_text(CASE.read_text().replace("<cuda_runtime.h>", "<hip/hip_runtime.h>"))
    built = hip_compile(hip_source, tmp_path, targets=("gfx942",))
    assert built.returncode != 0
    rejected = sorted(
        {
            int(m.group(1))
            for m in re.finditer(r"original\.hip:(\d+):\d+: error: ISO C\+\+17 does not allow 'register'", built.stderr)
        }
    )
    assert rejected == reported == [9, 10, 17, 18]


def test_the_port_builds_for_gfx942_and_with_nvcc(tmp_path):
    port = _port(tmp_path)
    assert "register" not in re.sub(r"//.*", "", port.read_text())
    built = hip_compile(port, tmp_path, targets=("gfx942",))
    assert built.returncode == 0, built.stderr[-2000:]
    for path in (CASE, port):
        built = nvcc_compile(path, tmp_path)
        assert built.returncode == 0, built.stderr[-2000:]


def test_an_asm_labelled_register_variable_and_a_cpp_file_stay_silent(tmp_path):
    (tmp_path / "pinned.cu").write_text('__device__ int f() { register int r asm("v0") = 1; return r; }\n')
    (tmp_path / "host.cpp").write_text("int g(int* x) { register int a = x[0]; return a; }\n")
    assert [f for f in scan([tmp_path], Config()).findings if f.rule == "DLC001"] == []
