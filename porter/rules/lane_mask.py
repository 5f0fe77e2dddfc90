"""Lane masks (category `lane-mask`): 32-bit masks for a 64-lane wavefront."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import tree_sitter

from porter.findings import Edit, Finding, FixKind, Severity
from porter.parse import captures, identifiers_in, initializers
from porter.parse import define_names as _define_names
from porter.rules import portable
from porter.rules.base import FileContext, Rule
from porter.rules.block_rows import block_rows
from porter.rules.device import VarClass, call_arguments, function_parameters, int_value, spelled, unparenthesized
from porter.rules.patterns import search_fast
from porter.source import encoded_length

WHY_MASKS = """
    A CDNA wavefront has 64 lanes, so `__ballot`, `__activemask` and `__match_any` return
    64-bit masks, and ROCm's `_sync` intrinsics require a 64-bit mask argument (a
    `static_assert` rejects a 32-bit one from ROCm 7 on). A 32-bit mask silently drops lanes
    32-63: votes miss half the wavefront, population counts come out too small.
    """

FULL_MASK_32 = Rule(
    id="MSK001",
    name="full-mask-32-bit",
    category="lane-mask",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="`0xffffffff` used as the all-lanes mask",
    what="Finds `0xffffffff` (and `~0u`) passed as the mask of `_sync` intrinsics, compared with vote results, or defined as a mask constant, and an `int` all-lanes mask (`~0`, `-1`) passed to them, which HIP refuses at compile time.",
    why=WHY_MASKS,
    example="v += __shfl_down_sync(0xffffffff, v, offset);\n#define FULL_MASK 0xffffffffu",
    use_instead=(
        f"`{portable.FULL_MASK}`: `0xffffffffu` on NVIDIA, all 64 bits on AMD; in a function that kernels of "
        f"32-thread rows run (its own file's, or another file's that calls it), `{portable.ROW_MASK}`: the "
        "row's half of the wavefront, which a block of one row runs alone."
    ),
)

MASK_TRUNCATED = Rule(
    id="MSK002",
    name="vote-result-in-32-bits",
    category="lane-mask",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="Ballot or active-mask result stored in a 32-bit integer",
    what="Finds `__ballot_sync`, `__ballot`, `__activemask` and `__match_any_sync` results assigned to `unsigned`, `int` or `uint32_t` variables.",
    why=WHY_MASKS,
    example="unsigned votes = __ballot_sync(0xffffffff, pred);",
    use_instead=f"`{portable.LANE_MASK_TYPE} votes = __ballot_sync({portable.FULL_MASK}, pred);`",
)

MASK_BIT_OPS_32 = Rule(
    id="MSK003",
    name="mask-bit-ops-32-bit",
    category="lane-mask",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="`__popc`, `__ffs` or `__clz` applied to a lane mask",
    what="Finds the 32-bit bit-counting intrinsics applied to vote results.",
    why=WHY_MASKS + "\n`__popc` counts only the low 32 bits; `__ffs` and `__clz` look at half the mask.",
    example="int active = __popc(__activemask());",
    use_instead="`__popcll`, `__ffsll`, `__clzll`: the 64-bit forms exist in CUDA and HIP alike.",
)

LANE_BIT_32 = Rule(
    id="MSK004",
    name="lane-bit-32-bit",
    category="lane-mask",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="`1 << lane` built in 32 bits",
    what=(
        "Finds `1 << lane` and `1u << lane` where the shift is a lane id, a wider 32-bit constant shifted by one "
        "(`(2 << lane) - 1`), and a 32-bit constant shifted by a count built from a lane id whose result is kept as "
        "a 64-bit lane mask (`uint64_t bits = ((1u << K) - 1) << (K * group);`, or combined with a ballot)."
    ),
    why=WHY_MASKS + "\nFor lanes 32-63 a 32-bit shift is undefined behaviour; in practice the bit is lost.",
    example="unsigned below = (1u << lane) - 1;",
    use_instead=f"`(({portable.LANE_MASK_TYPE})1 << lane)`.",
)

RULES = (FULL_MASK_32, MASK_TRUNCATED, MASK_BIT_OPS_32, LANE_BIT_32)

MASK_TAKING = frozenset(
    {
        "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync",
        "__all_sync", "__match_any_sync", "__match_all_sync", "__syncwarp", "__reduce_add_sync", "__reduce_min_sync",
        "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
    }
)  # fmt: skip
THIRTY_TWO_BIT_TYPES = re.compile(r"^(const )?(unsigned|unsigned int|int|signed|signed int|uint32_t|int32_t|uint)$")
_SIGNED_32_BITS = re.compile(r"^(const )?(int|signed|signed int|int32_t)$")


def widened_mask_type(spelled: str) -> bytes:
    """What a 32-bit type that holds a lane mask becomes: porter_lane_mask_t, or for a signed one
    porter_signed_lane_mask_t, an int on NVIDIA still (unsigned, its right shifts, comparisons and
    conversions to wider types would change meaning there)."""
    signed = _SIGNED_32_BITS.match(re.sub(r"\s+", " ", spelled).strip())
    return (portable.SIGNED_LANE_MASK_TYPE if signed else portable.LANE_MASK_TYPE).encode()


BIT_OPS = {"__popc": "__popcll", "__ffs": "__ffsll", "__clz": "__clzll"}
MASK_NAME = re.compile(r"(?i)mask")


def is_full_mask_32(ctx: FileContext, node: tree_sitter.Node | None) -> bool:
    """All 32 lanes of a warp, in 32 bits: `0xffffffff`, `~0u`, `(unsigned)-1`."""
    if node is None:
        return False
    text = spelled(ctx, node)
    if int_value(node, ctx.source) == 0xFFFFFFFF and not re.search(r"[lL]{2}$", text):  # `0xffffffffull`: 64 bits
        return True
    if text in ("~0u", "~0U", "(~0u)", "~0x0u", "-1u", "-1U"):
        return True
    # uint32_t(-1), (unsigned)-1, static_cast<uint32_t>(-1): all lanes, in 32 bits
    return bool(re.fullmatch(r"(\(?(uint32_t|unsigned(int)?)\)?|static_cast<(uint32_t|unsigned(int)?)>)\(?-1\)?", text))


def is_full_mask_int(ctx: FileContext, node: tree_sitter.Node | None) -> bool:
    """All lanes as a plain `int`, `~0` or `-1`: every bit set at any width once widened, but an `int`,
    which the `_sync` intrinsics of HIP 6.4 refuse (a `static_assert`: "The mask must be a 64-bit
    integer"; gptqmodel's AWQ gemv passes `~0`)."""
    if node is None:
        return False
    return bool(re.fullmatch(r"\(?(~0|~0x0|-1|\(int\)-1)\)?", spelled(ctx, node)))


def _mask_edit(node: tree_sitter.Node) -> tuple[Edit, ...]:
    return (Edit(node.start_byte, node.end_byte, portable.FULL_MASK.encode()),)


_FULL_MASK_LITERAL = re.compile(rb"0x[fF]{8}")
HALF_WAVE_MASK = b"0xffffffffull"  # lanes 0-31, in the 64 bits HIP's masks take (the same value on NVIDIA)


def check(ctx: FileContext) -> Iterable[Finding]:
    data = ctx.source.data
    if not ctx.source.kind.is_c_family or ctx.parsed.root is None or not ctx.wave64_targets:
        return
    if (
        not search_fast(
            data, (b"_sync", b"__ballot", b"__activemask", b"_read_exec", b"%lanemask", b"<<"), _FULL_MASK_LITERAL
        )
        and not ctx.device.vote_wrappers
    ):
        return
    yield from _mask_arguments(ctx)
    yield from _mask_definitions(ctx)
    if ctx.device.has_votes:  # a lane mask comes from a vote (or a wrapper of one) and nowhere else
        yield from _narrow_vote_wrappers(ctx)
        yield from _truncated_votes(ctx)
        yield from _bit_ops(ctx)
        yield from _mask_receiving_parameters(ctx)
    yield from _mask_parameters(ctx)
    if b"<<" in data:
        yield from _lane_bits(ctx)


def _mask_parameter_sites(ctx: FileContext):
    """(intrinsic, function, parameter index, parameter node) where a function passes one of its own
    parameters on as a warp intrinsic's mask: the function is a wrapper whose callers give the mask."""
    for name, call in ctx.device.calls_named(MASK_TAKING):
        arguments = call_arguments(call)
        function = ctx.device.function_of(call)
        if not arguments or arguments[0].type != "identifier" or function.node is None:
            continue
        mask_name = ctx.source.text(arguments[0].start_byte, arguments[0].end_byte)
        for index, parameter in enumerate(function_parameters(function.node)):
            name_node = parameter.child_by_field_name("declarator")
            if name_node is not None and ctx.source.text(name_node.start_byte, name_node.end_byte) == mask_name:
                yield name, function, index, parameter


def _mask_wrappers(ctx: FileContext) -> dict[str, int]:
    """Functions of this file that take a warp intrinsic's mask from their callers: name → parameter index."""
    return {function.name.split("(")[0].strip(): index for _, function, index, _ in _mask_parameter_sites(ctx)}


def _mask_arguments(ctx: FileContext) -> Iterable[Finding]:
    from porter.rules.warp_size import half_wave_guard

    wrappers = _mask_wrappers(ctx)
    shims = ctx.hip_shims  # a project macro that drops the mask for HIP (`__ballot_sync(m, p) __ballot(p)`)
    calls = [(name, call, 0) for name, call in ctx.device.calls_named(MASK_TAKING - shims)]
    calls += [(name, call, wrappers[name]) for name, call in ctx.device.calls_named(tuple(wrappers))]
    for name, call, index in sorted(calls, key=lambda item: item[1].start_byte):
        arguments = call_arguments(call)
        mask = arguments[index] if len(arguments) > index else None
        narrow = is_full_mask_32(ctx, mask)
        if narrow or is_full_mask_int(ctx, mask):
            # `~0` holds every lane once widened, but HIP refuses an `int` mask: the same fixes
            given = "a 32-bit mask" if narrow else f"`{spelled(ctx, mask)}`, an `int` mask"
            if half_wave_guard(ctx, call) is not None:
                # threads 0-31 alone call it (`if (tid < 32)`): lanes 0-31 are the mask, in 64 bits
                message = f"`{name}` gets {given}; HIP takes 64 bits, and under `< 32` the mask is lanes 0-31 alone"
                edits = (Edit(mask.start_byte, mask.end_byte, HALF_WAVE_MASK),)
            elif block_rows(ctx).row_only_at(call.start_byte):
                # a block 32 threads wide: two rows share a wavefront, and either may call it alone
                message = f"`{name}` gets {given} in a kernel whose warps stay 32 threads wide (rows of its block, or halves of a wavefront); on wave64 a warp's lanes are half of a 64-bit mask"
                edits = (Edit(mask.start_byte, mask.end_byte, portable.ROW_MASK.encode()),)
            elif (kernel := block_rows(ctx).row_kernel_sharing(call.start_byte)) is not None:
                # its 32s stay (WRP's fixes are only suggested here): the mask is the row's, which a
                # block of one row runs alone (HIP checks that a mask names exactly the lanes that run)
                message = f"`{name}` gets {given} in a function that {kernel} calls with blocks of 32-thread rows; on wave64 a row's lanes are half of a 64-bit mask"
                edits = (Edit(mask.start_byte, mask.end_byte, portable.ROW_MASK.encode()),)
            elif narrow:
                message = f"`{name}` gets a 32-bit all-lanes mask; a wave64 mask has 64 bits"
                edits = _mask_edit(mask)
            else:
                message = f"`{name}` gets {given}, which HIP's `_sync` intrinsics refuse (HIP 6.4's headers `static_assert` a 64-bit mask)"
                edits = _mask_edit(mask)
            yield FULL_MASK_32.finding(ctx, mask.start_byte, mask.end_byte, message, edits=edits)
    yield from _masks_in_macro_bodies(ctx)
    for _, left, _, right in ctx.device.binaries(("==", "!=")):
        for side, other in ((left, right), (right, left)):
            if is_full_mask_32(ctx, side) and VarClass.MASK in ctx.device.expression_classes(other):
                if block_rows(ctx).row_only_at(side.start_byte):
                    continue  # a 32-thread row's full ballot is 0xffffffff (WRP017 says where two rows vote)
                yield FULL_MASK_32.finding(
                    ctx, side.start_byte, side.end_byte, "a vote result compared with a 32-bit all-lanes mask",
                    edits=_mask_edit(side),
                )  # fmt: skip


_MASK_TAKING_CALL = re.compile(
    rb"(?<![\w$])("
    + b"|".join(name.encode() for name in sorted(MASK_TAKING))
    + rb")\s*\(\s*(0[xX][fF]{8}[uU]?|~0[uU])\s*,"
)


def _masks_in_macro_bodies(ctx: FileContext) -> Iterable[Finding]:
    """`#define VOTE(p) __ballot_sync(0xffffffff, (p))`: tree-sitter leaves a macro's body
    unparsed, so its calls are read from the text."""
    data = ctx.source.data
    for body in captures("(preproc_arg) @body", ctx.parsed.root).get("body", []):
        if b"_sync" not in data[body.start_byte : body.end_byte]:
            continue
        for match in _MASK_TAKING_CALL.finditer(data, body.start_byte, body.end_byte):
            start, end = match.span(2)
            yield FULL_MASK_32.finding(
                ctx, start, end, f"`{match.group(1).decode()}` gets a 32-bit all-lanes mask; a wave64 mask has 64 bits",
                edits=(Edit(start, end, portable.FULL_MASK.encode()),),
            )  # fmt: skip


def _mask_definitions(ctx: FileContext) -> Iterable[Finding]:
    root = ctx.parsed.root
    for name_node in _define_names(root):
        name = ctx.source.text(name_node.start_byte, name_node.end_byte)
        value = name_node.parent.child_by_field_name("value")
        if value is None or not MASK_NAME.search(name):
            continue
        text = ctx.source.text(value.start_byte, value.end_byte)
        match = re.search(r"0[xX][fF]{8}[uU]?|~0[uU]", text)
        if match and not re.search(r"0[xX][fF]{9}", text):
            start = value.start_byte + encoded_length(text[: match.start()])
            end = start + len(match.group())
            yield FULL_MASK_32.finding(
                ctx,
                start,
                end,
                f"`{name}` is a 32-bit all-lanes mask",
                edits=(Edit(start, end, portable.FULL_MASK.encode()),),
            )
    for declared in initializers(root, ctx.source.data):
        if declared.name is None or not MASK_NAME.search(declared.name):  # the name first: few are masks
            continue
        value = declared.value
        if value is not None and is_full_mask_32(ctx, value):
            yield FULL_MASK_32.finding(
                ctx, value.start_byte, value.end_byte, "a 32-bit all-lanes mask constant", edits=_mask_edit(value)
            )


def _mask_parameters(ctx: FileContext) -> Iterable[Finding]:
    """`__device__ T shfl(const unsigned mask, T v, int d) { return __shfl_down_sync(mask, v, d); }`.

    A wrapper's 32-bit mask parameter truncates whatever mask its callers pass; HIP 6.2+ refuses it
    outright (`static_assert`: the mask must be a 64-bit integer).
    """
    for name, _, _, parameter in _mask_parameter_sites(ctx):
        yield from _thirty_two_bit_parameter(
            ctx, parameter, lambda mask, type_text, name=name: f"`{mask}` reaches `{name}` as `{type_text}`"
        )


def _thirty_two_bit_parameter(
    ctx: FileContext, parameter: tree_sitter.Node, says: Callable[[str, str], str]
) -> Iterable[Finding]:
    """MSK002 where a parameter that holds a lane mask is declared 32 bits wide; `says(name, type)`
    words the finding."""
    type_node, name_node = parameter.child_by_field_name("type"), parameter.child_by_field_name("declarator")
    if type_node is None or name_node is None:
        return
    type_text = re.sub(r"\s+", " ", ctx.source.text(type_node.start_byte, type_node.end_byte)).strip()
    if THIRTY_TWO_BIT_TYPES.match(type_text):
        name = ctx.source.text(name_node.start_byte, name_node.end_byte)
        yield MASK_TRUNCATED.finding(
            ctx, type_node.start_byte, type_node.end_byte,
            says(name, type_text) + ": a wave64 mask has 64 bits",
            edits=(Edit(type_node.start_byte, type_node.end_byte, widened_mask_type(type_text)),),
        )  # fmt: skip


def _mask_receiving_parameters(ctx: FileContext) -> Iterable[Finding]:
    """`__device__ int leader(unsigned mask) { return __ffs(mask) - 1; }` called as `leader(votes)`
    with a vote result: the helper's 32-bit parameter truncates the mask, and its bit operations
    read half of it. One level of calls, to functions this file defines once."""
    for parameter, name, definition in _parameters_given_masks(ctx):
        yield from _thirty_two_bit_parameter(
            ctx,
            parameter,
            lambda given, type_text, name=name: f"`{name}` is given a lane mask in `{given}`, declared `{type_text}`",
        )
        name_node = parameter.child_by_field_name("declarator")
        parameter_name = ctx.source.text(name_node.start_byte, name_node.end_byte)
        for op, call in ctx.device.calls_named(BIT_OPS):
            arguments = call_arguments(call)
            if (
                definition.start_byte <= call.start_byte < definition.end_byte
                and len(arguments) == 1
                and re.search(
                    rf"(?<![\w$]){re.escape(parameter_name)}(?![\w$])",
                    ctx.source.text(arguments[0].start_byte, arguments[0].end_byte),
                )
            ):
                yield _bit_op_finding(ctx, op, call, arguments[0])


def _parameters_given_masks(ctx: FileContext) -> Iterable[tuple[tree_sitter.Node, str, tree_sitter.Node]]:
    """(parameter, function name, definition) of the file's functions where some call passes a lane mask."""
    definitions: dict[str, list[tree_sitter.Node]] = {}
    for info in ctx.device.functions:
        if info.node is not None and info.is_device:
            definitions.setdefault(info.name.split("(")[0].strip(), []).append(info.node)
    seen = set()
    for name, call in ctx.device.calls_named(tuple(definitions)):
        if len(definitions[name]) != 1:
            continue  # overloads: which one the call picks is the compiler's question
        listed = function_parameters(definitions[name][0])
        for index, argument in enumerate(call_arguments(call)):
            if index >= len(listed) or listed[index].id in seen:
                continue
            if holds_a_vote(ctx, argument):
                if (
                    listed[index].child_by_field_name("type") is not None
                    and listed[index].child_by_field_name("declarator") is not None
                ):
                    seen.add(listed[index].id)
                    yield listed[index], name, definitions[name][0]


def _outside_parentheses(text: str) -> str:
    """The expression with every parenthesised part removed: `__ballot_sync(m, a == b)` -> `__ballot_sync`."""
    for _ in range(8):
        stripped = re.sub(r"\([^()]*\)", "", text)
        if stripped == text:
            break
        text = stripped
    return text


def _copies_a_mask(ctx: FileContext, value: tree_sitter.Node) -> bool:
    """A copy of a mask into 32 bits truncates it as the vote's own result would, and so does a
    part of one selected by lanes (`votes & below_me`, `votes | others`), which keeps bits 32-63
    where the mask has them; a part selected by a constant (`votes & 1`) or shifted does not."""
    while value.type == "parenthesized_expression" and value.named_child_count == 1:
        value = value.named_children[0]
    if value.type == "cast_expression":  # `(unsigned)votes & below`: the cast cuts it as the variable does
        inner = value.child_by_field_name("value")
        return inner is not None and _copies_a_mask(ctx, inner)
    if value.type == "identifier":
        return VarClass.MASK in ctx.device.expression_classes(value)
    if value.type != "binary_expression":
        return False
    parts = [value.child_by_field_name(f) for f in ("left", "operator", "right")]
    if None in parts or parts[1].type not in ("&", "|", "^"):
        return False
    left, right = parts[0], parts[2]
    for mine, other in ((left, right), (right, left)):
        if _copies_a_mask(ctx, mine) and ctx.value_of(other) is None:
            return True
    return False


def _truncated_votes(ctx: FileContext) -> Iterable[Finding]:
    for declaration in captures("(declaration) @d", ctx.parsed.root).get("d", []):
        type_node = declaration.child_by_field_name("type")
        if type_node is None:
            continue
        type_text = re.sub(r"\s+", " ", ctx.source.text(type_node.start_byte, type_node.end_byte)).strip()
        if not THIRTY_TWO_BIT_TYPES.match(type_text):
            continue
        for index in range(declaration.named_child_count):  # not named_children: kept on the node (device.py)
            declarator = declaration.named_child(index)
            value = declarator.child_by_field_name("value") if declarator.type == "init_declarator" else None
            if value is None:
                continue
            text = ctx.source.text(value.start_byte, value.end_byte)
            if block_rows(ctx).two_rows_at(value.start_byte):
                continue  # a 32-thread row's vote, 32 bits once WRP017 takes the row's half
            call = ctx.device.vote_in(text)
            if call is None and _copies_a_mask(ctx, value):
                call = f"`{text}` (a lane mask)" if len(text) <= 40 else "a lane mask"
            # what the value does with the mask: a count or a comparison keeps 32 bits rightly
            outer = _outside_parentheses(text)
            if call is None or re.search(r"__popc|__ffs|__clz|!=|==|\?", outer):
                continue
            edits = (Edit(type_node.start_byte, type_node.end_byte, widened_mask_type(type_text)),)
            yield MASK_TRUNCATED.finding(
                ctx, type_node.start_byte, type_node.end_byte, f"{call if call.startswith('`') else f'`{call}`'} holds a 64-bit mask on wave64; `{type_text}` keeps 32 bits",
                edits=edits + _narrowing_cast(ctx, value),
            )  # fmt: skip
            break


_STATIC_CAST = re.compile(r"static_cast\s*<\s*([^<>]+?)\s*>")


def _narrowing_cast(ctx: FileContext, value: tree_sitter.Node) -> tuple[Edit, ...]:
    """The edits that widen a cast to 32 bits around the vote itself (`(unsigned)__ballot(p)`,
    `static_cast<uint32_t>(…)`), or around a mask a part of it is selected from (`(unsigned)votes &
    below`): the declaration widened alone would still hold the cast's 32 bits."""
    value = unparenthesized(value)
    if value.type == "binary_expression":
        parts = [value.child_by_field_name(f) for f in ("left", "operator", "right")]
        if None in parts or parts[1].type not in ("&", "|", "^"):
            return ()
        sides = [side for side in (parts[0], parts[2]) if _copies_a_mask(ctx, side) or holds_a_vote(ctx, side)]
        return tuple(edit for side in sides for edit in _narrowing_cast(ctx, side))
    if value.type == "cast_expression":
        cast_type = value.child_by_field_name("type")
        if cast_type is not None:
            text = re.sub(r"\s+", " ", ctx.source.text(cast_type.start_byte, cast_type.end_byte)).strip()
            if THIRTY_TWO_BIT_TYPES.match(text):
                return (Edit(cast_type.start_byte, cast_type.end_byte, widened_mask_type(text)),)
        return ()
    text = ctx.source.text(value.start_byte, value.end_byte)
    cast = _STATIC_CAST.match(text)
    if cast is not None and THIRTY_TWO_BIT_TYPES.match(re.sub(r"\s+", " ", cast.group(1))):
        start = value.start_byte + encoded_length(text[: cast.start(1)])
        return (Edit(start, start + encoded_length(cast.group(1)), widened_mask_type(cast.group(1))),)
    return ()


def _narrow_vote_wrappers(ctx: FileContext) -> Iterable[Finding]:
    """`__device__ unsigned vote(bool p) { return __ballot(p); }`: a wrapper of a vote declared
    to return 32 bits cuts every mask it hands on (a port's `__ballot_sync` shim, one branch per
    platform inside). Its callers' variables are MSK002's own sites."""
    wrappers = ctx.device.vote_wrappers
    for info in ctx.device.functions if wrappers else ():
        if not info.is_device or info.name.split("(")[0].strip() not in wrappers:
            continue
        type_node = info.node.child_by_field_name("type")
        if type_node is None:
            continue
        type_text = re.sub(r"\s+", " ", ctx.source.text(type_node.start_byte, type_node.end_byte)).strip()
        if THIRTY_TWO_BIT_TYPES.match(type_text):
            yield MASK_TRUNCATED.finding(
                ctx, type_node.start_byte, type_node.end_byte,
                f"`{info.name.split('(')[0].strip()}` returns a lane mask, 64 bits on wave64, as `{type_text}`",
                edits=(Edit(type_node.start_byte, type_node.end_byte, widened_mask_type(type_text)),),
            )  # fmt: skip


def _bit_ops(ctx: FileContext) -> Iterable[Finding]:
    for name, call in ctx.device.calls_named(BIT_OPS):
        arguments = call_arguments(call)
        if len(arguments) != 1:
            continue
        argument = arguments[0]
        if block_rows(ctx).two_rows_at(call.start_byte):
            continue  # a 32-thread row's vote, 32 bits once WRP017 takes the row's half
        if holds_a_vote(ctx, argument):
            yield _bit_op_finding(ctx, name, call, argument)


def _bit_op_finding(ctx: FileContext, name: str, call: tree_sitter.Node, argument: tree_sitter.Node) -> Finding:
    function = call.child_by_field_name("function")
    edits = [Edit(function.start_byte, function.end_byte, BIT_OPS[name].encode())]
    if name == "__ffs":
        # HIP overloads __ffsll for long long and unsigned long long: a 32-bit argument
        # (a mask variable the port did not widen) is ambiguous without the cast
        edits += [
            Edit(argument.start_byte, argument.start_byte, f"({portable.LANE_MASK_TYPE})(".encode()),
            Edit(argument.end_byte, argument.end_byte, b")"),
        ]
    return MASK_BIT_OPS_32.finding(
        ctx, function.start_byte, function.end_byte, f"`{name}` reads 32 bits of a 64-bit lane mask", edits=tuple(edits)
    )


def _lane_bits(ctx: FileContext) -> Iterable[Finding]:
    """`1 << lane`, `(2 << lane) - 1`, `((1 << K) - 1) << (K * group)`: a 32-bit value shifted by a
    count that reaches 32-63 on a 64-lane wavefront (a lane id, or a count built from one whose
    result the code keeps as a 64-bit lane mask). The class of GPUOpen HIPRT#68, whose sub-warp
    masks were built this way and hung the BVH build on CDNA."""
    for node, left, _, right in ctx.device.binaries(("<<",)):
        if not _is_32_bit_constant(ctx, left):
            continue
        classes = ctx.device.expression_classes(right)
        below_32 = re.search(r"(&\s*31|%\s*32)", ctx.source.text(right.start_byte, right.end_byte))
        if int_value(left, ctx.source) == 1:
            # `1 << lane`, `1 << (threadIdx.x & 31)`: one lane's bit (the second, a lane worked out for 32 lanes)
            direct = VarClass.LANE in classes or (VarClass.THREAD in classes and below_32)
        else:
            # a wider constant (`2 << lane`, a group of lanes) by a count that reaches past 31; one
            # kept below 32 (`15 << (lane & 31 & ~3)`) cannot overflow: its 32-lane math is WRP001's
            direct = VarClass.LANE in classes and not below_32
        from_lane = not direct and _counts_from_lane(ctx, right)
        narrow = _narrow_mask_variable(ctx, node) if from_lane else None
        if not (direct or (from_lane and (narrow is not None or _kept_as_64_bit_mask(ctx, node)))):
            continue
        literal, count = (ctx.source.text(n.start_byte, n.end_byte) for n in (left, right))
        shown = f"{literal} << {count}" if len(literal) + len(count) < 60 else f"{literal} << …"
        edits = [Edit(left.start_byte, left.end_byte, f"(({portable.LANE_MASK_TYPE}){literal})".encode())]
        if narrow is not None:  # the variable that keeps it must widen too, or the bits are cut again
            edits.append(
                Edit(
                    narrow.start_byte,
                    narrow.end_byte,
                    widened_mask_type(ctx.source.text(narrow.start_byte, narrow.end_byte)),
                )
            )
        yield LANE_BIT_32.finding(
            ctx, left.start_byte, left.end_byte, f"`{shown}` is computed in 32 bits and overflows for lanes 32-63",
            edits=tuple(sorted(edits)),
        )  # fmt: skip


# a constant operand in 32 bits: literals without an `l` suffix, names, arithmetic; no cast, no call
_CONSTANT_TEXT = re.compile(r"[\w\s()+\-*/%<>|&^~]+")
_LONG_LITERAL = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uU]?[lL]")


