"""`porter convert` on the corpus: the output builds with nvcc and for AMD, converting twice changes
nothing, the input is never touched, bytes survive where nothing changed, writes are atomic."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path

import pytest
from compilers import hip_compile_each, nvcc_compile_each, require_nvcc
from corpus_cases import CORPUS, directives
from hypothesis import HealthCheck, given, settings
from typer.testing import CliRunner

from porter.cli import app
from porter.config import Config
from porter.convert import ConvertOptions, OutputError, convert
from porter.convert import output as output_module
from porter.convert.output import INCOMPLETE, MARKER
from porter.findings import FixKind
from porter.scan import scan
from porter.source import kind_of

runner = CliRunner()


def tree_digest(root: Path) -> dict[str, str]:
    digest = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name != MARKER:
            digest[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest


def run(src: Path, out: Path | None, mode="portable", **kwargs):
    return convert(ConvertOptions(src, out, mode, **kwargs), Config(), None)


@pytest.fixture(scope="module")
def corpus_before():
    return tree_digest(CORPUS)


@pytest.fixture(scope="module")
def converted(tmp_path_factory, corpus_before):
    out = {}
    for mode in ("portable", "hip"):
        target = tmp_path_factory.mktemp(mode) / "out"
        run(CORPUS, target, mode)
        out[mode] = target
    return out


@pytest.fixture(scope="module")
def all_auto_cases():
    """Corpus cases whose findings porter can all fix: these must build for AMD once converted."""
    result = scan([CORPUS], Config(), jobs=1)
    fixes: dict[str, set] = {}
    for finding in result.findings:
        fixes.setdefault(finding.file, set()).add(finding.fix)
    cases = []
    for path in sorted(CORPUS.rglob("*")):
        kind = kind_of(path)
        if kind is None or not kind.is_c_family or {"broken", "torch", "planted", "project"} & directives(path):
            continue
        rel = path.relative_to(CORPUS).as_posix()
        if "/planted/" in rel:
            continue  # a verify case's wrong port, its original's code but for a width: that one builds
        if fixes.get(rel, set()) <= {FixKind.AUTO}:
            cases.append(rel)
    return cases


def hip_name(rel: str) -> str:
    return rel[:-3] + ".hip" if rel.endswith(".cu") else rel


def test_the_input_is_never_touched(converted, corpus_before):
    assert tree_digest(CORPUS) == corpus_before


def test_enough_cases_are_fully_automatic(all_auto_cases):
    assert len(all_auto_cases) >= 15


NVCC_CASES = sorted(p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*.cu") if "nvcc" in directives(p))


@pytest.fixture(scope="module")
def nvcc_builds(converted, tmp_path_factory):
    require_nvcc()
    return nvcc_compile_each([converted["portable"] / rel for rel in NVCC_CASES], tmp_path_factory.mktemp("nvcc"))


@pytest.mark.slow
@pytest.mark.parametrize("rel", NVCC_CASES)
def test_portable_output_still_builds_with_nvcc(rel, converted, nvcc_builds):
    result = nvcc_builds[converted["portable"] / rel]
    assert result.returncode == 0, result.stderr[-3000:]


# each CDNA target once, each mode once, one host pass: the portable port (porter's default, whose
# compat header has host-pass arms) for gfx90a with its host pass; the HIP tree, whose device code
# differs from it only in its spelling, in gfx942's device pass, which checks its host functions too
# (the two modes' builds were the suite's largest cost: three passes each instead of these two)
@pytest.mark.slow
@pytest.mark.parametrize(
    ("mode", "targets", "device_only"), [("portable", ("gfx90a",), False), ("hip", ("gfx942",), True)]
)
def test_fully_automatic_cases_build_for_amd(mode, targets, device_only, converted, all_auto_cases, tmp_path):
    paths = [converted[mode] / (hip_name(rel) if mode == "hip" else rel) for rel in all_auto_cases]
    failures = [
        f"{path}: {result.stderr.strip().splitlines()[:3]}"
        for path, result in hip_compile_each(paths, tmp_path, targets, device_only)
        if result.returncode != 0
    ]
    assert failures == []


@pytest.mark.parametrize("mode", ["portable", "hip"])
def test_rescanning_the_output_finds_nothing_auto_fixable(mode, converted):
    result = scan([converted[mode]], Config(), jobs=1)
    auto = [(f.file, f.line, f.rule) for f in result.findings if f.fix is FixKind.AUTO]
    assert auto == []


@pytest.mark.parametrize("mode", ["portable", "hip"])
@pytest.mark.parametrize("annotate", [False, True])
def test_conversion_is_idempotent(mode, annotate, tmp_path):
    once, twice = tmp_path / "once", tmp_path / "twice"
    run(CORPUS, once, mode, annotate=annotate)
    run(once, twice, mode, annotate=annotate)
    assert tree_digest(twice) == tree_digest(once)


def test_hip_mode_renames_sources_and_names(converted):
    hip = converted["hip"]
    assert (hip / "api" / "runtime_memory.hip").is_file() and not (hip / "api" / "runtime_memory.cu").exists()
    text = (hip / "api" / "runtime_memory.hip").read_text()
    assert "hipMalloc(&x, bytes)" in text and "cudaMalloc" not in text
    assert "#include <hip/hip_runtime.h>" in text
    cmake = (hip / "build" / "CMakeLists.txt").read_text()
    assert "LANGUAGES CXX HIP" in cmake and "roc::hipblas" in cmake and "runtime_memory.hip" in cmake


def test_portable_mode_keeps_cuda_and_adds_the_compat_header(converted):
    portable = converted["portable"]
    text = (portable / "api" / "runtime_memory.cu").read_text()
    assert '#include "../porter_compat.h"' in text and "cudaMalloc(&x, bytes)" in text
    assert "#if defined(PORTER_HIP)\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n#endif" in text
    header = (portable / "porter_compat.h").read_text()
    assert "#define cudaMalloc hipMalloc" in header and "#define PORTER_WARP_SIZE __AMDGCN_WAVEFRONT_SIZE" in header
    warp = (portable / "warp_size" / "block_reduce.cu").read_text()
    assert "#define WARP_SIZE 32  // never used" in warp and "tid & (PORTER_WARP_SIZE - 1)" in warp
    used = (portable / "build" / "planted_lds.cu").read_text()
    assert "#define WARP_SIZE PORTER_WARP_SIZE" in used and "threadIdx.x % WARP_SIZE;" in used
    cmake = (portable / "build" / "CMakeLists.txt").read_text()
    assert 'include("${CMAKE_CURRENT_LIST_DIR}/../porter_gpu.cmake")' in cmake and "if(NOT PORTER_USE_HIP)" in cmake
    assert "find_package(hipblas REQUIRED)" in (portable / "porter_gpu.cmake").read_text()


def test_bytes_survive_where_nothing_changed(converted):
    portable = converted["portable"]
    crlf = (portable / "robustness" / "crlf_endings.cu").read_bytes()
    assert b"\r\n" in crlf and b"\n" not in crlf.replace(b"\r\n", b"")
    latin1 = (portable / "robustness" / "latin1_comment.cu").read_bytes()
    assert b"r\xe9sum\xe9 du noyau" in latin1
    bom = (portable / "robustness" / "bom_header.cuh").read_bytes()
    assert bom.startswith(b"\xef\xbb\xbf")
    assert (portable / "README.md").read_bytes() == (CORPUS / "README.md").read_bytes()


def test_annotations_mark_what_is_left(tmp_path):
    out = tmp_path / "out"
    run(CORPUS, out, annotate=True)
    cudnn = (out / "library" / "cudnn_conv.cpp").read_text()
    assert "// PORTER(LIB010): `cudnn.h` is cudnn; port it to MIOpen by hand\n#include <cudnn.h>" in cudnn
    macro = (out / "api" / "token_paste.cu").read_text()
    assert "// PORTER(API008)" in macro
    cmake = (out / "build" / "CMakeLists.txt").read_text()
    assert "# PORTER(BLD004)" in cmake and "// PORTER" not in cmake


def test_in_place_keeps_backups_and_is_idempotent(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(CORPUS / "api", tree)
    original = (tree / "runtime_memory.cu").read_bytes()
    run(tree, None, in_place=True, backup_suffix=".orig")
    assert (tree / "runtime_memory.cu.orig").read_bytes() == original
    assert (tree / "runtime_memory.cu").read_bytes() != original
    assert (tree / "porter_compat.h").is_file()
    after_first = tree_digest(tree)
    run(tree, None, in_place=True, backup_suffix=".orig")
    assert tree_digest(tree) == after_first


def test_file_modes_and_links(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(CORPUS / "api", src)
    script = src / "build.sh"
    script.write_text("#!/bin/sh\nnvcc -c runtime_memory.cu\n")
    script.chmod(0o755)
    (src / "runtime_memory.cu").chmod(0o640)
    outside = tmp_path / "outside.cu"
    outside.write_text("cudaMalloc(0, 0);\n")
    os.symlink(outside, src / "escape.cu")
    os.symlink("runtime_memory.cu", src / "alias.cu")
    out = tmp_path / "out"
    run(src, out)
    assert stat.S_IMODE((out / "build.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((out / "runtime_memory.cu").stat().st_mode) == 0o640
    assert not (out / "escape.cu").exists() and not (out / "escape.cu").is_symlink()
    assert (out / "alias.cu").is_symlink() and os.readlink(out / "alias.cu") == "runtime_memory.cu"


def test_destination_rules(tmp_path):
    with pytest.raises(OutputError, match="must not be inside the input tree"):
        run(CORPUS, CORPUS / "out")
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "mine.txt").write_text("keep me")
    with pytest.raises(OutputError, match="not a porter output"):
        run(CORPUS / "api", busy)
    assert (busy / "mine.txt").read_text() == "keep me"


def test_reconverting_into_a_previous_output_replaces_it_unless_it_holds_foreign_changes(tmp_path):
    out = tmp_path / "out"
    run(CORPUS / "api", out)
    run(CORPUS / "api", out)  # unchanged since porter wrote it: replaced without a word
    (out / "stale.cu").write_text("left over")
    with pytest.raises(OutputError, match=r"did not write \(stale.cu \(added\)\)"):
        run(CORPUS / "api", out)
    assert (out / "stale.cu").read_text() == "left over"
    run(CORPUS / "api", out, force=True)
    assert not (out / "stale.cu").exists() and (out / MARKER).is_file()


def test_a_failure_midway_leaves_out_untouched_and_the_partial_tree_marked(tmp_path, monkeypatch):
    out = tmp_path / "out"
    run(CORPUS / "api", out)
    before = tree_digest(out)
    calls = {"n": 0}
    real_copy = shutil.copy2

    def failing_copy(src, dst, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] > 1:
            raise OSError(28, "No space left on device")
        return real_copy(src, dst, *args, **kwargs)

    monkeypatch.setattr(output_module.shutil, "copy2", failing_copy)
    with pytest.raises(OSError):
        run(CORPUS, out)
    assert tree_digest(out) == before
    partial = [p for p in tmp_path.iterdir() if p.name.startswith(".out.porter-")]
    assert partial and all((p / INCOMPLETE).is_file() for p in partial)


def test_cli_convert_with_diff_and_errors(tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(app, ["convert", str(CORPUS / "api"), "-o", str(out), "--diff"])
    assert result.exit_code == 0, result.output
    assert "--- a/runtime_memory.cu" in result.stdout and "+++ b/runtime_memory.cu" in result.stdout
    assert '+#include "porter_compat.h"' in result.stdout
    assert runner.invoke(app, ["convert", str(CORPUS)]).exit_code == 2
    both = runner.invoke(app, ["convert", str(CORPUS), "-o", str(out), "--in-place"])
    assert both.exit_code == 2 and "exclude each other" in both.output
    missing = runner.invoke(app, ["convert", "/no/such/dir", "-o", str(out)])
    assert missing.exit_code == 2 and "no such file or directory" in missing.output
    hip = ["convert", str(CORPUS / "api"), "-o", str(out), "--format", "json", "--mode", "hip"]
    refused = runner.invoke(app, hip)  # OUT holds a portable conversion: not replaced by a HIP tree silently
    assert refused.exit_code == 2 and "portable mode" in refused.output
    json_out = runner.invoke(app, [*hip, "--force"])
    assert json_out.exit_code == 0 and '"mode": "hip"' in json_out.stdout


CASE_FILES = [p for p in sorted(CORPUS.rglob("*.cu")) if "broken" not in directives(p)]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    index=__import__("hypothesis").strategies.integers(0, len(CASE_FILES) - 1),
    mutation=__import__("hypothesis").strategies.binary(max_size=6),
    at=__import__("hypothesis").strategies.floats(0, 1),
)
def test_mutated_files_convert_idempotently(index, mutation, at, tmp_path_factory):
    src = tmp_path_factory.mktemp("mut") / "src"
    src.mkdir()
    data = CASE_FILES[index].read_bytes()
    cut = int(len(data) * at)
    (src / "case.cu").write_bytes(data[:cut] + mutation + data[cut:])
    once, twice = src.parent / "once", src.parent / "twice"
    run(src, once)
    run(once, twice)
    assert tree_digest(twice) == tree_digest(once)
    assert (src / "case.cu").read_bytes() == data[:cut] + mutation + data[cut:]


@pytest.mark.slow
def test_portable_output_survives_pytorchs_hipify(converted, all_auto_cases, tmp_path):
    """A ROCm build of PyTorch hipifies extension sources itself: the portable output must still build."""
    pytest.importorskip("torch.utils.hipify.hipify_python")
    from bench.peer import run_hipify

    project = tmp_path / "project"
    shutil.copytree(converted["portable"], project)
    # torch's hipify reads sources as UTF-8 (it stops on Latin-1) and writes its breadcrumb before a
    # byte-order mark (which then breaks the build): both are hipify's limits, with or without porter
    shutil.rmtree(project / "robustness")
    run_hipify(project)
    paths = []
    for rel in all_auto_cases:
        # a project's own forwarding function `cudaX(...) { return hipX(...); }` hipify renames into a
        # redefinition of hipX, the original's as much as the port's (`nohipify`)
        if rel.startswith("robustness/") or "nohipify" in directives(CORPUS / rel):
            continue
        stem, suffix = os.path.splitext(rel)
        hipified = project / (stem + (".hip" if suffix == ".cu" else "_hip" + suffix))
        paths.append(hipified if hipified.is_file() else project / rel)
    failures = [
        f"{path}: {result.stderr.strip().splitlines()[:2]}"
        # the device pass, which checks host functions too: the portable port's host pass is built above
        for path, result in hip_compile_each(paths, tmp_path, targets=("gfx942",), device_only=True)
        if result.returncode != 0
    ]
    assert failures == []


def test_makefiles_that_call_nvcc_get_a_hipcc_variant(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(CORPUS / "api", src)
    (src / "Makefile").write_text(
        "NVCC ?= nvcc\nall:\n\tnvcc -O3 -arch=sm_90 --expt-relaxed-constexpr -c runtime_memory.cu -lcudart -lcublas\n"
    )
    run(src, tmp_path / "portable")
    variant = (tmp_path / "portable" / "Makefile.hip").read_text()
    assert "hipcc -O3 --offload-arch=gfx942" in variant and "-lamdhip64 -lhipblas" in variant
    assert "--expt-relaxed-constexpr" not in variant
    assert (tmp_path / "portable" / "Makefile").read_text() == (src / "Makefile").read_text()
    run(src, tmp_path / "hip", mode="hip")
    converted_makefile = (tmp_path / "hip" / "Makefile").read_text()
    assert "NVCC ?= hipcc" in converted_makefile and "hipcc -O3 --offload-arch=gfx942" in converted_makefile
    assert "runtime_memory.hip" in converted_makefile and not (tmp_path / "hip" / "Makefile.hip").exists()


@pytest.mark.network
@pytest.mark.slow
def test_real_packages_convert_idempotently(tmp_path):
    from bench.pypi import PACKAGES, FetchError, fetch

    for name in ("torch-scatter", "causal-conv1d"):
        try:
            tree = fetch(PACKAGES[name])
        except FetchError as exc:
            pytest.skip(f"could not fetch {name}: {exc}")
        once, twice = tmp_path / f"{name}-1", tmp_path / f"{name}-2"
        result = run(tree, once)
        assert result.summary()["files_changed"] > 0
        run(once, twice)
        assert tree_digest(twice) == tree_digest(once)


def test_compiler_tests_accept_either_compiler_and_the_compat_header_never_defines_them(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text(
        "#include <cuda_runtime.h>\n"
        "#ifndef __CUDACC__\ninline float lerp(float a, float b, float t) { return a + t * (b - a); }\n#endif\n"
        "#ifdef __CUDACC__\n#define DEVICE __device__\n#elif defined(__CUDACC__) || defined HOST_ONLY\n#endif\n"
        "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"
    )
    once, twice = tmp_path / "once", tmp_path / "twice"
    run(src, once)
    run(once, twice)
    text = (once / "k.cu").read_text()
    assert "#if !defined(__CUDACC__) && !defined(__HIPCC__)\n" in text
    assert "#if defined(__CUDACC__) || defined(__HIPCC__)\n" in text
    assert "#elif (defined(__CUDACC__) || defined(__HIPCC__)) || defined HOST_ONLY\n" in text
    # defining __CUDACC__ under HIP would send every later header (torch's Half.h) down its CUDA branch
    assert "#define __CUDACC__" not in (once / "porter_compat.h").read_text()
    assert (twice / "k.cu").read_text() == text
