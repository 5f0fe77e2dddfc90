"""API renames (category `api`): CUDA runtime and driver names, types, constants, headers, launches."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from porter.clang import ClangUnit
from porter.findings import Edit, Engine, Finding, FixKind, Severity
from porter.parse import Context, identifiers_named
from porter.rules.availability import Availability, availability, describe, severity_and_fix
from porter.rules.base import FileContext, Rule
from porter.rules.device import calls_on_pointers_to, enclosing
from porter.rules.macros import Macro, all_uses, pasted_names, pasting_macros
from porter.rules.names import IncludeSite, include_sites, portable_include
from porter.rules.tables import NameEntry, read_data

RUNTIME_RENAME = Rule(
    id="API001",
    name="runtime-api-rename",
    category="api",
    severity=Severity.INFO,
    fix=FixKind.AUTO,
    summary="CUDA runtime function with a HIP equivalent",
    what="Finds calls and references to CUDA runtime functions (`cudaMalloc`, `cudaMemcpyAsync`, ...) that HIP provides under another name.",
    why="""
        hipcc does not declare CUDA names. Without a rename, or a compat header that maps
        the name under `__HIP_PLATFORM_AMD__`, the file does not compile for AMD.
        """,
    example="cudaMalloc(&ptr, bytes);",
    use_instead="""
        In a HIP tree: `hipMalloc(&ptr, bytes);`. In a portable port porter keeps the CUDA
        name and maps it in the generated compat header. If the HIP name is newer than the
        targeted ROCm, the finding says so and becomes a warning or an error.
        """,
    references=(
        "HIP runtime API: https://rocm.docs.amd.com/projects/HIP/en/latest/reference/hip_runtime_api_reference.html",
    ),
)

DRIVER_RENAME = Rule(
    id="API002",
    name="driver-api-rename",
    category="api",
    severity=Severity.INFO,
    fix=FixKind.AUTO,
    summary="CUDA driver API function with a HIP equivalent",
    what="Finds CUDA driver API functions (`cuModuleLoad`, `cuLaunchKernel`, ...) that HIP implements.",
    why="HIP merges the driver API into its runtime under hip* names (`cuLaunchKernel` is `hipModuleLaunchKernel`); the CUDA names do not exist on ROCm.",
    example="cuModuleLoadData(&module, image);",
    use_instead="`hipModuleLoadData(&module, image);`: HIP has no separate driver library, link amdhip64.",
)

TYPE_RENAME = Rule(
    id="API003",
    name="type-rename",
    category="api",
    severity=Severity.INFO,
    fix=FixKind.AUTO,
    summary="CUDA type with a HIP equivalent",
    what="Finds CUDA runtime and driver types (`cudaStream_t`, `cudaDeviceProp`, `CUresult`, `__nv_bfloat16`, ...).",
    why="The types are declared only by the CUDA headers; HIP declares its own, sometimes under a different shape of name (`cudaDeviceProp` is `hipDeviceProp_t`).",
    example="cudaStream_t stream;\ncudaDeviceProp prop;",
    use_instead="`hipStream_t stream; hipDeviceProp_t prop;` (or keep the CUDA names behind the compat header).",
)

CONSTANT_RENAME = Rule(
    id="API004",
    name="constant-rename",
    category="api",
    severity=Severity.INFO,
    fix=FixKind.AUTO,
    summary="CUDA enumerator, constant or macro with a HIP equivalent",
    what="Finds CUDA enumerators and constants (`cudaMemcpyHostToDevice`, `cudaSuccess`, `CU_CTX_SCHED_AUTO`, `__CUDACC__`, ...).",
    why="HIP spells these differently and sometimes gives them other values; the CUDA spellings are undeclared under hipcc.",
    example="cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);",
    use_instead="`hipMemcpy(d, h, n, hipMemcpyHostToDevice);`",
)

HEADER_RENAME = Rule(
    id="API005",
    name="header-rename",
    category="api",
    severity=Severity.INFO,
    fix=FixKind.AUTO,
    summary="CUDA runtime header with a HIP equivalent",
    what="Finds `#include`s of CUDA runtime headers (`cuda_runtime.h`, `cuda_fp16.h`, `cooperative_groups.h`, ...).",
    why="ROCm does not ship the CUDA headers; the HIP ones live under `hip/`.",
    example="#include <cuda_runtime.h>\n#include <cuda_fp16.h>",
    use_instead="`#include <hip/hip_runtime.h>` and `#include <hip/hip_fp16.h>`; a portable port includes porter's compat header instead.",
)

KERNEL_LAUNCH = Rule(
    id="API006",
    name="kernel-launch",
    category="api",
    severity=Severity.INFO,
    fix=FixKind.AUTO,
    summary="`<<<...>>>` kernel launch (legal under hip-clang, kept)",
    what="Inventories triple-chevron kernel launches in CUDA sources to port (not in code written for HIP, whose own launches they are).",
    why="""
        Nothing breaks: hip-clang compiles `kernel<<<grid, block, shmem, stream>>>(...)` as it is,
        so porter keeps the launch. It is reported because the launch configuration matters to
        later checks: a block size that assumes 32-wide warps, or dynamic shared memory above
        the AMD LDS limit.
        """,
    example="scale<<<blocks, 256, 0, stream>>>(x, n);",
    use_instead="Nothing to change. `hipLaunchKernelGGL(scale, blocks, 256, 0, stream, x, n)` is the macro form, needed only for old hipcc.",
)

UNSUPPORTED_API = Rule(
    id="API007",
    unsupported_on_amd=True,
    name="unsupported-api",
    category="api",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="CUDA API with no HIP equivalent in the targeted ROCm",
    what="""
        Finds CUDA runtime and driver names that HIP does not provide: either no HIP release
        declares an equivalent (checked against the HIP 5.7, 6.4 and 7.2 headers), or the
        equivalent is newer than the ROCm version targeted (`--rocm-version`).
        """,
    why="A rename cannot fix what does not exist: hipify renames such names anyway and the result fails to compile.",
    example="cudaGraphInstantiateWithParams(&exec, graph, &params);",
    use_instead="Restructure around an API HIP has, guard the call with `#ifndef __HIP_PLATFORM_AMD__`, or raise the ROCm version the port targets.",
)

TOKEN_PASTED_API = Rule(
    id="API008",
    name="token-pasted-api",
    category="api",
    severity=Severity.WARNING,
    fix=FixKind.MANUAL,
    summary="CUDA API name built by token pasting in a macro",
    what="""
        Finds macros that build CUDA API names with `##` (`#define CALL(f, ...) cuda##f(__VA_ARGS__)`),
        defined in the file or in one of the project's headers, and every use of such a macro with
        the API name it builds (`CALL(Malloc, &p, n)` builds `cudaMalloc`), read from the
        definition and the use's arguments. `--deep always` also asks libclang's preprocessor.
        """,
    why="No renaming tool sees `cudaMalloc` in `CALL(Malloc, &p, n)`: the name exists only after preprocessing. hipify leaves it, and the port fails to compile.",
    example="#define CUDA_CALL(fn, ...) cuda##fn(__VA_ARGS__)\nCUDA_CALL(Malloc, &ptr, bytes);",
    use_instead="Paste a prefix that the port defines per platform (`#define GPU_PREFIX(fn) hip##fn` under `__HIP_PLATFORM_AMD__`), or spell the calls out.",
)

KERNEL_POINTER = Rule(
    id="API009",
    name="kernel-pointer-argument",
    category="api",
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="Typed kernel pointer passed where HIP takes `const void*`",
    what="Finds `cudaFuncSetAttribute`, `cudaFuncSetCacheConfig`, `cudaFuncSetSharedMemConfig` and `cudaFuncGetAttributes` called with a kernel itself rather than a `const void*`.",
    why="CUDA's runtime header adds template overloads that take the kernel's own pointer type; HIP declares only the `const void*` forms, and C++ does not convert a function pointer to `const void*` implicitly, so the call does not compile.",
    example="cudaFuncSetAttribute(my_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);",
    use_instead="`cudaFuncSetAttribute(reinterpret_cast<const void*>(my_kernel<T>), ...)`, which both runtimes accept (porter rewrites it).",
)

HIP_OVERLOAD = Rule(
    id="API010",
    name="redefines-hip-overload",
    category="api",
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="A device function that HIP already declares",
    what="Finds a project's own `atomicMax(float*, float)`, `atomicMin(double*, double)` and the like: overloads CUDA lacks, that HIP's headers declare.",
    why="hipcc sees two definitions of the same function: `redefinition of 'atomicMax'` stops the build of every file that includes it.",
    example="__device__ float atomicMax(float* address, float value) { /* CAS loop */ }",
    use_instead="Keep the definition for CUDA only: `#if !defined(__HIP_PLATFORM_AMD__)` around it, and `&& !defined(__HIP_PLATFORM_NVIDIA__)` where HIP on NVIDIA declares it too (`atomicMax`/`atomicMin` of float and double); porter adds it, and HIP's overload does the same.",
)

CYCLIC_WAIT = Rule(
    id="API011",
    name="stream-wait-geq-not-cyclic",
    category="api",
    severity=Severity.WARNING,
    fix=FixKind.MANUAL,
    summary="32-bit stream wait with `CU_STREAM_WAIT_VALUE_GEQ`: CUDA compares cyclically, HIP's `hipStreamWaitValueGte` does not",
    what="Finds `CU_STREAM_WAIT_VALUE_GEQ` given to a 32-bit stream wait (`cuStreamWaitValue32`, or a pointer to it); a 64-bit wait is left alone.",
    why="""
        CUDA documents GEQ as the cyclic comparison `(int32_t)(*addr - value) >= 0`: a sequence
        counter that wraps past 2^32 still orders right. hipify renames it to
        `hipStreamWaitValueGte`, which HIP documents as `(*ptr & mask) >= value`, a plain unsigned
        comparison: once the counter wraps, a wait for a value near 2^32 is satisfied by the small
        wrapped flag at once, and the stream runs ahead of the work it waits for. exllamav3's
        ROCm port moved its flags to 64 bits for this reason.
        """,
    example="cuStreamWaitValue32(stream, flag, (cuuint32_t) seq, CU_STREAM_WAIT_VALUE_GEQ);",
    use_instead="64-bit flags and `cuStreamWaitValue64` (`hipStreamWaitValue64`), which do not wrap in practice; or a counter that never passes 2^31 between resets.",
)

SHORT_CAS = Rule(
    id="API012",
    name="atomic-cas-16-bit",
    category="api",
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="`atomicCAS` of an `unsigned short`, which HIP does not overload",
    what="""
        Finds `atomicCAS(p, compare, value)` where `p` points to an `unsigned short` (`uint16_t`,
        `ushort`), as the function declares `p` or a cast says: the 16-bit compare-and-swap CUDA
        has from sm_70, which projects build their own half and bfloat16 atomics on.
        """,
    why="""
        HIP declares `atomicCAS` for 32- and 64-bit integers, float and double only (HIP 5.7 to
        6.4): hip-clang stops with "no matching function for call to 'atomicCAS'".
        """,
    example="""
        unsigned short old = atomicCAS((unsigned short*)address, expected, __half_as_ushort(value));
        """,
    use_instead="""
        The compat header's 16-bit `atomicCAS`: a compare-and-swap of the aligned 32-bit word that
        holds the value, tried again only where the word's other half changed meanwhile. It
        returns the old 16 bits and writes only where they equal `compare`, as CUDA's does.
        """,
    fixed_by_compat_header=True,
)

RULES = (
    RUNTIME_RENAME,
    DRIVER_RENAME,
    TYPE_RENAME,
    CONSTANT_RENAME,
    HEADER_RENAME,
    KERNEL_LAUNCH,
    UNSUPPORTED_API,
    TOKEN_PASTED_API,
    KERNEL_POINTER,
    HIP_OVERLOAD,
    CYCLIC_WAIT,
    SHORT_CAS,
)

# runtime functions whose kernel argument HIP types as `const void*` only: name → argument index
KERNEL_POINTER_ARGUMENT = {
    "cudaFuncSetAttribute": 0,
    "cudaFuncSetCacheConfig": 0,
    "cudaFuncSetSharedMemConfig": 0,
    "cudaFuncGetAttributes": 1,
}

_PASTED = re.compile(
    rb"(?<![\w$])(cuda|cu|CU|CUDA_|cublas|cusparse|curand|cufft|cusolver|nccl)\s*##|##\s*(cuda|cu)[A-Z]\w*"
)


def _rule_for(entry: NameEntry) -> Rule:
    if entry.kind == "type":
        return TYPE_RENAME
    if entry.kind == "constant":
        return CONSTANT_RENAME
    return DRIVER_RENAME if entry.family == "driver" else RUNTIME_RENAME


def name_finding(
    ctx: FileContext,
    start: int,
    end: int,
    entry: NameEntry,
    rule: Rule,
    unsupported: Rule,
    include: IncludeSite | None = None,
) -> Finding | None:
    """A rename when HIP has the name in the targeted ROCm, else the family's unsupported rule.

    In a file that already includes porter's compat header, the header maps the name: nothing
    is left to rename, so nothing is reported.
    """
    state = availability(entry, ctx.config.rocm_version, ctx.tables.checked_from.get(entry.family, "5.7"))
    severity, fix = severity_and_fix(state)
    message = describe(entry, state, ctx.config.rocm_version)
    if state in (Availability.MISSING, Availability.TOO_NEW):
        return unsupported.finding(ctx, start, end, message, severity=severity, fix=fix)
    if ctx.portable:
        return None
    edits = [Edit(start, end, entry.hip.encode(), mode="hip")]
    if include is not None:
        edits.append(portable_include(ctx, include, entry.hip))
    if COMPILER_MACRO.fullmatch(entry.hip):
        edits.extend(_portable_compiler_test(ctx, start, end, entry.hip))
    return rule.finding(ctx, start, end, message, edits=tuple(edits), severity=severity, fix=fix)


# Compiler-identification macros (`__CUDACC__` → `__HIPCC__`) are tested, not used: the compat header
# must not define them (every header after it, torch's included, would then take its CUDA branch), so
# portable mode widens each test to accept either compiler instead.
COMPILER_MACRO = re.compile(r"__\w+__")


def _portable_compiler_test(ctx: FileContext, start: int, end: int, hip: str) -> list[Edit]:
    data = ctx.source.data
    line_start = data.rfind(b"\n", 0, start) + 1
    line_end = data.find(b"\n", end)
    line = data[line_start : len(data) if line_end < 0 else line_end]
    name = data[start:end]
    if hip.encode() in line:
        return []  # already accepts both (a second conversion)
    either, neither = f"defined({name.decode()}) || defined({hip})", f"!defined({name.decode()}) && !defined({hip})"
    directive = re.match(rb"\s*#\s*(ifdef|ifndef)\s+" + re.escape(name) + rb"\b", line)
    if directive and line_start + directive.end() == end:
        replacement = either if directive.group(1) == b"ifdef" else neither
        return [Edit(line_start + directive.start(1) - 1, end, f"#if {replacement}".encode(), mode="portable")]
    for test in re.finditer(
        rb"defined\s*\(\s*" + re.escape(name) + rb"\s*\)|defined\s+" + re.escape(name) + rb"\b", line
    ):
        if line_start + test.start() <= start < line_start + test.end():
            return [Edit(line_start + test.start(), line_start + test.end(), f"({either})".encode(), mode="portable")]
    return []


def check(ctx: FileContext) -> Iterable[Finding]:
    if not ctx.source.kind.is_c_family:
        return
    found = []
    for hit in ctx.table_hits:
        if hit.entry.category == "api":
            found.append(name_finding(ctx, hit.start, hit.end, hit.entry, _rule_for(hit.entry), UNSUPPORTED_API))
    for site in include_sites(ctx):
        entry = ctx.tables.includes.get(site.path)
        if entry is not None and entry.category == "api":
            found.append(name_finding(ctx, site.start, site.end, entry, HEADER_RENAME, UNSUPPORTED_API, site))
    yield from (f for f in found if f is not None)
    if b"atomic" in ctx.source.data:
        yield from _hip_overloads(ctx)
    if b"atomicCAS" in ctx.source.data and not ctx.portable:  # a portable file has the compat header's
        _short_compare_and_swaps(ctx)
    if not ctx.portable and not ctx.written_for_hip:  # an inventory of the launches of CUDA to port
        yield from _launches(ctx)
    yield from _pasting_macros(ctx)
    yield from pasted_uses(ctx)
    yield from _kernel_pointers(ctx)
    if b"CU_STREAM_WAIT_VALUE_GEQ" in ctx.source.data:
        yield from _cyclic_waits(ctx)


def _kernel_pointers(ctx: FileContext) -> Iterable[Finding]:
    from porter.rules.device import call_arguments

    if b"cudaFunc" not in ctx.source.data:
        return
    for name, call in ctx.device.calls_named(KERNEL_POINTER_ARGUMENT):
        arguments = call_arguments(call)
        index = KERNEL_POINTER_ARGUMENT[name]
        if len(arguments) <= index:
            continue
        argument = arguments[index]
        text = ctx.source.text(argument.start_byte, argument.end_byte)
        if re.match(
            r"\s*(\(\s*(const\s+)?void\s*\*\s*\)|reinterpret_cast\s*<|static_cast\s*<\s*const\s+void|\(const void\*\))",
            text,
        ) or text in ("nullptr", "NULL"):
            continue
        replacement = f"reinterpret_cast<const void*>({text})".encode("utf-8", "surrogateescape")
        yield KERNEL_POINTER.finding(
            ctx, argument.start_byte, argument.end_byte, f"`{text}` is passed to `{name}`, which on HIP takes `const void*`, not a kernel pointer",
            edits=(Edit(argument.start_byte, argument.end_byte, replacement),),
        )  # fmt: skip


def _launches(ctx: FileContext) -> Iterable[Finding]:
    from porter.parse import kernel_launches

    for launch in kernel_launches(ctx.parsed.root):
        call, kernel = launch.call, launch.function
        if call is None or call.type != "call_expression":
            continue
        name = ctx.source.text(kernel.start_byte, kernel.end_byte) if kernel else "kernel"
        config = ctx.source.text(launch.node.start_byte, launch.node.end_byte)
        yield KERNEL_LAUNCH.finding(
            ctx,
            call.start_byte,
            launch.node.end_byte,
            f"launch of `{name}` with `{config}` compiles as is under hip-clang",
        )


def _pasting_macros(ctx: FileContext) -> Iterable[Finding]:
    from porter.parse import captures

    if b"##" not in ctx.source.data:
        return  # every match pastes: none without `##` (a look at each of a file's macro bodies saved)
    for node in captures("(preproc_arg) @body", ctx.parsed.root).get("body", []):
        body = ctx.source.data[node.start_byte : node.end_byte]
        for match in _PASTED.finditer(body) if b"##" in body else ():
            start = node.start_byte + match.start()
            yield TOKEN_PASTED_API.finding(
                ctx,
                start,
                node.start_byte + match.end(),
                f"macro body pastes a CUDA API name (`{match.group().decode(errors='replace')}`); renaming cannot reach the names it builds",
            )


def project_pasting_macros(headers: Iterable[bytes]) -> dict[str, Macro]:
    """The function-like macros of the project's headers that paste an API name (for the files that use them)."""
    found: dict[str, Macro] = {}
    for data in headers:
        found.update(pasting_macros(data, _PASTED))
    return found


