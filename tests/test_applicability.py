"""Applicability decides what convert applies: automatic fixes always, suggested ones only with
--unsafe-fixes, manual ones never; the summary counts exactly what was applied."""

from __future__ import annotations

import json

from corpus_cases import CORPUS
from typer.testing import CliRunner

from porter.cli import app
from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.findings import FixKind
from porter.scan import scan

runner = CliRunner()


# cuBLASLt's hipBLASLt names are checked from ROCm 6.4 on: for ROCm 5.7 their renames are suggested
ROCM_5_7 = Config(rocm_version="5.7")


def test_no_suggested_edit_is_applied_without_the_flag(tmp_path):
    src = CORPUS / "library"
    suggested = [f for f in scan([src], ROCM_5_7).findings if f.fix is FixKind.SUGGESTED and f.edits]
    assert suggested, "the corpus needs suggested findings with edits (cuBLASLt names) for this test"
    for mode in ("hip", "portable"):
        result = convert(ConvertOptions(src, tmp_path / mode, mode), ROCM_5_7)
        applied = [f for o in result.files for f in o.applied]
        assert applied and all(f.fix is FixKind.AUTO for f in applied)
        text = (tmp_path / mode / "cublaslt_matmul.cpp").read_text()
        assert "cublasLtMatmulDescCreate" in text and "hipblasLtMatmulDescCreate" not in text
        left = {(f.rule, f.line) for o in result.files for f in o.left}
        assert {(f.rule, f.line) for f in suggested} <= left


def test_unsafe_fixes_apply_suggested_edits_and_count_them(tmp_path):
    src = CORPUS / "library"
    out = tmp_path / "hip"
    arguments = ["convert", str(src), "-o", str(out), "--mode", "hip", "--unsafe-fixes", "--rocm-version", "5.7"]
    done = runner.invoke(app, [*arguments, "-f", "json"])
    assert done.exit_code == 0, done.output
    text = (out / "cublaslt_matmul.cpp").read_text()
    assert "hipblasLtMatmulDescCreate" in text
    report = json.loads(done.stdout)
    applied = [f for file in report["files"] for f in file["applied"]]
    assert any(f["rule"] == "LIB002" and f["fix"] == "suggested" for f in applied)
    assert report["summary"]["fixes_applied"] == len(applied)
    left = [f for file in report["files"] for f in file["left"]]
    assert not any(f["rule"] == "LIB002" for f in left)


def test_manual_findings_carry_no_edits():
    findings = scan([CORPUS], Config()).findings
    assert all(not f.edits for f in findings if f.fix is FixKind.MANUAL)


def test_lane_math_of_a_matrix_fragment_is_suggested_and_a_reductions_stays_automatic():
    """corpus/matrix/mma_fragment_lanes.cu: the GEMM kernel's `% 32` and `/ 32` lay out an mma.sync
    fragment (through the file's ldmatrix and mma helpers), which the MFMA rewrite decides; the
    reduction beside it reaches no fragment, and its lane is widened automatically."""
    path = CORPUS / "matrix" / "mma_fragment_lanes.cu"
    findings = scan([path], Config(targets=("gfx942",))).findings
    kinds = {f.line: f.fix for f in findings if f.rule == "WRP001"}
    assert kinds == {25: FixKind.SUGGESTED, 26: FixKind.SUGGESTED, 43: FixKind.AUTO}
    assert all("`ldmatrix`" in f.message for f in findings if f.rule == "WRP001" and f.line < 40)
