"""Library mappings (category `library`): cuBLAS→hipBLAS, cuRAND→hipRAND, ..., cuDNN and CUTLASS flagged."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from porter.findings import Edit, Finding, FixKind, Severity
from porter.rules.api import name_finding
from porter.rules.base import FileContext, Rule
from porter.rules.names import NAME_CONTEXTS, include_sites, portable_include
from porter.rules.patterns import finditer


def _rename_rule(rule_id: str, name: str, cuda: str, rocm: str, example: str, use_instead: str) -> Rule:
    return Rule(
        id=rule_id,
        name=name,
        category="library",
        severity=Severity.INFO,
        fix=FixKind.AUTO,
        summary=f"{cuda} name with a {rocm} equivalent",
        what=f"Finds {cuda} functions, types, constants and headers that {rocm} provides under hip* names.",
        why=f"""
            {cuda} is an NVIDIA library: ROCm does not ship it. {rocm} offers the same API
            shape under other names, so the port compiles once the names, the header and
            the link library change.
            """,
        example=example,
        use_instead=use_instead,
    )


CUBLAS = _rename_rule(
    "LIB001", "cublas-to-hipblas", "cuBLAS", "hipBLAS",
    "#include <cublas_v2.h>\ncublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a, A, m, B, k, &b, C, m);",
    "`#include <hipblas/hipblas.h>` and `hipblasSgemm(handle, HIPBLAS_OP_N, ...)`; link hipblas.",
)  # fmt: skip
CUBLASLT = _rename_rule(
    "LIB002", "cublaslt-to-hipblaslt", "cuBLASLt", "hipBLASLt",
    "cublasLtMatmul(lt, desc, &alpha, A, a, B, b, &beta, C, c, D, d, &algo, ws, ws_size, stream);",
    "`hipblasLtMatmul(...)` from `<hipblaslt/hipblaslt.h>`, which porter's HIP 6.4 build has (Debian's hipBLASLt 7.1 headers).",
)  # fmt: skip
CURAND = _rename_rule(
    "LIB003", "curand-to-hiprand", "cuRAND", "hipRAND",
    "#include <curand_kernel.h>\ncurand_init(seed, tid, 0, &state);\nfloat u = curand_uniform(&state);",
    "`#include <hiprand/hiprand_kernel.h>`, `hiprand_init(...)`, `hiprand_uniform(...)`.",
)  # fmt: skip
CUSPARSE = _rename_rule(
    "LIB004", "cusparse-to-hipsparse", "cuSPARSE", "hipSPARSE",
    "cusparseCreate(&handle);\ncusparseSpMM(handle, opA, opB, &alpha, A, B, &beta, C, CUDA_R_32F, alg, buffer);",
    "`hipsparseCreate(&handle); hipsparseSpMM(...)` from `<hipsparse/hipsparse.h>`.",
)  # fmt: skip
CUFFT = _rename_rule(
    "LIB005", "cufft-to-hipfft", "cuFFT", "hipFFT",
    "cufftPlan1d(&plan, n, CUFFT_C2C, 1);\ncufftExecC2C(plan, in, out, CUFFT_FORWARD);",
    "`hipfftPlan1d(&plan, n, HIPFFT_C2C, 1); hipfftExecC2C(...)` from `<hipfft/hipfft.h>`.",
)  # fmt: skip
CUSOLVER = _rename_rule(
    "LIB006", "cusolver-to-hipsolver", "cuSOLVER", "hipSOLVER",
    "cusolverDnCreate(&handle);\ncusolverDnSgetrf(handle, m, n, A, lda, work, ipiv, info);",
    "`hipsolverDnCreate(&handle); hipsolverDnSgetrf(...)` from `<hipsolver/hipsolver.h>`.",
)  # fmt: skip
CUB = _rename_rule(
    "LIB007", "cub-to-hipcub", "CUB", "hipCUB",
    "#include <cub/cub.cuh>\nusing BlockReduce = cub::BlockReduce<float, 256>;",
    "`#include <hipcub/hipcub.hpp>` and `hipcub::BlockReduce<float, 256>`. Beware block primitives sized for 32-wide warps (see the warp-size rules).",
)  # fmt: skip
THRUST = _rename_rule(
    "LIB008", "thrust-cuda-backend", "Thrust's CUDA backend", "rocThrust",
    "thrust::sort(thrust::cuda::par.on(stream), v.begin(), v.end());",
    "`thrust::hip::par.on(stream)`: rocThrust keeps the `thrust::` API; only the backend names (`thrust::cuda`, `thrust/system/cuda/`) change.",
)  # fmt: skip
NCCL = _rename_rule(
    "LIB009", "nccl-to-rccl", "NCCL", "RCCL",
    "#include <nccl.h>\nncclAllReduce(send, recv, n, ncclFloat, ncclSum, comm, stream);",
    "`#include <rccl/rccl.h>`: RCCL keeps the nccl* names, so only the header and the link library (rccl) change.",
)  # fmt: skip

CUDNN = Rule(
    id="LIB010",
    unsupported_on_amd=True,
    name="cudnn-to-miopen",
    category="library",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="cuDNN use: port to MIOpen by hand",
    what="Finds cuDNN headers, functions, types and constants.",
    why="""
        MIOpen is ROCm's counterpart, but not a renamed cuDNN: descriptors, algorithm search
        (`miopenFindConvolutionForwardAlgorithm` must run before use) and workspace handling
        differ, and the cuDNN frontend/graph API has no MIOpen equivalent.
        """,
    example="cudnnConvolutionForward(handle, &alpha, xDesc, x, wDesc, w, convDesc, algo, ws, wsSize, &beta, yDesc, y);",
    use_instead="Port to MIOpen's API by hand, or call the operation through a framework (PyTorch routes cuDNN ops to MIOpen on ROCm).",
    references=("MIOpen: https://rocm.docs.amd.com/projects/MIOpen/en/latest/",),
)

CUTLASS = Rule(
    id="LIB011",
    unsupported_on_amd=True,
    name="cutlass-to-composable-kernel",
    category="library",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="CUTLASS/CuTe use: port to Composable Kernel by hand",
    what="Finds CUTLASS and CuTe headers and namespaces.",
    why="""
        CUTLASS and CuTe are built on NVIDIA tensor-core instructions (mma.sync, wgmma, TMA)
        and NVIDIA's register layouts. Nothing of them compiles for AMD; Composable Kernel
        (or hipBLASLt for plain GEMMs) is the ROCm counterpart, with a different design.
        """,
    example="#include <cutlass/gemm/device/gemm.h>\nusing Gemm = cutlass::gemm::device::Gemm<float, RowMajor, float, RowMajor, float, RowMajor>;",
    use_instead="Use Composable Kernel's device GEMM instances, hipBLASLt, or keep the CUTLASS path CUDA-only behind `#ifndef __HIP_PLATFORM_AMD__` with a ROCm fallback.",
    references=("Composable Kernel: https://rocm.docs.amd.com/projects/composable_kernel/en/latest/",),
)

UNSUPPORTED_LIBRARY_API = Rule(
    id="LIB012",
    unsupported_on_amd=True,
    name="unsupported-library-api",
    category="library",
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="CUDA library name with no equivalent in the targeted ROCm",
    what="Finds cuBLAS, cuSPARSE, cuRAND, ... names whose hip* counterpart no checked HIP release declares, or one newer than the targeted ROCm.",
    why="hipify renames these to names that do not exist, and the port fails to compile where it should have been flagged.",
    example="cusparseLtMatmul(&handle, &plan, &alpha, A, B, &beta, C, D, ws, streams, 1);",
    use_instead="Find the operation in the ROCm library by hand (often under another API shape), or keep this path CUDA-only.",
)

TOOLING_LIBRARY = Rule(
    id="LIB013",
    name="nvtx-nvml-tooling",
    category="library",
    severity=Severity.WARNING,
    fix=FixKind.MANUAL,
    summary="NVTX or NVML use: ROCTx and ROCm SMI differ",
    what="Finds NVTX ranges and NVML device queries.",
    why="ROCTx covers NVTX's ranges and marks with other names and fewer features; ROCm SMI is not NVML.",
    example='nvtxRangePushA("step");\nnvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &t);',
    use_instead='`roctxRangePushA("step")` from `<roctracer/roctx.h>`; `rsmi_dev_temp_metric_get` from `<rocm_smi/rocm_smi.h>`.',
)

RULES = (
    CUBLAS,
    CUBLASLT,
    CURAND,
    CUSPARSE,
    CUFFT,
    CUSOLVER,
    CUB,
    THRUST,
    NCCL,
    CUDNN,
    CUTLASS,
    UNSUPPORTED_LIBRARY_API,
    TOOLING_LIBRARY,
)
_BY_ID = {rule.id: rule for rule in RULES}


def _library_rule(ctx: FileContext, family: str) -> Rule:
    library = ctx.tables.libraries.get(family)
    return _BY_ID[library["rule"]] if library else UNSUPPORTED_LIBRARY_API


def check(ctx: FileContext) -> Iterable[Finding]:
    if not ctx.source.kind.is_c_family:
        return
    for hit in ctx.table_hits:
        if hit.entry.category == "library":
            rule = _library_rule(ctx, hit.entry.family)
            if ctx.tables.libraries.get(hit.entry.family, {}).get("manual"):
                yield _manual_use(ctx, rule, hit.start, hit.end, hit.entry.cuda, hit.entry.family)
            else:
                finding = name_finding(ctx, hit.start, hit.end, hit.entry, rule, UNSUPPORTED_LIBRARY_API)
                if finding is not None:
                    yield finding
    yield from _includes(ctx)
    yield from _namespaces(ctx)
    yield from _manual_prefixes(ctx)


def _manual_use(ctx: FileContext, rule: Rule, start: int, end: int, name: str, family: str) -> Finding:
    rocm = ctx.tables.libraries[family]["rocm"]
    return rule.finding(ctx, start, end, f"`{name}` is {family}; port it to {rocm} by hand")


def _includes(ctx: FileContext) -> Iterable[Finding]:
    for site in include_sites(ctx):
        start, end, path = site.start, site.end, site.path
        entry = ctx.tables.includes.get(path)
        if entry is not None and entry.category == "library":
            family = "cub" if path.startswith("cub/") else entry.family
            rule = _library_rule(ctx, family)
            if ctx.tables.libraries.get(family, {}).get("manual"):
                yield _manual_use(ctx, rule, start, end, path, family)
            else:
                finding = name_finding(ctx, start, end, entry, rule, UNSUPPORTED_LIBRARY_API, site)
                if finding is not None:
                    yield finding
            continue
        if entry is not None:
            continue  # an api header: the api family reports it
        found = _library_header(ctx, path)
        if found is None:
            continue
        family, hip_path = found
        rule = _library_rule(ctx, family)
        if hip_path is None:
            yield _manual_use(ctx, rule, start, end, path, family)
        elif not ctx.portable:
            edits = (
                Edit(start, end, hip_path.encode("utf-8", "surrogateescape"), mode="hip"),
                portable_include(ctx, site, hip_path),
            )
            yield rule.finding(ctx, start, end, f"`{path}` is `{hip_path}` in ROCm", edits=edits)


def _library_header(ctx: FileContext, path: str) -> tuple[str, str | None] | None:
    """(family, HIP path or None) for library headers that the name table does not list."""
    for family, library in ctx.tables.libraries.items():
        if path in library.get("headers", {}):
            return family, library["headers"][path]
        for prefix, hip in library.get("header_dirs", {}).items():
            if path.startswith(prefix):
                # A directory maps onto a directory; anything else maps every header to one.
                keeps_rest = hip is not None and hip.endswith("/")
                return family, hip + path[len(prefix) :] if keeps_rest else hip
    return None


@cache
def _namespace_pattern(namespaces: tuple[str, ...]) -> re.Pattern[bytes]:
    alternation = b"|".join(re.escape(n.encode()).replace(rb"::", rb"\s*::\s*") for n in namespaces)
    return re.compile(rb"(?<![\w$])(?:" + alternation + rb")(?=\s*::)")


def _namespaces(ctx: FileContext) -> Iterable[Finding]:
    renames = {}
    for family, library in ctx.tables.libraries.items():
        for cuda, hip in library.get("namespaces", {}).items():
            renames[cuda] = (family, hip)
    pattern = _namespace_pattern(tuple(sorted(renames, key=len, reverse=True)))
    for match in finditer(pattern, ctx.source.data):
        if ctx.parsed.context_at(match.start(), match.end()) not in NAME_CONTEXTS:
            continue
        spelled = re.sub(r"\s+", "", match.group().decode(errors="replace"))
        family, hip = renames[spelled]
        rule = _library_rule(ctx, family)
        if hip is None:
            yield _manual_use(ctx, rule, match.start(), match.end(), spelled + "::", family)
        elif not ctx.portable:
            edits = [Edit(match.start(), match.end(), hip.encode(), mode="hip")]
            if "::" in spelled:
                # a nested namespace cannot be aliased before its library is included: a macro
                # from the compat header picks the spelling at the point of use instead
                macro = "PORTER_" + spelled.replace("::", "_").upper()
                edits.append(Edit(match.start(), match.end(), macro.encode(), mode="portable"))
            yield rule.finding(
                ctx, match.start(), match.end(), f"`{spelled}::` is `{hip}::` in ROCm", edits=tuple(edits)
            )


_CUDNN_NAME = re.compile(rb"(?<![\w$])(?:cudnn[A-Z]\w*|CUDNN_[A-Z0-9_]+)")


def _manual_prefixes(ctx: FileContext) -> Iterable[Finding]:
    """cuDNN names: hipify's table leaves them out, so they are matched by prefix."""
    if b"cudnn" not in ctx.source.data and b"CUDNN_" not in ctx.source.data:
        return
    for match in finditer(_CUDNN_NAME, ctx.source.data):
        if ctx.parsed.context_at(match.start(), match.end()) not in NAME_CONTEXTS:
            continue
        if match.group().decode() in ctx.tables.identifiers:
            continue
        yield _manual_use(ctx, CUDNN, match.start(), match.end(), match.group().decode(), "cudnn")
