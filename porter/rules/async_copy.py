"""Ampere/Hopper-only features (category `async-copy`): cp.async, TMA, mbarrier, clusters, wgmma."""

from __future__ import annotations

from collections.abc import Iterable

from porter.findings import Finding, FixKind, Severity
from porter.rules.base import FileContext, Rule
from porter.rules.patterns import find_patterns, pattern
from porter.rules.ptx import opcode


def _rule(rule_id, name, summary, what, why, example, use_instead, severity=Severity.ERROR) -> Rule:
    return Rule(
        rule_id, name, "async-copy", severity, FixKind.MANUAL, summary, what, why, example, use_instead,
        unsupported_on_amd=True,  # TMA, mbarriers, clusters, wgmma: no AMD counterpart
    )  # fmt: skip


CP_ASYNC = _rule(
    "ASY001", "cp-async",
    "Asynchronous global→shared copies (cp.async, memcpy_async, pipelines)",
    "Finds `cp.async` PTX, `__pipeline_memcpy_async`/`__pipeline_commit`/`__pipeline_wait_prior`, `cuda::memcpy_async` and `cuda::pipeline`.",
    "These are sm_80 hardware paths. CDNA has no asynchronous global-to-LDS copy reachable from HIP (gfx950 adds `global_load_lds`, not exposed as cp.async), and HIP has no `<cuda/pipeline>`.",
    "__pipeline_memcpy_async(&smem[i], &gmem[i], sizeof(float4));\n__pipeline_commit();\n__pipeline_wait_prior(0);",
    "Load through registers (`smem[i] = gmem[i]; __syncthreads();`) and get overlap from double buffering by hand; keep the cp.async path for NVIDIA behind `#ifndef __HIP_PLATFORM_AMD__`.",
)  # fmt: skip
TMA = _rule(
    "ASY002", "tma",
    "Tensor Memory Accelerator (TMA) copies and tensor maps",
    "Finds `cp.async.bulk*` PTX, `CUtensorMap`, `cuTensorMapEncode*` and the bulk-tensor copy wrappers.",
    "TMA is a Hopper unit. AMD GPUs have no tensor-map copy engine; the descriptors and the PTX do not exist there.",
    "cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, ptr, dims, strides, box, elem, ...);",
    "Tile the copy with ordinary vectorised loads into LDS (Composable Kernel's tile loaders do this), with the CUDA path kept for sm_90.",
)  # fmt: skip
MBARRIER = _rule(
    "ASY003", "mbarrier",
    "Transaction barriers (mbarrier, cuda::barrier)",
    "Finds `mbarrier.*` PTX, `cuda::barrier` and the `__mbarrier_*` intrinsics.",
    "Arrive/wait barriers with transaction counts exist to pair with cp.async and TMA; HIP has neither the hardware object nor `<cuda/barrier>`.",
    "__shared__ cuda::barrier<cuda::thread_scope_block> bar;\ninit(&bar, blockDim.x);",
    "`__syncthreads()` once the asynchronous copies become ordinary loads.",
)  # fmt: skip
CLUSTERS = _rule(
    "ASY004", "thread-block-clusters",
    "Thread-block clusters and distributed shared memory",
    "Finds `__cluster_dims__`, `cluster_group`/`this_cluster()`, cluster launch attributes and cluster PTX (`barrier.cluster`, `mapa`, `%cluster_ctarank`).",
    "Clusters are a Hopper feature: AMD has no cluster scheduling and no access to another block's LDS.",
    "__global__ void __cluster_dims__(2, 1, 1) k(float* x) { cg::this_cluster().sync(); }",
    "Exchange data between blocks through global memory (plus a grid-wide or atomic-flag sync), or merge the cluster into one larger block.",
)  # fmt: skip
HOPPER_MMA = _rule(
    "ASY005", "wgmma-setmaxnreg",
    "Warpgroup MMA, register reallocation and other sm_90-only PTX",
    "Finds `wgmma.*`, `setmaxnreg`, `elect.sync`, `griddepcontrol` and `st.async`/`red.async` PTX.",
    "Warpgroup-wide MMA and dynamic register reallocation are sm_90 instructions with no AMD counterpart; kernels built around them (FlashAttention-3 style) need a different design there.",
    'asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 ...");',
    "Use MFMA builtins with a wave-level tiling (see MMA002), or Composable Kernel's pipelines.",
)  # fmt: skip

