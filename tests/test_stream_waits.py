"""A 32-bit GEQ stream wait (API011): CUDA's comparison is cyclic, HIP's is not.

exllamav3's CPU-offloaded MoE hands work to a stream through sequence flags the GPU's front end
waits on; its ROCm port moved the flags to 64 bits, because HIP's `hipStreamWaitValueGte` compares
as a plain unsigned `>=` where CUDA's GEQ ignores wraparound. The facts are read from each vendor's
header, the finding from corpus/api/stream_wait_values.cu.
"""

from __future__ import annotations

import re

import pytest
from corpus_cases import CORPUS

from porter.config import Config
from porter.scan import scan
from porter.targets import rocm_root, toolchains

CASE = CORPUS / "api" / "stream_wait_values.cu"


def test_only_the_32_bit_geq_wait_is_reported():
    found = [(f.line, str(f.fix)) for f in scan([CASE], Config()).findings if f.rule == "API011"]
    assert found == [(13, "manual")]


def test_the_vendors_headers_document_the_two_comparisons():
    cuda = toolchains.cuda_headers_path() / "include" / "cuda.h"
    hips = [r / "usr/include/hip/hip_runtime_api.h" for r in (toolchains.sysroot_dir(), rocm_root.root_dir())]
    hips = [h for h in hips if h.is_file()]
    if not cuda.is_file() or not hips:
        pytest.skip("no CUDA 12.9 or HIP headers: `porter setup cuda-headers`, `porter setup rocm-sysroot`")
    geq = re.search(r"CU_STREAM_WAIT_VALUE_GEQ\s*=.*?\*/", cuda.read_text(errors="replace"), re.S).group(0)
    assert "(int32_t)(*addr - value) >= 0" in geq and "cyclic comparison" in geq
    for hip in hips:
        assert "hipStreamWaitValueGte: waits until *ptr&mask >= value" in hip.read_text(errors="replace"), hip
