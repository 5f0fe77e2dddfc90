"""A warp width chosen by a list of AMD targets (category `warp-size`): WRP022.

    #if defined(__gfx90a__) || defined(__gfx942__)
    constexpr int WarpSize = 64;
    #else
    constexpr int WarpSize = 32;
    #endif

hip-clang compiles the file once per offload target, each pass defining its own `__gfx…__` and
`__GFX…__` macros. A list of the targets that have 64 lanes is right for the targets its author knew:
a CDNA GPU the list leaves out (gfx950) takes the other arm's 32, with a 64-lane wavefront, and every
lane, warp and mask computed from the constant is then half a wavefront's. Nothing fails to build.
HIPRT's BVH builder took its width from such a list and had to add gfx950 to it
(GPUOpen-LibrariesAndSDKs/HIPRT#68).

For each AMD target the scan is for, the file's definitions of a name given both 32 and 64 in arms of
a conditional on target macros are read as that target's device pass sees them (branches.holds_for
with the target's own macros): where exactly one holds and its value is not the target's wavefront,
the definition is reported. The conditional may test a project macro that a list of targets defines,
in this file or another header (bitsandbytes' `IS_CDNA`, which left gfx900-gfx906 and gfx940/gfx941
out until its PR 2059): that macro's definitions are read again in the target's pass
(Branches._for_target). The host pass's reading of such a width is WRP013's.
"""

from __future__ import annotations

from collections.abc import Iterable

import tree_sitter

from porter.findings import Finding, FixKind, Severity
from porter.rules.base import FileContext, Rule
from porter.rules.branches import constant_definitions, device_pass, evaluate_definition

TARGET_LIST_WIDTH = Rule(
    id="WRP022",
    name="warp-width-by-target-list",
    category="warp-size",
    audits_hip=True,
    # the arm it reports is the one a scan target's device pass compiles, whichever way the two
    # device passes the platform regions are read for (gfx942, gfx1100) decide it: an arm they read
    # as RDNA's alone is gfx90a's too where the list leaves gfx90a out
    breaks_wave32=True,
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="A warp width chosen by a list of AMD targets that gives a targeted GPU the other width",
    what=(
        "Finds a constant defined as 32 in one arm and 64 in another of a conditional on AMD target macros "
        "(`__gfx942__`, `__GFX9__`), or on a project macro that such a conditional defines (`IS_CDNA`), "
        "whose arm, in the device pass of one of the scan's targets, gives a width "
        "that is not that target's wavefront: a list of 64-lane targets that leaves one out (gfx950), or a "
        "list of 32-lane ones that leaves a newer RDNA GPU (gfx1200) to the 64."
    ),
    why="""
        hip-clang compiles a file once per offload target, and each pass defines that target's
        macros only. A list of targets is right for the GPUs its author knew; a target left out
        takes the other arm. On a 64-lane CDNA GPU given 32, lane ids, warp counts, shuffle
        ladders and masks computed from the constant cover half a wavefront: rows are skipped
        or summed twice, and ballots lose lanes 32-63. Nothing fails to compile.
        """,
    example=(
        "#if defined(__gfx90a__) || defined(__gfx942__)\nconstexpr int WarpSize = 64;\n#else\n"
        "constexpr int WarpSize = 32;  // gfx950's device pass: 64 lanes\n#endif"
    ),
    use_instead=(
        "Take the width from the compiler for every target: `__GFX9__` (every gfx9 GPU is wave64), "
        "`__AMDGCN_WAVEFRONT_SIZE` before clang 21, or porter_compat.h's `PORTER_WARP_SIZE`; or add the "
        "target to the list."
    ),
)

RULES = (TARGET_LIST_WIDTH,)

_ARMS = ("preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef")
WIDTHS = (32, 64)


def check(ctx: FileContext) -> Iterable[Finding]:
    if not ctx.source.kind.is_c_family or ctx.parsed.root is None:
        return
    data = ctx.source.data
    project = ctx.project_conditions
    if b"__gfx" not in data and b"__GFX" not in data and not (project and project.names_target_macros_in(data)):
        return
    chosen = _chosen_widths(ctx)
    if not chosen:
        return
    from porter.targets import known

    passes = [
        (target, device_pass(target.id, target.wavefront)) for target in known(ctx.config.targets) if target.is_amd
    ]
    for name, definitions in chosen.items():
        yield from _wrong_for_targets(ctx, name, definitions, passes)


def _chosen_widths(ctx: FileContext) -> dict[str, list[tuple[tree_sitter.Node, int]]]:
    """Name → (its name's node, value) of each definition, for the names defined as both 32 and 64
    in arms of conditionals on target macros."""
    found: dict[str, list[tuple[tree_sitter.Node, int]]] = {}
    for offset, name, text in constant_definitions(ctx.source.data):
        value = evaluate_definition(text, ctx.shared_constants)
        node = _name_node(ctx, offset, name) if value in WIDTHS else None
        if node is not None and _under_target_test(ctx, node):
            found.setdefault(name, []).append((node, value))
    return {name: found[name] for name in found if {value for _, value in found[name]} == set(WIDTHS)}


def _name_node(ctx: FileContext, offset: int, name: str) -> tree_sitter.Node | None:
    at = ctx.source.data.find(name.encode(), offset)
    if at < 0:
        return None
    return ctx.parsed.root.descendant_for_byte_range(at, at + len(name))


def _under_target_test(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """Is some conditional around the node (its own arm's test, or an earlier arm's of its chain) a
    test on an AMD target: its own macros, or a project macro they choose (`IS_CDNA3`, defined
    under `#if defined(__gfx942__) || defined(__gfx950__)`)?"""
    current = node.parent
    while current is not None:
        if current.type in _ARMS:
            head = current.child_by_field_name("condition") or current.child_by_field_name("name")
            if head is not None and ctx.branches.tests_target(ctx.source.text(head.start_byte, head.end_byte)):
                return True
        current = current.parent
    return False


def _wrong_for_targets(ctx: FileContext, name: str, definitions: list[tuple[tree_sitter.Node, int]], passes: list):
    """The definitions a target's device pass (of `passes`, each with its Environment) reads with
    another width than its wavefront's, reported once each with those targets named."""
    wrong: dict[int, list] = {}  # definition index → the targets whose device pass reads it wrongly
    for target, env in passes:
        held = [i for i, (node, _) in enumerate(definitions) if ctx.branches.holds_for(node, env, ctx.shared_constants)]
        if len(held) == 1 and definitions[held[0]][1] != target.wavefront:
            wrong.setdefault(held[0], []).append(target)
    for index, targets in sorted(wrong.items()):
        node, value = definitions[index]
        names = ", ".join(t.id for t in targets)
        lanes = " and ".join(sorted({str(t.wavefront) for t in targets}))
        yield TARGET_LIST_WIDTH.finding(
            ctx, node.start_byte, node.end_byte,
            f"`{name}` is {value} in the device pass of {names}, whose wavefront has {lanes} lanes: "
            f"the targets its conditional lists leave {names} out",
        )  # fmt: skip
