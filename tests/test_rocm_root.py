"""The HIP 6.4 toolchain in its Debian root (porter.targets.rocm_root), and ROCm version as a build dimension.

The root is opt-in (`porter setup rocm`, as root): the tests that compile through it skip where it
has not been made; the ones about entering it and refusing without privileges always run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from compilers import hip_compile
from corpus_cases import CORPUS

from porter.build.run import build
from porter.config import Config
from porter.convert.compat import render_header
from porter.targets import rocm_root, toolchains


def require_root_toolchain():
    hip = toolchains.find_rocm_root_toolchain()
    if hip is None:
        pytest.skip("no HIP 6.4 root: `porter setup rocm` (as root)")
    return hip


def test_the_command_mounts_the_users_directories_and_never_the_system_ones(tmp_path):
    command = ["/usr/bin/clang++-21", f"-I{tmp_path}", "-isystem/usr/include", "-c", str(tmp_path / "a.hip")]
    wrapped = rocm_root.wrap(command, Path("/cache/root"))
    mounts = wrapped[wrapped.index("/cache/root") + 1 : wrapped.index("--")]
    assert mounts == ["/" + tmp_path.parts[1]]
    assert wrapped[wrapped.index("--") + 1 :] == command
    assert "/usr" not in mounts


def test_without_privileges_setup_says_what_it_needs(monkeypatch):
    monkeypatch.setattr(rocm_root.os, "geteuid", lambda: 1000)
    assert "needs root" in rocm_root.why_not_possible()


SYNC_CASE = """#include "porter_compat.h"
__global__ void sum(float* x) {
  float v = x[threadIdx.x];
  for (int offset = PORTER_WARP_SIZE / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(PORTER_FULL_MASK, v, offset);
  x[threadIdx.x] = v;
}
"""


@pytest.mark.parametrize("hipify_first", [False, True])
def test_sync_intrinsics_compile_against_hip_6_4_and_5_7(hipify_first, tmp_path):
    """6.4 through HIP_ENABLE_WARP_SYNC_BUILTINS (or, when hip_runtime.h came first, the compat
    header's own forms); 5.7 through the pre-6.2 fallback."""
    hip = require_root_toolchain()
    (tmp_path / "porter_compat.h").write_text(render_header({}, Config().targets), encoding="utf-8")
    source = tmp_path / "sum.hip"
    source.write_text(('#include "hip/hip_runtime.h"\n' if hipify_first else "") + SYNC_CASE, encoding="utf-8")
    for toolchain in (hip, toolchains.find_sysroot_toolchain()):
        if toolchain is None:
            continue
        command = toolchain.command(
            [
                "-std=c++17",
                *toolchain.hip_flags(),
                "--offload-arch=gfx942",
                "-c",
                str(source),
                "-o",
                str(tmp_path / "o"),
            ]
        )
        import subprocess

        result = subprocess.run(command, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, (toolchain.hip_version, result.stderr[-1500:])


def test_hipblaslt_builds_for_gfx942_gfx950_and_gfx1100(tmp_path):
    require_root_toolchain()
    source = tmp_path / "lt.hip"
    source.write_text(
        "#include <hip/hip_runtime.h>\n#include <hipblaslt/hipblaslt.h>\n"
        "__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n",
        encoding="utf-8",
    )
    result = hip_compile(source, tmp_path, targets=("gfx942", "gfx950", "gfx1100"))
    assert result.returncode == 0, result.stderr[-1500:]


def test_the_planted_80_kib_kernel_fails_on_gfx942_and_builds_on_gfx950():
    require_root_toolchain()
    result = build(CORPUS / "build", ["gfx942", "gfx950"], Config(), use_cache=False, only={"planted_lds.cu"})
    status = {u.target: (u.status, u.cls) for u in result.units}
    assert status["gfx942"][0] == "failed" and status["gfx950"] == ("ok", None), status
    assert "HIP 6.4" in result.hip


def test_rocm_version_5_7_builds_against_the_sysroot():
    require_root_toolchain()
    if toolchains.find_sysroot_toolchain() is None:
        pytest.skip("no HIP 5.7 sysroot")
    result = build(CORPUS / "build", ["gfx942"], Config(rocm_version="5.7"), only={"planted_lds.cu"})
    assert result.hip.startswith("HIP 5.7")


def test_rocprim_refusing_gfx950_is_the_toolchains_failure_not_the_codes():
    require_root_toolchain()
    from porter.build.classify import fails_gate

    result = build(CORPUS / "library", ["gfx950"], Config(), only={"cub_block_reduce.cu"})
    (unit,) = result.units
    if unit.status == "ok":
        pytest.skip("this rocPRIM supports gfx950")
    assert unit.cls == "toolchain-unsupported-target" and "rocprim" in unit.diagnostic, unit
    assert not fails_gate(unit, "code")


def test_relative_paths_mean_inside_the_root_what_they_mean_outside(tmp_path, monkeypatch):
    hip = require_root_toolchain()
    import subprocess

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.hip").write_text(
        "#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] += 1.0f; }\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    command = hip.command(["-x", "hip", "--offload-arch=gfx942", *hip.hip_flags(), "-c", "src/k.hip", "-o", "k.o"])
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-1500:]
    assert (tmp_path / "k.o").is_file()


def test_two_rocm_versions_build_as_a_matrix():
    require_root_toolchain()
    if toolchains.find_sysroot_toolchain() is None:
        pytest.skip("no HIP 5.7 sysroot")
    from porter.build.run import build_matrix

    configs = [Config(rocm_version="5.7"), Config(rocm_version="6.4")]
    result = build_matrix(CORPUS / "build", ["gfx942"], configs, only={"planted_lds.cu"})
    assert sorted(u.target for u in result.units) == ["gfx942 rocm5.7", "gfx942 rocm6.4"]
    assert "HIP 5.7" in result.hip and "HIP 6.4" in result.hip


def test_a_cublaslt_unit_builds_for_gfx942_and_gfx950_after_conversion(tmp_path):
    """cuBLASLt's names are hipBLASLt's in porter's HIP 6.4 build: converted by default, not left suggested."""
    require_root_toolchain()
    (tmp_path / "lt.cu").write_text(
        "#include <cublasLt.h>\n"
        "__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }\n"
        "int make_handle() {\n"
        "  cublasLtHandle_t handle;\n"
        "  if (cublasLtCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;\n"
        "  cublasLtMatmulDesc_t desc;\n"
        "  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);\n"
        "  cublasLtMatmulDescDestroy(desc);\n"
        "  return cublasLtDestroy(handle) == CUBLAS_STATUS_SUCCESS ? 0 : 1;\n"
        "}\n",
        encoding="utf-8",
    )
    result = build(tmp_path, ["gfx942", "gfx950"], Config(), use_cache=False)
    assert {u.target: u.status for u in result.units} == {"gfx942": "ok", "gfx950": "ok"}, result.units
