"""`porter verify`: build a harness per case and variant, run it on every GPU present, compare.

Variants: `cuda-original` (the source as given, nvcc), `cuda-port` (porter's portable conversion,
nvcc) for sm_* targets, and `hip-amd` (the portable conversion, clang) for gfx* targets. Without a
GPU of the right vendor a case is built and reported "not-run" with the reason, never passed.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.errors import PorterError
from porter.rules.base import WMMA_HEADER
from porter.source import is_python
from porter.targets import Variant, parse_targets, target, toolchains
from porter.targets.command import first_error, links, toolchain_command, why_unavailable
from porter.targets.nvcc_args import UnsafeArgument
from porter.verify import emulate, extension, harness
from porter.verify.cases import Case, Compared, TorchCase, load_cases, load_torch_cases
from porter.verify.compare import compare

REFERENCE = Variant.CUDA_ORIGINAL


class VerifyError(PorterError):
    """verify cannot run as asked; the message says why."""


@dataclass
class CaseResult:
    name: str
    variant: str
    target: str
    status: str  # pass | fail | not-run | build-failed | hang | error
    reason: str | None = None
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    max_ulp: int | None = None
    mismatches: int | None = None
    first_mismatch: int | None = None
    time_ms_median: float | None = None
    time_ms_spread: float | None = None
    time_ratio: float | None = None
    built: str | None = None  # "linked", "compiled (not linked: ...)"
    expected: str | None = "pass"  # "fail" for planted bugs; None: no verdict expected
    gpu: str | None = None


@dataclass
class VerifyResult:
    cases: list[CaseResult]
    gpus: dict[str, list[str]]
    targets: tuple[str, ...]
    not_run: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        from porter import __version__

        return {
            "porter_version": __version__,
            "targets": list(self.targets),
            "gpus": self.gpus,
            "cases": [asdict(c) for c in self.cases],
        }

    @property
    def failed(self) -> bool:
        """A build that failed, an emulated run that hung or stopped where a pass was expected, or a verdict
        other than the expected one (a case with no expectation, such as a planted port at the width it was
        written for, counts only its build)."""
        return any(c.status == "build-failed" or not _as_expected(c) for c in self.cases)


def _as_expected(case: CaseResult) -> bool:
    """A verdict matches what the case expects; a planted bug is caught whether its port fails, stops or hangs."""
    if case.expected is None or case.status not in ("pass", "fail", "hang", "error"):
        return True
    if case.expected == "fail":
        return case.status in ("fail", "error", "hang")
    return case.status == case.expected


def detect_gpus() -> dict[str, list[str]]:
    """GPUs this machine can run on, by vendor, from the vendors' own tools."""
    found = {"nvidia": [], "amd": []}
    if shutil.which("nvidia-smi"):
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
        found["nvidia"] = [
            line.split(":", 1)[1].split("(")[0].strip() for line in out.stdout.splitlines() if ":" in line
        ]
    if shutil.which("rocminfo"):
        out = subprocess.run(["rocminfo"], capture_output=True, text=True, timeout=60)
        found["amd"] = sorted(
            {
                line.split(":", 1)[1].strip()
                for line in out.stdout.splitlines()
                if line.strip().startswith("Name:") and "gfx" in line
            }
        )
    return found


def _variants(target_id: str) -> list[Variant]:
    return [REFERENCE, Variant.CUDA_PORT] if target(target_id).is_nvidia else [Variant.HIP_AMD]


def _compile(source: Path, tree: Path, target_id: str, executable: Path) -> tuple[bool, str, str]:
    """(ok, log, how it was built)."""
    variant = Variant.built_for(target(target_id))
    try:
        command = toolchain_command(target_id, source, tree, executable, "link", variant)
    except UnsafeArgument as exc:
        return False, str(exc), ""
    if command is None:
        return False, why_unavailable(target_id, variant), ""
    how = "linked" if links(target_id) else "compiled (not linked: the compile-only ROCm sysroot has no HIP runtime)"
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    return result.returncode == 0, (result.stderr + result.stdout).strip(), how


def _gpu_for(target_id: str, gpus: dict[str, list[str]]) -> str | None:
    vendor = str(target(target_id).vendor)
    return gpus[vendor][0] if gpus[vendor] else None


def _run(executable: Path, outputs: Path) -> tuple[bool, str]:
    outputs.mkdir(parents=True, exist_ok=True)
    result = subprocess.run([str(executable), str(outputs)], capture_output=True, text=True, timeout=600)
    return result.returncode == 0, (result.stderr + result.stdout).strip()


