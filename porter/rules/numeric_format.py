"""Numeric formats (category `numeric-format`): FP8 flavours per target, half/bf16 intrinsics HIP lacks."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from porter.findings import Edit, Finding, FixKind, Severity
from porter.rules.base import FileContext, Rule
from porter.rules.device import calls_on_pointers_to
from porter.rules.patterns import CODE_CONTEXTS, finditer_each, search
from porter.rules.tables import read_data
from porter.targets import RocmVersion
from porter.targets import known as targets

WHY_FP8 = """
    There are two FP8 families. NVIDIA (sm_89/sm_90) and gfx950 use the OCP formats:
    E4M3 reaches ±448 and has a negative zero. gfx942 (MI300) uses the FNUZ formats: E4M3FNUZ
    reaches ±240, its exponent bias is one higher, it has no negative zero and one NaN
    (0x80). The same bits mean different numbers, so data, scales and saturation constants do
    not carry over. hipify maps every FP8 type to the FNUZ ones whatever the target, which is
    wrong for gfx950.
    """

FP8_TYPE = Rule(
    id="NUM001",
    name="fp8-format",
    category="numeric-format",
    severity=Severity.ERROR,
    fix=FixKind.SUGGESTED,
    summary="FP8 type or header whose format depends on the AMD target",
    what="Finds CUDA's FP8 types (`__nv_fp8_e4m3`, `__nv_fp8_e5m2`, the x2/x4 vectors, `__nv_fp8_storage_t`), `<cuda_fp8.h>`, and PyTorch's `Float8_e4m3fn`/`Float8_e5m2` types.",
    why=WHY_FP8,
    example="__nv_fp8_e4m3 q = __nv_fp8_e4m3(x * scale);",
    use_instead="`__hip_fp8_e4m3` (OCP) for gfx950 and `__hip_fp8_e4m3_fnuz` for gfx942, chosen per architecture (`#if defined(__gfx942__)`), with scales computed from the format's own maximum.",
)

FP8_MAX = Rule(
    id="NUM002",
    name="fp8-max-constant",
    category="numeric-format",
    severity=Severity.ERROR,
    fix=FixKind.SUGGESTED,
    summary="The OCP E4M3 maximum (448) used as a saturation or scaling constant",
    what="Finds the literal 448 in files that use FP8 (and `FP8_E4M3_MAX`-style constants set to it).",
    why=WHY_FP8 + "\nOn gfx942 values above 240 saturate or become NaN: a 448 scale overflows.",
    example="float scale = amax / 448.0f;",
    use_instead="The format's maximum from its type (`std::numeric_limits`, or a per-architecture constant: 240 for E4M3FNUZ on gfx942, 448 for OCP E4M3).",
)

MISSING_INTRINSIC = Rule(
    id="NUM003",
    unsupported_on_amd=True,
    name="half-bf16-intrinsic-missing",
    category="numeric-format",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="half or bfloat16 intrinsic that HIP does not provide",
    what="Finds `cuda_fp16.h`/`cuda_bf16.h` intrinsics (from CUDA 12.9's headers) that no checked HIP release declares, or that the targeted ROCm predates: directed-rounding conversions, `__hfma2_relu`, `__hmax2_nan`, the `_mask` comparisons, `htanh`, ...",
    why="The call does not compile on ROCm: HIP's half and bfloat16 headers cover the common arithmetic but not every rounding mode and variant.",
    example="__nv_bfloat162 y = __hfma2_relu(a, b, c);\nint i = __bfloat162int_rz(x);",
    use_instead="Compose from what HIP has (`__hfma2` then `__hmax2` with zero; convert through float: `(int)truncf(__bfloat162float(x))`), or wrap it in the compat header.",
)

HALF_INTERNALS = Rule(
    id="NUM004",
    name="half-internals",
    category="numeric-format",
    severity=Severity.WARNING,
    fix=FixKind.MANUAL,
    summary="Tricks with the inside of `__half`/`__half2`",
    what="Finds CUDA-internal members (`.__x`), pointer casts that reinterpret `__half2` or `__nv_bfloat162` as integers, and `__half_raw`/`__half2_raw` member access.",
    why="HIP's `__half` and `__half2` wrap `_Float16` vectors with a different layout of members; code that pokes at CUDA's `unsigned short __x` does not compile, and aliasing casts are undefined behaviour that the two compilers treat differently.",
    example="uint32_t bits = *reinterpret_cast<uint32_t*>(&h2);\nunsigned short raw = h.__x;",
    use_instead="`__half_as_ushort(h)`, `__ushort_as_half(u)`, `__halves2half2`, or `memcpy`/`__builtin_bit_cast` for the 32-bit view.",
)

HALF_ATOMIC_ADD = Rule(
    id="NUM005",
    name="half-atomic-add-missing",
    category="numeric-format",
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="`atomicAdd` of a `__half`, `__nv_bfloat16` or a pair of them, which HIP does not overload",
    what="""
        Finds `atomicAdd(p, v)` where `p` points to a `__half`, `__half2`, `__nv_bfloat16` or
        `__nv_bfloat162` (`half`, `nv_bfloat16` and HIP's spellings too), as the function declares
        `p` (a parameter or a local) or a cast says: `p`, `&p[i]`, `p + i`,
        `reinterpret_cast<__half2*>(q)`. A project that defines such an overload itself (a ROCm
        branch's `atomicAdd(half* address, half val)`) is taken at its word, in every file.
        """,
    why="""
        CUDA overloads atomicAdd for `__half2` (sm_60), `__half` (sm_70) and the bfloat16 types
        (sm_80). HIP declares it for none of them (HIP 6.4's `unsafeAtomicAdd(__half2*)` aside,
        which need not work on fine-grained memory): hip-clang stops with "no matching function for
        call to 'atomicAdd'".
        """,
    example="""
        __global__ void accumulate(__half* sum, const __half* x) { atomicAdd(sum, x[threadIdx.x]); }
        """,
    use_instead="""
        The compat header's `atomicAdd` for 16-bit floats and their pairs: a compare-and-swap loop
        on the 32-bit word that holds the value, each sum taken in float and rounded once to the
        type, as CUDA rounds it. Where speed matters and the memory is coarse-grained,
        `unsafeAtomicAdd` of a `__half2` uses gfx90a's and gfx942's packed atomic add.
        """,
    fixed_by_compat_header=True,
)

RULES = (FP8_TYPE, FP8_MAX, MISSING_INTRINSIC, HALF_INTERNALS, HALF_ATOMIC_ADD)

# Patterns kept apart by their leading literal, which the regex engine finds by a fast scan, and
# merged by position (finditer_each). One alternation would be tried at every byte; patterns.finditer
# would find its ten leads first (lead_literals), but a scan per lead costs twice these three scans.
_FP8_TYPE = (
    re.compile(
        rb"(?<![\w$])(__nv_cvt_\w*fp8\w*|__nv_fp8x?\d?_(e4m3|e5m2)|__nv_fp8_storage_t|__nv_fp8x\d_storage_t|__NV_E4M3|__NV_E5M2)\b"
    ),
    # the FNUZ types (`Float8_e4m3fnuz`) already name the format gfx942 computes in
    re.compile(rb"(?<![\w$])(Float8_e4m3fn|Float8_e5m2)\b"),
    re.compile(rb"(?<![\w$])(kFloat8_e4m3fn|kFloat8_e5m2)\b"),
)
_FP8_HEADER = re.compile(rb"#\s*include\s*[<\"](cuda_fp8\.h|cuda_fp8\.hpp)[>\"]")
_HALF_INTERNAL_NEEDLES = (b"__x", b"_raw", b"reinterpret_cast")  # one of which every match holds
_E4M3_MAX = re.compile(rb"(?<![\w.])448(\.0*)?[fF]?(?![\w.])")
_HALF_INTERNAL = (
    re.compile(rb"\.\s*__x\b"),
    re.compile(rb"__half2?_raw\s+\w+\s*=\s*\{|__half2?_raw\s*\{\s*0[xX]"),
    re.compile(
        rb"reinterpret_cast\s*<\s*(const\s+)?(u?int32_t|unsigned(\s+int)?|int|uint)\s*\*\s*>\s*\(\s*&\s*\w*(h2|half2|bf2|bfloat162)\w*"
        rb"|reinterpret_cast\s*<\s*(const\s+)?(u?int16_t|unsigned\s+short|short)\s*\*\s*>\s*\(\s*&\s*\w+\s*\)"
        rb"|reinterpret_cast\s*<\s*(const\s+)?(u?int16_t|unsigned\s+short|short)\s*&\s*>\s*\(\s*\w+\s*\)"
    ),
    re.compile(
        rb"\*\s*\(\s*(const\s+)?(u?int32_t|unsigned|int|u?int16_t|unsigned\s+short)\s*\*\s*\)\s*&\s*\w*(h|h2|half|half2)\b"
    ),
)


@cache
def compat_intrinsics() -> dict[str, dict]:
    """Intrinsics HIP lacks that porter_compat.h provides (porter_<name> macros): data/compat_intrinsics.json."""
    return read_data("compat_intrinsics.json")["intrinsics"]


def compat_name(name: str) -> str:
    return "porter_" + name.lstrip("_")


@cache
def numeric_intrinsics() -> dict[str, str | None]:
    raw = read_data("api_map.json")
    return raw["numeric_intrinsics"]


def _fp8_severity(ctx: FileContext) -> tuple[Severity, str]:
    formats = {t.id: t.fp8 for t in targets(ctx.config.targets)}
    fnuz = [t for t, f in formats.items() if f == "fnuz"]
    if fnuz:
        return Severity.ERROR, f"{', '.join(fnuz)} use{'s' if len(fnuz) == 1 else ''} FNUZ FP8 ({{format}})"
    ocp = [t for t, f in formats.items() if f == "ocp"]
    if ocp:
        return (
            Severity.WARNING,
            f"{', '.join(ocp)} use{'s' if len(ocp) == 1 else ''} OCP FP8 like CUDA, but hipify's FNUZ mapping is wrong there",
        )
    return Severity.WARNING, "the targets have no FP8 hardware; conversions are emulated"


def _fnuz_format(why: str, name: str) -> str:
    """What FNUZ changes for the format the name holds: E4M3's range, E5M2's special values."""
    upper = name.upper()
    if "E5M2" in upper:
        described = "E5M2 with exponent bias 16 and no infinities"
    elif "E4M3" in upper:
        described = "E4M3 max 240"
    else:
        described = "E4M3 max 240, E5M2 without infinities"
    return why.replace("{format}", described)


# A file that names no GPU code (no CUDA or HIP word, no device function, no launch): its FP8 values
# are the CPU's, in PyTorch's software types, whose format is the same on every platform
# (gptqmodel's floatx_cpu.cpp builds decode tables for every format so).
_GPU_WORDS = (b"cuda", b"hip", b"__global__", b"__device__", b"__nv_", b"<<<", b"gpu")


def _names_the_gpu(lowered: bytes) -> bool:
    return any(word in lowered for word in _GPU_WORDS)


def check(ctx: FileContext) -> Iterable[Finding]:
    if not ctx.source.kind.is_c_family:
        return
    data = ctx.source.data
    lowered = data.lower()  # two substring tests on a lower-case copy beat one case-blind regex scan
    uses_fp8 = bool(
        b"fp8" in lowered or b"e4m3" in lowered or _FP8_HEADER.search(data) or any(search(p, data) for p in _FP8_TYPE)
    ) and _names_the_gpu(lowered)
    if uses_fp8:
        severity, why = _fp8_severity(ctx)
        for match in _FP8_HEADER.finditer(data):
            name = match.group(1).decode()
            yield FP8_TYPE.finding(
                ctx, match.start(1), match.end(1), f"`{name}`: {_fnuz_format(why, name)}", severity=severity
            )
        for match in _code_matches(ctx, _FP8_TYPE):
            name = match.group().decode()
            if name in ctx.hip_shims:
                continue  # the project maps the type onto HIP's itself (`typedef __hip_fp8_e4m3 __nv_fp8_e4m3;`)
            yield FP8_TYPE.finding(
                ctx, match.start(), match.end(), f"`{name}`: {_fnuz_format(why, name)}", severity=severity
            )
        if severity is Severity.ERROR and b"448" in data:
            for match in _code_matches(ctx, (_E4M3_MAX,)):
                yield FP8_MAX.finding(
                    ctx, match.start(), match.end(), f"448 is OCP E4M3's maximum; {_fnuz_format(why, 'e4m3')}"
                )
    yield from _missing_intrinsics(ctx)
    _half_atomic_adds(ctx)
    if not any(needle in data for needle in _HALF_INTERNAL_NEEDLES):
        return
    for match in _code_matches(ctx, _HALF_INTERNAL):
        if match.group().lstrip(b".").strip() == b"__x" and not _half_member(ctx, match.start()):
            continue
        yield HALF_INTERNALS.finding(
            ctx,
            match.start(),
            match.end(),
            f"`{match.group().decode(errors='replace')}` depends on CUDA's layout of half types",
        )


# -- NUM005: atomicAdd of 16-bit floats -------------------------------------------------------
# A project that defines the overload itself (exllamav2's compat.cuh, under USE_ROCM) vetoes the key in
# any of its files; the calls are pending findings of that key, which each calling file claims.
HALF_ATOMIC_ADD_KEY = "half-atomic-add"
_HALF_TYPE = re.compile(r"(?:__)?half2?|(?:__)?nv_bfloat162?|__hip_bfloat162?")
_HALF_ATOMIC_OVERLOAD = re.compile(
    rb"(?<![\w$])atomicAdd\s*\(\s*(?:volatile\s+)?(?:__)?(?:half2?|nv_bfloat162?|hip_bfloat162?)\s*\*\s*\w+\s*,"
)


def _half_atomic_adds(ctx: FileContext) -> None:
    data = ctx.source.data
    if b"atomicAdd" not in data or ctx.parsed.root is None:
        return
    if search(_HALF_ATOMIC_OVERLOAD, data):
        ctx.project.vetoes.add(HALF_ATOMIC_ADD_KEY)
    if ctx.portable:
        return  # the compat header's overloads serve its calls
    for call, element in calls_on_pointers_to(ctx, "atomicAdd", 2, _HALF_TYPE):
        name = call.child_by_field_name("function")
        message = f"`atomicAdd` of `{element}`: HIP declares no such overload, so this does not compile"
        ctx.project.claim_pending(
            HALF_ATOMIC_ADD_KEY, HALF_ATOMIC_ADD.finding(ctx, name.start_byte, name.end_byte, message)
        )


def _half_member(ctx: FileContext, at: int) -> bool:
    """Is the `.__x` at `at` CUDA's half internals, which HIP's `__half` keeps protected? Not in a file
    written for HIP (its author compiled it there), nor on an FP8 value (`__x` is the raw byte of
    CUDA's `__nv_fp8_e4m3` and of HIP's `__hip_fp8_e4m3` alike, and hip-clang takes it): the line
    names an FP8 type, or the object is declared with one in its function."""
    if ctx.written_for_hip:
        return False
    data = ctx.source.data
    line_start = data.rfind(b"\n", 0, at) + 1
    line_end = data.find(b"\n", at)
    line = data[line_start : line_end if line_end >= 0 else len(data)]
    if b"fp8" in line.split(b"//")[0].lower():
        return False
    owner = re.search(rb"(\w+)\s*(?:\[[^\]]*\])?\s*$", data[line_start:at])
    if owner is None:
        return True
    node = ctx.parsed.root.descendant_for_byte_range(at, at) if ctx.parsed.root is not None else None
    function = ctx.device.function_of(node) if node is not None else None
    start = function.node.start_byte if function is not None and function.node is not None else 0
    # `__nv_fp8_e4m3 q(v)`, `const FP8_TYPE& val`, `__nv_fp8_e4m3 f0, f1, f2`
    declared = re.compile(
        rb"fp8\w*[\s&*]+(?:const\s+)?(?:\w+\s*(?:\([^()]*\))?\s*,\s*)*" + re.escape(owner.group(1)) + rb"\b", re.I
    )
    return declared.search(data, start, at) is None


def _code_matches(ctx: FileContext, patterns: tuple[re.Pattern[bytes], ...]):
    for match in finditer_each(patterns, ctx.source.data):
        if ctx.parsed.context_at(match.start(), match.end()) in CODE_CONTEXTS:
            yield match


# Each led by a literal, which the regex engine finds by a fast scan (one pattern over both leads
# is tried at every byte; leads of one or two bytes are too short for patterns.finditer's lead scan)
_INTRINSIC_CALLS = (
    re.compile(rb"(?<![\w$])(__[a-z0-9_]+)\s*\("),
    re.compile(rb"(?<![\w$])(h2?[a-z]+(?:_approx)?)\s*\("),
)


def _missing_intrinsics(ctx: FileContext) -> Iterable[Finding]:
    """NUM003, as pending findings of the key `polyfill:NAME`: a project that defines the function
    itself where hipcc compiles it (llama.cpp's `__hgt2_mask` in common.cuh, under a CUDA-version
    test that hipcc takes) vetoes its uses in every file; one kept from ROCm (flashinfer's
    `__floats2bfloat162_rn` for sm_75 and older) does not. The definition is no use. In a Python
    file's strings the finding stands at once, held for a person with the file's others (hold_fixes)."""
    table = numeric_intrinsics()
    rocm = ctx.config.rocm_version.release
    for match in finditer_each(_INTRINSIC_CALLS, ctx.source.data):
        name = match.group(1).decode()
        if name not in table or ctx.parsed.context_at(match.start(), match.end()) not in CODE_CONTEXTS:
            continue
        since = table[name]
        if since is not None and rocm >= RocmVersion.of(since).release:
            continue
        key = f"polyfill:{name}"
        definition = _defined_function(ctx, match.start(1), match.end(1))
        if definition is not None:
            from porter.rules import compiled_by_hipcc  # the package imports this family

            if compiled_by_hipcc(ctx, definition):
                ctx.project.vetoes.add(key)
            continue
        finding = _missing_intrinsic(ctx, match, name, since)
        if ctx.source.embedded_in is not None:
            yield finding
            continue
        ctx.project.claim_pending(key, finding)


def _missing_intrinsic(ctx: FileContext, match: re.Match[bytes], name: str, since: str | None) -> Finding:
    reason = "no checked HIP release (5.7, 6.4, 7.2) declares it" if since is None else f"HIP has it from {since}"
    if name in compat_intrinsics():
        replacement = compat_name(name)
        return MISSING_INTRINSIC.finding(
            ctx, match.start(1), match.end(1), f"`{name}`: {reason}; porter_compat.h defines `{replacement}` from what HIP has",
            edits=(Edit(match.start(1), match.end(1), replacement.encode()),), fix=FixKind.AUTO,
        )  # fmt: skip
    return MISSING_INTRINSIC.finding(ctx, match.start(1), match.end(1), f"`{name}`: {reason}")


def _defined_function(ctx: FileContext, start: int, end: int):
    """The function definition whose declarator is the name at `start` (`__device__ T name(...) {`), or None."""
    root = ctx.parsed.root
    node = root.descendant_for_byte_range(start, end) if root is not None else None
    declarator = node.parent if node is not None else None
    if declarator is None or declarator.type != "function_declarator" or declarator.parent is None:
        return None
    return declarator.parent if declarator.parent.type == "function_definition" else None