RULES = (CP_ASYNC, TMA, MBARRIER, CLUSTERS, HOPPER_MMA)
_BY_ID = {rule.id: rule for rule in RULES}

PATTERNS = (
    pattern(r"(?<![\w$])__pipeline_(memcpy_async|commit|wait_prior|arrive_on)\b", CP_ASYNC, "`{text}` is an sm_80 asynchronous copy; HIP has none", needles=("__pipeline_",)),
    pattern(r"(?<![\w$])cuda\s*::\s*(memcpy_async|pipeline\b|make_pipeline|pipeline_shared_state)", CP_ASYNC, "`{text}`: libcu++ pipelines do not exist in HIP", needles=("cuda",)),
    pattern(r"(?<=[<\"])(cuda_pipeline\.h|cuda_pipeline_primitives\.h|cuda/pipeline|cuda_awbarrier\.h)(?=[>\"])", CP_ASYNC, "`{text}` has no HIP counterpart", include=True, needles=("cuda_pipeline", "cuda/pipeline", "cuda_awbarrier", "cuda/barrier")),
    pattern(r"(?<![\w$])CUtensorMap\b|(?<![\w$])cuTensorMapEncode\w*|(?<![\w$])cp_async_bulk_tensor\w*", TMA, "`{text}`: TMA does not exist on AMD", needles=("tensorMap", "TensorMap", "cp_async_bulk")),
    pattern(r"(?<![\w$])cuda\s*::\s*barrier\b|(?<![\w$])__mbarrier_\w+", MBARRIER, "`{text}`: transaction barriers do not exist in HIP", needles=("barrier",)),
    pattern(r"(?<=[<\"])cuda/barrier(?=[>\"])", MBARRIER, "`{text}` has no HIP counterpart", include=True, needles=("cuda_pipeline", "cuda/pipeline", "cuda_awbarrier", "cuda/barrier")),
    pattern(r"(?<![\w$])__cluster_dims__|(?<![\w$])this_cluster\s*\(|(?<![\w$])cluster_group\b|(?<![\w$])cudaLaunchAttributeClusterDimension\b|(?<![\w$])cudaFuncAttributeRequiredCluster\w+|(?<![\w$])cudaFuncAttributeNonPortableClusterSizeAllowed\b", CLUSTERS, "`{text}`: thread-block clusters do not exist on AMD", needles=("cluster", "Cluster")),
)  # fmt: skip


def check(ctx: FileContext) -> Iterable[Finding]:
    if not ctx.source.kind.is_c_family:
        return
    yield from find_patterns(ctx, PATTERNS)
    for statement in ctx.asm_statements:
        by_rule: dict[str, list[tuple[str, str | None]]] = {}
        for instruction, entry in statement.entries():
            if entry is not None and entry.family == "async-copy" and entry.rule:
                by_rule.setdefault(entry.rule, []).append((opcode(instruction), entry.dropped))
        for rule_id, found in by_rule.items():
            rule = _BY_ID[rule_id]
            opcodes = ", ".join(dict.fromkeys(name for name, _ in found))
            reasons = list(dict.fromkeys(dropped for _, dropped in found))
            if None in reasons:
                message = f"PTX {opcodes}: {rule.summary.lower()} has no AMD counterpart"
            else:  # griddepcontrol: nothing to port, only to keep out of the HIP build
                message = f"PTX {opcodes}: {'; '.join(reasons)}; keep it for NVIDIA and out of the HIP build"
            yield rule.finding(ctx, statement.start, statement.end, message)
