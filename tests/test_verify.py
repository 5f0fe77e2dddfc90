"""porter verify: cases, comparison, harness builds for both vendors, honesty without a GPU."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from compilers import require_hip, require_nvcc
from corpus_cases import CORPUS
from typer.testing import CliRunner

from porter.cli import app
from porter.config import Config, ConfigError, load_config
from porter.verify import extension
from porter.verify.cases import Tolerance, load_cases
from porter.verify.compare import compare
from porter.verify.run import detect_gpus, verify

VERIFY_CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "verify"
NO_GPUS = {"nvidia": [], "amd": []}


def test_corpus_cases_load_with_their_launch_geometry():
    cases = {c.name: c for c in load_cases(load_config(VERIFY_CORPUS))}
    assert cases["saxpy"].grid == ((100000 + 255) // 256, 1, 1)
    assert cases["row_sum"].args[0].size == 512 * 1024
    assert cases["row_sum_planted_half_wave"].expect == "fail"


@pytest.mark.parametrize(
    ("case", "message"),
    [
        (
            {"args": [{"name": "x", "dtype": "f32", "size": 4, "output": True}], "grid": "n +", "block": 1},
            "not an expression",
        ),
        ({"args": [{"name": "x", "dtype": "f32", "size": "m", "output": True}], "grid": 1, "block": 1}, "'m'"),
        ({"args": [{"name": "x", "dtype": "f32", "size": 4}], "grid": 1, "block": 1}, "output = true"),
        ({"args": [{"name": "x", "dtype": "f7", "size": 4, "output": True}], "grid": 1, "block": 1}, "unknown dtype"),
        (
            {
                "args": [{"name": "x", "dtype": "f32", "size": 4, "init": "gauss", "output": True}],
                "grid": 1,
                "block": 1,
            },
            "unknown generator",
        ),
        (
            {
                "args": [{"name": "x", "dtype": "f32", "size": 4, "output": True}],
                "grid": "__import__('os')",
                "block": 1,
            },
            "may use integers",
        ),
        ({"args": [{"name": "x", "dtype": "f32", "size": 4, "output": True}], "grid": 0, "block": 1}, "positive"),
        ({"args": {"name": "x"}, "grid": 1, "block": 1}, "expected a list"),
        ({"args": ["x"], "grid": 1, "block": 1}, "expected a table"),
        ({"args": [{"name": "a", "dtype": "f32", "value": "alpha"}], "grid": 1, "block": 1}, "expected a number"),
        ({"args": [{"name": "a", "dtype": "f32", "value": float("nan")}], "grid": 1, "block": 1}, "finite number"),
        (
            {
                "args": [{"name": "x", "dtype": "f32", "size": 4, "init": "const(inf)", "output": True}],
                "grid": 1,
                "block": 1,
            },
            "finite numbers",
        ),
        ({"args": [{"name": "../x", "dtype": "f32", "size": 4, "output": True}], "grid": 1, "block": 1}, "valid name"),
        (
            {"args": [{"name": "x", "dtype": "f32", "size": 4, "output": True}], "grid": 1, "block": 1, "reps": "many"},
            "expected an integer",
        ),
        (
            {
                "args": [{"name": "x", "dtype": "f32", "size": 4, "output": True}],
                "grid": 1,
                "block": 1,
                "tolerance": {"f32": {"rtol": "tight"}},
            },
            "expected a number",
        ),
        (
            {
                "args": [{"name": "x", "dtype": "f32", "size": 4, "output": True}],
                "grid": 1,
                "block": 1,
                "kernel": 'k); system("rm"',
            },
            "valid name",
        ),
        (
            {
                "args": [{"name": "x", "dtype": "f32", "size": 4, "output": True}],
                "grid": 1,
                "block": 1,
                "params": {"n": "4"},
            },
            "expected an integer",
        ),
        (
            {"args": [{"name": "x", "dtype": "f32", "size": 4, "output": True}], "grid": 1, "block": 1, "source": 3},
            "expected a path",
        ),
    ],
)
def test_bad_cases_name_the_problem(case, message):
    table = {"verify": {"case": [{"name": "c", "source": "k.cu", "kernel": "k", "params": {"n": 4}, **case}]}}
    with pytest.raises(ConfigError, match=message):
        load_cases(Config(raw=table))


def test_a_verify_entry_that_is_not_a_table_is_named():
    with pytest.raises(ConfigError, match="verify: expected a table"):
        load_cases(Config(raw={"verify": ["case"]}))


def _sum_rows(values: np.ndarray, lanes: int) -> np.ndarray:
    return values.reshape(-1, lanes).sum(axis=1, dtype=np.float32)


def test_a_reduction_that_drops_half_a_wave_fails():
    rng = np.random.default_rng(7)
    values = rng.standard_normal(64 * 128).astype(np.float32)
    whole = _sum_rows(values, 64)
    half = _sum_rows(values.reshape(-1, 64)[:, :32].ravel(), 32)
    result = compare(whole, half, "f32", Tolerance(rtol=1e-5, atol=1e-5))
    assert not result.passed and result.mismatches > 100 and result.first_mismatch == 0
    assert result.max_abs_err > 1.0


def test_a_truncated_64_bit_mask_fails():
    masks = np.array([0xFFFFFFFFFFFFFFFF, 0x8000000100000001, 0x00000000FFFFFFFF], dtype=np.uint64)
    truncated = masks & np.uint64(0xFFFFFFFF)
    result = compare(masks, truncated, "u64", Tolerance())
    assert not result.passed and result.mismatches == 2 and result.first_mismatch == 0


def test_ulps_nans_and_allowed_mismatches():
    expected = np.array([1.0, np.nan, -0.0, 3.0], dtype=np.float32)
    one_ulp = np.nextafter(expected, np.float32(np.inf)).astype(np.float32)
    one_ulp[1], one_ulp[2] = np.nan, 0.0
    assert compare(expected, one_ulp, "f32", Tolerance(max_ulp=1)).passed
    assert not compare(expected, one_ulp, "f32", Tolerance(max_ulp=0)).passed
    assert compare(expected, one_ulp, "f32", Tolerance(max_ulp=0, mismatch_fraction=0.5)).passed
    assert not compare(expected, np.array([1.0, 2.0, 0.0, 3.0], dtype=np.float32), "f32", Tolerance(rtol=1)).passed


def test_bf16_is_compared_as_numbers():
    one = np.array([0x3F80], dtype=np.uint16)  # 1.0 in bfloat16
    next_up = np.array([0x3F81], dtype=np.uint16)
    result = compare(one, next_up, "bf16", Tolerance(rtol=1e-2))
    assert result.passed and result.max_ulp == 1 and result.max_abs_err == pytest.approx(2**-7)


def test_without_a_gpu_and_without_the_emulator_every_harness_builds_and_nothing_is_called_passed(tmp_path):
    require_nvcc()
    require_hip()
    tree = tmp_path / "verify"
    shutil.copytree(VERIFY_CORPUS, tree)
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    record = tmp_path / "goldens" / "run"
    result = verify(tree, ("sm_90", "gfx942"), load_config(tree), gpus=NO_GPUS, record=record, use_emulator=False)
    cases = load_cases(load_config(tree))
    manifest = json.loads((record / "manifest.json").read_text())
    assert manifest["provenance"]["gpus"] == NO_GPUS and manifest["provenance"]["toolchains"]["nvcc"]
    assert {c["status"] for c in manifest["cases"]} == {"not-run"}
    assert len(manifest["seeds"]["saxpy"]) == 4 and not list(record.parent.glob(".porter-record-*"))
    assert len(result.cases) == 3 * len(cases)
    for case in result.cases:
        assert case.status == "not-run", case
        assert "no NVIDIA GPU" in case.reason if case.target == "sm_90" else "no AMD GPU" in case.reason
        assert case.built is not None
    assert not result.failed
    assert {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()} == before, "the input tree is untouched"


def test_cli_json_has_the_documented_fields(tmp_path):
    require_nvcc()
    if any(detect_gpus().values()):
        pytest.skip("a GPU is present: the GPU test covers this machine")
    out = tmp_path / "verify.json"
    runner = CliRunner()
    result = runner.invoke(app, ["verify", str(VERIFY_CORPUS), "--target", "sm_90", "--format", "json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    fields = {
        "name",
        "variant",
        "target",
        "status",
        "reason",
        "max_abs_err",
        "max_rel_err",
        "mismatches",
        "time_ms_median",
        "time_ratio",
    }
    assert all(fields <= set(c) for c in data["cases"])
    # no GPU: the CPU device ran every case; a planted bug fails, and no emulated timing is reported
    assert {c["variant"] for c in data["cases"]} == {"emu-original", "emu-port"}
    assert {c["status"] for c in data["cases"]} == {"pass", "fail"}
    assert all(c["time_ratio"] is None and c["built"].startswith("emulated") for c in data["cases"])
    report = runner.invoke(app, ["report", str(out), "-o", str(tmp_path / "report.md")])
    assert report.exit_code == 0, report.output
    assert "Verify: " in (tmp_path / "report.md").read_text()


def test_compare_needs_a_recorded_run(tmp_path):
    result = CliRunner().invoke(app, ["verify", str(VERIFY_CORPUS), "--compare", str(tmp_path)])
    assert result.exit_code == 2 and "manifest.json" in result.output


@pytest.mark.gpu
def test_on_an_nvidia_gpu_ports_pass_and_planted_bugs_fail(tmp_path):
    require_nvcc()
    gpus = detect_gpus()
    if not gpus["nvidia"]:
        pytest.skip("no NVIDIA GPU here (nvidia-smi lists none)")
    tree = tmp_path / "verify"
    shutil.copytree(VERIFY_CORPUS, tree)
    result = verify(tree, ("sm_90",), load_config(tree), record=tmp_path / "record")
    by_case = {(c.name, c.variant): c for c in result.cases}
    for (name, variant), case in by_case.items():
        want = "fail" if name.endswith("planted_half_wave") and variant != "cuda-original" else "pass"
        assert case.status == want, case
    assert by_case[("saxpy", "cuda-port")].time_ratio is not None
    assert (tmp_path / "record" / "manifest.json").is_file()
    again = verify(tree, ("sm_90",), load_config(tree), reference_dir=tmp_path / "record")
    assert {c.status for c in again.cases if not c.name.endswith("planted_half_wave")} == {"pass"}


def test_init_proposes_loadable_cases_from_kernel_signatures(tmp_path):
    tree = tmp_path / "ext"
    tree.mkdir()
    (tree / "k.cu").write_text(
        "template <typename T> __global__ void scale(const T* in, T* out, T by, int n) {}\n"
        "__global__ void fill(float* out, const float* __restrict__ in, int n) {}\n"
        "struct Opaque { int x; };\n__global__ void odd(Opaque o, double* out) {}\n"
    )
    result = CliRunner().invoke(app, ["verify", str(tree), "--init", "-o", str(tree / "porter.toml")])
    assert result.exit_code == 0, result.output
    text = (tree / "porter.toml").read_text()
    assert "TODO a template" in text and "`Opaque`" in text
    cases = {c.name: c for c in load_cases(load_config(tree))}
    assert [(a.name, a.dtype, a.size is None, a.output) for a in cases["fill"].args] == [
        ("out", "f32", False, True),
        ("in", "f32", False, False),
        ("n", "i32", True, False),
    ]
    assert [a.name for a in cases["odd"].args] == ["out"]


@pytest.mark.slow
def test_torch_extension_cases_build_with_cpp_extension_compare_and_catch_the_planted_port(tmp_path):
    pytest.importorskip("torch")
    tree = CORPUS / "verify_torch"
    config = load_config(tree)
    recorded = tmp_path / "goldens"
    first = verify(tree, ("sm_90",), config, record=recorded, gpus={"nvidia": [], "amd": []})
    rows = {(c.name, c.variant): c for c in first.cases}
    original, port = rows[("row_sums", "torch-original")], rows[("row_sums", "torch-port")]
    assert original.status == "pass" and "CPU reference" in original.reason  # checked against reference.py
    assert port.status == "pass" and port.max_abs_err == 0.0 and port.time_ratio is not None
    planted = rows[("row_sums_half", "torch-port")]
    assert planted.status == "fail" and planted.expected == "fail" and planted.mismatches == 64
    for variant in ("torch-original", "torch-port"):
        cuda = rows[("scale", variant)]
        assert cuda.status == "not-run" and "CPU-only build" in cuda.reason  # never reported as passed
    assert not first.failed

    again = verify(tree, ("sm_90",), config, reference_dir=recorded, gpus={"nvidia": [], "amd": []})
    compared = {(c.name, c.variant): c for c in again.cases}
    assert compared[("row_sums", "torch-original")].status == "pass"  # against the recorded original
    assert compared[("row_sums_half", "torch-port")].status == "fail"
    # the second run stages its trees in new folders, and still builds nothing
    variants = (extension.ORIGINAL, extension.PORT)
    built = [compared[(name, variant)].built for name in ("row_sums", "row_sums_half") for variant in variants]
    assert built == ["torch.utils.cpp_extension, reused from porter's cache"] * 4


def test_an_extension_build_is_named_by_its_sources_and_the_headers_beside_them(tmp_path):
    for copy in ("one", "two"):
        shutil.copytree(CORPUS / "verify_torch", tmp_path / copy)
    sources = ["ops/row_sums.cpp"]
    same = extension.build_digest(tmp_path / "one", sources)
    assert extension.build_digest(tmp_path / "two", sources) == same  # where a run stages it does not count
    (tmp_path / "two" / "ops" / "row_sums.h").write_text("#pragma once\n")  # a header it could include
    assert extension.build_digest(tmp_path / "two", sources) != same
    assert extension.build_digest(tmp_path / "one", ["planted/row_sums_half.cpp"]) != same
    # within one run, a tree's files are read once for all its cases
    digests = extension.TreeDigests()
    assert extension.build_digest(tmp_path / "one", sources, digests) == same
    (tmp_path / "one" / "ops" / "row_sums.h").write_text("#pragma once\n")
    assert extension.build_digest(tmp_path / "one", sources, digests) == same


def test_torch_case_problems_are_named():
    base = {"name": "t", "sources": ["a.cpp"], "function": "f", "args": [], "returns": [{"name": "y", "dtype": "f32"}]}
    for change, message in [
        ({"device": "tpu"}, "device must be"),
        ({"reference": "ref.py"}, "file.py:function"),
        ({"returns": []}, "at least one returned tensor"),
        ({"function": "f(); import os"}, "valid name"),
    ]:
        with pytest.raises(ConfigError, match=re.escape(message)):
            load_cases(Config(raw={"verify": {"torch": [{**base, **change}]}}))


def test_a_cached_extension_is_built_again_for_other_gpu_architectures(tmp_path, monkeypatch):
    """The runner reuses a build only where it was made by the same torch, Python, compiler and
    architecture list (a CUDA build for sm_80 alone has no kernel for an H100)."""
    from types import SimpleNamespace

    from porter.verify import torch_runner

    library = tmp_path / "built.py"  # imported as the runner imports a built library
    library.write_text("ANSWER = 42\n")
    loads = []

    def load(**arguments):
        loads.append(arguments["name"])
        return SimpleNamespace(__name__="built", __file__=str(library))

    torch = SimpleNamespace(__version__="2.13.0", __file__=str(tmp_path / "torch" / "__init__.py"))
    extension_builder = SimpleNamespace(load=load)
    spec = {"build": str(tmp_path / "build"), "module": "porter_ext_0", "sources": [], "include": []}
    monkeypatch.delenv("TORCH_CUDA_ARCH_LIST", raising=False)
    assert torch_runner._extension(torch, extension_builder, spec)[1] is False
    module, reused = torch_runner._extension(torch, extension_builder, spec)
    assert reused and module.ANSWER == 42 and loads == ["porter_ext_0"]
    monkeypatch.setenv("TORCH_CUDA_ARCH_LIST", "9.0")
    assert torch_runner._extension(torch, extension_builder, spec)[1] is False
    assert loads == ["porter_ext_0", "porter_ext_0"]


def _stand_in_builder(tmp_path: Path, library: Path):
    """Stand-ins for torch and cpp_extension: `load` records the module it is asked to build and
    returns `library` as what it built."""
    from types import SimpleNamespace

    loads = []

    def load(**arguments):
        loads.append(arguments["name"])
        return SimpleNamespace(__name__="built", __file__=str(library))

    torch = SimpleNamespace(__version__="2.13.0", __file__=str(tmp_path / "torch" / "__init__.py"))
    spec = {"build": str(tmp_path / "build"), "module": "porter_ext_0", "sources": [], "include": []}
    return torch, SimpleNamespace(load=load), spec, loads


def test_an_unreadable_build_record_or_library_is_built_again(tmp_path):
    """A cached build whose record cannot be read, or whose library no longer imports, is built
    again: not reported as the case's build failure."""
    from porter.verify import torch_runner

    library = tmp_path / "built.py"
    library.write_text("ANSWER = 42\n")
    torch, builder, spec, loads = _stand_in_builder(tmp_path, library)
    torch_runner._extension(torch, builder, spec)
    record = Path(spec["build"]) / "porter-build.json"
    for damaged in ("{not json", "[1, 2]", '{"made_by": {}}'):
        record.write_text(damaged)
        module, reused = torch_runner._extension(torch, builder, spec)
        assert not reused and module.__name__ == "built"
    assert len(loads) == 4
    broken = tmp_path / "built.cpython-311-x86_64-linux-gnu.so"  # a truncated shared library
    broken.write_bytes(b"\x7fELF truncated")
    recorded = json.loads(record.read_text())
    record.write_text(json.dumps({**recorded, "library": str(broken)}))
    assert torch_runner._extension(torch, builder, spec)[1] is False
    assert len(loads) == 5


