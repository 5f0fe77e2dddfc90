"""Architecture guards: no automatic fix changes which branch a correct guard takes.

The guard forms live in corpus/arch_guard/guard_forms.cu. The original compiles for gfx942 as it
is (hip-clang reads `__CUDA_ARCH__` as 0, so `!defined(__CUDA_ARCH__)` holds and HIP's own
atomicAdd(double) is used); the port must compile there too, and for sm_90 with nvcc.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from compilers import hip_compile, nvcc_compile
from corpus_cases import CORPUS

from porter.config import Config
from porter.convert import convert_source
from porter.convert.compat import render_header
from porter.discover import DiscoveredFile
from porter.scan import analyze_file
from porter.source import FileKind, SourceFile

GUARDS = CORPUS / "arch_guard" / "guard_forms.cu"


def _port(path: Path, mode: str) -> bytes:
    file = DiscoveredFile(path=path, rel=path.name, kind=FileKind.CUDA)
    findings = analyze_file(file, Config(), deep="never", extra_args=None, cap=None).findings
    return convert_source(SourceFile.read(path, path.name, FileKind.CUDA), findings, mode, Config())


@pytest.mark.parametrize("mode", ["portable", "hip"])
def test_every_guard_form_builds_on_both_vendors_after_convert(mode, tmp_path):
    port = tmp_path / ("guard_forms.hip" if mode == "hip" else "guard_forms.cu")
    port.write_bytes(_port(GUARDS, mode))
    (tmp_path / "porter_compat.h").write_text(render_header({}, Config().targets), encoding="utf-8")
    original = hip_compile(GUARDS, tmp_path, targets=("gfx942",), extra=("-include", "hip/hip_runtime.h"))
    assert original.returncode == 0, original.stderr[-2000:]
    ported = hip_compile(port, tmp_path, targets=("gfx942",))
    assert ported.returncode == 0, ported.stderr[-2000:]
    if mode == "portable":
        assert nvcc_compile(GUARDS, tmp_path).returncode == 0
        result = nvcc_compile(port, tmp_path)
        assert result.returncode == 0, result.stderr[-2000:]


def test_a_guard_that_also_tests_the_value_gets_no_edit():
    """`defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 600` (torch's ATen/cuda/Atomic.cuh) stays as written."""
    ported = _port(GUARDS, "portable").decode()
    assert "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600" in ported
    assert "#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 700)" in ported
    assert "#if defined(__CUDA_ARCH__)  // expect: ARC002" in ported  # its arm tests the value: suggested only


def test_torch_atomic_header_keeps_its_fallback_guards(tmp_path):
    torch = pytest.importorskip("torch")
    header = Path(torch.__file__).parent / "include" / "ATen" / "cuda" / "Atomic.cuh"
    copy = tmp_path / "Atomic.cuh"
    copy.write_bytes(header.read_bytes())
    file = DiscoveredFile(path=copy, rel="Atomic.cuh", kind=FileKind.CUDA)
    findings = analyze_file(file, Config(), deep="never", extra_args=None, cap=None).findings
    guarded = [f for f in findings if f.rule == "ARC002" and f.edits]
    for finding in guarded:
        line = header.read_bytes().split(b"\n")[finding.line - 1]
        assert b"__CUDA_ARCH__ <" not in line and b"__CUDA_ARCH__ >" not in line, line


def test_one_finding_per_guard():
    file = DiscoveredFile(path=GUARDS, rel=GUARDS.name, kind=FileKind.CUDA)
    findings = analyze_file(file, Config(), deep="never", extra_args=None, cap=None).findings
    lines = [f.line for f in findings if f.category == "arch-guard"]
    assert len(lines) == len(set(lines))


def test_a_newer_arch_ptx_arm_with_a_fallback_is_left_to_hip(tmp_path):
    """corpus/arch_guard/newer_arch_ptx.cu: hip-clang compiles the fallback of `#if defined(__CUDA_ARCH__)
    && (__CUDA_ARCH__ >= 1000)` around PTX, as written, so porter reports nothing there, in the test
    or in the arm; the guards with no fallback, around code HIP could compile, with a PTX
    fallback or a stub, are reported."""
    path = CORPUS / "arch_guard" / "newer_arch_ptx.cu"
    file = DiscoveredFile(path=path, rel=path.name, kind=FileKind.CUDA)
    findings = analyze_file(file, Config(), deep="never", extra_args=None, cap=None).findings
    lines = path.read_text().splitlines()
    expected = [number for number, line in enumerate(lines, 1) if "expect: ARC001" in line]
    assert len(expected) == 4 and sorted(f.line for f in findings if f.rule == "ARC001") == expected
    skipped = next(number for number, line in enumerate(lines, 1) if "NVIDIA's alone" in line)
    assert not [f for f in findings if f.line == skipped]  # the PTX of the arm HIP skips
    hip_source = tmp_path / "newer_arch_ptx.hip"
    hip_source.write_text("#include <hip/hip_runtime.h>\n" + path.read_text().split("__device__ float touched")[0])
    result = hip_compile(hip_source, tmp_path, targets=("gfx942",), device_only=True)
    assert result.returncode == 0, result.stderr[-2000:]


def test_a_newer_arch_arm_of_hints_alone_is_left_to_hip(tmp_path):
    """corpus/arch_guard/hints_hip_skips.cu: `griddepcontrol` and a prefetch under `__CUDA_ARCH__`
    lower bounds with no fallback (one beside a CUDA version test) are skipped by hip-clang, and a
    HIP program loses nothing without them: no ARC001, no ARC003, nothing in the arms. The same
    test around a lane read is reported. hip-clang builds the file as written."""
    path = CORPUS / "arch_guard" / "hints_hip_skips.cu"
    file = DiscoveredFile(path=path, rel=path.name, kind=FileKind.CUDA)
    findings = analyze_file(file, Config(), deep="never", extra_args=None, cap=None).findings
    lines = path.read_text().splitlines()
    expected = [number for number, line in enumerate(lines, 1) if "expect: ARC001" in line]
    assert [f.line for f in findings if f.rule.startswith("ARC")] == expected
    hints = [
        number for number, line in enumerate(lines, 1) if 'asm volatile("griddepcontrol' in line or "prefetch." in line
    ]
    assert len(hints) == 4 and {f.line for f in findings} & set(hints) == {expected[0] + 1}
    hip_source = tmp_path / "hints_hip_skips.hip"
    hip_source.write_text("#include <hip/hip_runtime.h>\n" + path.read_text())
    result = hip_compile(hip_source, tmp_path, targets=("gfx942",), device_only=True)
    assert result.returncode == 0, result.stderr[-2000:]


def test_an_unguarded_launch_hint_says_there_is_nothing_to_port():
    """corpus/async_copy/hopper_features.cu: `griddepcontrol` outside any guard is compiled for HIP
    too; ASY005 says what it is for and that HIP loses nothing without it (data/ptx.json's
    `dropped`), where a wgmma is a kernel to redesign."""
    path = CORPUS / "async_copy" / "hopper_features.cu"
    file = DiscoveredFile(path=path, rel=path.name, kind=FileKind.CUDA)
    findings = [
        f for f in analyze_file(file, Config(), deep="never", extra_args=None, cap=None).findings if f.rule == "ASY005"
    ]
    lines = path.read_text().splitlines()
    hint = next(number for number, line in enumerate(lines, 1) if "griddepcontrol" in line and "asm" in line)
    messages = {f.line: f.message for f in findings}
    assert "keep it for NVIDIA and out of the HIP build" in messages[hint]
    assert all("no AMD counterpart" in message for line, message in messages.items() if line != hint)
