"""Pathological files cost bounded time and memory and say what was not analysed (SCN001, SCN002)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from porter.cli import app
from porter.rules.scan_limits import FINDINGS_PER_RULE, FULL_ANALYSIS_BYTES

runner = CliRunner()


def test_a_file_past_the_limit_gets_the_token_pass_and_says_so(tmp_path):
    line = b"void f(float** p) { cudaMalloc(p, 4); }  // padding padding padding padding padding\n"
    (tmp_path / "huge.cu").write_bytes(line * (FULL_ANALYSIS_BYTES // len(line) + 10))
    result = runner.invoke(app, ["scan", str(tmp_path), "-f", "json", "--no-cache"])
    findings = json.loads(result.stdout)["findings"]
    rules = [f["rule"] for f in findings]
    assert rules.count("SCN001") == 1 and "API001" in rules  # the name tables still ran
    assert rules.count("API001") == FINDINGS_PER_RULE and rules.count("SCN002") == 1
    capped = next(f for f in findings if f["rule"] == "SCN002")
    assert f"the first {FINDINGS_PER_RULE} are listed" in capped["message"]


def test_convert_applies_every_fix_however_many(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    # butterflies unrolled from 16: each first step is one automatic fix (WRP002)
    body = "  v += __shfl_down(v, 16);\n  v += __shfl_down(v, 8);\n" * (FINDINGS_PER_RULE + 50)
    (src / "k.cu").write_text(f"__global__ void k(float* o) {{\n  float v = o[threadIdx.x];\n{body}  o[0] = v;\n}}\n")
    done = runner.invoke(app, ["convert", str(src), "-o", str(tmp_path / "out"), "-f", "json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["summary"]["fixes_by_category"]["warp-size"] == FINDINGS_PER_RULE + 50
    assert "__shfl_down(v, 16)" not in (tmp_path / "out" / "k.cu").read_text()
