"""PyTorch extensions (category `torch-extension`): C10_WARP_SIZE, CUDA-only torch APIs, setup.py settings."""

from __future__ import annotations

import re
from collections.abc import Iterable

from porter.findings import Finding, FixKind, Severity
from porter.parse import Context, captures, identifiers_named
from porter.rules.base import FileContext, Rule
from porter.rules.build import blank_comments
from porter.rules.device import call_arguments, element_type, template_parameters
from porter.rules.patterns import WORD_START, find_patterns, finditer_each, pattern, search
from porter.rules.warp_size import _in_constant_context
from porter.source import FileKind, encoded_length

C10_WARP_SIZE_HOST = Rule(
    id="TRX001",
    name="c10-warp-size-on-host",
    category="torch-extension",
    severity=Severity.ERROR,
    fix=FixKind.SUGGESTED,
    summary="`C10_WARP_SIZE` in host code",
    what="Finds `C10_WARP_SIZE` outside device functions: launch sizes, shared-memory sizes, host constants.",
    why="""
        On a ROCm build of PyTorch, `C10_WARP_SIZE` on the host is a run-time call to
        `at::cuda::warp_size()`, because ROCm 7's `warpSize` is no longer a constant expression
        (torch/headeronly/macros/Macros.h says so). Host arrays, `constexpr`s and template
        arguments built from it stop compiling; on CUDA builds it was the constant 32.
        """,
    example="constexpr int kWarps = 1024 / C10_WARP_SIZE;\nlaunch<<<blocks, threads, (threads / C10_WARP_SIZE) * sizeof(float)>>>(...);",
    use_instead="`at::cuda::warp_size()` for launch configurations; `C10_WARP_SIZE_UPPER_BOUND` or `C10_WARP_SIZE_LOWER_BOUND` for sizes fixed at compile time.",
)

CUDA_ONLY_TORCH_API = Rule(
    id="TRX002",
    name="cuda-only-torch-api",
    category="torch-extension",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="A PyTorch C++ API that exists only in CUDA builds",
    what="Finds cuDNN handles and headers (`ATen/cudnn/`), the CUDA driver-API wrappers (`c10/cuda/driver_api.h`) and NVRTC stubs (`ATen/cuda/nvrtc_stub/`).",
    why="torch's own hipify maps most `at::cuda` APIs onto HIP, but these wrap NVIDIA-only libraries; a ROCm build of PyTorch does not ship them.",
    example="#include <ATen/cudnn/Handle.h>\ncudnnHandle_t h = at::native::getCudnnHandle();",
    use_instead="MIOpen through ATen's operators (call the torch op rather than the library), HIP's module API instead of the driver wrappers, hiprtc for run-time compilation.",
)

SETUP_SETTINGS = Rule(
    id="TRX003",
    name="setup-breaks-hipification",
    category="torch-extension",
    severity=Severity.WARNING,
    fix=FixKind.SUGGESTED,
    summary="setup.py settings that break the ROCm build of an extension",
    what="Finds nvcc-only flags in `extra_compile_args`, hard-coded CUDA install paths, and checks on `CUDA_HOME` or `torch.version.cuda` that stop the build on a ROCm torch.",
    why="""
        Under a ROCm torch, `torch.utils.cpp_extension` hipifies the sources and hands the
        `nvcc` flags to hipcc, which rejects nvcc's own options; `CUDA_HOME` and
        `torch.version.cuda` are None, so guards on them abort or build a CPU-only extension.
        """,
    example="assert CUDA_HOME is not None\nextra_compile_args={'nvcc': ['--expt-relaxed-constexpr', '-Xptxas=-v']}",
    use_instead="Branch on `torch.version.hip` / `torch.utils.cpp_extension.ROCM_HOME`, and pass per-platform flags (`-fgpu-flush-denormals-to-zero` instead of `--ftz=true`, nothing for `--expt-relaxed-constexpr`).",
)

HALF_LDG = Rule(
    id="TRX004",
    name="half-ldg-without-hip-overload",
    category="torch-extension",
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="`__ldg` of `at::Half`, an overload torch declares for NVIDIA compilers only",
    what="""
        Finds `__ldg` reading through a pointer to `at::Half` (`c10::Half`), or to a kernel
        template's element type in a file that dispatches `Half` (`AT_DISPATCH_..._HALF`,
        `at::ScalarType::Half`), unless the project defines such an overload itself.
        """,
    why="""
        torch declares `__ldg(const c10::Half*)` (c10/util/Half.h) for nvcc's device pass and
        clang's CUDA mode alone; HIP's own `__ldg` overloads take built-in, vector and `__half`
        types. Under hipcc the call has no matching function and the kernel does not compile
        (torch declares its `BFloat16` overload for HIP too).
        """,
    example="""
        template <typename scalar_t>
        __global__ void copy(const scalar_t* in, scalar_t* out) { out[0] = __ldg(in); }
        // AT_DISPATCH_FLOATING_TYPES_AND_HALF(...) launches copy<at::Half>
        """,
    use_instead="""
        The compat header's `__ldg` for 16-bit classes (a plain load, as HIP's own `__ldg` is), or
        the project's own `__ldg(const at::Half*)` in its ROCm branch.
        """,
    fixed_by_compat_header=True,
)