def pasted_uses(ctx: FileContext) -> list[Finding]:
    """Each use of a pasting macro (the file's own or a project header's) with the API name it builds."""
    return ctx.once("pasted API uses", lambda: list(_pasted_uses(ctx)))


_LEFT_OUT = (Context.COMMENT, Context.STRING, Context.INCLUDE)


def _pasted_uses(ctx: FileContext) -> Iterable[Finding]:
    data = ctx.source.data
    macros = {**ctx.project_pasting_macros, **pasting_macros(data, _PASTED)}
    for use in all_uses(data, macros.values()):
        if ctx.parsed.context_at(use.start, use.start + len(use.macro.name)) in _LEFT_OUT:
            continue
        for name in sorted(pasted_names(use)):
            entry = ctx.tables.identifiers.get(name)
            if entry is None:
                continue
            target = f"`{entry.hip}`" if entry.hip else "nothing in HIP"
            yield TOKEN_PASTED_API.finding(
                ctx, use.start, use.end, f"`{use.macro.name}(...)` expands to `{name}` by token pasting; in HIP that is {target}"
            )  # fmt: skip


# -- libclang (`--deep always` only): the uses of pasting macros, as its preprocessor sees them ----


@cache
def hip_overloads(platform: str = "overloads") -> frozenset[tuple[str, str]]:
    """The overloads HIP declares on AMD (`overloads`), or on NVIDIA as well (`nvidia_overloads`)."""
    return frozenset((name, kind) for name, kind in read_data("hip_overloads.json")[platform])


