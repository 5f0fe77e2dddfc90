"""WMMA onto the matrix cores (porter_wmma.h): the corpus's WMMA kernels convert with no manual
matrix finding, build with nvcc for sm_90 and with clang 21 for gfx90a, gfx942 and gfx950 (where
the ISA holds the MFMA instructions), and pass emulated verify against the original."""

from __future__ import annotations

import re

import pytest
from compilers import hip_compile, nvcc_compile, require_hip, require_nvcc
from corpus_cases import CORPUS

from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.findings import FixKind
from porter.scan import scan
from porter.targets import toolchains

WMMA = CORPUS / "wmma"
KERNELS = sorted(p.name for p in WMMA.glob("*.cu"))
# the MFMA each kernel's element type must reach, as the ISA spells it (gfx90a `…16x16x16f16` and
# `…16x16x16bf16_1k`, gfx942 and gfx950 `…16x16x16_f16` and `…16x16x16_bf16`)
F16, BF16 = r"v_mfma_f32_16x16x16_?f16\b", r"v_mfma_f32_16x16x16_?bf16"
MFMA = {"tiled_gemm.cu": F16, "batched_gemm.cu": BF16, "gemm_bias_gelu.cu": F16}


@pytest.fixture(scope="module")
def ports(tmp_path_factory):
    out = tmp_path_factory.mktemp("wmma")
    for mode in ("portable", "hip"):
        convert(ConvertOptions(WMMA, out / mode, mode=mode, use_cache=False), Config(), None)
    return out


def test_every_wmma_finding_is_automatic():
    findings = [f for f in scan([WMMA], Config(), use_cache=False).findings if f.category == "matrix"]
    assert {f.file for f in findings} == set(KERNELS)
    assert all(f.fix is FixKind.AUTO for f in findings), [f for f in findings if f.fix is not FixKind.AUTO]


def test_the_header_is_written_once_beside_the_compat_header(ports):
    for mode in ("portable", "hip"):
        assert (ports / mode / "porter_wmma.h").is_file() and (ports / mode / "porter_compat.h").is_file()
    text = (ports / "portable" / "tiled_gemm.cu").read_text(encoding="utf-8")
    assert '#include "porter_wmma.h"' in text and "<mma.h>" not in text


@pytest.mark.slow
@pytest.mark.parametrize("name", KERNELS)
def test_the_original_and_the_port_build_with_nvcc(name, ports, tmp_path):
    require_nvcc()
    for path in (WMMA / name, ports / "portable" / name):
        result = nvcc_compile(path, tmp_path)
        assert result.returncode == 0, result.stderr[-2000:]


def _mfma_targets() -> tuple[str, ...]:
    hip = require_hip()
    if toolchains.find_rocm_root_toolchain() is None or not hip.supports("gfx950"):
        pytest.skip("gfx950 needs the HIP 6.4 root (clang 21): `porter setup rocm`")
    return ("gfx90a", "gfx942", "gfx950")


@pytest.mark.slow
@pytest.mark.parametrize("name", KERNELS)
def test_the_port_runs_mfma_on_gfx90a_gfx942_and_gfx950(name, ports, tmp_path):
    for target in _mfma_targets():
        for path in (ports / "portable" / name, ports / "hip" / name.replace(".cu", ".hip")):
            assembly = tmp_path / f"{target}.s"
            result = hip_compile(path, tmp_path, targets=(target,), extra=("--cuda-device-only", "-S"))
            assert result.returncode == 0, (target, result.stderr[-2000:])
            (tmp_path / "out.o").replace(assembly)
            isa = assembly.read_text(errors="replace")
            assert re.search(MFMA[name], isa), (target, sorted(set(re.findall(r"v_mfma\w+", isa))))


def test_a_fragment_outside_the_subset_stays_manual_and_names_the_piece(tmp_path):
    source = tmp_path / "int8.cu"
    source.write_text(
        "#include <mma.h>\nusing namespace nvcuda;\n"
        "__global__ void k(const signed char* a) {\n"
        "  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;\n"
        "  wmma::load_matrix_sync(fa, a, 16);\n}\n",
        encoding="utf-8",
    )
    findings = scan([tmp_path], Config(), use_cache=False).findings
    manual = [f for f in findings if f.category == "matrix" and f.fix is FixKind.MANUAL]
    assert [f.rule for f in manual] == ["MMA004"] and "signed char" in manual[0].message


@pytest.mark.slow
def test_emulated_verify_passes_at_64_lanes_and_catches_a_wrong_layout(tmp_path, monkeypatch):
    """The CPU device runs the original's WMMA at 32 lanes and porter_wmma.h's MFMA at 64."""
    from porter.config import load_config
    from porter.convert import compat
    from porter.verify.run import verify

    result = verify(WMMA, ("gfx942", "gfx1100"), load_config(WMMA), gpus={})
    ports = {(c.name, c.target): c for c in result.cases if c.variant == "emu-port"}
    assert len(ports) == 6, ports
    assert all(c.status == "pass" for (_, t), c in ports.items() if t == "gfx942"), ports
    # RDNA has no MFMA: the port is not run there, and says why (never passed)
    rdna = [c for (_, t), c in ports.items() if t == "gfx1100"]
    assert all(c.status == "not-run" and "porter_wmma.h" in c.reason for c in rdna), rdna
    assert not result.failed

    # the same run with matrix_b's column-major load reading the row-major places: tiled_gemm fails
    right = compat.render_wmma_header()
    wrong = right.replace("offset(k + e, column, ldm, by_rows)", "offset(k + e, column, ldm, true)")
    assert wrong != right
    monkeypatch.setattr("porter.convert.render_wmma_header", lambda: wrong)
    broken = verify(WMMA, ("gfx942",), load_config(WMMA), gpus={})
    status = {c.name: c.status for c in broken.cases if c.variant == "emu-port"}
    assert status["tiled_gemm"] == "fail", status
