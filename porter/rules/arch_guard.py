"""Architecture guards (category `arch-guard`): `__CUDA_ARCH__`, CUDA version and compute-capability tests."""

from __future__ import annotations

import re
from collections.abc import Iterable

from porter.findings import Edit, Finding, FixKind, Severity
from porter.parse import Context, captures
from porter.rules.base import FileContext, Rule
from porter.rules.branches import INLINE_ASM as _INLINE_ASM
from porter.rules.branches import chain_end
from porter.rules.patterns import CODE_CONTEXTS, finditer, finditer_at, search, within_any
from porter.source import FileKind, encoded_length, identifier_start

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
_VERSION_NEEDLES = (b"VERSION", b"__NVCC__", b"__CUDACC_VER_")  # one of which every match holds
_VERSION = re.compile(
    rb"(?<![\w$])(CUDA_VERSION|CUDART_VERSION|__CUDACC_VER_MAJOR__|__CUDACC_VER_MINOR__|__NVCC__|__CUDA_API_VERSION)\b"
)
# Where a file reads the device properties, a variable holding the major version compared with a
# number is the same test one step removed (`int major = prop->major; if (major >= 9)`).
_CAPABILITY_READS = (b"DeviceProperties", b"ComputeCapability", b"getDeviceCapability")  # or a member `major`


_BLANK_BYTES = b" \t\n\r\x0b\x0c"  # what `\s` matches in a bytes pattern


def _arch_comparison_starts(data: bytes) -> list[int]:
    """Every place an _ARCH_COMPARISON match can start: each `__CUDA_ARCH__`, and the digits of a
    number compared with it from the left (`800 <= __CUDA_ARCH__`), found by looking back over
    blanks, the operator and blanks. The regex's second alternative, led by `\\d+`, would be tried
    at every byte."""
    starts = []
    index = data.find(b"__CUDA_ARCH__")
    while index >= 0:
        starts.append(index)
        before = index
        while before > 0 and data[before - 1] in _BLANK_BYTES:
            before -= 1
        operator = before
        while operator > 0 and before - operator < 2 and data[operator - 1] in b"<>=!":
            operator -= 1
        if operator < before:
            digits_end = operator
            while digits_end > 0 and data[digits_end - 1] in _BLANK_BYTES:
                digits_end -= 1
            digits = digits_end
            while digits > 0 and data[digits - 1 : digits].isdigit():
                digits -= 1
            starts.extend(range(digits, digits_end))
        index = data.find(b"__CUDA_ARCH__", index + 1)
    return starts


def _names_capability(data: bytes) -> bool:
    """Does `data` hold one of _CAPABILITY's two names?"""
    return b"cudaDevAttrComputeCapabilityMajor" in data or b"getDeviceCapability" in data


def _identifier_starts(data: bytes, word: bytes) -> list[int]:
    """Where each identifier holding `word` starts: every _MAJOR_VARIABLE match starts so, and
    the regex, led by a lookbehind and an optional `\\w*_`, would be tried at every byte."""
    starts = []
    index = data.find(word)
    while index >= 0:
        starts.append(identifier_start(data, index))
        index = data.find(word, index + 1)
    return starts


