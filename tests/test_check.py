"""`porter check`: exit codes, the baseline, inline suppressions, fingerprints that survive edits."""

from __future__ import annotations

import json
import shutil

import yaml
from corpus_cases import CORPUS
from typer.testing import CliRunner

from porter.cli import app

runner = CliRunner()

KERNEL = """#include <cuda_runtime.h>
__global__ void k(float* x) {
  int lane = threadIdx.x & 31;
  x[lane] = warpSize;  // the wavefront's width beside a lane taken in 32
}
void run(float* x) { cudaDeviceSynchronize(); k<<<1, 64>>>(x); }
"""


def project(tmp_path, text=KERNEL):
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    (root / "k.cu").write_text(text)
    return root


def test_exit_codes_without_a_baseline(tmp_path):
    root = project(tmp_path)
    assert runner.invoke(app, ["check", str(root)]).exit_code == 1  # WRP001 is an error
    assert runner.invoke(app, ["check", str(root), "--fail-on", "error"]).exit_code == 1
    clean = project(tmp_path, "int f() { return 1; }\n")
    assert runner.invoke(app, ["check", str(clean)]).exit_code == 0
    assert runner.invoke(app, ["check", str(clean), "--fail-on", "loud"]).exit_code == 2
    assert runner.invoke(app, ["check", str(tmp_path / "nowhere")]).exit_code == 2


def test_the_baseline_absorbs_old_findings_and_a_new_one_fails(tmp_path):
    root = project(tmp_path)
    baseline = tmp_path / "baseline.json"
    written = runner.invoke(app, ["baseline", str(root), "--output", str(baseline)])
    assert written.exit_code == 0 and baseline.is_file()
    assert runner.invoke(app, ["check", str(root), "--baseline", str(baseline)]).exit_code == 0
    # unrelated edits move every line: the baseline still holds
    (root / "k.cu").write_text(
        "// a new header comment\n\n" + KERNEL.replace("x[lane] = warpSize;", "x[lane] = warpSize + 1;")
    )
    assert runner.invoke(app, ["check", str(root), "--baseline", str(baseline)]).exit_code == 0
    # a new hazard fails, and is the only one listed
    (root / "k.cu").write_text(
        KERNEL + "__global__ void j(int* y) { int warp = threadIdx.x >> 5; y[warp] = warpSize; }\n"
    )
    result = runner.invoke(app, ["check", str(root), "--baseline", str(baseline), "--format", "json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert [f["rule"] for f in report["new"]] == ["WRP001"] and report["known"] >= 3


def test_fail_on_threshold(tmp_path):
    root = project(tmp_path, "#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n")
    assert runner.invoke(app, ["check", str(root)]).exit_code == 0  # only info findings
    assert runner.invoke(app, ["check", str(root), "--fail-on", "info"]).exit_code == 1


def test_inline_and_file_suppressions_are_counted(tmp_path):
    suppressed = KERNEL.replace(
        "int lane = threadIdx.x & 31;", "int lane = threadIdx.x & 31;  // porter: ignore[WRP001]"
    )
    root = project(tmp_path, suppressed)
    result = runner.invoke(app, ["check", str(root), "--format", "json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["suppressed"] == 1
    above = KERNEL.replace("  int lane", "  // porter: ignore\n  int lane")
    (root / "k.cu").write_text(above)
    assert runner.invoke(app, ["check", str(root)]).exit_code == 0
    (root / "k.cu").write_text("// porter: ignore-file[WRP001, API001]\n" + KERNEL)
    scan = json.loads(runner.invoke(app, ["scan", str(root), "-f", "json"]).stdout)
    assert scan["summary"]["suppressed"] == {"API001": 1, "WRP001": 1}
    assert {f["rule"] for f in scan["findings"]} == {"API005", "API006"}


def test_broken_baseline_is_named(tmp_path):
    root = project(tmp_path)
    bad = tmp_path / "baseline.json"
    bad.write_text("[1, 2]")
    result = runner.invoke(app, ["check", str(root), "--baseline", str(bad)])
    assert result.exit_code == 2 and "not a porter baseline" in result.output
    missing = runner.invoke(app, ["check", str(root), "--baseline", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "no such baseline" in missing.output


def test_check_writes_sarif_for_code_scanning(tmp_path):
    root = project(tmp_path)
    sarif = tmp_path / "porter.sarif"
    runner.invoke(app, ["check", str(root), "--sarif", str(sarif)])
    assert json.loads(sarif.read_text())["version"] == "2.1.0"


def test_sarif_to_standard_output_is_the_only_document_there(tmp_path):
    """`--sarif -` writes the SARIF to standard output, as `-o -` does; the gate's listing then goes
    to standard error, where the two were printed one after the other (no JSON reader takes that)."""
    import os
    import subprocess
    import sys

    root = project(tmp_path)
    env = dict(os.environ, PORTER_CACHE=str(tmp_path / "cache"))
    for listing in ("text", "json"):
        command = [sys.executable, "-m", "porter", "check", str(root), "--sarif", "-", "-f", listing]
        done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, timeout=300, check=False)
        assert done.returncode == 1, done.stderr  # the kernel's findings are new: the gate fails
        assert json.loads(done.stdout)["version"] == "2.1.0"
        assert "k.cu" in done.stderr.decode()
        assert not (tmp_path / "-").exists()


def test_ci_init_writes_a_workflow_that_parses_and_names_real_commands(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(CORPUS / "api", repo)
    result = runner.invoke(app, ["ci", "init", str(repo), "--gpu-labels", "self-hosted,mi300"])
    assert result.exit_code == 0, result.output
    workflow = yaml.safe_load((repo / ".github/workflows/porter-rocm.yml").read_text())
    steps = workflow["jobs"]["porter-cpu"]["steps"]
    commands = [s["run"] for s in steps if "run" in s]
    porter_commands = [c.split()[1] for c in commands if c.startswith("porter ")]
    registered = {c.name or c.callback.__name__ for c in app.registered_commands}
    assert "check" in porter_commands and set(porter_commands) <= registered | {"setup"}
    assert any(s.get("uses", "").startswith("github/codeql-action/upload-sarif") for s in steps)
    hooks = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())
    assert hooks["repos"][0]["hooks"][0]["entry"].startswith("porter check")
    # an existing pre-commit config is left alone
    (repo / ".pre-commit-config.yaml").write_text("repos: []\n")
    again = runner.invoke(app, ["ci", "init", str(repo)])
    assert "exists: add this hook" in again.output and (repo / ".pre-commit-config.yaml").read_text() == "repos: []\n"


def test_ci_init_dry_run_writes_nothing(tmp_path):
    result = runner.invoke(app, ["ci", "init", str(tmp_path), "--dry-run"])
    assert result.exit_code == 0 and "--- " in result.output and "porter check" in result.output
    assert not (tmp_path / ".github").exists()
