"""The rule families. Each module declares RULES and a `check(ctx)`; some also deepen with libclang."""

from __future__ import annotations

from functools import cache
from types import ModuleType

from porter.rules import (
    api,
    arch_guard,
    async_copy,
    build,
    cooperative_groups,
    dialect,
    embedded,
    inline_asm,
    lane_mask,
    launch_bounds,
    library,
    matrix,
    numeric_format,
    scan_limits,
    shared_memory,
    target_widths,
    torch_extension,
    warp_size,
    warp_sync,
    wave32,
    wave_builtins,
)
from porter.rules.base import FileContext, Rule

FAMILIES: tuple[ModuleType, ...] = (
    api,
    library,
    build,
    warp_size,
    wave32,
    target_widths,
    wave_builtins,
    lane_mask,
    warp_sync,
    inline_asm,
    matrix,
    async_copy,
    launch_bounds,
    shared_memory,
    numeric_format,
    cooperative_groups,
    arch_guard,
    torch_extension,
    dialect,
    embedded,
    scan_limits,
)


# Categories whose errors are wrong answers on wave64 hardware, not build failures: the report's
# score weighs an unfixed one heavily.
WAVE_CORRECTNESS = ("warp-size", "lane-mask", "warp-sync")


def categories() -> tuple[str, ...]:
    """Every finding category, in the order of the families that declare them (one per family)."""
    return tuple(dict.fromkeys(rule.category for family in FAMILIES for rule in family.RULES))


def unsupported_on_amd(finding) -> bool:
    """Does the finding's rule name something AMD has no counterpart for?"""
    rule = all_rules().get(finding.rule)
    return rule is not None and rule.unsupported_on_amd


def fixed_by_compat_header(finding) -> bool:
    """Does the generated compat header supply what the finding's rule says HIP lacks?"""
    rule = all_rules().get(finding.rule)
    return rule is not None and rule.fixed_by_compat_header


# PyTorch extensions write their ROCm branches in CUDA spelling too (`cudaFuncSetAttribute` under
# `#ifdef USE_ROCM`): torch's hipify renames them at build time. The renames stand there as well.
SPELLING_CATEGORIES = ("api", "library")


def on_ported_platform(ctx: FileContext, findings: list) -> list:
    """The findings that stand once the project's own platform branches are respected.

    Code under a branch the project compiles only for NVIDIA (`#ifndef USE_ROCM`, a macro set to
    0 on the ROCm side) is not to be ported; code compiled only for ROCm is HIP already and keeps
    only the rules that audit HIP code (and the renames of CUDA spellings, see SPELLING_CATEGORIES),
    and where it targets wave32 devices only, only the rules that find 64-lane assumptions. A
    header that the project's files include for one platform only (branches.header_sides) is that
    platform's code throughout.
    """
    from porter.rules.branches import Side

    whole_file = _whole_file_side(ctx)
    if not ctx.source.kind.is_c_family or ctx.parsed.root is None or not (ctx.branches.regions or whole_file):
        return findings
    rules = all_rules()
    kept = []
    for finding in findings:
        side = _side_of(ctx, finding.span.start_byte, whole_file)
        rule = rules.get(finding.rule)
        if (
            side in (Side.DEAD, Side.CUDA_ONLY, Side.ROCM_WAVE32)
            and rule is not None
            and rule.category != "scan-limits"
            and not (side is Side.ROCM_WAVE32 and rule.breaks_wave32)
        ):
            continue
        if side is Side.ROCM and rule is not None and not (rule.audits_hip or rule.category in SPELLING_CATEGORIES):
            continue
        kept.append(finding)
    return kept


def compiled_by_hipcc(ctx: FileContext, node) -> bool:
    """Does hipcc compile the node, for the CDNA targets, in the file as written: every conditional
    around it holds there (the macros only NVIDIA's toolkit defines undefined, unless the project
    defines them), and it is not in a header the project includes for NVIDIA alone?"""
    from porter.rules.branches import HIPCC_AS_WRITTEN, Side

    if _whole_file_side(ctx) is Side.CUDA_ONLY:
        return False
    return ctx.branches.holds_for(node, HIPCC_AS_WRITTEN, ctx.shared_constants) is True


def _whole_file_side(ctx: FileContext):
    """The side of a header the project includes for one platform only (branches.header_sides), else None."""
    return ctx.project_header_sides.get(ctx.source.path.name) if ctx.source.kind.is_c_family else None


def _side_of(ctx: FileContext, offset: int, whole_file):
    """The side of the code at `offset`: its own branches', within a header the project includes
    for one platform only (a header included for NVIDIA alone is NVIDIA's throughout)."""
    from porter.rules.branches import Side

    if whole_file is Side.CUDA_ONLY:
        return whole_file
    return ctx.branches.side_at(offset) or whole_file


@cache
def all_rules() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    for family in FAMILIES:
        for rule in family.RULES:
            if rule.id in rules:
                raise RuntimeError(f"duplicate rule id {rule.id}")
            rules[rule.id] = rule
    return dict(sorted(rules.items()))


__all__ = [
    "FAMILIES",
    "WAVE_CORRECTNESS",
    "FileContext",
    "Rule",
    "all_rules",
    "categories",
    "compiled_by_hipcc",
    "on_ported_platform",
    "unsupported_on_amd",
]
