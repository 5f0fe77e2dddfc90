"""Bad input gets a clear error that names the problem, never a traceback."""

from __future__ import annotations

import json

import pytest
from corpus_cases import CORPUS
from typer.testing import CliRunner

from porter.cli import app

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args))


def test_missing_path_is_named():
    result = invoke("scan", "/no/such/tree")
    assert result.exit_code == 2
    assert "/no/such/tree: no such file or directory" in result.output
    assert "Traceback" not in result.output


def test_unknown_flag_is_a_usage_error():
    result = invoke("scan", str(CORPUS), "--colour")
    assert result.exit_code == 2
    assert "No such option" in result.output


def test_unknown_format_is_rejected():
    result = invoke("scan", str(CORPUS), "--format", "xml")
    assert result.exit_code == 2
    assert "xml" in result.output


def test_unknown_target_is_named():
    result = invoke("scan", str(CORPUS / "api"), "--target", "gfx9000")
    assert result.exit_code == 2
    assert "unknown target 'gfx9000'" in result.output


def test_bad_rocm_version_is_named():
    result = invoke("scan", str(CORPUS / "api"), "--rocm-version", "six")
    assert result.exit_code == 2
    assert "ROCm version" in result.output


def test_bad_deep_mode_is_named():
    result = invoke("scan", str(CORPUS / "api"), "--deep", "sometimes")
    assert result.exit_code == 2
    assert "--deep" in result.output


def test_file_of_unknown_kind_is_named(tmp_path):
    odd = tmp_path / "notes.txt"
    odd.write_text("cudaMalloc")
    result = invoke("scan", str(odd))
    assert result.exit_code == 2
    assert "not a CUDA, C++, Python or CMake file" in result.output


def test_broken_config_names_the_file(tmp_path):
    (tmp_path / "porter.toml").write_text("targets = [gfx942\n")
    (tmp_path / "a.cu").write_text("int x;\n")
    result = invoke("scan", str(tmp_path))
    assert result.exit_code == 2
    assert "porter.toml: not valid TOML" in result.output


def test_unknown_config_key_is_named(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.porter]\ntargest = ['gfx942']\n")
    (tmp_path / "a.cu").write_text("int x;\n")
    result = invoke("scan", str(tmp_path))
    assert result.exit_code == 2
    assert "unknown key(s) targest" in result.output


def test_rules_lists_every_rule_and_explains_one():
    listing = invoke("rules")
    assert listing.exit_code == 0
    assert "API001" in listing.output and "LIB010" in listing.output and "BLD003" in listing.output
    explained = invoke("rules", "LIB010")
    assert explained.exit_code == 0
    for heading in ("## What it does", "## Why is this bad on AMD?", "## Example", "## Use instead"):
        assert heading in explained.output
    by_name = invoke("rules", "cudnn-to-miopen")
    assert by_name.output == explained.output


def test_unknown_rule_is_named():
    result = invoke("rules", "XYZ999")
    assert result.exit_code == 2
    assert "no rule 'XYZ999'" in result.output


def test_rules_json():
    rows = json.loads(invoke("rules", "--format", "json").output)
    assert {"id", "name", "category", "severity", "fix", "summary"} <= set(rows[0])


def test_version():
    assert invoke("--version").output.startswith("porter ")


def _one_verify_case(tmp_path) -> list[str]:
    """A tree with one emulated verify case (the corpus's block sum), to keep the run short."""
    import re

    from corpus_cases import CORPUS

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "reductions.cu").write_bytes((CORPUS / "emulate" / "reductions.cu").read_bytes())
    declared = (CORPUS / "emulate" / "porter.toml").read_text(encoding="utf-8")
    first = re.search(r"\[\[verify\.case\]\]\nname = \"block_sum\".*?(?=\n\[\[)", declared, re.S).group(0)
    (tree / "porter.toml").write_text(first + "\n", encoding="utf-8")
    return ["verify", str(tree), "--target", "gfx942"]


@pytest.mark.parametrize("command_name", ["scan", "verify"])
def test_progress_shows_on_a_terminal_and_not_in_a_pipe(command_name, tmp_path):
    """scan and verify draw rich's progress on stderr only when stderr is a terminal (checked with a
    pseudo-terminal)."""
    import os
    import pty
    import subprocess
    import sys

    from corpus_cases import CORPUS

    arguments = (
        ["scan", str(CORPUS / "warp_size"), "--no-cache"] if command_name == "scan" else _one_verify_case(tmp_path)
    )
    command = [sys.executable, "-m", "porter", *arguments, "-o", str(tmp_path / "o.txt")]
    piped = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert piped.returncode == 0 and piped.stderr == ""
    leader, follower = pty.openpty()
    process = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, close_fds=True)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    assert process.wait(timeout=300) == 0
    assert b"\x1b[" in seen  # the terminal got drawing sequences: the progress bar


def test_output_to_a_fifo_is_written_through_and_the_fifo_stays(tmp_path):
    """`-o` at something that is not a regular file (a FIFO here; /dev/null in a user's hands) gets
    the report written into it; renaming a new file over it, as porter did, replaced the device."""
    import os
    import stat
    import threading

    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = invoke("scan", str(CORPUS / "warp_size"), "--no-cache", "--format", "json", "-o", str(fifo))
    if os.path.exists(fifo) and stat.S_ISFIFO(os.lstat(fifo).st_mode):
        reader.join(timeout=60)
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert json.loads(received[0])["findings"]


def test_dash_output_is_standard_output_and_writes_no_file(tmp_path):
    """`-o -` is standard output, as in other command-line tools: a file named `-` was written in
    the working directory instead. The memo's replay of the same run prints it again."""
    import os
    import subprocess
    import sys

    command = [sys.executable, "-m", "porter", "scan", str(CORPUS / "warp_size"), "-f", "json", "-o", "-"]
    env = dict(os.environ, PORTER_CACHE=str(tmp_path / "cache"))
    for _ in range(2):  # the first run records, the second replays
        done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["findings"]
        assert not (tmp_path / "-").exists()


def test_output_through_a_symbolic_link_replaces_its_target(tmp_path):
    """A link to a report file keeps being a link; the file it names gets the new report."""
    target = tmp_path / "reports" / "scan.json"
    target.parent.mkdir()
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    result = invoke("scan", str(CORPUS / "warp_size"), "--no-cache", "--format", "json", "-o", str(link))
    assert result.exit_code == 0, result.output
    assert link.is_symlink()
    assert json.loads(target.read_text(encoding="utf-8"))["findings"]


@pytest.mark.parametrize("enabled", [True, False])
def test_scan_and_convert_leave_the_cycle_collector_as_they_found_it(tmp_path, enabled):
    """The collector is off while a scan's results are built and reported (a flashinfer scan's
    objects cost its passes ~110 ms): a caller in the same process, and every command after an
    error, gets it back as it was."""
    import gc

    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        assert invoke("scan", str(CORPUS / "warp_size"), "--no-cache", "-o", str(tmp_path / "o.txt")).exit_code == 0
        assert gc.isenabled() is enabled
        converted = invoke("convert", str(CORPUS / "warp_size"), "-o", str(tmp_path / "out"))
        assert converted.exit_code == 0 and (tmp_path / "out").is_dir()
        assert gc.isenabled() is enabled
        # a run that ends in an error (a file it cannot decode): the collector still comes back
        broken = tmp_path / "broken"
        broken.mkdir()
        (broken / "wide.cu").write_bytes(b"\0k\0e\0r\0n\0e\0l" * 64)
        assert invoke("scan", str(broken), "--no-cache", "-o", str(tmp_path / "b.txt")).exit_code == 2
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