def _overload_guard(name: str, kind: str) -> str:
    condition = "!defined(__HIP_PLATFORM_AMD__)"
    if (name, kind) in hip_overloads("nvidia_overloads"):
        condition += " && !defined(__HIP_PLATFORM_NVIDIA__)"  # HIP on NVIDIA declares it too: CUDA alone defines it
    return f"#if {condition}  // HIP declares this overload (porter)\n"


def _hip_overloads(ctx: FileContext) -> Iterable[Finding]:
    """`__device__ float atomicMax(float* a, float v) {…}`: wrapped so that only NVIDIA compiles it."""
    overloads = hip_overloads()
    names = {name for name, _ in overloads}
    for info in ctx.device.functions:
        name = info.name.split("(")[0].strip()
        if not info.is_device or name not in names:
            continue
        declarator = info.node.child_by_field_name("declarator")
        parameter_list = declarator.child_by_field_name("parameters") if declarator is not None else None
        if parameter_list is None:
            continue
        parameters = re.sub(r"\s+", " ", ctx.source.text(parameter_list.start_byte, parameter_list.end_byte))
        kind = re.match(r"\(\s*(?:volatile )?(float|double)\s*\*", parameters)
        if kind is None or (name, kind.group(1)) not in overloads:
            continue
        # once wrapped, the definition sits in an NVIDIA-only branch: porter.rules.on_ported_platform
        # silences it there, so a second conversion adds nothing
        node = info.node
        data = ctx.source.data
        line_start = data.rfind(b"\n", 0, node.start_byte) + 1
        line_end = data.find(b"\n", node.end_byte)
        line_end = len(data) if line_end < 0 else line_end
        first_line_end = data.find(b"\n", node.start_byte, node.end_byte)
        yield HIP_OVERLOAD.finding(
            ctx,
            node.start_byte,
            node.end_byte if first_line_end < 0 else first_line_end,
            f"HIP declares `{name}({kind.group(1)}*, {kind.group(1)})`: this definition is a redefinition under hipcc",
            edits=(
                Edit(line_start, line_start, _overload_guard(name, kind.group(1)).encode()),
                Edit(line_end, line_end, b"\n#endif  // !__HIP_PLATFORM_AMD__"),
            ),
        )