def _member_major(data: bytes) -> bool:
    """Does `data` read a member `major` (`(?:\\.|->)\\s*major\\b`)? Every match of _CAPABILITY
    but its two names holds one. Found from each `major`, looking back over blanks: the regex would
    be tried at every byte, and `major` alone passes in any file with a `row_major` layout."""
    index = data.find(b"major")
    while index >= 0:
        after = index + len(b"major")
        if not (data[after : after + 1].isalnum() or data[after : after + 1] == b"_"):  # a word boundary after it
            before = index
            while before > 0 and data[before - 1] in _BLANK_BYTES:
                before -= 1
            if data[before - 1 : before] == b"." or data[max(before - 2, 0) : before] == b"->":
                return True
        index = data.find(b"major", after)
    return False


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
    if b"__CUDA_ARCH__" in data and _device_compiled(ctx) and "__CUDA_ARCH__" not in ctx.hip_shims:
        yield from _arch_tests(ctx)
    if any(needle in data for needle in _VERSION_NEEDLES) and search(_VERSION, data):
        yield from (f for f in _version_tests(ctx) if _tested_name(ctx, f) not in ctx.hip_shims)
    if b"major" in data or b"Capability" in data:
        member_major = _member_major(data)
        matches = list(_CAPABILITY.finditer(data)) if member_major or _names_capability(data) else []
        if member_major or any(word in data for word in _CAPABILITY_READS):
            matches += list(finditer_at(_MAJOR_VARIABLE, data, _identifier_starts(data, b"major")))
        for match in sorted(matches, key=lambda m: m.start()):
            if ctx.parsed.context_at(match.start(), match.end()) in CODE_CONTEXTS and not ctx.device.is_device_code(
                ctx.parsed.root.descendant_for_byte_range(match.start(), match.end())
            ):
                yield CAPABILITY.finding(
                    ctx, match.start(), match.end(), "compute capability on AMD is the GCN version (9.4 on gfx942)"
                )


def _tested_name(ctx: FileContext, finding: Finding) -> str:
    """The macro a version test names (`CUDART_VERSION`): a project that defines it for HIP itself
    (names.hip_shims) decided what its guards mean there."""
    return ctx.source.text(finding.span.start_byte, finding.span.end_byte)


def _arch_tests(ctx: FileContext) -> Iterable[Finding]:
    """One finding per guard: a value test (ARC001) or a device-pass test (ARC002), never both."""
    data = ctx.source.data
    in_guards: list[tuple[int, int]] = []
    for node in _conditions(ctx.parsed.root) + _ifdefs(ctx.parsed.root):
        head = _guard_head(ctx, node)
        if head is None:
            continue
        in_guards.append(head)
        if b"__CUDA_ARCH__" not in data[head[0] : head[1]] or HIP_AWARE.search(data[head[0] : head[1]]):
            continue
        finding = _guard_finding(ctx, node, *head)
        if finding is not None:
            yield finding
    inside_a_guard = within_any(in_guards)
    for match in finditer_at(_ARCH_COMPARISON, data, _arch_comparison_starts(data)):  # `if (__CUDA_ARCH__ >= 800)`
        if inside_a_guard(match.start()):
            continue
        if ctx.parsed.context_at(match.start(), match.end()) not in CODE_CONTEXTS:
            continue
        if HIP_AWARE.search(_enclosing_condition_text(ctx, match.start(), match.end())):
            continue
        yield ARCH_VALUE.finding(
            ctx, match.start(), match.end(), "`__CUDA_ARCH__` is undefined under HIP, so this test reads it as 0"
        )


def _guard_head(ctx: FileContext, node) -> tuple[int, int] | None:
    """The bytes of a guard's test: an #if/#elif condition, or the `#ifdef NAME` line."""
    if node.type == "preproc_ifdef":
        name = node.child_by_field_name("name")
        return (node.start_byte, name.end_byte) if name is not None else None
    return node.start_byte, node.end_byte


