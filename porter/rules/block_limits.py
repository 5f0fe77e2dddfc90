"""A warp width that also sizes a launch's block: WRP006's fix held for a person.

    #define WARPS 32
    #define WIDTH 32
    #define THREADS (WARPS * WIDTH)
    ... threadIdx.x / WIDTH ... __shfl_xor_sync(...) ...
    row_norm<<<rows, THREADS>>>(...);

WIDTH is a warp width by its uses, so WRP006 would widen its definition to the wavefront. The
block it sizes then doubles with it: 32 warps of 64 lanes are 2048 threads, past the 1024 a block
may hold on either vendor's GPU, and the launch fails (hipErrorInvalidConfiguration) where the
original ran. What keeps the block whole is a choice the code does not show (fewer warps per
block, `1024 / WIDTH`, and the host's arithmetic that follows them), so the definition's finding
becomes work for a person, and the uses' fixes give way to it as they do to an automatic one.

Each file reads its own launches, with the file's definitions and the headers' (their texts ride
with the project's constants, consteval.HeaderConstants.formulas): a header's `WIDTH` that sizes a
block in a source file is held there, through porter.rules.project's block limits, which the
project settles with the header's finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter

from porter.parse import captures, kernel_launches
from porter.rules.brackets import top_level_parts
from porter.rules.branches import constant_definitions, evaluate_definition
from porter.rules.consteval import CHAIN_PASSES, evaluate
from porter.rules.device import IDENT

MAX_BLOCK_THREADS = 1024  # CUDA's limit, and HIP's on every AMD target


def widened_blocks(ctx, wave: int = 64) -> dict[str, str]:
    """Name → what widening it does to a launch, for each constant of 32 that a launch's block in
    this file is computed from (through the file's definitions and the headers') whose value at
    `wave` takes the block from at most MAX_BLOCK_THREADS threads past it."""
    if b"<<<" not in ctx.source.data and b"__launch_bounds__" not in ctx.source.data:
        return {}
    launches = [*_launch_blocks(ctx), *_bounded_blocks(ctx)]
    if not launches:
        return {}
    own = [(defined, text) for _, defined, text in constant_definitions(ctx.source.data)]
    # the headers' first, then the file's own in its order: a later definition of a name is the one seen
    definitions = [*ctx.project_formulas.items(), *own]
    sizing = _sizing_constants(ctx, launches, dict(definitions))
    definitions = [(defined, text) for defined, text in definitions if defined in sizing]
    found: dict[str, str] = {}
    for name in sorted(name for name in sizing if ctx.shared_constants[name] == 32):
        widened = _widened_constants(ctx, definitions, name, wave)
        for sized, extents in launches:
            before, after = _threads(extents, ctx.shared_constants), _threads(extents, widened)
            if before is not None and after is not None and before <= MAX_BLOCK_THREADS < after:
                block = " × ".join(f"`{extent.strip()}`" for extent in extents)
                where = "" if any(defined == name for defined, _ in own) else f" in {ctx.source.rel}"
                found[name] = (
                    f"it also sizes {sized}{where} ({block}, {before} threads), which at {wave} would be {after} "
                    f"threads, past the {MAX_BLOCK_THREADS} a block may hold: the launch would fail. "
                    f"Keep the block at {before} threads (fewer warps per block, {before} / `{name}`, and the host "
                    "arithmetic that counts them), then widen it by hand"
                )
                break
    return found


def _sizing_constants(ctx, launches: list[tuple[str, list[str]]], texts: dict[str, str]) -> set[str]:
    """The constants that some launch's block extents name, or name through their definitions."""
    seen: set[str] = set()
    pending = [word for _, extents in launches for extent in extents for word in IDENT.findall(extent)]
    while pending:
        word = pending.pop()
        if word not in seen and word in ctx.shared_constants:
            seen.add(word)
            pending += IDENT.findall(texts.get(word, ""))
    return seen


