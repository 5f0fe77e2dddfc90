"""Bad input ends in one line, `porter: error: …`, and exit 2: never a traceback, never exit 1.

Each case is what a careless user or a hostile tree gave porter once: configuration values of the
wrong type, compilation databases of the wrong shape, baselines and results cut short or nested
past the stack, outputs that cannot be written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from corpus_cases import CORPUS
from typer.testing import CliRunner

from porter.cli import app

runner = CliRunner()
KERNEL = "__global__ void k(float* x) { x[threadIdx.x] = 1; }\n"
DEEP = "[" * 100_000 + "]" * 100_000


def one_error(result, *, code: int = 2) -> str:
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    lines = [line for line in result.output.splitlines() if line.startswith("porter: error:")]
    assert len(lines) == 1, result.output
    return lines[0]


def tree_with(tmp_path: Path, name: str, text: str) -> Path:
    tree = tmp_path / "tree"
    tree.mkdir(exist_ok=True)
    (tree / "k.cu").write_text(KERNEL)
    (tree / name).parent.mkdir(parents=True, exist_ok=True)
    (tree / name).write_text(text)
    return tree


@pytest.mark.parametrize(
    "name, text, says",
    [
        ("pyproject.toml", 'tool = "x"\n', "`tool` must be a table"),
        ("pyproject.toml", "[tool]\nporter = 5\n", "must be a table"),
        ("pyproject.toml", '[tool]\nporter = "str"\n', "must be a table"),
        ("porter.toml", 'tool = ["a"]\n', "`tool` must be a table"),
        ("porter.toml", "targets = 5\n", "list of strings"),
        ("porter.toml", 'targets = ["sm_90"]\n', "not an AMD target"),
        ("porter.toml", 'targets = ["gfx9999"]\n', "unknown target"),
        ("porter.toml", 'rocm-version = "99"\n', "unknown ROCm version"),
        ("porter.toml", "vendored = 1\n", "true or false"),
        ("porter.toml", "rocm-version = [6]\n", "ROCm version"),
        ("porter.toml", "x = [" * 2000 + "]" * 2000 + "\n", "porter.toml"),
        ("porter.toml", "= broken\n", "not valid TOML"),
        ("compile_commands.json", '[{"file": 5}]', "non-empty path"),
        ("compile_commands.json", '[{"file": "k.cu", "directory": [1]}]', "non-empty path"),
        ("compile_commands.json", '[{"file": "k.cu", "arguments": [1, 2]}]', "list of strings"),
        ("compile_commands.json", '[{"file": "k.cu", "arguments": "nvcc"}]', "list of strings"),
        ("compile_commands.json", '[{"file": "k.cu", "command": 7}]', "must be a string"),
        ("compile_commands.json", '[{"file": "k.cu", "command": "nvcc \'-DX"}]', "does not split"),
        ("compile_commands.json", DEEP, "not a valid compilation database"),
        ("compile_commands.json", "{}", "JSON list"),
        ("sub/compile_commands.json", "not json", "not a valid compilation database"),
    ],
)
@pytest.mark.parametrize("command", ["scan", "convert", "build", "verify"])
def test_malformed_configuration_is_one_error_line(tmp_path, name, text, says, command):
    tree = tree_with(tmp_path, name, text)
    if command == "verify" and name.endswith("compile_commands.json"):
        (tree / "porter.toml").write_text(
            '[[verify.case]]\nname = "k"\nsource = "k.cu"\nkernel = "k"\ngrid = 1\nblock = 32\n'
            'args = [{ name = "x", dtype = "f32", size = 32, output = true }]\n'
        )
    args = {
        "scan": ["scan", str(tree)],
        "convert": ["convert", str(tree), "-o", str(tmp_path / "out")],
        "build": ["build", str(tree), "--target", "sm_90"],
        "verify": ["verify", str(tree), "--target", "sm_90"],
    }[command]
    result = runner.invoke(app, args)
    if command == "verify" and name in ("pyproject.toml",) and "porter = " not in text and "tool =" not in text:
        pytest.skip("no verify cases")
    line = one_error(result)
    assert says in line or (command == "verify" and "verify" in line), line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "baseline",
    [
        '{"format": 1, "findings": [{"fingerprint": ["a"]}]}',
        '{"format": 1, "findings": [{"fingerprint": 5}]}',
        '{"format": 1, "findings": {}}',
        '{"format": 2, "findings": []}',
        "[]",
        DEEP,
        "",
        None,  # a folder
    ],
)
def test_check_says_it_could_not_check_with_exit_2(tmp_path, baseline):
    path = tmp_path / "baseline.json"
    if baseline is None:
        path.mkdir()
    else:
        path.write_text(baseline)
    one_error(runner.invoke(app, ["check", str(CORPUS / "api"), "--baseline", str(path)]))


def test_unwritable_outputs_are_one_error_line(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("a file, not a folder")
    target = blocked / "out.json"  # a path under a file: cannot be created, even as root
    one_error(runner.invoke(app, ["check", str(CORPUS / "api"), "--sarif", str(target)]))
    one_error(runner.invoke(app, ["scan", str(CORPUS / "api"), "-o", str(target)]))
    one_error(runner.invoke(app, ["baseline", str(CORPUS / "api"), "-o", str(target)]))
    one_error(runner.invoke(app, ["convert", str(CORPUS / "api"), "-o", str(blocked / "out")]))


SCAN = {"findings": [], "summary": {"root": "."}, "porter_version": "x"}
PARTIAL_RESULTS = [
    {"findings": [{"rule": "X"}], "summary": {}},
    {"findings": "x", "summary": {}},
    {"findings": [], "summary": []},
    {"findings": [1, 2], "summary": {"kernels": 5}},
    {"findings": [{"file": "a", "line": "x", "fix": "auto", "severity": "error", "category": "api"}], "summary": {}},
    {"units": 5},
    {"units": [{"file": "a"}]},
    {"units": [], "kernels": [{"targets": 5}]},
    {"units": [], "kernels": [{"name": "k", "targets": {"sm_90": {"occupancy": "x"}}}]},
    {"cases": 5},
    {"cases": [{"name": "c", "time_ratio": "x"}]},
    {"cases": [None]},
    {"summary": {"mode": "portable"}, "files": 5},
    {"merged": True, "scan": 5},
    {"merged": True, "build": {"units": [1]}},
]


@pytest.mark.parametrize("document", PARTIAL_RESULTS)
@pytest.mark.parametrize("suffix", [".html", ".md", ".sarif", ".json"])
def test_report_on_results_of_the_wrong_shape_is_one_error_line(tmp_path, document, suffix):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(document))
    result = runner.invoke(app, ["report", str(path), "-o", str(tmp_path / f"report{suffix}")])
    if result.exit_code == 0:
        return  # a shape some format does not read is fine: no traceback is the point
    one_error(result)


def test_report_on_deep_json_is_one_error_line(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    one_error(runner.invoke(app, ["report", str(path), "-o", str(tmp_path / "r.html")]))


def test_a_bug_is_a_traceback_with_a_request_to_report_it(monkeypatch, capsys):
    import porter.cli as cli

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr("porter.scan.scan", broken)
    monkeypatch.setattr("sys.argv", ["porter", "scan", str(CORPUS / "api")])
    with pytest.raises(SystemExit) as exit_info:
        cli.run()
    assert exit_info.value.code == 3
    assert "this is a bug in porter" in capsys.readouterr().err
