"""Shared memory (category `shared-memory`): static plus dynamic shared memory against each target's LDS."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import tree_sitter

from porter.clang import ClangUnit
from porter.findings import Engine, Finding, FixKind, Severity
from porter.parse import captures, kernel_launches
from porter.rules.base import FileContext, Rule
from porter.rules.consteval import TYPE_SIZES, evaluate
from porter.rules.device import SET_ATTRIBUTE_CALLS, call_arguments
from porter.rules.warp_size import warp_constant_names
from porter.targets import Target
from porter.targets import known as targets

WHY_LDS = """
    AMD's shared memory is the LDS: 64 KiB per workgroup on gfx90a and gfx942 (MI200,
    MI300), 160 KiB on gfx950. NVIDIA parts offer up to 227 KiB per block (sm_90) with the
    opt-in attribute. A kernel that asks for more than the target's LDS does not compile
    (static) or fails to launch (dynamic).
    """

STATIC_LDS = Rule(
    id="LDS001",
    name="static-shared-exceeds-lds",
    category="shared-memory",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="A kernel's static shared memory exceeds a target's LDS",
    what="Sums each kernel's `__shared__` arrays (evaluating sizes through the file's constants, or with libclang where macros and types hide them) and compares with the LDS of every target.",
    why=WHY_LDS,
    example="__global__ void k() { __shared__ float tile[128][129]; /* 66 KB */ }",
    use_instead="Smaller tiles for the AMD build (`#ifdef __HIP_PLATFORM_AMD__`), or fewer stages of buffering.",
)

DYNAMIC_LDS = Rule(
    id="LDS002",
    name="dynamic-shared-exceeds-lds",
    category="shared-memory",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="Dynamic shared memory (plus static) exceeds a target's LDS",
    what="Evaluates the shared-memory size of `<<<grid, block, bytes>>>` launches and of `cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)`, adds the kernel's static shared memory, and compares with each target's LDS.",
    why=WHY_LDS,
    example="cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024);\nk<<<grid, 256, 96 * 1024>>>(x);",
    use_instead="Size the dynamic allocation from the device (`hipDeviceProp_t::sharedMemPerBlock`) and pick a smaller tiling when it is below the CUDA figure.",
)

RULES = (STATIC_LDS, DYNAMIC_LDS)
_ARRAY_DIM = re.compile(r"\[([^\[\]]*)\]")


@dataclass
class KernelShared:
    name: str
    node: tree_sitter.Node
    static_bytes: int = 0
    unknown: list[tree_sitter.Node] = field(default_factory=list)
    largest: tree_sitter.Node | None = None
    largest_bytes: int = 0
    ported_bytes: int = 0  # on wave64, once porter's fixes made its warp-size constants 64


def _kernels(ctx: FileContext, constants: dict[str, int]) -> dict[str, KernelShared]:
    kernels: dict[str, KernelShared] = {}
    # the constants as written and as the port has them, once per file: the project's can be many
    sizing = (constants, _after_warp_fixes(constants, warp_constant_names(ctx)))
    file_shared = _shared_declarations(ctx, ctx.parsed.root, sizing, file_scope=True)
    for info in ctx.device.functions:
        if not info.is_kernel or info.node is None:
            continue
        name = re.sub(r"\(.*", "", info.name).split("::")[-1].strip()
        kernel = KernelShared(name=name, node=info.node)
        body_text = ctx.source.data[info.node.start_byte : info.node.end_byte]
        declarations = _shared_declarations(ctx, info.node, sizing)
        declarations += [
            d
            for d in file_shared
            if re.search(rb"\b" + re.escape(d[1].encode("utf-8", "surrogateescape")) + rb"\b", body_text)
        ]
        for node, _, size, ported in declarations:
            if size is None:
                kernel.unknown.append(node)
                continue
            kernel.static_bytes += size
            kernel.ported_bytes += ported
            if size > kernel.largest_bytes:
                kernel.largest, kernel.largest_bytes = node, size
        kernels[name] = kernel
    return kernels


def _shared_declarations(
    ctx: FileContext, scope: tree_sitter.Node, sizing: tuple[dict[str, int], dict[str, int]], file_scope: bool = False
):
    """(node, name, bytes or None, bytes on wave64 after porter's warp-size fixes) of the non-extern
    `__shared__` declarations in a scope; `sizing`: the constants as written and as the port has them."""
    constants, ported_constants = sizing
    found = []
    for declaration in captures("(declaration) @d", scope).get("d", []):
        text = ctx.source.text(declaration.start_byte, declaration.end_byte)
        if "__shared__" not in text or re.search(r"\bextern\b", text):
            continue
        if file_scope and declaration.parent is not None and declaration.parent.type != "translation_unit":
            continue
        type_node = declaration.child_by_field_name("type")
        type_text = (
            re.sub(r"\s+", " ", ctx.source.text(type_node.start_byte, type_node.end_byte)).strip() if type_node else ""
        )
        element = TYPE_SIZES.get(type_text) or ctx.struct_sizes.get(type_text)
        for declarator in declaration.children_by_field_name("declarator"):
            name_match = re.match(r"\s*\**\s*(\w+)", ctx.source.text(declarator.start_byte, declarator.end_byte))
            name = name_match.group(1) if name_match else ""
            dims = _ARRAY_DIM.findall(ctx.source.text(declarator.start_byte, declarator.end_byte))
            values = [evaluate(d, constants) for d in dims]
            size = None if element is None or any(v is None for v in values) else element * math.prod(values)
            ported = size
            if size is not None and ported_constants is not constants:
                ported = element * math.prod(evaluate(d, ported_constants) or 0 for d in dims)
            found.append((declaration, name, size, ported))
    return found


def _after_warp_fixes(constants: dict[str, int], warp_names: set[str]) -> dict[str, int]:
    """The constants as a wave64 build of the port sees them: the ones the file uses as the warp
    width, which porter rewrites to PORTER_WARP_SIZE, are 64 there. The same mapping when there are none."""
    widened = {name: 64 for name in warp_names if constants.get(name) == 32}
    return {**constants, **widened} if widened else constants


def _limit_violations(bytes_needed: int, chosen: list[Target]) -> list[Target]:
    return [t for t in chosen if bytes_needed > t.lds_bytes]


def _describe(over: list[Target]) -> str:
    return ", ".join(f"{t.id} ({t.lds_bytes // 1024} KiB)" for t in over)


def check(ctx: FileContext) -> Iterable[Finding]:
    if not ctx.source.kind.is_c_family or ctx.parsed.root is None:
        return
    if (
        b"__shared__" not in ctx.source.data
        and b"SharedMemorySize" not in ctx.source.data
        and b"<<<" not in ctx.source.data
    ):
        return
    chosen = targets(ctx.config.targets)
    kernels = _kernels(ctx, ctx.shared_constants)
    for kernel in kernels.values():
        if kernel.unknown or kernel.largest is None:
            continue
        over = _limit_violations(kernel.static_bytes, chosen)
        if over:
            yield STATIC_LDS.finding(
                ctx, kernel.largest.start_byte, kernel.largest.end_byte,
                f"`{kernel.name}` uses {kernel.static_bytes} bytes of static shared memory; more than the LDS of {_describe(over)}",
            )  # fmt: skip
            continue
        over = _limit_violations(kernel.ported_bytes, [t for t in chosen if t.wavefront == 64])
        if over:
            yield STATIC_LDS.finding(
                ctx, kernel.largest.start_byte, kernel.largest.end_byte,
                f"`{kernel.name}` uses {kernel.static_bytes} bytes of static shared memory, {kernel.ported_bytes} once "
                f"its warp-size constants are 64 (porter's warp-size fix): more than the LDS of {_describe(over)}",
            )  # fmt: skip
    yield from _dynamic(ctx, kernels, chosen)


def _dynamic(ctx: FileContext, kernels: dict[str, KernelShared], chosen: list[Target]) -> Iterable[Finding]:
    constants = ctx.shared_constants
    for launch in kernel_launches(ctx.parsed.root):
        call, function, arguments = launch.call, launch.function, launch.arguments
        if call is None or call.type != "call_expression" or function is None or len(arguments) < 3:
            continue
        kernel_name = (
            re.sub(r"<.*", "", ctx.source.text(function.start_byte, function.end_byte)).split("::")[-1].strip()
        )
        yield from _dynamic_finding(ctx, kernels, chosen, kernel_name, arguments[2], constants, "launch")
    for _, call in ctx.device.calls_named(SET_ATTRIBUTE_CALLS):
        arguments = call_arguments(call)
        if len(arguments) == 3 and "MaxDynamicSharedMemorySize" in ctx.source.text(
            arguments[1].start_byte, arguments[1].end_byte
        ):
            kernel_name = re.sub(
                r"[&()\s]|<.*", "", ctx.source.text(arguments[0].start_byte, arguments[0].end_byte)
            ).split("::")[-1]
            yield from _dynamic_finding(ctx, kernels, chosen, kernel_name, arguments[2], constants, "attribute")


def _dynamic_finding(ctx, kernels, chosen, kernel_name, size_node, constants, how) -> Iterable[Finding]:
    dynamic = evaluate(ctx.source.text(size_node.start_byte, size_node.end_byte), constants)
    if dynamic is None or dynamic <= 0:
        return
    static = kernels[kernel_name].static_bytes if kernel_name in kernels else 0
    over = _limit_violations(dynamic + static, chosen)
    if over:
        what = "launched with" if how == "launch" else "allowed"
        yield DYNAMIC_LDS.finding(
            ctx, size_node.start_byte, size_node.end_byte,
            f"`{kernel_name}` {what} {dynamic} bytes of dynamic shared memory (+{static} static); more than the LDS of {_describe(over)}",
        )  # fmt: skip


# -- libclang: sizes that macros from other files or typedefs hide ---------------------------


# No `wants_clang`: under `--deep auto` libclang is not asked about shared-memory sizes. The
# token pass sizes literal, constant and plain-struct declarations itself; what stays unknown is
# almost always a template parameter (which a host-only parse cannot size either) or a header
# outside the include path. Measured on flashinfer, deepspeed and mmcv (reports/benchmarks.md),
# asking cost ~1 s a file and found nothing; `porter build` reports each kernel's LDS from the
# compiler, and `--deep always` still asks here.


def check_clang(ctx: FileContext, unit: ClangUnit) -> Iterable[Finding]:
    chosen = targets(ctx.config.targets)
    for kernel in _kernels(ctx, ctx.shared_constants).values():
        if not kernel.unknown:
            continue
        inside = [
            v
            for v in unit.shared_variables
            if kernel.node.start_byte <= v.offset < kernel.node.end_byte and not v.dynamic
        ]
        if not inside or any(v.size is None for v in inside):
            continue
        total = sum(v.size for v in inside)
        over = _limit_violations(total, chosen)
        if over:
            largest = max(inside, key=lambda v: v.size)
            yield STATIC_LDS.finding(
                ctx, largest.offset, largest.end_offset,
                f"`{kernel.name}` uses {total} bytes of static shared memory (sizes from libclang); more than the LDS of {_describe(over)}",
                engine=Engine.LIBCLANG,
            )  # fmt: skip
