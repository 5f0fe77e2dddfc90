"""Whose problem a failed unit is: the original's, the toolchain's, a feature AMD lacks, work the scan
left to a person, or porter's own rewrite (a port error).

The facts come from the scan's findings (their rules say what AMD lacks, their code lines name the
headers), from the compiler's first error, and from the source around it; never from message text.
"""

from __future__ import annotations

import re
from pathlib import Path

from porter.build.torch_tree import explain_missing
from porter.build.units import Unit
from porter.findings import FixKind
from porter.rules import unsupported_on_amd
from porter.targets import Variant, toolchains

MISSING_HEADER = re.compile(r"fatal error: '?([^':\s]+)'?(?: file not found|: No such file or directory)")


def ported_headers(findings_by_file: dict[str, list]) -> set[str]:
    """CUDA headers porter rewrites to their HIP counterparts (its automatic include fixes)."""
    return {
        f.included_header
        for findings in findings_by_file.values()
        for f in findings
        if f.fix is FixKind.AUTO and f.included_header
    }


ROCM_CONDITION = re.compile(r"USE_ROCM|__HIP|HIP_PLATFORM|ROCM|__HIPCC__|WITH_HIP|__AMDGCN")
ERROR_AT = re.compile(r"^([^:\s]+):(\d+):\d+: (?:fatal )?error")


def _in_rocm_branch(tree: Path, diagnostic: str, unit_dir: str) -> bool:
    """Whether the error sits in a branch the source reserves for ROCm (`#ifdef USE_ROCM` and the like):
    code its authors wrote for their own ROCm build, which porter did not write."""
    where = ERROR_AT.match(diagnostic)
    if where is None:
        return False
    candidates = [tree / unit_dir / where.group(1), tree / where.group(1)]
    path = next((c for c in candidates if c.is_file()), None)
    if path is None:
        return False
    stack: list[tuple[str, bool]] = []  # (condition, negated)
    for line in path.read_text(errors="replace").splitlines()[: int(where.group(2)) - 1]:
        directive = re.match(r"\s*#\s*(ifdef|ifndef|if|elif|else|endif)\b(.*)", line)
        if directive is None:
            continue
        kind, condition = directive.group(1), directive.group(2).strip()
        if kind in ("ifdef", "ifndef", "if"):
            stack.append((condition, kind == "ifndef" or condition.startswith("!")))
        elif kind == "elif" and stack:
            stack[-1] = (condition, condition.startswith("!"))
        elif kind == "else" and stack:
            stack[-1] = (stack[-1][0], not stack[-1][1])
        elif kind == "endif" and stack:
            stack.pop()
    return any(ROCM_CONDITION.search(condition) and not negated for condition, negated in stack)


def _gone_from_torch(header: str) -> str | None:
    """Why a torch header the original includes is missing: the installed torch no longer has it.
    A HIP spelling (`ATen/hip/...`) is ROCm torch's own, which a CPU or CUDA torch never ships."""
    found = toolchains.find_torch()
    if found is None or header.split("/")[0] not in ("THC", "ATen", "c10", "torch"):
        return None
    if "hip" in header.lower().split("/")[1:-1] or "HIP" in header:
        return None
    if (found[1] / "include" / header).is_file():
        return None
    return f"the installed torch {found[0]} has no such header; the original was written for another torch"


def classify(
    unit: Unit, findings_by_file: dict[str, list], cuda_failed: set[str], headers: set[str], tree: Path
) -> None:
    if unit.status != "failed" or unit.cls is not None:  # refused before compiling: its class is set
        return
    missing = MISSING_HEADER.search(unit.diagnostic or "")
    source = re.sub(r"\.hip$", ".cu", unit.file)  # the HIP tree's renamed file; the scan saw the .cu
    findings = findings_by_file.get(unit.file) or findings_by_file.get(source, [])
    manual = [f for f in findings if f.fix is not FixKind.AUTO]
    on_amd_side = unit.variant in (Variant.HIP, Variant.HIP_NVIDIA)
    if missing and on_amd_side and any(f.included_header == missing.group(1) for f in manual):
        # a CUDA-only header the scan already flagged (cuda_pipeline.h, mma.h, cudnn.h, ...)
        rules = sorted({f.rule for f in manual if f.included_header == missing.group(1)})
        unit.cls = "unsupported-feature"
        unit.diagnostic = f"{', '.join(rules)}: {missing.group(1)} has no ROCm counterpart ({unit.diagnostic})"
        return
    if missing and on_amd_side and missing.group(1) in headers:
        # a CUDA header with a HIP counterpart still included: the port is unfinished (no conversion, or hipify's)
        unit.cls = "port-error"
        unit.diagnostic = f"{missing.group(1)}: a CUDA header the port still includes ({unit.diagnostic})"
        return
    # a header torch dropped (mmcv 2.2.0's THC/THCAtomics.cuh under torch 2.13) is gone for both vendors
    gone = _gone_from_torch(missing.group(1)) if missing else None
    if gone:
        unit.cls = "original-does-not-build"
        unit.diagnostic = f"{missing.group(1)}: {gone} ({unit.diagnostic})"
        return
    if missing:
        unit.cls = "toolchain-missing-header"
        why = explain_missing(missing.group(1)) or "not available to this toolchain"
        unit.diagnostic = f"{missing.group(1)}: {why} ({unit.diagnostic})"
        return
    if unit.variant == "cuda":
        unit.cls = "original-does-not-build"
        return
    library = _library_without_target(unit)
    if library is not None:
        unit.cls = "toolchain-unsupported-target"
        unit.diagnostic = f"{library} does not support {unit.target} ({unit.diagnostic})"
        return
    if unit.file in cuda_failed or source in cuda_failed:
        unit.cls = "original-does-not-build"
        return
    if _in_rocm_branch(tree, unit.diagnostic or "", str(Path(unit.file).parent)):
        unit.cls = "original-does-not-build"
        unit.diagnostic = f"in the original's own ROCm branch, which its build system configures: {unit.diagnostic}"
        return
    unsupported = sorted({f.rule for f in manual if unsupported_on_amd(f)})
    pending = sorted({f.rule for f in manual})
    if unsupported:
        unit.cls, unit.diagnostic = "unsupported-feature", f"{', '.join(unsupported)}: {unit.diagnostic}"
    elif pending:
        # the scan left this file work for a person: the failure is that work, not porter's rewrite
        unit.cls, unit.diagnostic = "manual-fix-needed", f"{', '.join(pending)} left to a person: {unit.diagnostic}"
    else:
        unit.cls = "port-error"


