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
    inline_asm,
    lane_mask,
    launch_bounds,
    library,
    matrix,
    numeric_format,
    scan_limits,
    shared_memory,
    torch_extension,
    warp_size,
    warp_sync,
)
from porter.rules.base import FileContext, Rule

FAMILIES: tuple[ModuleType, ...] = (
    api,
    library,
    build,
    warp_size,
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
    scan_limits,
)


def categories() -> tuple[str, ...]:
    """Every finding category, in the order of the families that declare them (one per family)."""
    return tuple(dict.fromkeys(rule.category for family in FAMILIES for rule in family.RULES))


def unsupported_on_amd(finding) -> bool:
    """Does the finding's rule name something AMD has no counterpart for?"""
    rule = all_rules().get(finding.rule)
    return rule is not None and rule.unsupported_on_amd


@cache
def all_rules() -> dict[str, Rule]:
    rules: dict[str, Rule] = {}
    for family in FAMILIES:
        for rule in family.RULES:
            if rule.id in rules:
                raise RuntimeError(f"duplicate rule id {rule.id}")
            rules[rule.id] = rule
    return dict(sorted(rules.items()))


__all__ = ["FAMILIES", "FileContext", "Rule", "all_rules", "categories", "unsupported_on_amd"]
