"""`porter build`: per-kernel resources for both vendors, checked against the compilers' own output."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from compilers import require_hip, require_nvcc
from corpus_cases import CORPUS
from typer.testing import CliRunner

from porter.cli import app
from porter.targets import target, toolchains

runner = CliRunner()
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    require_nvcc()
    require_hip()
    out = tmp_path_factory.mktemp("build") / "build.json"
    result = runner.invoke(
        app,
        [
            "build",
            str(CORPUS / "build"),
            "--target",
            "sm_90",
            "--target",
            "gfx942",
            "--target",
            "gfx950",
            "--format",
            "json",
            "-o",
            str(out),
            "--no-cache",
        ],
    )
    assert result.exit_code == 1, result.output  # the planted kernel fails on gfx942: the code's problem
    return json.loads(out.read_text())


def test_every_kernel_has_resources_for_both_targets(built):
    names = {k["name"].split("(")[0]: k for k in built["kernels"]}
    assert {"stage_rows", "small"} <= set(names)
    for kernel in names.values():
        assert {"sm_90", "gfx942"} <= set(kernel["targets"])
        for resources in kernel["targets"].values():
            assert resources["registers"] > 0 and resources["shared_bytes"] >= 0 and resources["spill_bytes"] >= 0


def test_numbers_match_the_compilers_own_output(built, tmp_path):
    nvcc = toolchains.find_nvcc()
    log = subprocess.run(
        [str(nvcc.path), "-x", "cu", "-std=c++17", "-O3", "-arch=sm_90", "-Xptxas", "-v", "-c", str(CORPUS / "build" / "planted_lds.cu"), "-o", str(tmp_path / "o.o")],
        capture_output=True, text=True, timeout=600,
    ).stderr  # fmt: skip
    entries = re.findall(r"entry function '(\w+)'.*?Used (\d+) registers.*?(?:(\d+) bytes smem)?\n", log, re.S)
    kernels = {k["mangled"]: k for k in built["kernels"]}
    assert entries
    for mangled, registers, smem in entries:
        sm90 = kernels[mangled]["targets"]["sm_90"]
        assert sm90["registers"] == int(registers) and sm90["shared_bytes"] == int(smem or 0)


def test_the_planted_kernel_overflows_lds_only_on_gfx942(built):
    units = {(u["file"], u["target"]): u for u in built["units"]}
    assert units[("planted_lds.cu", "sm_90")]["status"] == "ok"
    gfx942 = units[("planted_lds.cu", "gfx942")]
    # the scan saw it coming (LDS001: 96 KiB once the warp-size fix makes WARP_SIZE 64): work for a person
    assert gfx942["status"] == "failed" and gfx942["class"] == "manual-fix-needed", gfx942
    assert gfx942["diagnostic"].startswith("LDS001")
    assert "local memory (98304) exceeds limit (65536)" in gfx942["diagnostic"]
    stage = next(k for k in built["kernels"] if k["name"].startswith("stage_rows"))
    assert stage["targets"]["sm_90"]["shared_bytes"] == 49152 and stage["targets"]["gfx942"]["shared_bytes"] == 98304
    assert stage["targets"]["gfx942"]["limiter"] == "LDS"


def test_occupancy_uses_the_launch_bounds(built):
    small = next(k for k in built["kernels"] if k["name"].startswith("small"))["targets"]
    assert small["sm_90"]["block_size"] == 128 and small["sm_90"]["occupancy"] == 64  # 16 blocks of 4 warps
    assert small["gfx942"]["occupancy"] == 8 and small["gfx942"]["limiter"] == "waves"


def test_gfx950_is_reported_unavailable(built):
    if toolchains.find_hip_toolchain().supports(target("gfx950")):
        pytest.skip("this compiler knows gfx950")
    unit = next(u for u in built["units"] if u["target"] == "gfx950")
    assert unit["status"] == "unavailable" and "LLVM 20" in unit["diagnostic"]


def _cache_with_the_toolchains(tmp_path):
    """An empty build cache beside the toolchains `porter setup` provisioned (linked, not copied):
    the build looks both up under PORTER_CACHE."""
    cache = tmp_path / "cache"
    cache.mkdir()
    for entry in toolchains.cache_dir().iterdir():
        if entry.is_dir() and entry.name not in ("build", "scan"):
            (cache / entry.name).symlink_to(entry)
    return cache


def test_a_warm_rebuild_comes_from_the_cache(tmp_path, monkeypatch, request):
    require_nvcc()
    require_hip()
    monkeypatch.setenv("PORTER_CACHE", str(_cache_with_the_toolchains(tmp_path)))
    # looked up again in the new cache, as a run would, and forgotten after: its paths are this test's
    toolchains.find_hip_toolchain.cache_clear()
    request.addfinalizer(toolchains.find_hip_toolchain.cache_clear)
    args = ["build", str(CORPUS / "build"), "--target", "sm_90", "--target", "gfx942", "--format", "json"]
    first = json.loads(runner.invoke(app, args).stdout)
    second = json.loads(runner.invoke(app, args).stdout)
    assert not any(u["cached"] for u in first["units"]) and all(u["cached"] for u in second["units"])
    assert second["kernels"] == first["kernels"]


def test_bad_targets_are_named():
    result = runner.invoke(app, ["build", str(CORPUS / "build"), "--target", "rtx4090"])
    assert result.exit_code == 2 and "unknown target 'rtx4090'" in result.output and "sm_90, " in result.output


def test_hip_on_nvidia_builds_the_hip_tree_with_the_cuda_12_device_tools():
    require_hip()
    if toolchains.cuda12_device_toolkit() is None or toolchains.find_system_clang() is None:
        pytest.skip("no CUDA 12.9 device tools: `porter setup cuda-headers`")
    args = ["build", str(CORPUS / "build"), "--target", "sm_90", "--hip-nvidia", "--format", "json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    built = json.loads(result.stdout)
    hip_units = [u for u in built["units"] if u["variant"] == "hip-nvidia"]
    assert hip_units and all(u["status"] == "ok" and u["file"].endswith(".hip") for u in hip_units), hip_units
    for kernel in built["kernels"]:
        cuda, hip = kernel["targets"]["sm_90"], kernel["targets"]["sm_90 hip-nvidia"]
        assert hip["shared_bytes"] == cuda["shared_bytes"] and hip["registers"] > 0, kernel


def test_a_failure_the_scan_left_to_a_person_is_classified_as_such(tmp_path):
    require_hip()
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "token_paste.cu").write_bytes((CORPUS / "api" / "token_paste.cu").read_bytes())
    result = runner.invoke(app, ["build", str(tree), "--target", "gfx942", "--format", "json", "--no-cache"])
    (unit,) = json.loads(result.stdout)["units"]
    assert unit["status"] == "failed" and unit["class"] == "manual-fix-needed", unit
    assert "API008" in unit["diagnostic"]


def test_build_exits_1_when_a_unit_fails_in_the_code_and_0_with_fail_on_never(tmp_path):
    require_hip()
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "token_paste.cu").write_bytes((CORPUS / "api" / "token_paste.cu").read_bytes())
    arguments = ["build", str(tree), "--target", "gfx942", "--no-cache"]
    assert runner.invoke(app, arguments).exit_code == 1  # manual-fix-needed: the code's problem
    assert runner.invoke(app, [*arguments, "--fail-on", "never"]).exit_code == 0


def test_a_toolchain_gap_fails_the_gate_only_with_fail_on_any():
    from porter.build.classify import fails_gate
    from porter.build.units import Unit

    gap = Unit("a.cu", "gfx942", "hip", "failed", "toolchain-missing-header", "hipblaslt/hipblaslt.h")
    assert not fails_gate(gap, "code") and fails_gate(gap, "any") and not fails_gate(gap, "never")
    assert fails_gate(Unit("a.cu", "gfx942", "hip", "failed", "port-error", "x"), "code")
    assert not fails_gate(Unit("a.cu", "gfx950", "hip", "unavailable", "unavailable", "x"), "any")


def test_plain_cublas_code_builds_for_sm_90_where_doctor_finds_the_headers(tmp_path):
    """doctor and build agree: the CUDA library headers doctor reports are on nvcc's include path."""
    require_nvcc()
    if toolchains.cuda_libraries_dir() is None:
        pytest.skip("no CUDA library headers: `porter setup cuda-libraries`")
    (tmp_path / "gemm.cu").write_text(
        "#include <cublas_v2.h>\n"
        "__global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }\n"
        "void gemm(cublasHandle_t h, const float* a, float* c, int n) {\n"
        "  const float one = 1.0f;\n"
        "  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, a, n, &one, c, n);\n"
        "}\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["build", str(tmp_path), "--target", "sm_90", "-f", "json", "--no-cache"])
    assert result.exit_code == 0, result.output
    (unit,) = json.loads(result.stdout)["units"]
    assert unit["status"] == "ok", unit


def test_hip_on_nvidia_reaching_rocthrust_is_the_toolchains_gap_not_porters(tmp_path):
    """On NVIDIA, HIP's Thrust is CUDA's: a build that reaches rocThrust's AMD backend stops in its
    header, which says nothing of the port."""
    require_nvcc()
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "thrust_sort.cu").write_bytes((CORPUS / "library" / "thrust_sort.cu").read_bytes())
    arguments = ["build", str(tree), "--target", "sm_90", "--hip-nvidia", "--format", "json", "--no-cache"]
    result = runner.invoke(app, arguments)
    units = {u["variant"]: u for u in json.loads(result.stdout)["units"]}
    assert units["cuda"]["status"] == "ok", units["cuda"]
    hip = units["hip-nvidia"]
    if hip["status"] == "unavailable":
        pytest.skip(hip["diagnostic"])
    assert hip["status"] == "ok" or hip["class"] == "toolchain-unsupported-target", hip


def test_a_projects_own_atomic_overload_builds_for_amd_and_for_hip_on_nvidia(tmp_path):
    """HIP declares `atomicMax(float*, float)` on AMD and, in nvidia_detail, on NVIDIA too: API010's
    guard keeps the project's definition for CUDA itself, so neither HIP build redefines it."""
    require_hip()
    if toolchains.cuda12_device_toolkit() is None or toolchains.find_system_clang() is None:
        pytest.skip("no CUDA 12.9 device tools: `porter setup cuda-headers`")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "hip_overloads.cu").write_bytes((CORPUS / "api" / "hip_overloads.cu").read_bytes())
    arguments = ["build", str(tree), "--target", "sm_90", "--target", "gfx942", "--hip-nvidia", "--format", "json"]
    result = runner.invoke(app, [*arguments, "--no-cache"])
    units = json.loads(result.stdout)["units"]
    assert {(u["target"], u["variant"], u["status"]) for u in units} == {
        ("sm_90", "cuda", "ok"), ("gfx942", "hip", "ok"), ("sm_90", "hip-nvidia", "ok")
    }, units  # fmt: skip