RULES = (C10_WARP_SIZE_HOST, CUDA_ONLY_TORCH_API, SETUP_SETTINGS, HALF_LDG)

CUDA_ONLY = (
    pattern(r"(?<=[<\"])ATen/cudnn/[\w./]+(?=[>\"])|(?<=[<\"])ATen/cuda/nvrtc_stub/[\w./]+(?=[>\"])|(?<=[<\"])c10/cuda/driver_api\.h(?=[>\"])", CUDA_ONLY_TORCH_API, "`{text}` is only in CUDA builds of PyTorch", include=True),
    # each alternative led by its own literal (an optional `at::native::` leading would keep the
    # regex engine from its fast scan: it was tried at every byte of a file naming cudnn)
    pattern(r"(?<![\w$])at::native::getCudnnHandle\s*\(|(?<![\w$])getCudnnHandle\s*\(|(?<![\w$])c10::cuda::DriverAPI\b|(?<![\w$])getNVRTC\s*\(", CUDA_ONLY_TORCH_API, "`{text}` is only in CUDA builds of PyTorch"),
)  # fmt: skip

NVCC_ONLY_FLAGS = re.compile(
    rb"['\"](--expt-relaxed-constexpr|--expt-extended-lambda|--extended-lambda|-Xptxas[=\w,-]*|--ptxas-options[=\w,-]*|-lineinfo|--use_fast_math|-use_fast_math|-Xcompiler[=\w,-]*|--compiler-options[=\w,-]*|-maxrregcount[=\w]*|--maxrregcount[=\w]*|--threads[=\w]*|--ftz=\w+|--prec-div=\w+|--prec-sqrt=\w+|--fmad=\w+|-Xfatbin[=\w,-]*|--resource-usage)['\"]"
)
SETUP_GUARDS = re.compile(
    rb"(CUDA_HOME\s+is\s+None|CUDA_HOME\s+is\s+not\s+None|assert\s+CUDA_HOME\b|not\s+CUDA_HOME\b|os\.path\.join\(\s*CUDA_HOME|torch\.version\.cuda\b|['\"]/usr/local/cuda[\w./-]*['\"])"
)


def check(ctx: FileContext) -> Iterable[Finding]:
    if ctx.source.kind is FileKind.SETUP_PY:
        yield from _setup(ctx)
        return
    if not ctx.source.kind.is_c_family or ctx.parsed.root is None:
        return
    data = ctx.source.data
    if b"C10_WARP_SIZE" in data:
        yield from _c10_warp_size(ctx)
    if b"cudnn" in data or b"nvrtc" in data or b"driver_api" in data or b"DriverAPI" in data or b"NVRTC" in data:
        yield from find_patterns(ctx, CUDA_ONLY)
    if b"__ldg" in data and not ctx.portable:  # a portable file has the compat header's overload
        _half_loads(ctx)


def _c10_warp_size(ctx: FileContext) -> Iterable[Finding]:
    for node in identifiers_named(ctx.parsed.root, ctx.source.data, "C10_WARP_SIZE"):
        if ctx.device.is_device_code(node):
            continue
        constant = _in_constant_context(ctx, node) or _at_namespace_scope(node)
        if constant:
            message = "host compile-time use: on ROCm `C10_WARP_SIZE` is a run-time call here, so this does not compile"
            yield C10_WARP_SIZE_HOST.finding(ctx, node.start_byte, node.end_byte, message)
        else:
            message = "host use: on ROCm this calls `at::cuda::warp_size()`; say so, or size from the device"
            yield C10_WARP_SIZE_HOST.finding(ctx, node.start_byte, node.end_byte, message, severity=Severity.WARNING)
    for body in captures("(preproc_arg) @b", ctx.parsed.root).get("b", []):
        text = ctx.source.text(body.start_byte, body.end_byte)
        for match in re.finditer(r"\bC10_WARP_SIZE\b", text):
            start = body.start_byte + encoded_length(text[: match.start()])
            yield C10_WARP_SIZE_HOST.finding(
                ctx, start, start + len("C10_WARP_SIZE"), "in a macro: host expansions call `at::cuda::warp_size()` on ROCm",
                severity=Severity.WARNING,
            )  # fmt: skip