def _is_32_bit_constant(ctx: FileContext, node: tree_sitter.Node) -> bool:
    text = ctx.source.text(node.start_byte, node.end_byte)
    if node.type == "number_literal":
        return int_value(node, ctx.source) is not None and not re.search(r"[lL]", text)
    if node.type not in ("parenthesized_expression", "binary_expression") or len(text) > 80:
        return False
    if not _CONSTANT_TEXT.fullmatch(text) or _LONG_LITERAL.search(text) or not re.search(r"\d", text):
        return False
    names = set(re.findall(r"\b[A-Za-z_]\w*\b", text))
    return all(name in ctx.shared_constants or _is_template_constant(node, name, ctx) for name in names)


def _is_template_constant(node: tree_sitter.Node, name: str, ctx: FileContext) -> bool:
    """A non-type template parameter of an enclosing template (`template <uint32_t K>`)."""
    scope = node.parent
    while scope is not None:
        if scope.type == "template_declaration":
            parameters = scope.child_by_field_name("parameters")
            if parameters is not None:
                for parameter in parameters.named_children:
                    if parameter.type == "parameter_declaration":
                        declarator = parameter.child_by_field_name("declarator")
                        if (
                            declarator is not None
                            and ctx.source.text(declarator.start_byte, declarator.end_byte) == name
                        ):
                            return True
        scope = scope.parent
    return False