_UNSIGNED_SHORT = re.compile(
    r"unsignedshort(?:int)?|shortunsigned(?:int)?|(?:std::)?uint16_t|ushort"
)  # spaces left out


# A project that defines the 16-bit compare-and-swap itself (under its ROCm branch) vetoes the key in
# any of its files; the calls are pending findings of that key, which each calling file claims.
SHORT_CAS_KEY = "short-atomic-cas"
_SHORT_CAS_OVERLOAD = re.compile(
    rb"(?<![\w$])atomicCAS\s*\(\s*(?:volatile\s+)?"
    rb"(?:unsigned\s+short(?:\s+int)?|short\s+unsigned(?:\s+int)?|(?:std::)?uint16_t|ushort)\s*\*\s*\w+\s*,"
)


def _short_compare_and_swaps(ctx: FileContext) -> None:
    if _SHORT_CAS_OVERLOAD.search(ctx.source.data):
        ctx.project.vetoes.add(SHORT_CAS_KEY)
    for call, _ in calls_on_pointers_to(ctx, "atomicCAS", 3, _UNSIGNED_SHORT):
        name = call.child_by_field_name("function")
        message = (
            "`atomicCAS` of an `unsigned short`: HIP declares no 16-bit compare-and-swap, so this does not compile"
        )
        ctx.project.claim_pending(SHORT_CAS_KEY, SHORT_CAS.finding(ctx, name.start_byte, name.end_byte, message))


