"""A scanned tree is hostile until proven otherwise: nothing in it may run on the user's machine.

Each test plants what a malicious repository could hold (markup in comments and file names, shell
syntax in file names and compile_commands.json, huge or nested expressions in verify cases) and
checks that porter treats it as text.
"""

from __future__ import annotations

import json
import re

import pytest
from test_report import rendered_dom
from typer.testing import CliRunner

from porter.cli import app

runner = CliRunner()

SCRIPT = "</script><script>document.title='PWNED-SCRIPT'</script>"
IMAGE = "<img src=x onerror=\"document.title='PWNED-IMG'\">"


def hostile_tree(root):
    """A CUDA file whose comments, code and file name carry live markup, next to findings."""
    root.mkdir()
    name = "k<img src=x onerror=alert(1)>.cu"
    (root / name).write_text(
        "#include <cuda_runtime.h>\n"
        f"// {SCRIPT}\n"
        "__global__ void k(float* x) {\n"
        f"  int lane = threadIdx.x % 32;  // {IMAGE}\n"
        "  x[lane] = 1.0f;\n"
        "}\n"
        f"void run(float* p) {{ cudaMalloc(&p, 4); /* {SCRIPT} */ k<<<1, 32>>>(p); }}\n"
    )
    return name


def test_report_escapes_every_text_from_the_tree(tmp_path):
    tree = tmp_path / "tree"
    hostile_tree(tree)
    scan_json = tmp_path / "scan.json"
    assert runner.invoke(app, ["scan", str(tree), "-f", "json", "-o", str(scan_json)]).exit_code == 0
    build = {
        "porter_version": "x",
        "targets": ["sm_90", "gfx942"],
        "units": [
            {"file": f"u{IMAGE}.cu", "target": "gfx942", "variant": "hip", "status": "failed", "class": SCRIPT, "diagnostic": IMAGE}
        ],
        "kernels": [{"name": f"kern{SCRIPT}", "mangled": "m", "file": "f", "targets": {"gfx942": {"occupancy": 4, "limiter": IMAGE}}}],
    }  # fmt: skip
    (tmp_path / "build.json").write_text(json.dumps(build))
    report = tmp_path / "report.html"
    result = runner.invoke(app, ["report", str(scan_json), str(tmp_path / "build.json"), "-o", str(report)])
    assert result.exit_code == 0, result.output
    html = report.read_text()
    assert "<script" not in html and "<img" not in html
    assert "&lt;/script&gt;&lt;script&gt;" in html and "&lt;img src=x onerror=" in html
    dom = rendered_dom(report, tmp_path).stdout
    title = re.search(r"<title>(.*?)</title>", dom).group(1)
    assert title == "porter port report"  # no payload ran
    assert "PWNED" not in title and "<img src=x" not in dom
    assert "#include &lt;cuda_runtime.h&gt;" in dom or "cudaMalloc(&amp;p, 4)" in dom  # code survives as text
    # messages' `backticked` names render as code, not as raw backticks
    assert "<code>cudaMalloc</code>" in dom and "`cudaMalloc`" not in dom


def test_a_backticked_payload_in_a_message_stays_text():
    from porter.report.render import inline_code

    rendered = str(inline_code(f"`{SCRIPT}` and `{IMAGE}`"))
    assert "<script" not in rendered and "<img" not in rendered
    assert rendered.startswith("<code>&lt;/script&gt;&lt;script&gt;") and rendered.count("<code>") == 2


