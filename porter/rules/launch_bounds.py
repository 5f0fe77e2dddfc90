"""Launch bounds (category `launch-bounds`): what `__launch_bounds__` and the function attributes mean on AMD."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from porter.findings import Edit, Finding, FixKind, Severity
from porter.parse import captures
from porter.rules import portable
from porter.rules.base import FileContext, Rule
from porter.rules.consteval import evaluate
from porter.rules.device import SET_ATTRIBUTE_CALLS, call_arguments
from porter.rules.patterns import find_patterns, pattern
from porter.targets import known as targets

SIMDS_PER_CU = 4  # execution units per compute unit on CDNA and RDNA

MIN_BLOCKS = Rule(
    id="LBD001",
    name="launch-bounds-min-blocks",
    category="launch-bounds",
    severity=Severity.WARNING,
    fix=FixKind.AUTO,
    summary="`__launch_bounds__` second argument means something else on AMD",
    what="Finds `__launch_bounds__(max_threads, min_blocks)` and computes the AMD value that asks for the same occupancy.",
    why="""
        In CUDA the second argument is the minimum number of resident blocks per SM. hip-clang
        reads it as the minimum number of waves per execution unit (it becomes the
        `amdgpu-waves-per-eu` attribute, as clang-19's IR shows). A compute unit has 4 SIMDs, so
        `min_blocks` blocks of `max_threads` threads need ceil(min_blocks × ceil(max_threads /
        wavefront) / 4) waves per SIMD. Keeping CUDA's number either starves the kernel of
        registers (spills) or asks for nothing at all. A minimum of one block is left alone: the
        maximum block size alone already makes one block fit a compute unit (clang-19 gives
        `__launch_bounds__(1024, 1)` and `(1024, 4)` the same registers and occupancy on gfx942).
        """,
    example="__global__ void __launch_bounds__(128, 4) k(float* x);",
    use_instead="`PORTER_LAUNCH_BOUNDS(128, 4)`: the compat header passes CUDA's number to nvcc and the converted one to hip-clang (here `__launch_bounds__(128, 2)` on wave64).",
)

CLUSTER_BOUND = Rule(
    id="LBD002",
    unsupported_on_amd=True,
    name="launch-bounds-max-cluster",
    category="launch-bounds",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="`__launch_bounds__` third argument (maximum blocks per cluster)",
    what="Finds the three-argument form of `__launch_bounds__` added for sm_90 clusters.",
    why="AMD has no thread-block clusters, and hip-clang does not accept a third argument.",
    example="__global__ void __launch_bounds__(256, 1, 4) k(float* x);",
    use_instead="Drop the third argument for the AMD build, together with the cluster code (see ASY004).",
)

DYNAMIC_SHARED_ATTRIBUTE = Rule(
    id="LBD003",
    name="max-dynamic-shared-attribute",
    category="launch-bounds",
    severity=Severity.WARNING,
    fix=FixKind.SUGGESTED,
    summary="`cudaFuncSetAttribute(..., MaxDynamicSharedMemorySize / PreferredSharedMemoryCarveout, ...)`",
    what="Finds the function attributes that opt a kernel into more than 48 KiB of dynamic shared memory, or set the L1/shared carve-out.",
    why="""
        On NVIDIA, more than 48 KiB of dynamic shared memory needs this opt-in, and the size is
        chosen for NVIDIA's 100-228 KiB. AMD needs no opt-in, but its LDS is fixed (64 KiB on
        gfx90a/gfx942, 160 KiB on gfx950) and there is no carve-out to prefer.
        """,
    example="cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);",
    use_instead="Keep the call (hipFuncSetAttribute accepts it) but size `smem_bytes` from the device's `sharedMemPerBlock`; see LDS002 when the size is a constant above the LDS.",
)

MAX_REGISTERS = Rule(
    id="LBD004",
    unsupported_on_amd=True,
    name="maxnreg",
    category="launch-bounds",
    severity=Severity.ERROR,
    fix=FixKind.SUGGESTED,
    summary="`__maxnreg__` register cap",
    what="Finds CUDA 12.4's `__maxnreg__(N)` kernel attribute.",
    why="hip-clang does not know it. AMD kernels cap registers through occupancy instead, and VGPRs are counted per 64-lane wave, so CUDA's number does not carry over anyway.",
    example="__global__ void __maxnreg__(64) k(float* x);",
    use_instead="`__attribute__((amdgpu_num_vgpr(N)))` or, better, `amdgpu_waves_per_eu` for the occupancy wanted, under `__HIP_PLATFORM_AMD__`.",
)

BLOCK_SIZE = Rule(
    id="LBD005",
    unsupported_on_amd=True,
    name="block-size-attribute",
    category="launch-bounds",
    severity=Severity.ERROR,
    fix=FixKind.SUGGESTED,
    summary="`__block_size__` block shape",
    what="Finds CUDA 12.9's `__block_size__((x, y, z))` kernel attribute, and its second list, `((x, y, z), (cx, cy, cz))`, a cluster's shape.",
    why="hip-clang does not know it: the file does not build. AMD has no attribute that fixes a kernel's launch shape, and no clusters for the second list.",
    example="__global__ void __block_size__((256, 1, 1)) k(float* x);",
    use_instead="`__launch_bounds__(x * y * z)` under `__HIP_PLATFORM_AMD__`, and the launch's own `<<<grid, dim3(x, y, z)>>>`; a cluster's shape has no counterpart (see ASY004).",
)

RULES = (MIN_BLOCKS, CLUSTER_BOUND, DYNAMIC_SHARED_ATTRIBUTE, MAX_REGISTERS, BLOCK_SIZE)
COMPAT_MACRO = portable.LAUNCH_BOUNDS


def amd_waves_per_eu(max_threads: int, min_blocks: int, wavefront: int) -> int:
    return max(1, math.ceil(min_blocks * math.ceil(max_threads / wavefront) / SIMDS_PER_CU))


_CLUSTER_LIST = re.compile(r"\)\s*,\s*\(")  # `__block_size__((128, 1, 1), (2, 1, 1))`: a cluster's shape second


def _block_size_message(text: str) -> str:
    cluster = ", and its second list is a cluster's shape, which AMD lacks" if _CLUSTER_LIST.search(text) else ""
    return f"`__block_size__` has no meaning for hip-clang{cluster}"


# kernel attributes hip-clang does not know, found where they stand in code
_UNKNOWN_ATTRIBUTES = (
    pattern(r"(?<![\w$])__maxnreg__\s*\(\s*[^)]*\)", MAX_REGISTERS, "`__maxnreg__` has no meaning for hip-clang", needles=("__maxnreg__",)),
    pattern(r"(?<![\w$])__block_size__\s*\(\s*\([^()]*\)\s*(,\s*\([^()]*\)\s*)?\)", BLOCK_SIZE, _block_size_message, needles=("__block_size__",)),
)  # fmt: skip


def check(ctx: FileContext) -> Iterable[Finding]:
    if not ctx.source.kind.is_c_family or ctx.parsed.root is None:
        return
    if b"__launch_bounds__" in ctx.source.data:
        yield from _launch_bounds(ctx)
    if b"FuncSetAttribute" in ctx.source.data:
        yield from _attributes(ctx)
    yield from find_patterns(ctx, _UNKNOWN_ATTRIBUTES)


def _launch_bounds(ctx: FileContext) -> Iterable[Finding]:
    for node in captures("(launch_bounds) @l", ctx.parsed.root).get("l", []):
        if ctx.source.data.startswith(COMPAT_MACRO.encode(), node.start_byte):
            continue  # a port's bounds, which the parser reads as `__launch_bounds__` (consteval.stand_ins)
        arguments = _bound_arguments(node)
        if len(arguments) >= 3:
            yield CLUSTER_BOUND.finding(
                ctx, arguments[2].start_byte, arguments[2].end_byte, "a maximum cluster size has no meaning on AMD"
            )
        if len(arguments) < 2:
            continue
        keyword = node.children[0]
        texts = [ctx.source.text(a.start_byte, a.end_byte) for a in arguments[:2]]
        values = [evaluate(t, ctx.shared_constants) for t in texts]
        if values[1] == 1 and len(arguments) < 3:
            continue  # one block of the maximum size fits on both platforms: nothing to convert
        # (with a cluster size after it, the compat macro is what drops that for hip-clang)
        written = ", ".join(ctx.source.text(a.start_byte, a.end_byte) for a in arguments)
        message = f"`__launch_bounds__({written})`: hip-clang reads {texts[1]} as waves per SIMD, not blocks per SM"
        severity = None
        if None not in values:
            converted = {
                t.wavefront: amd_waves_per_eu(values[0], values[1], t.wavefront) for t in targets(ctx.config.targets)
            }
            message += "; the same occupancy is " + ", ".join(
                f"{v} on wave{w}" for w, v in sorted(converted.items(), reverse=True)
            )
            if converted and all(v == values[1] for v in converted.values()):
                severity = Severity.INFO  # the numbers happen to agree for these targets
        if len(arguments) >= 3:
            cluster = ctx.source.text(arguments[2].start_byte, arguments[2].end_byte)
            message += f"; the compat macro also drops the maximum cluster size `{cluster}`, a third argument hip-clang rejects"
        edit = Edit(keyword.start_byte, keyword.end_byte, COMPAT_MACRO.encode())
        yield MIN_BLOCKS.finding(
            ctx, arguments[1].start_byte, arguments[1].end_byte, message, edits=(edit,), severity=severity
        )


def _bound_arguments(node) -> list:
    """The bounds' arguments, comments left out. tree-sitter-cuda reads the middle one of three as an
    ERROR node with its comma (`__launch_bounds__(256, 1, 4)`): its expression is the argument."""
    arguments = []
    for child in node.named_children:
        if child.type == "ERROR":
            arguments.extend(part for part in child.named_children if part.type != "comment")
        elif child.type != "comment":
            arguments.append(child)
    return arguments


def _attributes(ctx: FileContext) -> Iterable[Finding]:
    for _, call in ctx.device.calls_named(SET_ATTRIBUTE_CALLS):
        arguments = call_arguments(call)
        if len(arguments) < 2:
            continue
        attribute = ctx.source.text(arguments[1].start_byte, arguments[1].end_byte)
        if "MaxDynamicSharedMemorySize" in attribute or "PreferredSharedMemoryCarveout" in attribute:
            function = call.child_by_field_name("function")
            what = "dynamic shared memory opt-in" if "MaxDynamic" in attribute else "shared-memory carve-out"
            yield DYNAMIC_SHARED_ATTRIBUTE.finding(
                ctx,
                function.start_byte,
                call.end_byte,
                f"{what}: AMD's LDS is fixed per target (64 KiB on gfx90a/gfx942)",
            )
