"""No input crashes the scan: mutated corpus files, arbitrary bytes, a real package from PyPI."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from corpus_cases import CORPUS, corpus_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from porter.config import Config
from porter.discover import DiscoveredFile
from porter.scan import Deep, analyze_file, scan
from porter.source import kind_of

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
C_FAMILY = [p for p in corpus_files() if kind_of(p) and kind_of(p).is_c_family]


def assert_sound(result, data: bytes):
    assert result.error is None, result.error
    for finding in result.findings:
        assert 0 <= finding.span.start_byte <= finding.span.end_byte <= len(data)
        assert finding.span.line >= 1 and finding.span.column >= 1
        for edit in finding.edits:
            assert 0 <= edit.start <= edit.end <= len(data)


@st.composite
def mutated_source(draw):
    path = draw(st.sampled_from(C_FAMILY))
    data = bytearray(path.read_bytes())
    for _ in range(draw(st.integers(1, 8))):
        position = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        chunk = draw(
            st.binary(min_size=1, max_size=6)
            | st.sampled_from([b"{", b"}", b"(", b"#if X\n", b'"', b"/*", b"\xff\xfe", b"<<<", b"##"])
        )
        if action == "insert":
            data[position:position] = chunk
        elif action == "delete":
            del data[position : position + len(chunk)]
        else:
            data[position : position + len(chunk)] = chunk
    return path.suffix, bytes(data)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=mutated_source())
def test_mutated_corpus_files_never_crash(case, tmp_path):
    suffix, data = case
    path = tmp_path / f"mutant{suffix}"
    path.write_bytes(data)
    result = analyze_file(DiscoveredFile(path, path.name, kind_of(path)), Config(), Deep.NEVER, None)
    assert_sound(result, data)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=400))
def test_arbitrary_bytes_never_crash(data, tmp_path):
    path = tmp_path / "noise.cu"
    path.write_bytes(data)
    result = analyze_file(DiscoveredFile(path, path.name, kind_of(path)), Config(), Deep.NEVER, None)
    assert_sound(result, data)


def test_unreadable_file_is_a_per_file_error(tmp_path):
    path = tmp_path / "gone.cu"
    result = analyze_file(DiscoveredFile(path, "gone.cu", kind_of(path)), Config(), Deep.NEVER, None)
    assert result.error and "cannot read" in result.error


def test_parallel_and_serial_scans_agree():
    serial = scan([CORPUS], Config(), jobs=1, deep=Deep.NEVER)
    from porter import scan as scan_module

    size = scan_module.PARALLEL_BYTES
    scan_module.PARALLEL_BYTES = 0
    try:
        parallel = scan([CORPUS], Config(), jobs=2, deep=Deep.NEVER)
    finally:
        scan_module.PARALLEL_BYTES = size
    assert [f.to_json() for f in parallel.findings] == [f.to_json() for f in serial.findings]


def test_a_pool_is_started_where_other_workers_can_take_work_off_the_busiest():
    from porter.scan import PARALLEL_BYTES, _worth_a_pool

    kib = 1024
    # flashinfer's generated MoE kernels: 14 files of 6 MB, 8 of them 460-880 KB
    generated = [880 * kib] * 3 + [722 * kib] * 3 + [537 * kib, 463 * kib] + [72 * kib] * 6
    assert _worth_a_pool(2, generated)
    assert not _worth_a_pool(1, generated)  # -j 1
    assert not _worth_a_pool(8, [4 * 1024 * kib])  # one large file: nothing to share
    assert not _worth_a_pool(2, [4 * kib] * 27)  # torch-scatter: 27 files of 108 KB
    # a large file beside a small one: the second worker takes only the small one off the first
    assert not _worth_a_pool(2, [2 * 1024 * kib, PARALLEL_BYTES - 1])
    assert _worth_a_pool(2, [2 * 1024 * kib, PARALLEL_BYTES])


@pytest.mark.network
@pytest.mark.slow
def test_real_package_from_pypi_scans_without_a_crash():
    from bench.pypi import PACKAGES, FetchError, fetch

    try:
        tree = fetch(PACKAGES["torch-scatter"])
    except FetchError as exc:
        pytest.skip(f"could not fetch torch-scatter 2.1.2: {exc}")
    result = scan([tree], Config(), jobs=2)
    summary = result.summary()
    assert summary["files"] >= 20
    assert summary["file_errors"] == []
    assert summary["by_category"].get("api", 0) > 0


def test_the_scan_cache_returns_the_same_results_and_follows_edits(tmp_path, monkeypatch):
    monkeypatch.setenv("PORTER_CACHE", str(tmp_path / "cache"))
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.cu").write_text("__global__ void k(int* x) { int lane = threadIdx.x & 31; x[lane] = warpSize; }\n")
    first = scan([tree], Config(), jobs=1, use_cache=True)
    assert list((tmp_path / "cache" / "scan").rglob("*.json"))
    second = scan([tree], Config(), jobs=1, use_cache=True)
    assert [f.to_json() for f in second.findings] == [f.to_json() for f in first.findings] != []
    assert second.summary()["kernels"] == first.summary()["kernels"]
    (tree / "a.cu").write_text("__global__ void k(int* x) { x[threadIdx.x] = 0; }\n")
    third = scan([tree], Config(), jobs=1, use_cache=True)
    assert [f.rule for f in third.findings] == []
    other_target = scan([tree], Config(targets=("gfx1100",)), jobs=1, use_cache=True)
    assert other_target.findings == []


def test_a_warm_scan_analyses_only_the_files_that_changed(tmp_path, monkeypatch):
    from porter import scan as scan_module

    monkeypatch.setenv("PORTER_CACHE", str(tmp_path / "cache"))
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("a.cu", "b.cu", "c.cu"):
        (tree / name).write_text(f"__global__ void {name[0]}(int* x) {{ x[threadIdx.x & 31] = warpSize; }}\n")
    analysed = []
    real = scan_module._analyze
    monkeypatch.setattr(
        scan_module, "_analyze", lambda source, *rest: analysed.append(source.rel) or real(source, *rest)
    )
    cold = scan([tree], Config(), jobs=1, use_cache=True)
    assert sorted(analysed) == ["a.cu", "b.cu", "c.cu"]
    assert len(list((tmp_path / "cache" / "scan").rglob("*.json"))) == 1  # one pack for the run
    analysed.clear()
    (tree / "b.cu").write_text("__global__ void b(int* x) { x[threadIdx.x] = 0; }\n")
    warm = scan([tree], Config(), jobs=1, use_cache=True)
    assert analysed == ["b.cu"]
    assert [f.file for f in warm.findings] == [f.file for f in cold.findings if f.file != "b.cu"]
    analysed.clear()
    pack = next((tmp_path / "cache" / "scan").rglob("*.json"))
    pack.write_text('{"damaged": 1}')  # a pack that is not what porter wrote: the run analyses again
    again = scan([tree], Config(), jobs=1, use_cache=True)
    assert sorted(analysed) == ["a.cu", "b.cu", "c.cu"]
    assert [f.to_row() for f in again.findings] == [f.to_row() for f in warm.findings]


def test_a_warm_scan_in_a_new_process_finds_the_cache_a_ported_project_left(tmp_path):
    """The project's facts key every cache entry; sets in them (a shim header's names, a macro
    defined twice) once printed in an order that string hashing, randomised per process, changed:
    llama.cpp's ggml-cuda, mmcv and gptqmodel never found a cache entry from an earlier run. Two
    processes with different hash seeds must agree on the key, so the second analyses nothing."""
    import os
    import subprocess

    tree = tmp_path / "tree"
    (tree / "vendors").mkdir(parents=True)
    (tree / "vendors" / "hip.h").write_text(
        "#pragma once\n#include <hip/hip_runtime.h>\n"
        + "".join(f"#define cuda{n} hip{n}\n" for n in ("Malloc", "Free", "Memcpy", "MemsetAsync", "StreamCreate"))
    )
    (tree / "common.cuh").write_text(
        '#pragma once\n#if defined(PROJ_USE_HIP)\n#include "vendors/hip.h"\n'
        "#define HD_INLINE __host__ __device__ __forceinline__\n#else\n#define HD_INLINE __host__ __device__ inline\n#endif\n"
    )
    (tree / "k.cu").write_text(
        '#include "common.cuh"\nHD_INLINE int twice(int x) { return 2 * x; }\n'
        "__global__ void k(int* x) { x[threadIdx.x & 31] = twice(1); }\n"
    )
    probe = (
        "import sys\nfrom pathlib import Path\nfrom porter import scan as s\nfrom porter.config import Config\n"
        "seen = []\nreal = s._analyze\ns._analyze = lambda source, *rest: seen.append(source.rel) or real(source, *rest)\n"
        "s.scan([Path(sys.argv[1])], Config(), jobs=1, use_cache=True)\nprint(len(seen))\n"
    )
    analysed = []
    for seed in ("1", "2"):
        env = dict(os.environ, PORTER_CACHE=str(tmp_path / "cache"), PYTHONHASHSEED=seed)
        done = subprocess.run(
            [sys.executable, "-c", probe, str(tree)], env=env, capture_output=True, text=True, check=True
        )
        analysed.append(int(done.stdout.split()[-1]))
    assert analysed == [3, 0]


def test_a_launch_grid_with_bytes_that_are_not_utf8_is_read(tmp_path):
    """A launch's grid holding bytes that are not UTF-8 (damage, here inside a literal): the row
    analysis reads the grid as text and searched it again as bytes, which such bytes broke (found
    by the fuzz campaign, seed 2026, in a mutated corpus file)."""
    (tmp_path / "pairs.cu").write_bytes(
        b"__global__ void pair_sums(const float* in, float* out, int n) {\n"
        b"  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        b"  const float mine = i < n ? in[i] : 0.f;\n"
        b"  const float next = __shfl_down_sync(0xffffffffu, mine, 1) + threadIdx.x % 32;\n"
        b"  if (i < n) out[i] = mine + next;\n"
        b"}\n"
        b"void launch(const float* in, float* out, int n) {\n"
        b"  pair_sums<<<(n + 255) / 25\xb4\x1a\x97\x0c56, 64>>>(in, out, n);\n"
        b"}\n"
    )
    result = scan([tmp_path], Config(), jobs=1)
    assert [r.error for r in result.files] == [None]
