"""The toolchains `porter doctor` reports are real: nvcc compiles the corpus, clang-19 with the
ROCm sysroot compiles HIP for gfx90a and gfx942 and prints per-kernel resources."""

from __future__ import annotations

import json
import re

import pytest
from compilers import hip_compile, nvcc_compile_each, require_hip, require_nvcc
from corpus_cases import CORPUS, directives
from typer.testing import CliRunner

from porter.cli import app
from porter.targets import toolchains

NVCC_CASES = sorted(p for p in CORPUS.rglob("*.cu") if "nvcc" in directives(p))

HIP_PROGRAM = r"""
#include <hip/hip_runtime.h>
#include <hipcub/hipcub.hpp>
__global__ __launch_bounds__(256) void block_sum(const float* in, float* out, int n) {
  using BlockReduce = hipcub::BlockReduce<float, 256>;
  __shared__ typename BlockReduce::TempStorage storage;
  int i = blockIdx.x * 256 + threadIdx.x;
  float total = BlockReduce(storage).Sum(i < n ? in[i] : 0.0f);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
int main() {
  float* d = nullptr;
  if (hipMalloc(&d, 1024 * sizeof(float)) != hipSuccess) return 1;
  block_sum<<<4, 256>>>(d, d, 1024);
  return hipDeviceSynchronize() == hipSuccess ? 0 : 1;
}
"""


@pytest.fixture(scope="module")
def nvcc_builds(tmp_path_factory):
    require_nvcc()
    # the device pass only: tests/test_convert.py builds each case's portable port whole, host pass
    # and ptxas included, and a case porter leaves as it was is the same file
    return nvcc_compile_each(NVCC_CASES, tmp_path_factory.mktemp("nvcc"), device_only=True)


@pytest.mark.slow
@pytest.mark.parametrize("path", NVCC_CASES, ids=[p.relative_to(CORPUS).as_posix() for p in NVCC_CASES])
def test_corpus_case_compiles_with_nvcc(path, nvcc_builds):
    result = nvcc_builds[path]
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("target", ["gfx90a", "gfx942"])
def test_sysroot_compiles_hip_with_resource_remarks(target, tmp_path):
    source = tmp_path / "block_sum.hip"
    source.write_text(HIP_PROGRAM)
    result = hip_compile(source, tmp_path, targets=(target,), extra=("-O3", "-Rpass-analysis=kernel-resource-usage"))
    assert result.returncode == 0, result.stderr[-3000:]
    remarks = result.stderr
    assert "Function Name: _Z9block_sumPKfPfi" in remarks
    vgprs = int(re.search(r"VGPRs: (\d+)", remarks).group(1))
    lds = int(re.search(r"LDS Size \[bytes/block\]: (\d+)", remarks).group(1))
    occupancy = int(re.search(r"Occupancy \[waves/SIMD\]: (\d+)", remarks).group(1))
    assert vgprs > 0 and lds > 0 and 1 <= occupancy <= 10


def test_gfx950_is_reported_unavailable_with_llvm_19():
    hip = require_hip()
    if hip.llvm_major >= 20:
        pytest.skip("this clang knows gfx950")
    assert not hip.supports("gfx950")


def test_doctor_reports_nvcc_and_the_rocm_toolchain():
    require_nvcc()
    require_hip()
    result = CliRunner().invoke(app, ["doctor", "--format", "json"])
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["nvcc"]["status"] == "ok"
    assert checks["HIP toolchain"]["status"] == "ok"
    assert checks["target gfx942"]["status"] == "ok"
    assert checks["target gfx90a"]["status"] == "ok"
    assert checks["target gfx950"]["status"] in ("unavailable", "ok")


def test_doctor_text_says_how_to_get_what_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("PORTER_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("ROCM_PATH", str(tmp_path / "no-rocm"))
    for finder in (toolchains.find_nvccs, toolchains.find_hip_toolchain):
        finder.cache_clear()
    monkeypatch.setattr(toolchains, "_nvcc_candidates", lambda: [])
    try:
        result = CliRunner().invoke(app, ["doctor"])
    finally:
        for finder in (toolchains.find_nvccs, toolchains.find_hip_toolchain):
            finder.cache_clear()
    assert result.exit_code == 1
    assert "MISSING      nvcc" in result.stdout
    assert "porter setup rocm-sysroot" in result.stdout
    assert "apt-get install clang-19" in result.stdout