def _guard_finding(ctx: FileContext, node, start: int, end: int) -> Finding | None:
    text = ctx.source.text(start, end)
    value_test = _ARCH_COMPARISON.search(ctx.source.data, start, end)
    if node.type == "preproc_ifdef":
        head = re.match(r"#\s*(ifdef|ifndef)\s+__CUDA_ARCH__\b", text)
        if not head:
            return None
        negated = head.group(1) == "ifndef"
        replacement = (
            "#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)"
            if negated
            else f"#if defined(__CUDA_ARCH__) || {DEVICE_PASS}"
        )
        edits = (Edit(start, end, replacement.encode()),)
        return _device_pass_finding(ctx, node, start, end, edits)
    if value_test is not None and ctx.branches.skipped_by_hip(node.parent):
        return None  # nothing is left to decide (the arm is NVIDIA's alone: Branches)
    if value_test is not None:
        # `#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600 … #else <fallback> #endif`: making the
        # device pass visible would make the value read 0 and switch the fallback on for HIP (a
        # redefinition of atomicAdd where HIP has its own). The right HIP branch is a person's call.
        both = re.search(r"defined\s*\(?\s*__CUDA_ARCH__", text) is not None
        return ARCH_VALUE.finding(
            ctx, value_test.start(), value_test.end(),
            "`__CUDA_ARCH__` is undefined under HIP, so this test reads it as 0"
            + ("; the guard also tests `defined(__CUDA_ARCH__)`: decide which branch HIP needs (no automatic fix)" if both else ""),
        )  # fmt: skip
    edits = []
    for match in re.finditer(r"defined\s*\(?\s*__CUDA_ARCH__\s*\)?", text):
        edit_start = start + encoded_length(text[: match.start()])
        edit_end = edit_start + encoded_length(match.group())
        edits.append(Edit(edit_start, edit_end, f"(defined(__CUDA_ARCH__) || {DEVICE_PASS})".encode()))
    if not edits:
        return None
    return _device_pass_finding(ctx, node, edits[0].start, edits[-1].end, tuple(edits))


def _device_pass_finding(ctx: FileContext, node, start: int, end: int, edits: tuple[Edit, ...]) -> Finding:
    """ARC002, automatic only where opening the device arm to HIP's device pass keeps its meaning.

    Not where an arm tests the value of `__CUDA_ARCH__` (it reads 0 on HIP: the host path would be
    traded for the oldest-GPU fallback), nor where an arm holds inline assembly (flashinfer's
    `#elif defined(__CUDA_ARCH__)` / `asm volatile("trap;")`: hip-clang would be handed PTX).
    """
    arms_start, arms_end = edits[-1].end, chain_end(node)
    message = "the device pass of hip-clang does not define `__CUDA_ARCH__`"
    for pattern, why in _PERSONS_CALL:
        if pattern.search(ctx.source.data, arms_start, arms_end) is not None:
            return ARCH_DEFINED.finding(
                ctx, start, end, f"{message}; {why}, so the branch HIP needs is a person's call", fix=FixKind.SUGGESTED
            )
    return ARCH_DEFINED.finding(ctx, start, end, message, edits=edits)


# what in a guard's arms makes opening its device arm to HIP change the code's meaning
_PERSONS_CALL = (
    (_ARCH_COMPARISON, "an arm tests its value, which reads 0 on HIP"),
    (_INLINE_ASM, "an arm holds inline assembly, which opened to HIP's device pass would not assemble there"),
)


_DEFINES_VERSION = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+(CUDA_VERSION|CUDART_VERSION|__CUDACC_VER_MAJOR__|__CUDACC_VER_MINOR__|__CUDA_API_VERSION)\b",
    re.M,
)


def _version_tests(ctx: FileContext) -> Iterable[Finding]:
    # a version the file defines itself (cupy's stub backend, `#define CUDA_VERSION 0`) is its own,
    # wherever it compiles: its uses and tests mean what it says
    own = {name.decode() for name in _DEFINES_VERSION.findall(ctx.source.data)}
    for match in finditer(_VERSION, ctx.source.data):
        if ctx.parsed.context_at(match.start(), match.end()) is not Context.CODE or match.group() == b"__NVCC__":
            continue
        if match.group().decode() in own:
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
        if node.type != "preproc_ifdef" and (
            ctx.branches.skipped_by_hip(node.parent) or not ctx.branches.hip_reads_the_test(node.parent)
        ):
            continue  # `__CUDACC_VER_MAJOR__ >= 12 && __CUDA_ARCH__ >= 900`, false on HIP whatever the
            # version; an `#elif` after an arm HIP takes, or in code HIP never compiles
        if node.type == "preproc_ifdef":
            text = text.split(b"\n", 1)[0]
        for match in _VERSION.finditer(text):
            if match.group().decode() in own:
                continue
            start = node.start_byte + match.start()
            yield TOOLKIT_VERSION.finding(
                ctx,
                start,
                start + len(match.group()),
                f"`{match.group().decode(errors='replace')}` is undefined under hipcc: this branch is decided as if for an old CUDA",
            )
