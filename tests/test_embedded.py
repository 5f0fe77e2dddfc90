"""CUDA in Python strings (porter.embedded): found where Python holds it, read as the code that
runs, reported at the Python file's lines, never rewritten.

The view is checked against Python's own parser (the string values `ast` computes) and against
nvcc, which compiles it; the findings against the corpus cases' `expect:` comments (test_corpus).
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest
from compilers import nvcc_compile

from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.discover import discover
from porter.embedded import device_code, device_code_view, device_literals
from porter.findings import FixKind
from porter.scan import scan

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
CASES = sorted((CORPUS / "embedded").glob("*.py")) + [
    CORPUS / "emulate" / "embedded_row_sums.py",
    CORPUS / "emulate" / "ports" / "embedded_row_sums.py",
]
DEVICE_WORDS = ("__global__", "__device__", "threadIdx", "__shfl", "warpSize")


def _python_device_strings(data: bytes) -> list[str]:
    """The values of the file's string constants that name device code, docstrings and other bare
    string statements left out: what Python itself hands to cupy or NVRTC."""
    tree = ast.parse(data)
    bare = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    formatted = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in ast.walk(node)}
    constants = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in bare | formatted
        and any(word in node.value for word in DEVICE_WORDS)
    ]
    return [_fields_named(node.value) for node in sorted(constants, key=lambda node: (node.lineno, node.col_offset))]


def _fields_named(value: str) -> str:
    """`%(name)s` and `${name}` as the view spells them: a name as wide (blanks after a name)."""

    def named(match: re.Match) -> str:
        after_name = match.start() > 0 and (value[match.start() - 1].isalnum() or value[match.start() - 1] == "_")
        return " " * len(match.group()) if after_name else re.sub(r"\W", "_", match.group())

    return re.sub(r"\$\{\w+\}|\$\w+|%\(\w+\)[sdi]", named, value)


def _words(text: str) -> list[str]:
    return text.split()


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_the_view_is_the_code_python_compiles(path):
    data = path.read_bytes()
    assert len(device_code(data)) == len(data) and device_code(data).count(b"\n") == data.count(b"\n")
    view = device_code_view(data, [literal for literal in device_literals(data) if not literal.formatted])
    expected = [word for value in _python_device_strings(data) for word in _words(value)]
    assert _words(view.decode()) == expected


def test_escapes_are_read_as_python_reads_them():
    data = b'K = (\n    "extern \\"C\\" __global__ void k(int* x) {\\n"\n    "  x[threadIdx.x] = \'\\\\0\';\\n"\n    "}\\n"\n)\n'
    view = device_code(data).decode()
    assert _words(view) == _words(ast.literal_eval(data.decode().split("=", 1)[1].strip()))
    assert view.splitlines()[1].strip() == 'extern "C" __global__ void k(int* x) {'


def test_docstrings_and_untokenizable_files_hold_no_code():
    docstring = b'def f():\n    """Launch the __global__ kernel; threadIdx.x % 32 is the lane."""\n    return 1\n'
    assert device_literals(docstring) == []
    unterminated = b'K = r"""\n__global__ void k() { int lane = threadIdx.x % 32; }\n'
    assert device_literals(unterminated) == []


def test_an_f_string_is_read_as_the_code_it_becomes():
    data = (
        b'K = rf"""\nstruct P {{ int k[{ROUNDS}]; }};\n__global__ void f(int* x) {{ x[threadIdx.x] = {V * 2}; }}\n"""\n'
    )
    view = device_code(data).decode()
    assert len(view) == len(data)
    assert view.splitlines()[1] == "struct P {  int k[_ROUNDS_]; } ;"
    assert view.splitlines()[2] == "__global__ void f(int* x) {  x[threadIdx.x] = _V___2_; } "