def test_build_runs_no_shell_command_from_names_or_compile_commands(tmp_path, monkeypatch):
    from compilers import require_nvcc

    require_nvcc()
    tree = tmp_path / "tree"
    (tree / "$(touch PWNED_DIR)").mkdir(parents=True)
    (tree / "$(touch PWNED_DIR)" / "a.cu").write_text("__global__ void a(float* x) { x[0] = 1; }\n")
    (tree / "b`touch PWNED_TICK`.cu").write_text("__global__ void b(float* x) { x[0] = 2; }\n")
    # the definition is a string the kernel measures: it must arrive as the preprocessor's text
    (tree / "c.cu").write_text("__global__ void c(int* x) { x[0] = sizeof(X); }\n")
    marker = tmp_path / "PWNED_DEFINE"
    entry = {"directory": str(tree), "file": "c.cu", "arguments": ["nvcc", f'-DX="$(touch {marker})"', "-c", "c.cu"]}
    (tree / "compile_commands.json").write_text(json.dumps([entry]))
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["build", str(tree), "--target", "sm_90", "--no-cache", "-f", "json"])
    assert result.exit_code in (0, 1), result.output
    units = {u["file"]: u for u in json.loads(result.stdout)["units"]}
    assert not list(tmp_path.rglob("PWNED*")) and not list(tree.rglob("PWNED*"))
    assert units["c.cu"]["status"] == "ok"
    for name in ("$(touch PWNED_DIR)/a.cu", "b`touch PWNED_TICK`.cu"):
        assert units[name]["class"] == "unsafe-input" and "refused to pass" in units[name]["diagnostic"]


@pytest.mark.parametrize(
    "argument, moved",
    [
        ("-DX=1", False),
        ('-DMSG="hello world"', True),
        ("-DPATH=C:\\\\dir", True),
        ("-DFLAG", False),
    ],
)
def test_definitions_a_shell_would_misread_move_into_a_header(tmp_path, argument, moved):
    from porter.targets.nvcc_args import shell_safe

    header = tmp_path / "defines.h"
    command = shell_safe(["nvcc", argument, "a.cu"], header)
    assert (argument not in command) is moved and header.is_file() is moved
    if moved:
        name, _, value = argument[2:].partition("=")
        assert header.read_text() == f"#define {name} {value}\n"
        assert command[1:3] == ["-include", str(header)]


@pytest.mark.parametrize("argument", ["-I/x/$(id)", "a`id`.cu", '-Xcompiler="-O2"', "-DX=a\nb", "a\\b.cu"])
def test_other_arguments_a_shell_would_misread_are_refused(tmp_path, argument):
    from porter.targets.nvcc_args import UnsafeArgument, shell_safe

    with pytest.raises(UnsafeArgument, match="refused to pass"):
        shell_safe(["nvcc", argument], tmp_path / "d.h")


CASE = """
[[verify.case]]
name = "k"
source = "{source}"
kernel = "k"
grid = "{grid}"
block = 32
args = [{{ name = "x", dtype = "f32", size = 32, output = true }}]
"""


@pytest.mark.parametrize(
    "grid, message",
    [
        ("1 << 100000000000", "shifts by"),
        ("-" * 20000 + "1", "characters"),
        ("+".join(["1"] * 5000), "characters"),
        ("-" * 100 + "1", "nests deeper"),
        ("99999999999 * 99999999999 * 99999999999", "64-bit range"),
        ("2 ** 8", "may use integers"),
        ("__import__('os').system('id')", "may use integers"),
    ],
)
def test_verify_expressions_are_bounded(tmp_path, grid, message):
    (tmp_path / "k.cu").write_text("__global__ void k(float* x) {}\n")
    (tmp_path / "porter.toml").write_text(CASE.format(source="k.cu", grid=grid))
    result = runner.invoke(app, ["verify", str(tmp_path), "--target", "sm_90"])
    assert result.exit_code == 2, result.output
    assert re.search(message, result.output), result.output
    assert result.output.count("porter: error:") == 1


@pytest.mark.parametrize("source", ["/etc/passwd", "../../../etc/hostname", "sub/../../x.cu", "link.cu"])
def test_verify_case_sources_stay_inside_the_tree(tmp_path, source):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "link.cu").symlink_to("/etc/hostname")
    (tree / "porter.toml").write_text(CASE.format(source=source, grid=1))
    result = runner.invoke(app, ["verify", str(tree), "--target", "sm_90"])
    assert result.exit_code == 2, result.output
    assert "outside the tree" in result.output or "leads out of" in result.output
    first_line = open("/etc/hostname").readline().strip()
    assert not first_line or first_line not in result.output.replace(str(tmp_path), "")