def check_clang(ctx: FileContext, unit: ClangUnit) -> Iterable[Finding]:
    data = ctx.source.data
    pasting = {name for name, body in unit.macro_definitions.items() if _PASTED.search(body.encode("utf-8", "replace"))}
    if not pasting:
        return
    seen = {(f.span.start_byte, f.message) for f in pasted_uses(ctx)}  # what the text reading found
    for reference in unit.references:
        entry = ctx.tables.identifiers.get(reference.name)
        if entry is None or data.startswith(reference.name.encode(), reference.offset):
            continue  # spelled out in the source: the token pass already reports it
        use = next((m for m in unit.macro_uses if m.offset == reference.offset and m.name in pasting), None)
        if use is None:
            continue
        target = f"`{entry.hip}`" if entry.hip else "nothing in HIP"
        message = f"`{use.name}(...)` expands to `{reference.name}` by token pasting; in HIP that is {target}"
        if (use.offset, message) in seen:
            continue
        seen.add((use.offset, message))
        yield TOKEN_PASTED_API.finding(ctx, use.offset, use.end_offset, message, engine=Engine.LIBCLANG)


def _cyclic_waits(ctx: FileContext) -> Iterable[Finding]:
    """CYCLIC_WAIT: GEQ handed to a wait that is not a 64-bit one."""

    for node in identifiers_named(ctx.parsed.root, ctx.source.data, "CU_STREAM_WAIT_VALUE_GEQ"):
        call = enclosing(node, ("call_expression",))
        function = call.child_by_field_name("function") if call is not None else None
        if function is not None and "64" in ctx.source.text(function.start_byte, function.end_byte):
            continue  # a 64-bit sequence does not wrap
        yield CYCLIC_WAIT.finding(
            ctx, node.start_byte, node.end_byte,
            "`CU_STREAM_WAIT_VALUE_GEQ` compares cyclically on CUDA; HIP's `hipStreamWaitValueGte` is a plain unsigned `>=`, which a wrapped 32-bit counter satisfies early",
        )  # fmt: skip