# A ROCm library's own header refusing the target: rocPRIM 6.4.3 has no 128-bit atomics on gfx950.
_LIBRARY_REFUSES = re.compile(
    r"(?:^|/)include/(rocprim|hipcub|rocthrust|thrust|hipblaslt|rocblas|rccl)/\S*:\d+:\d+: error: .*"
    r"(not implemented for current architecture|not supported on|unsupported (?:architecture|target))"
)


# The AMD backends of the ROCm libraries (rocPRIM, rocThrust's hip system, hipCUB over rocPRIM): a
# HIP-on-NVIDIA build that reaches them stops in their headers, because on NVIDIA HIP takes Thrust
# and CUB from CUDA. The error names the header, not the code.
_AMD_ONLY_BACKEND = re.compile(
    r"(?:^|/)include/(rocprim|thrust/system/hip|hipcub/backend/rocprim)/\S*:\d+:\d+: (?:fatal )?error"
)
_BACKEND_LIBRARY = {
    "rocprim": "rocPRIM",
    "thrust/system/hip": "rocThrust",
    "hipcub/backend/rocprim": "hipCUB's rocPRIM backend",
}


def _library_without_target(unit: Unit) -> str | None:
    """The library (with the HIP version porter builds against) whose header stops at this target, if any."""
    diagnostic = unit.diagnostic or ""
    match = _LIBRARY_REFUSES.search(diagnostic)
    if match is not None:
        hip = toolchains.find_hip_toolchain()
        return f"{match.group(1)} of HIP {hip.hip_version}" if hip else match.group(1)
    backend = _AMD_ONLY_BACKEND.search(diagnostic) if unit.variant == Variant.HIP_NVIDIA else None
    if backend is None:
        return None
    return f"{_BACKEND_LIBRARY[backend.group(1)]} (AMD only: on NVIDIA, HIP's Thrust and CUB are CUDA's)"


# Whose problem each failure class is: the code's or the port's (a build gate fails on these), or the
# toolchain's here (a missing header, a target this compiler lacks), which says nothing of the code.
# Every class a unit can end in, with whose problem it is and what to do: the report's legend.
# Ordered as a reader should act on them: porter's and the code's first, the toolchain's last.
FAILURE_CLASSES: dict[str, tuple[str, str]] = {
    "port-error": ("porter's", "porter's rewrite does not compile: a bug to report to porter"),
    "manual-fix-needed": ("the code's", "the scan left this file work for a person; its manual findings name it"),
    "unsupported-feature": ("the code's", "a feature AMD lacks (its finding names it): needs a redesign"),
    "unsafe-input": ("the code's", "a flag or path porter refuses to pass to a compiler"),
    "original-does-not-build": ("the original's", "the original fails here too, or in its own ROCm branch"),
    "toolchain-missing-header": ("the toolchain's", "a header this machine's CUDA, ROCm or torch lacks"),
    "toolchain-unsupported-target": ("the toolchain's", "a ROCm library refuses this architecture"),
    "unavailable": ("the toolchain's", "no compiler for this target here: `porter doctor` says what to install"),
}

# what a build gate fails on by default: every class that is not the toolchain's
CODE_FAILURES = frozenset(cls for cls, (whose, _) in FAILURE_CLASSES.items() if whose != "the toolchain's")


def fails_gate(unit: Unit, fail_on: str) -> bool:
    """Does this unit fail a build gate? fail_on: `code` (the default), `any` failure, or `never`."""
    if fail_on == "never" or unit.status != "failed":
        return False
    return fail_on == "any" or unit.cls in CODE_FAILURES