def test_extension_builds_long_unused_are_pruned(tmp_path, monkeypatch):
    """The runner marks a build each time it reuses one; verify removes builds unused for
    UNUSED_BUILD_DAYS and unfinished ones (no record) left UNFINISHED_BUILD_DAYS, and keeps the rest."""
    import os
    import time

    from porter.verify import torch_runner

    monkeypatch.setenv("PORTER_CACHE", str(tmp_path / "cache"))
    builds = extension.builds_dir()
    library = tmp_path / "built.py"
    library.write_text("ANSWER = 42\n")
    day = 86400.0
    now = time.time()
    ages = {"used": extension.UNUSED_BUILD_DAYS - 1, "unused": extension.UNUSED_BUILD_DAYS + 1}
    for name, age in ages.items():
        torch, builder, spec, _ = _stand_in_builder(tmp_path, library)
        spec["build"] = str(builds / f"porter_ext_{name}")
        torch_runner._extension(torch, builder, spec)
        os.utime(Path(spec["build"]) / "porter-build.json", (now - age * day,) * 2)
    for name, age in {"failed": extension.UNFINISHED_BUILD_DAYS + 1, "building": 0}.items():
        folder = builds / f"porter_ext_{name}"
        (folder / "build.ninja").parent.mkdir(parents=True)
        (folder / "build.ninja").write_text("")
        for path in (folder / "build.ninja", folder):
            os.utime(path, (now - age * day,) * 2)
    removed = extension.prune_unused_builds(now)
    assert sorted(p.name for p in removed) == ["porter_ext_failed", "porter_ext_unused"]
    assert sorted(p.name for p in builds.iterdir()) == ["porter_ext_building", "porter_ext_used"]
    # reuse marks the record: a build used today is kept however old it is
    torch, builder, spec, _ = _stand_in_builder(tmp_path, library)
    spec["build"] = str(builds / "porter_ext_used")
    os.utime(Path(spec["build"]) / "porter-build.json", (0, 0))
    assert torch_runner._extension(torch, builder, spec)[1] is True
    assert extension.prune_unused_builds() == []
