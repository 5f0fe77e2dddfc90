"""Build commands from the project: compile_commands.json, and PyTorch extensions' setup.py and torch headers."""

from __future__ import annotations

import json
import shutil

import pytest
from compilers import require_hip, require_nvcc
from corpus_cases import CORPUS
from typer.testing import CliRunner

from porter.build.flags import ROOT, project_flags
from porter.cli import app
from porter.targets import toolchains

runner = CliRunner()


def build_json(tree, *targets: str, extra: tuple[str, ...] = ()) -> dict:
    arguments = ["build", str(tree), "--format", "json", "--no-cache", *extra]
    for target in targets:
        arguments += ["--target", target]
    result = runner.invoke(app, arguments)
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


@pytest.mark.slow
def test_the_compilation_database_gives_each_unit_its_includes_defines_and_standard(tmp_path):
    require_nvcc()
    require_hip()
    built = build_json(CORPUS / "project", "sm_90", "gfx942")
    assert {(u["target"], u["status"]) for u in built["units"]} == {("sm_90", "ok"), ("gfx942", "ok")}
    (kernel,) = built["kernels"]
    # TILE=128 comes from the database: it sizes the shared tile and the launch bounds
    assert kernel["targets"]["sm_90"]["shared_bytes"] == kernel["targets"]["gfx942"]["shared_bytes"] == 512
    assert kernel["targets"]["sm_90"]["block_size"] == kernel["targets"]["gfx942"]["block_size"] == 128
    assert kernel["targets"]["sm_90"]["occupancy"] is not None

    without = tmp_path / "project"
    shutil.copytree(CORPUS / "project", without)
    (without / "compile_commands.json").unlink()
    unbuilt = build_json(without, "sm_90")  # the header is still found (include search), TILE is not set
    assert [(u["status"], u["class"]) for u in unbuilt["units"]] == [("failed", "original-does-not-build")]
    assert "TILE is set by the build" in unbuilt["units"][0]["diagnostic"]


def test_database_paths_stay_relative_to_the_project_so_the_port_uses_its_own_copy(tmp_path):
    flags = project_flags(CORPUS / "project")
    assert flags.commands == {"src/tiled_sum.cu": [f"-I{ROOT}/include", "-DTILE=128", "-std=c++20"]}
    port = tmp_path / "port"
    shutil.copytree(CORPUS / "project", port)
    assert flags.for_unit("src/tiled_sum.cu", port, "hip")[0] == f"-I{port / 'include'}"


@pytest.mark.parametrize(
    "text, problem",
    [
        ("{", "not a valid compilation database"),
        ('{"a": 1}', "JSON list"),
        (b"\xff[", "not a valid compilation database"),
    ],
)
def test_a_broken_compilation_database_is_a_usage_error_naming_it(tmp_path, text, problem):
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    database = tmp_path / "build" / "compile_commands.json"
    database.parent.mkdir()
    database.write_bytes(text if isinstance(text, bytes) else text.encode())
    result = runner.invoke(app, ["build", str(tmp_path), "--target", "sm_90"])
    assert result.exit_code == 2
    assert "compile_commands.json" in result.output and problem in result.output


SETUP_PY = """
import os
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

macros = [("WITH_CUDA", None), ("TILE", "64")]
if os.getenv("ROCM"):
    macros += [("USE_ROCM", None)]
setup(
    name="pkg",
    ext_modules=[CUDAExtension("pkg._C", ["csrc/k.cu"], include_dirs=["csrc/include", "../outside"],
                               define_macros=macros,
                               extra_compile_args={"nvcc": ["-DFAST=1", "--use_fast_math", "-gencode", "x"]})],
    cmdclass={"build_ext": BuildExtension},
)
"""