def _timings(outputs: Path) -> list[float]:
    path = outputs / "timings.txt"
    return [float(line) for line in path.read_text().split()] if path.is_file() else []


def _spread(times: list[float]) -> float | None:
    if len(times) < 4:
        return None
    quartiles = statistics.quantiles(times, n=4)
    return quartiles[2] - quartiles[0]


def _compare_outputs(case: Compared, result: CaseResult, reference: Path, outputs: Path) -> None:
    comparisons = []
    for arg in case.produced:
        expected = np.load(reference / f"{arg.name}.npy")
        actual = np.load(outputs / f"{arg.name}.npy")
        comparisons.append((arg.name, compare(expected, actual, arg.dtype, case.tolerance_for(arg.dtype))))
    failures = [(name, c) for name, c in comparisons if not c.passed]
    result.status = "fail" if failures else "pass"
    result.reason = "; ".join(f"{name}: {c.reason}" for name, c in failures) or None
    _, worst = failures[0] if failures else max(comparisons, key=lambda item: item[1].max_abs_err)
    result.max_abs_err, result.max_rel_err = worst.max_abs_err, worst.max_rel_err
    result.max_ulp, result.mismatches, result.first_mismatch = worst.max_ulp, worst.mismatches, worst.first_mismatch


def _require_inside(root: Path, rel: str, what: str) -> None:
    """A case's file must be a file of the tree: not missing, and not a link leading out of it."""
    path = (root / rel).resolve()
    if not path.is_file():
        raise VerifyError(f"{what} is not a file in {root}")
    if root.resolve() not in path.parents:
        raise VerifyError(f"{what} leads out of {root}; a case may only use the tree's own files")


def _stage(root: Path, cases: list[Case], torch_cases: list[TorchCase], work: Path, config: Config) -> dict[str, Path]:
    for case in torch_cases:
        for source in case.sources + (case.port or []) + ([case.reference.split(":")[0]] if case.reference else []):
            _require_inside(root, source, f"torch case {case.name!r}: {source!r}")
    for case in cases:
        _require_inside(root, case.source, f"case {case.name!r}: source {case.source!r}")
        if case.port is not None:
            _require_inside(root, case.port, f"case {case.name!r}: port {case.port!r}")
    original = work / "original"
    shutil.copytree(root, original, ignore=shutil.ignore_patterns(".git", "__pycache__"))
    for case in cases:
        harness.write(case, original)
    portable = work / "portable"
    convert(ConvertOptions(original, portable), config, None)
    return {REFERENCE: original, Variant.CUDA_PORT: portable, Variant.HIP_AMD: portable}


def verify(
    root: Path,
    targets: tuple[str, ...],
    config: Config,
    record: Path | None = None,
    reference_dir: Path | None = None,
    gpus: dict[str, list[str]] | None = None,
    use_emulator: bool | None = None,
    progress=None,
) -> VerifyResult:
    """Run every case on the GPUs present; with none (or `use_emulator=True`), kernel cases run on porter's
    CPU device at each target's warp width instead (porter.verify.emulate). `progress(name)` is told as
    each case ends."""
    done = progress or (lambda name: None)
    if not root.is_dir():
        raise VerifyError(f"{root}: verify takes a directory")
    targets = tuple(t.id for t in parse_targets(targets))
    cases, torch_cases = load_cases(config), load_torch_cases(config)
    if not cases and not torch_cases:
        raise VerifyError(
            f"{root}: no verify cases; declare [[tool.porter.verify.case]] (or .torch) or run `porter verify --init`"
        )
    gpus = detect_gpus() if gpus is None else gpus
    use_emulator = not any(gpus.values()) if use_emulator is None else use_emulator
    results: list[CaseResult] = []
    work = Path(tempfile.mkdtemp(prefix="porter-verify-"))
    try:
        trees = _stage(root, cases, torch_cases, work, config)
        if use_emulator and cases:
            emulated = _emulated_trees(trees, work)
            # each case builds and runs its own harnesses (host compiler, then the CPU device)
            for case, rows in _side_by_side(cases, lambda case: _emulate_case(case, targets, emulated, work)):
                results += rows
                done(f"{case.name} (emulated)")
        elif cases:
            for case in cases:
                for target_id in targets:
                    results += _verify_case(case, target_id, trees, work, gpus, reference_dir)
                done(case.name)
        if torch_cases:
            extension.prune_unused_builds()
        digests = extension.TreeDigests()
        # each torch case builds its two extensions with the host compiler (one file at a time)
        for case, rows in _side_by_side(
            torch_cases, lambda case: _verify_torch_case(case, trees, work, reference_dir, digests)
        ):
            results += rows
            done(case.name)
        if record is not None:
            _record(record, cases + torch_cases, results, work, gpus)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return VerifyResult(results, gpus, targets)