def _counts_from_lane(ctx: FileContext, count: tree_sitter.Node) -> bool:
    """A shift count built from a lane id: the lane itself, or a name initialised from one
    (`group = lane / K`, then `K * group`)."""
    if VarClass.LANE in ctx.device.expression_classes(count):
        return True
    function = ctx.device.function_of(count)
    return any(
        VarClass.LANE in ctx.device.expression_classes(value)
        or any(
            VarClass.LANE in ctx.device.var_classes(function, ctx.source.text(n.start_byte, n.end_byte))
            for n in identifiers_in(value)
        )
        for value in ctx.device.initial_values(count)
    )


WIDE_MASK_TYPES = re.compile(r"\b(uint64_t|unsigned\s+long\s+long|u?int64|lane_mask\w*|\w*LaneMask\w*)\b")


def _narrow_mask_variable(ctx: FileContext, node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The 32-bit type of the one variable the shifted value initialises, where that variable is
    later combined with a vote's result (`unsigned bits = 15u << (4 * group);` … `ballot & bits`):
    code written for 32 lanes, whose count reaches 60 once lanes go to 63."""
    declarator = node.parent
    while declarator is not None and declarator.type == "parenthesized_expression":
        declarator = declarator.parent
    if declarator is None or declarator.type != "init_declarator" or declarator.parent is None:
        return None
    declaration, name = declarator.parent, declarator.child_by_field_name("declarator")
    type_node = declaration.child_by_field_name("type")
    declarators = [c for c in declaration.named_children if c.type == "init_declarator"]
    if type_node is None or name is None or name.type != "identifier" or len(declarators) != 1:
        return None
    if not THIRTY_TWO_BIT_TYPES.match(re.sub(r"\s+", " ", ctx.source.text(type_node.start_byte, type_node.end_byte))):
        return None
    variable = ctx.source.text(name.start_byte, name.end_byte)
    function = ctx.device.function_of(node)
    scope = function.node if function.node is not None else ctx.parsed.root
    for use in captures("(binary_expression) @b", scope).get("b", []):
        parts = [use.child_by_field_name(f) for f in ("left", "operator", "right")]
        if None in parts or ctx.source.text(parts[1].start_byte, parts[1].end_byte) not in ("&", "|", "^"):
            continue
        sides = (parts[0], parts[2])
        for mine, other in (sides, sides[::-1]):
            if ctx.source.text(mine.start_byte, mine.end_byte) == variable and holds_a_vote(ctx, other):
                return type_node
    return None


def holds_a_vote(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """A lane mask by dataflow (a variable a vote was stored in), or an expression that calls a vote
    or a wrapper of one."""
    if VarClass.MASK in ctx.device.expression_classes(node):
        return True
    return ctx.device.vote_in(ctx.source.text(node.start_byte, node.end_byte)) is not None


def _kept_as_64_bit_mask(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """The shifted value is stored in a 64-bit variable, or combined with a vote's result."""
    outer = node.parent
    while outer is not None and outer.type in ("parenthesized_expression", "binary_expression", "cast_expression"):
        if outer.type == "binary_expression" and any(
            VarClass.MASK in ctx.device.expression_classes(side) for side in outer.named_children if side != node
        ):
            return True
        node, outer = outer, outer.parent
    if outer is not None and outer.type == "init_declarator" and outer.parent is not None:
        declared = outer.parent.child_by_field_name("type")
        return declared is not None and bool(
            WIDE_MASK_TYPES.search(ctx.source.text(declared.start_byte, declared.end_byte))
        )
    return False