def test_setup_py_is_read_for_the_extension_name_includes_and_macros(tmp_path):
    project = tmp_path / "project"
    (project / "pkg" / "csrc" / "include").mkdir(parents=True)
    (project / "outside").mkdir()
    (tmp_path / "outside").mkdir()
    (project / "pkg" / "setup.py").write_text(SETUP_PY.replace("../outside", "../../outside"))
    (project / "pkg" / "csrc" / "k.cu").write_text("__global__ void k() {}\n")
    (extension,) = project_flags(project).extensions.items()
    directory, found = extension
    assert directory == "pkg" and found.name == "_C"
    assert found.include_dirs == ("pkg/csrc/include",)  # ../../outside is not the project's
    assert set(found.flags) == {"-DWITH_CUDA", "-DTILE=64", "-DFAST=1", "--use_fast_math"}  # no ROCm-only macro


def test_torch_units_get_torch_flags_per_vendor_and_others_none(tmp_path):
    if toolchains.find_torch() is None:
        pytest.skip("torch is not installed")
    (tmp_path / "plain.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "ext.cu").write_text("#include <ATen/cuda/CUDAContext.h>\n__global__ void k() {}\n")
    flags = project_flags(tmp_path)
    assert flags.for_unit("plain.cu", tmp_path, "cuda") == []
    cuda, hip = flags.for_unit("ext.cu", tmp_path, "cuda"), flags.for_unit("ext.cu", tmp_path, "hip")
    assert "-std=c++20" in cuda and "-D__CUDA_NO_HALF_OPERATORS__" in cuda and "-DUSE_ROCM=1" not in cuda
    assert "-DUSE_ROCM=1" in hip and "-D__HIP_PLATFORM_AMD__=1" in hip
    converted = next(f[2:] for f in hip if "-hip-porter-" in f)
    assert "hipStream_t" in (toolchains.Path(converted) / "c10" / "cuda" / "CUDAStream.h").read_text()
    assert flags.for_unit("ext.cu", tmp_path, "hip-nvidia") is None


def test_a_unit_reaching_torch_through_the_projects_headers_gets_torch_flags(tmp_path):
    """nerfacc's scan.cu includes "include/utils_scan.cuh", which reaches torch/extension.h: without
    torch's include paths its build failed as if torch's headers were missing from the toolchain."""
    if toolchains.find_torch() is None:
        pytest.skip("torch is not installed")
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "utils_cuda.cuh").write_text("#pragma once\n#include <torch/extension.h>\n")
    (tmp_path / "include" / "utils_scan.cuh").write_text('#pragma once\n#include "utils_cuda.cuh"\n')
    (tmp_path / "scan.cu").write_text('#include "include/utils_scan.cuh"\n__global__ void k() {}\n')
    (tmp_path / "plain.cu").write_text('#include "include/plain.cuh"\n__global__ void k() {}\n')
    (tmp_path / "include" / "plain.cuh").write_text("#pragma once\n")
    flags = project_flags(tmp_path)
    assert "-DUSE_ROCM=1" in flags.for_unit("scan.cu", tmp_path, "hip")
    assert "-std=c++20" in flags.for_unit("scan.cu", tmp_path, "cuda")
    assert flags.for_unit("plain.cu", tmp_path, "cuda") == []


def test_a_header_the_installed_torch_dropped_is_the_originals_problem_for_both_vendors(tmp_path):
    """mmcv 2.2.0 includes THC/THCAtomics.cuh, which torch 2.13 ships for neither vendor: its gfx942
    units were classed toolchain-missing-header, as if ROCm lacked it."""
    require_nvcc()
    require_hip()
    if toolchains.find_torch() is None:
        pytest.skip("torch is not installed")
    (tmp_path / "ext.cu").write_text(
        "#include <c10/macros/Macros.h>\n#include <THC/THCAtomics.cuh>\n__global__ void k() {}\n"
    )
    built = build_json(tmp_path, "sm_90", "gfx942")
    assert sorted((u["target"], u["class"]) for u in built["units"]) == [
        ("gfx942", "original-does-not-build"), ("sm_90", "original-does-not-build"),
    ]  # fmt: skip
    assert all("the installed torch" in u["diagnostic"] for u in built["units"])