def _side_by_side(cases: list, run) -> Iterable[tuple]:
    """(case, run(case)) for each case, the cases run one per core, yielded in their order as each ends."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        yield from zip(cases, pool.map(run, cases), strict=True)


def _verify_case(case, target_id, trees, work, gpus, reference_dir) -> list[CaseResult]:
    results = []
    gpu = _gpu_for(target_id, gpus)
    reference_outputs = None
    reference_median = None
    for variant in _variants(target_id):
        result = CaseResult(
            case.name, variant, target_id, "not-run", expected=case.expect if variant != REFERENCE else "pass"
        )
        tree = trees[variant]
        executable = work / "bin" / f"{case.name}-{variant}-{target_id}"
        executable.parent.mkdir(parents=True, exist_ok=True)
        source = tree / harness.harness_name(case, port=variant != REFERENCE)
        ok, log, how = _compile(source, tree, target_id, executable)
        result.built = how or None
        if not ok:
            result.status, result.reason = "build-failed", _diagnostic(log)
            results.append(result)
            continue
        if gpu is None:
            vendor = target(target_id).vendor.value.upper()
            result.reason = f"not run: no {vendor} GPU here (built only)"
            results.append(result)
            continue
        result.gpu = gpu
        outputs = work / "outputs" / case.name / variant / target_id
        ran, log = _run(executable, outputs)
        if not ran:
            result.status, result.reason = "fail", f"the harness failed on {gpu}: {_diagnostic(log)}"
            results.append(result)
            continue
        times = _timings(outputs)
        result.time_ms_median = statistics.median(times) if times else None
        result.time_ms_spread = _spread(times)
        recorded = reference_dir / case.name / REFERENCE if reference_dir else None
        if variant == REFERENCE and recorded is None:
            reference_outputs, reference_median = outputs, result.time_ms_median
            result.status, result.reason = (
                "pass",
                "reference run: the harness ran; the port variants are compared with it",
            )
        else:
            against = recorded if recorded is not None else reference_outputs
            if against is None or not against.is_dir():
                result.reason = "not compared: no reference outputs (run a CUDA target_id or pass --compare DIR)"
            else:
                _compare_outputs(case, result, against, outputs)
                base = reference_median if recorded is None else _recorded_median(reference_dir, case.name)
                if base and result.time_ms_median:
                    result.time_ratio = result.time_ms_median / base
        results.append(result)
    return results


def _emulated_trees(trees: dict, work: Path) -> tuple[Path, Path]:
    """The original and the port staged for the host compiler (dynamic shared arrays rewritten)."""
    return (
        emulate.stage(trees[REFERENCE], work / "emulated" / "original"),
        emulate.stage(trees[Variant.CUDA_PORT], work / "emulated" / "port"),
    )


def _emulate_case(case: Case, targets: tuple[str, ...], trees: tuple[Path, Path], work: Path) -> list[CaseResult]:
    """emu-original at 32 lanes, then emu-port at each target's width, compared with it."""
    original, port = trees
    # a hand-written port runs as its author wrote it; porter's own port is its portable conversion,
    # except of a kernel in a Python string, which porter does not rewrite: that runs as the file holds it
    if case.port:
        port_tree, port_harness = original, harness.harness_name(case, port=True)
    else:
        port_tree, port_harness = (original if _held_in_python(case) else port), harness.harness_name(case)
    lacking = emulate.unsupported(original / case.source, case.string) or (
        case.port and emulate.unsupported(original / case.port, case.string)
    )
    fault = case.expect in ("hang", "error")  # the original itself must hang or stop
    reference = CaseResult(case.name, Variant.EMU_ORIGINAL, "cpu-w32", "not-run", lacking)
    reference.expected = case.expect if fault else "pass"
    rows = [reference]
    on_mfma = _uses_wmma_header(port_tree / (case.port or case.source))
    for target_id in targets:
        width = target(target_id).wavefront
        # a planted port fails away from the width it was written for (a wave32 bug at 64 lanes, a
        # wave64 bug at 32); at its own width it may pass, so no verdict is expected there
        expected = case.expect if width != case.written_for or case.expect != "fail" else None
        reason = lacking or (_no_matrix_cores(target_id) if on_mfma else None)
        rows.append(CaseResult(case.name, Variant.EMU_PORT, target_id, "not-run", reason, expected=expected))
    if lacking:
        return rows
    reference_outputs = _emulated_run(case, original, harness.harness_name(case), 32, work, reference, "original")
    if reference_outputs is not None:
        reference.status, reference.reason = "pass", "reference run on the CPU at 32 lanes"
        if (race := _order_dependent(case, work, original, reference_outputs)) is not None:
            reference.status, reference.reason, reference_outputs = "error", race, None
    by_build: dict[tuple, CaseResult] = {}  # targets of one width (and one set of macros) share one run
    for row in rows[1:]:
        if row.reason:  # not runnable on this target (a kernel on matrix cores it lacks)
            continue
        width = target(row.target).wavefront
        defines = _port_defines(case, row.target, width)
        if (width, defines) not in by_build:
            label = f"port-w{width}" + ("-hiprtc" if defines else "")
            outputs = _emulated_run(case, port_tree, port_harness, width, work, row, label, defines)
            if outputs is not None and reference_outputs is not None:
                _compare_outputs(case, row, reference_outputs, outputs)
            elif outputs is not None and reference.reason and reference.reason.startswith(RACE):
                row.reason = "not compared: the original has a race (its own row says where)"
            elif outputs is not None:
                row.reason = f"not compared: the original did not run ({reference.reason})"
            by_build[width, defines] = row
        else:
            _copy_verdict(by_build[width, defines], row)
        row.built = f"emulated on the CPU at {width} lanes"
    reference.built = "emulated on the CPU at 32 lanes"
    return rows


