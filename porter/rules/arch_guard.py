"""Architecture guards (category `arch-guard`): `__CUDA_ARCH__`, CUDA version and compute-capability tests."""

from __future__ import annotations

import re
from collections.abc import Iterable

from porter.findings import Edit, Finding, FixKind, Severity
from porter.parse import Context, captures
from porter.rules.base import FileContext, Rule
from porter.rules.patterns import CODE_CONTEXTS
from porter.source import FileKind, encoded_length

ARCH_VALUE = Rule(
    id="ARC001",
    name="cuda-arch-value-test",
    category="arch-guard",
    severity=Severity.WARNING,
    fix=FixKind.SUGGESTED,
    summary="Test on the value of `__CUDA_ARCH__`",
    what="Finds comparisons of `__CUDA_ARCH__` with a number, in `#if`/`#elif` and in code.",
    why="""
        hip-clang does not define `__CUDA_ARCH__`, so in `#if` it reads as 0: every
        `__CUDA_ARCH__ >= 800` path is dropped and the oldest-GPU fallback is compiled for
        MI300, silently. The test is also the wrong question: the AMD features it guards
        (bf16, async copies, tensor cores) come with other targets.
        """,
    example="#if __CUDA_ARCH__ >= 800\n  use_bf16_path();\n#endif",
    use_instead="Test the feature under HIP: `#if defined(__HIP_DEVICE_COMPILE__) || __CUDA_ARCH__ >= 800`, or target macros such as `__gfx942__`, `__GFX9__`, `__AMDGCN_WAVEFRONT_SIZE`.",
)

ARCH_DEFINED = Rule(
    id="ARC002",
    name="cuda-arch-device-pass",
    category="arch-guard",
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="`#ifdef __CUDA_ARCH__` used to detect device compilation",
    what="Finds `#ifdef __CUDA_ARCH__`, `#ifndef __CUDA_ARCH__` and `defined(__CUDA_ARCH__)`.",
    why="The device pass of hip-clang does not define `__CUDA_ARCH__`: code meant for the device compiles the host branch instead (and `__host__ __device__` functions take their host path on the GPU).",
    example="#ifdef __CUDA_ARCH__\n  return __ldg(p);\n#else\n  return *p;\n#endif",
    use_instead="`#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)` (porter rewrites it).",
)

TOOLKIT_VERSION = Rule(
    id="ARC003",
    name="cuda-version-test",
    category="arch-guard",
    severity=Severity.WARNING,
    fix=FixKind.SUGGESTED,
    summary="Test on the CUDA toolkit version or on nvcc",
    what="Finds `CUDA_VERSION`, `CUDART_VERSION`, `__CUDACC_VER_MAJOR__`/`__CUDACC_VER_MINOR__` and `__NVCC__` in preprocessor conditions.",
    why="None of them is defined under hipcc, so version-gated code takes the oldest-toolkit branch (or is dropped); HIP_VERSION counts differently, so a rename would be wrong too.",
    example="#if CUDA_VERSION >= 11000\n#include <cuda_bf16.h>\n#endif",
    use_instead="Add the HIP case explicitly: `#if defined(__HIP_PLATFORM_AMD__) || CUDA_VERSION >= 11000`, or `HIP_VERSION >= 60200000` for ROCm features.",
)

CAPABILITY = Rule(
    id="ARC004",
    name="compute-capability-test",
    category="arch-guard",
    severity=Severity.WARNING,
    fix=FixKind.SUGGESTED,
    summary="Run-time test on the compute capability",
    what="Finds host code that compares `major`/`minor` of the device properties, or queries `cudaDevAttrComputeCapabilityMajor`.",
    why="On AMD, major.minor is the GCN version: gfx942 reports 9.4, gfx90a 9.0. `major >= 8` enables Ampere paths and `major == 9` Hopper paths (TMA, wgmma) on an MI300.",
    example="if (prop.major >= 9) launch_hopper_kernel(); else launch_generic_kernel();",
    use_instead='Choose by `prop.gcnArchName` ("gfx942", ...) under `__HIP_PLATFORM_AMD__`, or by the feature actually needed.',
)