@pytest.mark.network
@pytest.mark.slow
def test_torch_scatter_builds_for_sm90_and_its_gfx942_failure_names_the_header_and_why(tmp_path):
    """One TU of torch-scatter 2.1.2, as its setup.py builds it (all three: bench/realworld.py)."""
    from bench.pypi import FetchError
    from bench.realworld import package_root

    require_nvcc()
    require_hip()
    if toolchains.find_torch() is None or toolchains.cuda_libraries_dir() is None:
        pytest.skip("needs torch and `porter setup cuda-libraries`")
    try:
        root, _ = package_root("torch-scatter")
    except FetchError as exc:
        pytest.skip(f"could not fetch torch-scatter 2.1.2: {exc}")
    package = tmp_path / "torch-scatter"  # with its setup.py, which adds WITH_CUDA and csrc/ to the command
    shutil.copytree(root, package, ignore=shutil.ignore_patterns("scatter_cuda.cu", "segment_coo_cuda.cu"))
    built = build_json(package, "sm_90", "gfx942")
    units = {u["target"]: u for u in built["units"]}
    assert units["sm_90"]["status"] == "ok", units["sm_90"]["diagnostic"]
    if toolchains.find_hip_toolchain().hip_version.startswith("5."):
        assert units["gfx942"]["class"] == "toolchain-missing-header"
        assert "hipblaslt/hipblaslt.h" in units["gfx942"]["diagnostic"]
        assert "CUDAContextLight.h" in units["gfx942"]["diagnostic"]
    else:  # HIP 6.4 has hipBLASLt: torch's headers go through, what is left is torch-scatter's own
        assert "hipblaslt" not in (units["gfx942"]["diagnostic"] or "")
    kernels = [k for k in built["kernels"] if "segment_csr_kernel" in k["name"]]
    assert kernels and all(k["targets"]["sm_90"]["block_size"] == 256 for k in kernels)
    assert all(k["targets"]["sm_90"]["registers"] > 0 for k in kernels)


def test_a_load_call_declares_an_extension_for_the_sources_beside_it(tmp_path):
    (tmp_path / "ops" / "inc").mkdir(parents=True)
    (tmp_path / "ops" / "build.py").write_text(
        "from torch.utils.cpp_extension import load\n"
        "other = ['-DUNUSED=1']\n"
        'fused = load(name="fused", sources=["k.cu"], extra_include_paths=["inc"],\n'
        '             extra_cuda_cflags=["-DBLOCK=256", "--use_fast_math"])\n'
    )
    (tmp_path / "ops" / "k.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "plain.cu").write_text("__global__ void k() {}\n")
    extensions = project_flags(tmp_path).extensions
    assert list(extensions) == ["ops"]
    found = extensions["ops"]
    assert found.name == "fused" and found.include_dirs == ("ops/inc",)
    assert found.flags == ("-DBLOCK=256", "--use_fast_math")  # the call's, not the module's other literals


def test_the_projects_own_headers_are_found_nearest_first_and_ties_are_left_alone(tmp_path):
    from porter.build.flags import include_search

    for rel, text in {
        "ops/src/kernel.cu": '#include "util.h"\n#include "missing.h"\n__global__ void k() {}\n',
        "ops/include/util.h": '#include "detail/more.h"\n',
        "ops/include/detail/more.h": "",
        "vendored/copy/include/util.h": "",  # the same name further from the unit
        "a/tie.h": "",
        "b/tie.h": "",
        "ops/src/tied.cu": '#include "tie.h"\n',
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    assert include_search(tmp_path, "ops/src/kernel.cu", []) == ["ops/include"]
    assert include_search(tmp_path, "ops/src/kernel.cu", ["ops/include"]) == []
    assert include_search(tmp_path, "ops/src/tied.cu", []) == []  # two equally near providers: no guess
    flags = project_flags(tmp_path).for_unit("ops/src/kernel.cu", tmp_path, "cuda")
    assert flags == [f"-I{tmp_path / 'ops' / 'include'}"]