def test_a_template_str_format_fills_in_is_read_as_the_code_it_becomes(tmp_path):
    """natten's kernel generator (0.21.7, scripts/autogen_fmha.py): a plain string whose `{CPP_CLASS}`
    fields `.format` fills in, its braces doubled. Read as written, `{CPP_CLASS}::kNumThreads` split
    the launch bounds in three (a cluster size, LBD002) and the second was misnamed."""
    template = (
        b'KERNEL = """__global__ void __launch_bounds__(\n    {CPP_CLASS}::kNumThreads,\n    {CPP_CLASS}::kMinBlocksPerSm)\n'
        b'{NAME}(typename {CPP_CLASS}::Params p) {{\n  p.run();\n}}\n"""\n'
    )
    data = template + b'print(KERNEL.format(CPP_CLASS="K", NAME="k"))\n'
    view = device_code(data).decode()
    assert "_CPP_CLASS_::kMinBlocksPerSm)" in view and "_NAME_(typename _CPP_CLASS_::Params p) { " in view
    called_on_it = b'K = """__global__ void k(int* p) {{ p[0] = {x}; }}""".format(x=1)\n'
    assert "{  p[0] = _x_; } " in device_code(called_on_it).decode()
    assert "{CPP_CLASS}::kNumThreads" in device_code(template).decode()  # never formatted: read as written
    (tmp_path / "autogen.py").write_bytes(data)
    found = scan([tmp_path], Config(), jobs=1).findings
    assert sorted(f.rule for f in found) == ["EMB001", "LBD001"]
    assert "reads _CPP_CLASS_::kMinBlocksPerSm as waves per SIMD" in next(
        f.message for f in found if f.rule == "LBD001"
    )


def test_fields_python_fills_in_read_as_names_so_the_kernels_parse():
    """pycuda's `%(name)s` and string.Template's `${name}`: no C spells them, so each reads as a
    name of its own width (or blanks where it ends a name: `curand%(suffix)s(` calls `curand`)."""
    data = (CORPUS / "embedded" / "templated.py").read_bytes()
    view = device_code(data).decode()
    assert "__global__ void __name_s(const value_type* x" in view
    assert 'extern "C" __global__ void __name_(__value_type_* x, __value_type_ s)' in view
    assert (
        "x[0] = curand          (&s)"
        in device_code(b'K = """__global__ void k() { x[0] = curand%(suffix)s(&s); }"""\n').decode()
    )
    result = scan([CORPUS / "embedded" / "templated.py"], Config(), jobs=1)
    assert result.files[0].parse_errors == 0 and len(result.files[0].kernels) == 2


@pytest.mark.parametrize("name", ["_ROW_COUNT_SOURCE", "_SCALE_SOURCE"])
def test_the_view_of_a_cupy_module_compiles_with_nvcc(tmp_path, name):
    view = tmp_path / "row_counts.cu"
    view.write_bytes(device_code((CORPUS / "embedded" / "row_counts.py").read_bytes(), name))
    built = nvcc_compile(view, tmp_path)
    assert built.returncode == 0, built.stderr


def test_findings_stand_at_the_python_lines_with_their_fixes_withheld():
    result = scan([CORPUS / "embedded" / "row_counts.py"], Config(), jobs=1)
    lines = (CORPUS / "embedded" / "row_counts.py").read_text().splitlines()
    findings = result.findings
    assert [f.rule for f in findings].count("EMB001") == 1
    assert {f.fix for f in findings} == {FixKind.MANUAL} and not any(f.edits for f in findings)
    ladder = next(f for f in findings if f.rule == "WRP002")
    assert lines[ladder.line - 1][ladder.span.column - 1 :].startswith("16; offset > 0")


def test_discovery_takes_python_files_that_hold_device_code_only(tmp_path):
    (tmp_path / "plain.py").write_text("import numpy\nprint(numpy.zeros(32))\n")
    (tmp_path / "kernels.py").write_bytes((CORPUS / "embedded" / "row_counts.py").read_bytes())
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup()\n")
    found = {f.rel: str(f.kind) for f in discover([tmp_path], Config()).files}
    assert found == {"kernels.py": "python", "setup.py": "setup.py"}


@pytest.mark.parametrize("mode", ["portable", "hip"])
def test_convert_leaves_python_files_as_they_are(tmp_path, mode):
    tree = tmp_path / "tree"
    shutil.copytree(CORPUS / "embedded", tree)
    out = tmp_path / "out"
    convert(ConvertOptions(tree, out, mode, annotate=True), Config())
    for path in tree.glob("*.py"):
        assert (out / path.name).read_bytes() == path.read_bytes()
    assert not (out / "porter_compat.h").exists()