RULES = (ARCH_VALUE, ARCH_DEFINED, TOOLKIT_VERSION, CAPABILITY)

_ARCH_COMPARISON = re.compile(rb"__CUDA_ARCH__\s*(>=|<=|==|!=|>|<)\s*\(?\s*\d+|\d+\s*(>=|<=|==|!=|>|<)\s*__CUDA_ARCH__")
_VERSION = re.compile(
    rb"(?<![\w$])(CUDA_VERSION|CUDART_VERSION|__CUDACC_VER_MAJOR__|__CUDACC_VER_MINOR__|__NVCC__|__CUDA_API_VERSION)\b"
)
# Where a file reads the device properties, a variable holding the major version compared with a
# number is the same test one step removed (`int major = prop->major; if (major >= 9)`).
_READS_CAPABILITY = re.compile(rb"DeviceProperties|ComputeCapability|getDeviceCapability|(?:\.|->)\s*major\b")
_MAJOR_VARIABLE = re.compile(rb"(?<![\w.>])(?:\w*_)?(?:major|cc_major|sm_major|arch_major)\s*(>=|<=|==|!=|>|<)\s*\d")
_CAPABILITY = re.compile(
    rb"(?:\.|->)\s*major\s*(>=|<=|==|!=|>|<)\s*\d|\d\s*(>=|<=|==|!=|>|<)\s*\w+\s*(?:\.|->)\s*major\b|(?:\.|->)\s*major\s*\*\s*10\s*\+|cudaDevAttrComputeCapabilityMajor|getDeviceCapability\s*\("
)


def _conditions(root) -> list:
    """The condition expressions of #if and #elif."""
    nodes = captures("(preproc_if) @i", root).get("i", []) + captures("(preproc_elif) @e", root).get("e", [])
    return sorted(
        (c for n in nodes if (c := n.child_by_field_name("condition")) is not None), key=lambda c: c.start_byte
    )


def _ifdefs(root) -> list:
    return captures("(preproc_ifdef) @d", root).get("d", [])


DEVICE_PASS = "defined(__HIP_DEVICE_COMPILE__)"


def _in_condition(node) -> bool:
    """Is the node part of an #if/#elif condition or an #ifdef name?"""
    parent = node.parent
    while parent is not None:
        field = "name" if parent.type in ("preproc_ifdef", "preproc_elifdef") else "condition"
        if parent.type in ("preproc_if", "preproc_elif", "preproc_ifdef", "preproc_elifdef"):
            part = parent.child_by_field_name(field)
            if part is not None and part.start_byte <= node.start_byte < part.end_byte:
                return True
        parent = parent.parent
    return False


HIP_AWARE = re.compile(rb"HIP|ROCM|ROCm")


def _device_compiled(ctx: FileContext) -> bool:
    """A .cpp without device code goes to the host compiler, where neither platform defines __CUDA_ARCH__."""
    return ctx.source.kind is not FileKind.CPP or b"__global__" in ctx.source.data or b"__device__" in ctx.source.data


def _enclosing_condition_text(ctx: FileContext, start: int, end: int) -> bytes:
    node = ctx.parsed.root.descendant_for_byte_range(start, end)
    while node is not None and node.type not in ("preproc_if", "preproc_elif", "preproc_ifdef"):
        node = node.parent
    if node is None:
        return b""
    condition = node.child_by_field_name("condition") or node.child_by_field_name("name")
    return ctx.source.data[condition.start_byte : condition.end_byte] if condition is not None else b""