def _port_defines(case: Case, target_id: str, width: int) -> tuple[str, ...]:
    """A kernel held in a Python string runs on an AMD target as hipRTC compiles it there, its HIP
    branches chosen; a source file's port runs as the CUDA it is (porter_compat.h picks its own)."""
    if _held_in_python(case) and target(target_id).is_amd:
        return emulate.hip_rtc_defines(target_id, width)
    return ()


def _held_in_python(case: Case) -> bool:
    return is_python(case.port or case.source)


def _uses_wmma_header(source: Path) -> bool:
    return source.is_file() and WMMA_HEADER.encode() in source.read_bytes()


def _no_matrix_cores(target_id: str) -> str | None:
    """Why a port on porter_wmma.h cannot run on an AMD target without MFMA (RDNA's WMMA differs)."""
    chosen = target(target_id)
    if not chosen.is_amd or chosen.matrix == "mfma":
        return None
    return f"{WMMA_HEADER} runs WMMA on MFMA matrix cores, which {target_id} lacks"


def _emulated_executable(case, work: Path, label: str) -> Path:
    """Where _emulated_run builds a case's harness for one run (`original`, `port-w64`, …)."""
    return work / "bin" / f"{case.name}-emu-{label}"


def _emulated_run(case, tree: Path, harness_file: str, width: int, work: Path, row: CaseResult, label: str, defines=()):
    """Build and run one harness on the CPU device; the outputs' folder, or None with the row's status set."""
    executable = _emulated_executable(case, work, label)
    executable.parent.mkdir(parents=True, exist_ok=True)
    ok, log = emulate.compile_harness(tree / harness_file, tree, width, executable, defines)
    if not ok:
        row.status, row.reason = "build-failed", f"the CPU device could not build it: {_diagnostic(log)}"
        return None
    outputs = work / "outputs" / case.name / f"emu-{label}"
    status, message = emulate.run_harness(executable, outputs, tree)
    if status != "ran":
        row.status, row.reason = status, message
        return None
    return outputs


def _order_dependent(case, work: Path, tree: Path, reference: Path) -> str | None:
    """Why the original's outputs are no reference, where they change with the order the CPU device
    runs a block's threads in (its threads in reverse): a race between lanes or warps that read what
    another writes with no `__syncwarp` or `__syncthreads` between (the warp-synchronous
    `s[tid] += s[tid + 16]` of a shared-memory reduction), whose outcome on a GPU no one order
    stands for. None where they do not change."""
    executable = _emulated_executable(case, work, "original")
    outputs = work / "outputs" / case.name / "emu-original-descending"
    status, _ = emulate.run_harness(executable, outputs, tree, descending=True)
    if status != "ran":
        return None  # a fault only one order meets is the port's runs' to report
    check = CaseResult(case.name, Variant.EMU_ORIGINAL, "cpu-w32", "not-run")
    _compare_outputs(case, check, reference, outputs)
    if check.status == "pass":
        return None
    return (
        f"{RACE}: its outputs change with the order its threads run in ({check.reason}); lanes or warps read "
        "what others write with no __syncwarp or __syncthreads between, and no one order stands for a GPU's"
    )