def test_suppressions_are_read_in_the_strings_and_in_python_comments(tmp_path):
    (tmp_path / "k.py").write_text(
        "K = (\n"
        '    "__global__ void k(float* x) {\\n"\n'
        '    "  int lane = threadIdx.x & 31;\\n"  # porter: ignore[WRP001]\n'
        '    "  x[lane] = x[threadIdx.x % 32];  // porter: ignore[WRP001]\\n"\n'
        '    "  { int lane = threadIdx.x & 31; x[lane] = warpSize; }\\n"\n'
        '    "}\\n"\n'
        ")\n"
    )  # `warpSize` asks for the wavefront: the lanes taken with 31 beside it are a 32-lane assumption
    result = scan([tmp_path], Config(), jobs=1)
    assert [(f.line, f.rule) for f in result.findings] == [(2, "EMB001"), (5, "WRP001")]
    assert sorted(f.line for f in result.files[0].suppressed) == [3, 4]


def test_a_string_is_chosen_by_the_name_it_is_given_to():
    data = (CORPUS / "embedded" / "row_counts.py").read_bytes()
    names = {literal.name for literal in device_literals(data)}
    assert names == {"_ROW_COUNT_SOURCE", "_SCALE_SOURCE", "_TEMPLATE"}
    chosen = device_code(data, "_SCALE_SOURCE").decode()
    assert "scale_rows" in chosen and "row_count" not in chosen
    assert device_code(data, "_MISSING").strip() == b""


def test_a_verify_case_names_its_string_and_fails_clearly_without_one(tmp_path):
    from porter.config import ConfigError, load_config
    from porter.verify.cases import load_cases
    from porter.verify.run import verify

    shutil.copy(CORPUS / "embedded" / "row_counts.py", tmp_path / "row_counts.py")
    case = (
        '[[verify.case]]\nname = "k"\nsource = "{source}"\nstring = "{string}"\nkernel = "scale_rows"\n'
        'grid = 1\nblock = 64\nargs = [{{ name = "x", dtype = "f32", size = 64, init = "arange", output = true }},'
        ' {{ name = "s", dtype = "f32", size = 1, init = "const(2)" }}, {{ name = "n", dtype = "i32", value = "1" }}]\n'
    )
    (tmp_path / "porter.toml").write_text(case.format(source="row_counts.cu", string="_SCALE_SOURCE"))
    with pytest.raises(ConfigError, match="is not a Python file"):
        load_cases(load_config(tmp_path))
    (tmp_path / "porter.toml").write_text(case.format(source="row_counts.py", string="_MISSING"))
    with pytest.raises(ConfigError, match="holds no device code in a string given to `_MISSING`"):
        verify(tmp_path, ("gfx942",), load_config(tmp_path), gpus={"nvidia": [], "amd": []})


def test_a_python_kernel_runs_on_an_amd_target_with_the_macros_hiprtc_defines(tmp_path):
    """cupy on ROCm compiles a string with hipRTC, which defines __HIP_DEVICE_COMPILE__: the port
    at gfx942 takes the kernel's HIP branch, the CUDA reference its other one."""
    from porter.config import load_config
    from porter.verify.run import verify

    (tmp_path / "k.py").write_text(
        "_K = r'''\n"
        'extern "C" __global__ void which(int* out) {\n'
        "#ifdef __HIP_DEVICE_COMPILE__\n"
        "  out[threadIdx.x] = __AMDGCN_WAVEFRONT_SIZE;\n"
        "#else\n"
        "  out[threadIdx.x] = 32;\n"
        "#endif\n"
        "}\n"
        "'''\n"
    )
    (tmp_path / "porter.toml").write_text(
        '[[verify.case]]\nname = "which"\nsource = "k.py"\nstring = "_K"\nkernel = "which"\nexpect = "fail"\n'
        'grid = 1\nblock = 64\nargs = [{ name = "out", dtype = "i32", size = 64, init = "zeros", output = true }]\n'
    )
    result = verify(tmp_path, ("gfx942", "gfx1100"), load_config(tmp_path), gpus={"nvidia": [], "amd": []})
    rows = {c.target: c for c in result.cases}
    assert rows["cpu-w32"].status == "pass"
    assert rows["gfx942"].status == "fail" and rows["gfx942"].mismatches == 64  # 64 where CUDA wrote 32
    assert rows["gfx1100"].status == "pass"  # its wavefront is 32: the HIP branch writes 32 too
    assert not result.failed


def test_arange_takes_a_start_and_a_step():
    from porter.verify.cases import _generator

    assert _generator("arange", "x") == ("arange", (0.0, 1.0))
    assert _generator("arange(0, 300)", "x") == ("arange", (0.0, 300.0))