def _at_namespace_scope(node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type in ("compound_statement", "parameter_list", "field_declaration_list"):
            return False
        if (
            parent.type in ("declaration",)
            and parent.parent is not None
            and parent.parent.type in ("translation_unit", "declaration_list")
        ):
            return True
        parent = parent.parent
    return False


# -- TRX004: __ldg of at::Half ---------------------------------------------------------------
# A project that defines the overload itself (torch-scatter does, under USE_ROCM) vetoes the key in
# any of its files; the loads are pending findings of that key, which each loading file claims.
HALF_LDG_KEY = "half-ldg"
_HALF = re.compile(r"(?:(?:at|c10)::)?Half")
# a dispatch with Half (`AT_DISPATCH_FLOATING_TYPES_AND_HALF`, `AT_DISPATCH_..._AND2(at::ScalarType::Half,`)
# or a template argument of Half (`kernel<at::Half><<<…>>>`)
# Two patterns, whose matches cannot overlap (one starts at a word, the other at `<`): each is then
# found from its literals instead of being tried at every byte, as their one alternation was
_DISPATCHES_HALF = (
    re.compile(rb"(?<!\w)AT_DISPATCH_\w*HALF\w*|(?<!\w)ScalarType::Half\b|(?<!\w)kHalf\b"),  # `\b` before a word
    re.compile(rb"<\s*(?:(?:at|c10)::)?Half\s*[,>]"),
)
_HALF_OVERLOAD = re.compile(WORD_START + rb"__ldg\s*\(\s*const\s+(?:(?:at|c10)::)?Half\s*\*")


def _half_loads(ctx: FileContext) -> None:
    data = ctx.source.data
    if b"Half" not in data and b"HALF" not in data:
        return  # neither a load of Half nor a dispatch with it: each needs the word
    if search(_HALF_OVERLOAD, data):  # word-led: found from its literal, not tried at every byte
        ctx.project.vetoes.add(HALF_LDG_KEY)
    for _, call in ctx.device.calls_named("__ldg"):
        function = ctx.device.function_of(call)
        if function.node is None or not ctx.device.is_device_code(call):
            continue
        element = _loaded_type(ctx, function.node, call)
        if element is None:
            continue
        if _HALF.fullmatch(element):
            message = (
                f"`__ldg` of `{element}`: torch declares that overload for NVIDIA compilers only, and HIP has none"
            )
        elif element in _template_type_names(ctx, function.node) and ctx.once(
            "half dispatch", lambda: _dispatches_half(ctx)
        ):
            message = f"`__ldg` of `{element}`, which this file dispatches as `at::Half`: torch declares that overload for NVIDIA compilers only, and HIP has none"
        else:
            continue
        name = call.child_by_field_name("function")
        ctx.project.claim_pending(HALF_LDG_KEY, HALF_LDG.finding(ctx, name.start_byte, name.end_byte, message))


def _dispatches_half(ctx: FileContext) -> bool:
    """Does the file's code (a macro's body included, its comments not) dispatch with Half?"""
    return any(
        ctx.parsed.context_at(match.start(), match.end()) is not Context.COMMENT
        for match in finditer_each(_DISPATCHES_HALF, ctx.source.data)
    )


def _loaded_type(ctx: FileContext, function, call) -> str | None:
    """The element type `__ldg(p)` reads, from `p`'s declaration in the function (a parameter or a
    local) or a cast: `in + i`, `in + offset + i`, `&in[i]` and `(const at::Half*)p` included. None
    where unknown."""
    arguments = call_arguments(call)
    return element_type(ctx.source, function, arguments[0]) if len(arguments) == 1 else None


def _template_type_names(ctx: FileContext, function) -> set[str]:
    """The type parameters of the template the function is (`typename scalar_t`)."""
    names = set()
    for parameter in template_parameters(function):
        if parameter.type in ("type_parameter_declaration", "optional_type_parameter_declaration"):
            names.update(
                ctx.source.text(c.start_byte, c.end_byte)
                for c in parameter.named_children
                if c.type == "type_identifier"
            )
    return names


def _setup(ctx: FileContext) -> Iterable[Finding]:
    data = blank_comments(ctx.source.data)
    for match in NVCC_ONLY_FLAGS.finditer(data):
        flag = match.group(1).decode()
        yield SETUP_SETTINGS.finding(
            ctx, match.start(1), match.end(1), f"`{flag}` is an nvcc option; hipcc rejects it under a ROCm torch"
        )
    for match in SETUP_GUARDS.finditer(data):
        text = match.group(1).decode()
        yield SETUP_SETTINGS.finding(ctx, match.start(1), match.end(1), f"`{text}`: None or absent on a ROCm torch")