RACE = "a race"  # how an original whose outputs depend on its threads' order is reported (_order_dependent)


def _copy_verdict(source: CaseResult, row: CaseResult) -> None:
    for name in ("status", "reason", "max_abs_err", "max_rel_err", "max_ulp", "mismatches", "first_mismatch"):
        setattr(row, name, getattr(source, name))


def _verify_torch_case(
    case: TorchCase, trees, work: Path, reference_dir: Path | None, digests: extension.TreeDigests
) -> list[CaseResult]:
    results = []
    outputs_of: dict[str, Path] = {}
    for variant in (extension.ORIGINAL, extension.PORT):
        tree = trees[REFERENCE] if variant == extension.ORIGINAL or case.port else trees[Variant.CUDA_PORT]
        outputs = work / "outputs" / case.name / variant / case.device
        spec = extension.spec_for(case, variant, tree, outputs, digests)
        ran = extension.run_variant(spec, work)
        expected = case.expect if variant == extension.PORT else "pass"
        result = CaseResult(case.name, variant, case.device, "not-run", ran["reason"], expected=expected)
        result.gpu = ran["device"] if case.device == "cuda" else None
        if ran["status"] in ("ran", "failed"):
            result.built = "torch.utils.cpp_extension" + (", reused from porter's cache" if ran.get("reused") else "")
        results.append(result)
        if ran["status"] != "ran":
            result.status = {"failed": "fail"}.get(ran["status"], ran["status"])
            continue
        outputs_of[variant] = outputs
        times = _timings(outputs)
        result.time_ms_median, result.time_ms_spread = (statistics.median(times) if times else None), _spread(times)
        recorded = reference_dir / case.name / extension.ORIGINAL if reference_dir else None
        if variant == extension.ORIGINAL and recorded is None:
            if (outputs / "reference").is_dir():
                _compare_outputs(case, result, outputs / "reference", outputs)
                result.reason = f"against the CPU reference {case.reference}" + (
                    f": {result.reason}" if result.reason else ""
                )
            else:
                result.status, result.reason = "pass", "reference run: the op ran; the port is compared with it"
            continue
        against = recorded if recorded is not None else outputs_of.get(extension.ORIGINAL)
        if against is None or not against.is_dir():
            result.reason = "not compared: the original did not run (see its row) and no --compare DIR was given"
            continue
        _compare_outputs(case, result, against, outputs)
        base = _timings(against)
        if base and times:
            result.time_ratio = statistics.median(times) / statistics.median(base)
    return results


def _recorded_median(reference_dir: Path, name: str) -> float | None:
    times = _timings(reference_dir / name / REFERENCE)
    return statistics.median(times) if times else None


def _diagnostic(log: str) -> str:
    return first_error(log) or log.strip()[:300]


def _record(record: Path, cases: list[Compared], results: list[CaseResult], work: Path, gpus) -> None:
    """Outputs and timings with provenance; a half-written record never replaces a whole one."""
    record.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".porter-record-", dir=record.parent))
    for case in cases:
        for variant_dir in (work / "outputs" / case.name).glob("*"):
            for target_dir in variant_dir.glob("*"):
                shutil.copytree(target_dir, staging / case.name / variant_dir.name, dirs_exist_ok=True)
    manifest = {
        "cases": [asdict(r) for r in results],
        "seeds": {c.name: [harness.seed(c, i) for i in range(len(c.args))] for c in cases},
        "provenance": {
            "gpus": gpus,
            "platform": platform.platform(),
            "toolchains": _toolchain_versions(),
            "commit": _commit(),
        },
    }
    (staging / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    previous = record.with_name(record.name + ".previous")
    if record.exists():
        record.rename(previous)
    staging.rename(record)
    shutil.rmtree(previous, ignore_errors=True)


def _toolchain_versions() -> dict[str, str | None]:
    nvcc = toolchains.find_nvcc()
    hip = toolchains.find_hip_toolchain()
    return {"nvcc": nvcc.version if nvcc else None, "hip": f"{hip.kind} HIP {hip.hip_version}" if hip else None}


def _commit() -> str | None:
    out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip() or None