def check(ctx: FileContext) -> Iterable[Finding]:
    if not ctx.source.kind.is_c_family or ctx.parsed.root is None:
        return
    data = ctx.source.data
    if b"__CUDA_ARCH__" in data and _device_compiled(ctx):
        yield from _arch_tests(ctx)
    if _VERSION.search(data):
        yield from _version_tests(ctx)
    if b"major" in data or b"Capability" in data:
        matches = list(_CAPABILITY.finditer(data))
        if _READS_CAPABILITY.search(data):
            matches += list(_MAJOR_VARIABLE.finditer(data))
        for match in sorted(matches, key=lambda m: m.start()):
            if ctx.parsed.context_at(match.start(), match.end()) in CODE_CONTEXTS and not ctx.device.is_device_code(
                ctx.parsed.root.descendant_for_byte_range(match.start(), match.end())
            ):
                yield CAPABILITY.finding(
                    ctx, match.start(), match.end(), "compute capability on AMD is the GCN version (9.4 on gfx942)"
                )


def _arch_tests(ctx: FileContext) -> Iterable[Finding]:
    data = ctx.source.data
    for match in _ARCH_COMPARISON.finditer(data):
        if ctx.parsed.context_at(match.start(), match.end()) not in CODE_CONTEXTS:
            continue
        if HIP_AWARE.search(_enclosing_condition_text(ctx, match.start(), match.end())):
            continue
        yield ARCH_VALUE.finding(
            ctx, match.start(), match.end(), "`__CUDA_ARCH__` is undefined under HIP, so this test reads it as 0"
        )
    for node in _ifdefs(ctx.parsed.root):
        text = ctx.source.text(node.start_byte, node.end_byte)
        head = re.match(r"#\s*(ifdef|ifndef)\s+__CUDA_ARCH__\b", text)
        if head:
            negated = head.group(1) == "ifndef"
            replacement = (
                "#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)"
                if negated
                else f"#if defined(__CUDA_ARCH__) || {DEVICE_PASS}"
            )
            end = node.start_byte + encoded_length(head.group(0))
            yield ARCH_DEFINED.finding(
                ctx, node.start_byte, end, "the device pass of hip-clang does not define `__CUDA_ARCH__`",
                edits=(Edit(node.start_byte, end, replacement.encode()),),
            )  # fmt: skip
    for node in _conditions(ctx.parsed.root):
        text = ctx.source.text(node.start_byte, node.end_byte)
        if HIP_AWARE.search(ctx.source.data[node.start_byte : node.end_byte]):
            continue
        for match in re.finditer(r"defined\s*\(?\s*__CUDA_ARCH__\s*\)?", text):
            start = node.start_byte + encoded_length(text[: match.start()])
            end = start + encoded_length(match.group())
            yield ARCH_DEFINED.finding(
                ctx, start, end, "the device pass of hip-clang does not define `__CUDA_ARCH__`",
                edits=(Edit(start, end, f"(defined(__CUDA_ARCH__) || {DEVICE_PASS})".encode()),),
            )  # fmt: skip


def _version_tests(ctx: FileContext) -> Iterable[Finding]:
    for match in _VERSION.finditer(ctx.source.data):
        if ctx.parsed.context_at(match.start(), match.end()) is not Context.CODE or match.group() == b"__NVCC__":
            continue
        node = ctx.parsed.root.descendant_for_byte_range(match.start(), match.end())
        if node is not None and _in_condition(node):
            continue
        yield TOOLKIT_VERSION.finding(
            ctx,
            match.start(),
            match.end(),
            f"`{match.group().decode(errors='replace')}` is undefined under hipcc: this does not compile there",
        )
    for node in _conditions(ctx.parsed.root) + _ifdefs(ctx.parsed.root):
        text = ctx.source.data[node.start_byte : node.end_byte]
        if HIP_AWARE.search(text.split(b"\n", 1)[0] if node.type == "preproc_ifdef" else text):
            continue
        if node.type == "preproc_ifdef":
            text = text.split(b"\n", 1)[0]
        for match in _VERSION.finditer(text):
            start = node.start_byte + match.start()
            yield TOOLKIT_VERSION.finding(
                ctx,
                start,
                start + len(match.group()),
                f"`{match.group().decode(errors='replace')}` is undefined under hipcc: this branch is decided as if for an old CUDA",
            )
