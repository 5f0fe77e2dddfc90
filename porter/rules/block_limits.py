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

Only the file's own definitions and its own launches are read: a header's constant that sizes a
block in another file is not followed (porter.rules.project would need the launch's file to
re-evaluate the header's derived constants).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

import tree_sitter

from porter.parse import captures
from porter.rules.branches import constant_definitions, evaluate_definition
from porter.rules.consteval import evaluate
from porter.rules.device import IDENT

MAX_BLOCK_THREADS = 1024  # CUDA's limit, and HIP's on every AMD target


def widened_blocks(ctx, names: Iterable[str], wave: int = 64) -> dict[str, str]:
    """Name → what widening it does to a launch, for each of `names` (constants of 32 the file
    defines) whose value at `wave` takes some launch's block from at most MAX_BLOCK_THREADS
    threads past it."""
    if b"<<<" not in ctx.source.data and b"__launch_bounds__" not in ctx.source.data:
        return {}
    launches = [*_launch_blocks(ctx), *_bounded_blocks(ctx)]
    found: dict[str, str] = {}
    for name in sorted(set(names)) if launches else ():
        if ctx.shared_constants.get(name) != 32:
            continue
        widened = _widened_constants(ctx, name, wave)
        for sized, extents in launches:
            before, after = _threads(extents, ctx.shared_constants), _threads(extents, widened)
            if before is not None and after is not None and before <= MAX_BLOCK_THREADS < after:
                block = " × ".join(f"`{extent.strip()}`" for extent in extents)
                found[name] = (
                    f"it also sizes {sized} ({block}, {before} threads), which at {wave} would be {after} threads, "
                    f"past the {MAX_BLOCK_THREADS} a block may hold: the launch would fail. "
                    f"Keep the block at {before} threads (fewer warps per block, {before} / `{name}`, and the host "
                    "arithmetic that counts them), then widen it by hand"
                )
                break
    return found


def _widened_constants(ctx, name: str, wave: int) -> dict[str, int]:
    """The file's constants with `name` at `wave` and every constant defined from it after it
    (in the file's order) evaluated again: `THREADS = WARPS * WIDTH` follows `WIDTH`."""
    values = dict(ctx.shared_constants)
    values[name] = wave
    changed = {name}
    for _, defined, text in constant_definitions(ctx.source.data):
        if defined in changed or not changed.intersection(IDENT.findall(text)):
            continue
        value = evaluate_definition(text, values)
        if value is not None:
            values[defined] = value
            changed.add(defined)
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
    for launch in captures("(kernel_call_syntax) @k", ctx.parsed.root).get("k", []):
        call = launch.parent
        function = call.child_by_field_name("function") if call is not None else None
        arguments = [a for a in launch.named_children if a.type != "comment"]
        if function is None or len(arguments) < 2:
            continue
        extents = _extents(ctx, arguments[1], launch)
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
        return _arguments(constructed.group(1))
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
        extents = _arguments(declared.group(1) if declared.group(1) is not None else declared.group(2))
    elif re.search(rf"\bdim3\s+(?:\w+\s*,\s*)*{quoted}\s*[,;]", body):  # `dim3 grid, block;`
        extents = []
    else:
        scalar = re.search(rf"\b(?:unsigned|int|long|size_t|auto|const)[\w\s]*\b{quoted}\s*=\s*([^;]+);", body)
        return [scalar.group(1)] if scalar is not None else []
    axes = dict(zip("xyz", [*extents, "1", "1", "1"], strict=False))
    for axis, value in re.findall(rf"\b{quoted}\s*\.\s*([xyz])\s*=\s*([^;=][^;]*);", body):
        axes[axis] = value
    return [axes[axis] for axis in "xyz"]


def _arguments(text: str) -> list[str]:
    """A constructor's arguments, split at its top-level commas."""
    parts, depth, current = [], 0, []
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [part for part in parts if part.strip()]