def _widened_constants(ctx, definitions: list[tuple[str, str]], name: str, wave: int) -> dict[str, int]:
    """The constants with `name` at `wave` and every constant defined from it evaluated again:
    `THREADS = WARPS * WIDTH` follows `WIDTH`. The headers' definitions are in no order one file
    can know, so they are evaluated again until no value changes."""
    values = dict(ctx.shared_constants)
    values[name] = wave
    derived = {name}
    for _ in range(CHAIN_PASSES):
        changed = False
        for defined, text in definitions:
            if defined == name or derived.isdisjoint(IDENT.findall(text)):
                continue
            value = evaluate_definition(text, values)
            if value is not None and values.get(defined) != value:
                values[defined] = value
                derived.add(defined)
                changed = True
        if not changed:
            break
    return values


def _threads(extents: list[str], values: dict[str, int]) -> int | None:
    total = 1
    for extent in extents:
        value = evaluate(extent.strip(), values)
        if value is None or value <= 0:
            return None
        total *= value
    return total


def _launch_blocks(ctx) -> Iterator[tuple[str, list[str]]]:
    """(what, block extents) of each `<<<grid, block, …>>>` launch whose block the file shows:
    an expression, `dim3(x, y)`, or a local `dim3 block(x, y)` (its `block.x = …` assignments in
    the launching function read too)."""
    for launch in kernel_launches(ctx.parsed.root):
        function = launch.function
        if function is None or len(launch.arguments) < 2:
            continue
        extents = _extents(ctx, launch.arguments[1], launch.node)
        if extents:
            yield f"the block of `{ctx.source.text(function.start_byte, function.end_byte)}`'s launch", extents


def _bounded_blocks(ctx) -> Iterator[tuple[str, list[str]]]:
    """(what, [bound]) of each kernel's `__launch_bounds__(threads, …)`, the block it is launched with
    where the file does not show the launch. hip-clang 19 compiles a bound of 2048 for gfx942 (the
    bound only caps the block), but a launch of that many threads fails."""
    for bounds in captures("(launch_bounds) @b", ctx.parsed.root).get("b", []):
        arguments = [a for a in bounds.named_children if a.type != "comment"]
        if arguments:
            kernel = ctx.device.function_of(bounds)
            name = kernel.name.split("(")[0].strip() if kernel is not None and kernel.name else "a kernel"
            yield f"`{name}`'s `__launch_bounds__`", [ctx.source.text(arguments[0].start_byte, arguments[0].end_byte)]


_DIM3 = re.compile(r"^\s*dim3\s*[({](.*)[)}]\s*$", re.S)


def _extents(ctx, block: tree_sitter.Node, at: tree_sitter.Node) -> list[str]:
    text = ctx.source.text(block.start_byte, block.end_byte)
    constructed = _DIM3.match(text)
    if constructed is not None:
        return _extents_of(constructed.group(1))
    function = ctx.device.function_of(at).node if block.type == "identifier" else None
    if function is None:
        return [text]  # an expression, or a name of the file's or project's constants
    return _local_extents(ctx.source.text(function.start_byte, at.start_byte), text) or [text]


def _local_extents(body: str, name: str) -> list[str]:
    """The extents of a local block the function's text before the launch declares and assigns:
    `dim3 b(x, y)`, `dim3 b = dim3(x)`, `int b = x`, then `b.x = …` (the last of each axis)."""
    quoted = re.escape(name)
    declared = re.search(rf"\bdim3\s+{quoted}\s*(?:[({{](.*?)[)}}]|=\s*dim3\s*[({{](.*?)[)}}])\s*;", body, re.S)
    if declared is not None:
        extents = _extents_of(declared.group(1) if declared.group(1) is not None else declared.group(2))
    elif re.search(rf"\bdim3\s+(?:\w+\s*,\s*)*{quoted}\s*[,;]", body):  # `dim3 grid, block;`
        extents = []
    else:
        scalar = re.search(rf"\b(?:unsigned|int|long|size_t|auto|const)[\w\s]*\b{quoted}\s*=\s*([^;]+);", body)
        return [scalar.group(1)] if scalar is not None else []
    axes = dict(zip("xyz", [*extents, "1", "1", "1"], strict=False))
    for axis, value in re.findall(rf"\b{quoted}\s*\.\s*([xyz])\s*=\s*([^;=][^;]*);", body):
        axes[axis] = value
    return [axes[axis] for axis in "xyz"]


def _extents_of(text: str) -> list[str]:
    """A constructor's arguments (`dim3(x, y)`'s), empty ones left out."""
    return [part for part in top_level_parts(text) if part]
