"""Facts about device code that several rule families share, computed once per file.

The warp rules must tie a literal 32 to lane or warp arithmetic, not flag every 32. This module
gives them the dataflow to do it, deliberately simple and local: within each function, a
variable is classed by what its initialisers and assignments are built from.

- THREAD: built from `threadIdx`, `thread_rank()`, `__lane_id()` (a position inside a block)
- GLOBAL: built from `blockIdx` too (a position in the grid)
- LANE:   a lane id: THREAD `& 31`, `% 32`, `% WARP_SIZE`, `__lane_id()`, or named like one
- WARP:   a warp id: THREAD `/ 32`, `>> 5`, `/ WARP_SIZE`, or named like one
- MASK:   a lane mask: the result of `__ballot*`, `__activemask`, `__match_any*`, or of a wrapper
          of one (porter.rules.votes)

Where tree-sitter gave up (ERROR nodes), the same classification runs over the file as a whole.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from operator import itemgetter

import tree_sitter

from porter.parse import captures, identifiers_in, initializers
from porter.rules.consteval import file_specifier_macros
from porter.rules.votes import LIBRARY_MASKS, VOTE_CALLS, mentions_votes, vote_pattern, vote_wrappers
from porter.source import SourceFile

IDENT = re.compile(r"[A-Za-z_]\w*")
IDENT_BYTES = re.compile(rb"[A-Za-z_]\w*")  # the same, over a file's bytes
LANE_NAME = re.compile(r"(?i)^(lane|lane_?id|lane_?idx|lane_?index|laneid|lid|lane_?no|lane_?num|thread_?lane)$")
WARP_NAME = re.compile(r"(?i)^(warp|warp_?id|warp_?idx|warp_?index|warpid|wid|warp_?no|warp_?num|warp_?rank)$")
SET_ATTRIBUTE_CALLS = ("cudaFuncSetAttribute", "hipFuncSetAttribute")  # a kernel's attributes, its LDS among them
_ACTIVEMASK_ARGUMENT = re.compile(r"_sync\s*\(\s*__activemask\s*\(\s*\)")
SHUFFLE_CALLS = frozenset(
    {
        "__shfl_sync",
        "__shfl_up_sync",
        "__shfl_down_sync",
        "__shfl_xor_sync",
        "__shfl",
        "__shfl_up",
        "__shfl_down",
        "__shfl_xor",
    }
)


def _names_call(text: str, name: str) -> bool:
    """Does the text call `name`? A substring for the intrinsics (the longer come first in
    VOTE_CALLS); a whole name for the AMDGCN builtin, which `…_read_exec_lo()` is not."""
    if not name.startswith("__builtin_"):
        return name in text
    return re.search(re.escape(name) + r"(?!\w)", text) is not None


class VarClass(StrEnum):
    THREAD = "thread"
    GLOBAL = "global"
    LANE = "lane"
    WARP = "warp"
    MASK = "mask"


def int_value(node: tree_sitter.Node | None, source: SourceFile) -> int | None:
    """The value of an integer literal node (suffixes and hex allowed), else None."""
    if node is None:
        return None
    node = unparenthesized(node)
    if node.type != "number_literal":
        return None
    return literal_value(source.text(node.start_byte, node.end_byte))


def unparenthesized(node: tree_sitter.Node) -> tree_sitter.Node:
    """`((x))` as `x`: the expression inside redundant parentheses."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def literal_value(text: str) -> int | None:
    text = text.replace("'", "").rstrip("uUlL")
    octal = len(text) > 1 and text[0] == "0" and text.isdigit()  # `017`, which int(text, 0) refuses
    try:
        return int(text, 8) if octal else int(text, 0)
    except ValueError:
        return None


def call_name(call: tree_sitter.Node, source: SourceFile) -> str:
    function = call.child_by_field_name("function")
    if function is None:
        return ""
    if function.type == "template_function":
        function = function.child_by_field_name("name") or function
    return source.text(function.start_byte, function.end_byte)


def call_arguments(call: tree_sitter.Node) -> list[tree_sitter.Node]:
    arguments = call.child_by_field_name("arguments")
    return list(arguments.named_children) if arguments is not None else []


def binary_parts(node: tree_sitter.Node, source: SourceFile) -> tuple[tree_sitter.Node, str, tree_sitter.Node] | None:
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    operator = node.child_by_field_name("operator")
    if left is None or right is None or operator is None:
        return None
    return left, source.text(operator.start_byte, operator.end_byte), right


def for_parts(ctx, loop: tree_sitter.Node):
    """(counter name, initial value node, condition node, body) of a simple counted loop."""
    initializer = loop.child_by_field_name("initializer")
    condition = loop.child_by_field_name("condition")
    if initializer is None or condition is None:
        return None
    declarator = None
    if initializer.type == "declaration":
        declarator = next((c for c in initializer.named_children if c.type == "init_declarator"), None)
        if declarator is not None:
            name_node, value = declarator.child_by_field_name("declarator"), declarator.child_by_field_name("value")
        else:
            return None
    elif initializer.type == "assignment_expression":
        name_node, value = initializer.child_by_field_name("left"), initializer.child_by_field_name("right")
    else:
        return None
    if name_node is None or value is None or name_node.type != "identifier":
        return None
    return ctx.source.text(name_node.start_byte, name_node.end_byte), value, condition, loop.child_by_field_name("body")


def loop_step(ctx, loop: tree_sitter.Node, counter: str) -> tree_sitter.Node | None:
    """The `X` of a loop's `counter += X` update."""
    update = loop.child_by_field_name("update")
    if update is None or update.type != "assignment_expression":
        return None
    left, operator, right = (update.child_by_field_name(f) for f in ("left", "operator", "right"))
    if left is None or right is None or operator is None or ctx.source.text(left.start_byte, left.end_byte) != counter:
        return None
    return right if ctx.source.text(operator.start_byte, operator.end_byte) == "+=" else None


def enclosing(node: tree_sitter.Node, kinds: tuple[str, ...]) -> tree_sitter.Node | None:
    node = node.parent
    while node is not None:
        if node.type in kinds:
            return node
        node = node.parent
    return None


_NO_CLASSES: frozenset = frozenset()
_POSITION_CLASSES = frozenset({VarClass.THREAD, VarClass.LANE, VarClass.WARP})
_READS_THREAD = re.compile(r"\bthreadIdx\s*\.\s*[xyz]\b|thread_rank\s*\(|\bthreadIdx\b")
_COUNTS_BITS = re.compile(r"__popc|__ffs|__clz")
# a lane: `& 31`, `% 32`, or taken with a warp width's name, `% warpSize`, `& (WARP_SIZE - 1)`
_LANE_ARITHMETIC = re.compile(r"(&(31|0x1[fF])|%32|%\w*(WARP|warp|Warp)\w*|&\(\w*(WARP|warp|Warp)\w*-1\))(?!\w)")
_WARP_ARITHMETIC = re.compile(r"(/32|>>5|/\w*(WARP|warp|Warp)\w*)(?!\w)")
_NAMED_DIVISOR = re.compile(r"(%|&|/|>>)\(?[A-Za-z_]")


@dataclass
class _FunctionSpans:
    """The function definitions by start, each with the index of the definition around it (-1: none)."""

    starts: list[int]
    ends: list[int]
    infos: list[FunctionInfo]
    outer: list[int]


@dataclass(frozen=True)
class _ExpressionShape:
    own: frozenset  # classes the text gives by itself (a ballot: MASK)
    reads_thread: bool  # threadIdx or thread_rank() in the text
    names: frozenset[str]  # the names it reads, whose classes it inherits
    counts_bits: bool  # __popc/__ffs/__clz: a count, not a mask
    when_thread: frozenset  # classes it adds once it depends on the thread's position


# what a value's text reads without taking a thread's position from it: a shift's count (`bits >>
# (4 * lane)` is the bits moved), an array element or a field read through a pointer (`in[tid]`,
# `bxi->qh`: data at a thread's address, not the address)
_NOT_POSITION = re.compile(r"<<|>>|[A-Za-z_]\w*\s*(?:\[|->\s*[A-Za-z_]\w*\s*\[?|\()")
# calls whose result is arithmetic on their arguments (`min(tid, n - 1)`); another function's
# result is what it reads or computes, not the thread's position passed to it (`get_int_b4(bxi->qh,
# txi % 4)` is data)
_ARITHMETIC_CALLS = frozenset(
    {"min", "max", "abs", "umin", "umax", "imin", "imax", "__mul24", "__umul24", "__min", "__max",
     "static_cast", "int", "unsigned", "size_t", "int64_t", "uint32_t", "uint64_t", "int32_t",
     "ceil_div", "div_up", "DIVUP", "CEIL_DIV", "cdiv"}
)  # fmt: skip
_NOT_POSITION_MARKS = ("<<", ">>", "[", "->", "(")
_SHIFT_COUNT_TOKEN = re.compile(r"\s*[\w.]+")


def _position_text(text: str) -> str:
    """The parts of a value's text through which it can carry a thread's position: ggml's
    `qh = get_int_b2(bxi->qh, 0) >> (4 * kqsx)` is data, and its `(qh >> 5) & …` picks a bit, not a
    warp; `tid >> 5` keeps `tid`, `threadIdx.x + base[row]` keeps `threadIdx.x`."""
    kept, at = [], 0
    for match in _NOT_POSITION.finditer(text):
        if match.start() < at:
            continue  # inside a part already dropped
        token = match.group()
        if token in ("<<", ">>"):
            kept.append(text[at : match.end()])
            at = _operand_end(text, match.end())
        elif token.endswith("("):
            if _passes_position(token[:-1].strip()) or "->" in token:
                continue  # its arguments are read on (a method's through its own match)
            kept.append(text[at : match.start()] + "0")
            at = _group_end(text, match.end() - 1, "(", ")")
        elif token.endswith("["):
            kept.append(text[at : match.start()] + "0")
            at = _group_end(text, match.end() - 1, "[", "]")
        else:  # `p->field`
            kept.append(text[at : match.start()] + "0")
            at = match.end()
    kept.append(text[at:])
    return "".join(kept)


_POSITION_CALL = re.compile(r"^__|(?i:rank|lane|warp|thread|tid)")


def _passes_position(function: str) -> bool:
    """Does a call of `function` pass on the thread position of its arguments: arithmetic, CUDA's
    intrinsics (shuffles, bit counts), and what its name says reads a position (`thread_rank`)?"""
    return function in _ARITHMETIC_CALLS or _POSITION_CALL.search(function) is not None


def _operand_end(text: str, start: int) -> int:
    """Where the operand that starts at `start` ends: a parenthesised group or one token."""
    rest = len(text) - len(text[start:].lstrip())
    if rest < len(text) and text[rest] == "(":
        return _group_end(text, rest, "(", ")")
    token = _SHIFT_COUNT_TOKEN.match(text, start)
    return token.end() if token is not None else start


def _group_end(text: str, start: int, opening: str, closing: str) -> int:
    """Past the bracket that closes the one at `start`, with any subscripts that follow (`a[i][j]`)."""
    depth, index = 0, start
    while index < len(text):
        depth += 1 if text[index] == opening else -1 if text[index] == closing else 0
        index += 1
        if depth == 0:
            if opening == "[" and text[index : index + 1] == "[":
                continue
            return index
    return len(text)


@dataclass
class FunctionInfo:
    node: tree_sitter.Node | None  # None: the file outside any function
    name: str
    is_device: bool  # __global__ or __device__ (or inside a __device__ lambda)
    is_kernel: bool
    classes: dict[str, set[VarClass]] = field(default_factory=lambda: defaultdict(set))
    classified: set[str] = field(default_factory=set)  # the names whose classes are worked out (DeviceFacts._classify)
    declared_types: dict[str, tree_sitter.Node] = field(default_factory=dict)


class DeviceFacts:
    """Per-file facts; built lazily by the first rule that asks."""

    def __init__(
        self,
        source: SourceFile,
        root: tree_sitter.Node | None,
        constants=lambda: {},
        project_specifiers: dict[str, str] | None = None,
        project_votes: frozenset[str] = frozenset(),
    ):
        self.source = source
        self.root = root
        self._constants = constants  # called once, when a named divisor needs its value
        self._project_specifiers = project_specifiers or {}
        self._project_votes = project_votes
        self._shapes: dict[tuple[str, str], _ExpressionShape] = {}
        self._initialisers_by_function: dict[int, dict[str, list[tuple[int, tree_sitter.Node]]]] = {}
        self._readers_by_function: dict[int, dict[str, set[str]]] = {}

    @cached_property
    def specifier_macros(self) -> dict[str, str]:
        """Macros that expand to `__device__` or `__global__`: the project headers' and the file's own
        (`#define DS_D_INLINE __device__ __forceinline__` makes a `DS_D_INLINE` function device code)."""
        return {**self._project_specifiers, **file_specifier_macros(self.source.data)}

    @cached_property
    def constants(self) -> dict[str, int]:
        return self._constants()

    @cached_property
    def vote_wrappers(self) -> frozenset[str]:
        """The functions and macros, of the file, its project's headers or a library, whose result
        is a vote's mask, and which this file calls."""
        data = self.source.data
        known = {*LIBRARY_MASKS, *self._project_votes, *vote_wrappers(data)}
        return frozenset(name for name in known if name.encode() in data)

    @cached_property
    def _vote_wrapper_call(self) -> re.Pattern[str] | None:
        return vote_pattern(self.vote_wrappers)

    @cached_property
    def has_votes(self) -> bool:
        """Does the file vote at all (an intrinsic, or a wrapper of one)?"""
        return bool(self.vote_wrappers) or mentions_votes(self.source.data)

    def vote_in(self, text: str) -> str | None:
        """The vote, or wrapper of one, that the expression's text calls (not `__activemask()` as the
        mask a `_sync` intrinsic is given: `__shfl_down_sync(__activemask(), v, 1)` is a value)."""
        if "__activemask" in text:
            text = _ACTIVEMASK_ARGUMENT.sub("_sync(", text)
        if "__" in text:
            for call in VOTE_CALLS:
                if _names_call(text, call):
                    return call
        pattern = self._vote_wrapper_call
        match = pattern.search(text) if pattern is not None else None
        return match.group(1) if match else None

    def _named_warp_arithmetic(self, shape: str) -> set[VarClass]:
        """`% WS`, `& (WS - 1)`, `/ WS`, `>> LOG_WS` where the constant's value is the warp width.

        By value, not by name: `static const int WS = 32` is as much a warp size as `WARP_SIZE`.
        """
        classes: set[VarClass] = set()
        for operator, name, minus_one in re.findall(r"(%|&|/|>>)\(?([A-Za-z_]\w*)(-1)?\)?", shape):
            value = self.constants.get(name)
            if value is None:
                continue
            value -= 1 if minus_one else 0
            if (operator, value) in (("%", 32), ("&", 31)):
                classes.add(VarClass.LANE)
            elif (operator, value) in (("/", 32), (">>", 5)):
                classes.add(VarClass.WARP)
        return classes

    @cached_property
    def functions(self) -> list[FunctionInfo]:
        if self.root is None:
            return []
        found = []
        for node in captures("(function_definition) @f", self.root).get("f", []):
            found.append(self._function_info(node))
        return found

    @cached_property
    def file_scope(self) -> FunctionInfo:
        return FunctionInfo(node=None, name="<file>", is_device=self._file_looks_device(), is_kernel=False)

    def _file_looks_device(self) -> bool:
        data = self.source.data
        if b"__global__" in data or b"__device__" in data:
            return True
        macros = [re.escape(name.encode()) for name in self.specifier_macros if name.encode() in data]
        return bool(macros) and re.search(rb"(?<![\w$])(?:" + b"|".join(macros) + rb")(?![\w$])", data) is not None

    def _function_info(self, node: tree_sitter.Node) -> FunctionInfo:
        specifiers = {child.type for child in node.children}
        declarator = node.child_by_field_name("declarator")
        name = ""
        if declarator is not None:
            # `f` of `void f(…)`; where no function declarator is found, the declarator as written
            function = function_declarator(node)
            inner = function.child_by_field_name("declarator") if function is not None else None
            inner = inner or declarator.child_by_field_name("declarator") or declarator
            name = self.source.text(inner.start_byte, inner.end_byte)
        prefix = self.source.data[node.start_byte : declarator.start_byte] if declarator is not None else b""
        # Specifiers hidden in macros are not parsed as such: the macros' definitions say what
        # they expand to (DS_D_INLINE, FLASHINFER_INLINE), and where the definition is out of
        # sight (a library's CUTLASS_DEVICE, C10_HOST_DEVICE) the name says it.
        expanded = self._expanded_specifiers(prefix)
        is_kernel = "__global__" in specifiers or "__global__" in expanded
        is_device = (
            is_kernel
            or "__device__" in specifiers
            or "__device__" in expanded
            or bool(re.search(rb"__device__|__global__|[A-Z0-9_]*DEVICE[A-Z0-9_]*", prefix))
        )
        return FunctionInfo(node=node, name=name, is_device=is_device, is_kernel=is_kernel or b"__global__" in prefix)

    def _expanded_specifiers(self, prefix: bytes) -> set[str]:
        macros = self.specifier_macros
        if not macros or not prefix:
            return set()
        return {macros[word] for word in IDENT.findall(prefix.decode("utf-8", "replace")) if word in macros}

    def function_of(self, node: tree_sitter.Node) -> FunctionInfo:
        """The innermost function definition holding the node, else the file scope."""
        # a binary search over the definitions' starts, not a walk up the node's parents: every
        # rule asks this of every node it looks at, and each parent is a new Python object
        spans = self._function_spans
        index = bisect.bisect_right(spans.starts, node.start_byte) - 1
        while index >= 0:
            start, end = spans.starts[index], spans.ends[index]
            if start <= node.start_byte and node.end_byte <= end and (start, end) != (node.start_byte, node.end_byte):
                return spans.infos[index]
            index = spans.outer[index]  # the last definition to start is not it: the one around that
        return self.file_scope

    @cached_property
    def _function_spans(self) -> _FunctionSpans:
        ordered = sorted(
            (info for info in self.functions if info.node is not None),
            key=lambda info: (info.node.start_byte, -info.node.end_byte),
        )
        spans = _FunctionSpans([], [], [], [])
        open_definitions: list[int] = []  # indexes of the definitions around the current one
        for index, info in enumerate(ordered):
            start, end = info.node.start_byte, info.node.end_byte
            while open_definitions and spans.ends[open_definitions[-1]] < end:
                open_definitions.pop()
            spans.starts.append(start)
            spans.ends.append(end)
            spans.infos.append(info)
            spans.outer.append(open_definitions[-1] if open_definitions else -1)
            open_definitions.append(index)
        return spans

    def is_device_code(self, node: tree_sitter.Node) -> bool:
        lambda_node = enclosing(node, ("lambda_expression",))
        if lambda_node is not None and self._device_lambda(lambda_node):
            return True
        function = self.function_of(node)
        if function.node is None and enclosing(node, ("ERROR",)) is None:
            return False  # a well-parsed declaration outside any function is host code
        return function.is_device

    def _device_lambda(self, lambda_node: tree_sitter.Node) -> bool:
        """`[=] __device__ (int i) {…}`, or a specifier macro that expands to it (`[=] DINLINE (…)`)."""
        data = self.source.data
        if b"__device__" in data[lambda_node.start_byte : lambda_node.end_byte]:
            return True
        body = lambda_node.child_by_field_name("body")  # the macro stands before it: read the head alone
        head = data[lambda_node.start_byte : body.start_byte if body is not None else lambda_node.end_byte]
        return bool(self._expanded_specifiers(head))  # each expands to __device__ or __global__

    # -- variable classes -------------------------------------------------------------

    @cached_property
    def _bindings(self) -> list[tuple[FunctionInfo, str, tree_sitter.Node]]:
        """(function, variable, value) for each initialiser and plain assignment."""
        if self.root is None:
            return []
        bindings = []
        for declared in initializers(self.root, self.source.data):
            if declared.name is not None and declared.value is not None:
                bindings.append((self.function_of(declared.node), declared.name, declared.value))
        for node in captures("(assignment_expression) @a", self.root).get("a", []):
            target, value = node.child_by_field_name("left"), node.child_by_field_name("right")
            if target is not None and value is not None and target.type == "identifier":
                bindings.append((self.function_of(node), self.source.text(target.start_byte, target.end_byte), value))
        bindings.extend(self._lane_mask_register_reads())
        return bindings

    def _lane_mask_register_reads(self) -> Iterator[tuple[FunctionInfo, str, tree_sitter.Node]]:
        """(function, variable, the asm's PTX) for each asm statement that writes a variable from a
        PTX lane-mask register (`asm("mov.u32 %0, %%lanemask_lt;" : "=r"(below))`): the variable
        holds a lane mask as much as a vote's result does (_new_shape reads the PTX's `%lanemask`)."""
        if b"%lanemask" not in self.source.data:
            return
        for node in captures("(gnu_asm_expression) @a", self.root).get("a", []):
            code, outputs = node.child_by_field_name("assembly_code"), node.child_by_field_name("output_operands")
            if code is None or outputs is None or b"%lanemask" not in self.source.data[code.start_byte : code.end_byte]:
                continue
            for operand in outputs.named_children:
                value = operand.child_by_field_name("value")
                if value is not None and value.type == "identifier":
                    yield self.function_of(node), self.source.text(value.start_byte, value.end_byte), code

    @cached_property
    def _numbered_bindings(self) -> dict[int, dict[str, list[tuple[int, str, tree_sitter.Node]]]]:
        """Each function's bindings by the name they bind, each with its place in `_bindings`."""
        grouped: dict[int, dict[str, list]] = defaultdict(lambda: defaultdict(list))
        for place, (function, name, value) in enumerate(self._bindings):
            grouped[id(function)][name].append((place, name, value))
        return grouped

    def _classify(self, function: FunctionInfo, names: Iterable[str]) -> None:
        """Classify the function's bindings of `names` and of every name their values read,
        iterating until nothing changes (chains of copies).

        On demand: a rule asks about a few expressions of a function, whose classes follow from the
        bindings of the names they read (and those names' bindings, and the file scope's), so the
        rest of a large function, and the functions no rule asks about, are never shaped. The
        names a value reads only ever depend on names the closure holds too, so classifying the
        closure alone gives each of its names what classifying the whole function gives it."""
        by_name = self._bindings_by_name.get(id(function), {})
        closure: set[str] = set()
        pending = [name for name in names if name not in function.classified]
        while pending:
            name = pending.pop()
            if name in closure or name in function.classified:
                continue
            closure.add(name)
            for value in by_name.get(name, ()):
                pending.extend(self._shape_of(self.source.text(value.start_byte, value.end_byte), name).names)
        if not closure:
            return
        function.classified |= closure
        if function.node is not None:
            self._classify(self.file_scope, closure)  # what the function's names inherit from the file's
        # in the order the bindings are written; each value's text read and shaped once. The
        # closure's own bindings are looked up, not picked from the function's: a generated kernel
        # of thousands of bindings is classified a few names at a time, hundreds of times
        numbered = self._numbered_bindings.get(id(function), {})
        bound = sorted((item for name in closure for item in numbered.get(name, ())), key=itemgetter(0))
        shaped = [
            (name, shape)
            for _, name, value in bound
            if (
                (shape := self._shape_of(self.source.text(value.start_byte, value.end_byte), name)).names
                or shape.own
                or shape.reads_thread  # a value with none of these gets no class, however often asked
            )
        ]
        for _ in range(4):
            changed = False
            for name, shape in shaped:
                new = self._classes_of_shape(shape, function)
                if not new <= function.classes[name]:
                    function.classes[name] |= new
                    changed = True
            if not changed:
                break

    @cached_property
    def _bindings_by_name(self) -> dict[int, dict[str, list[tree_sitter.Node]]]:
        """Each function's bound values by the name they bind (function id -> name -> values)."""
        grouped: dict[int, dict[str, list[tree_sitter.Node]]] = defaultdict(lambda: defaultdict(list))
        for function, name, value in self._bindings:
            grouped[id(function)][name].append(value)
        return grouped

    def values_bound(self, function: FunctionInfo, name: str) -> list[tree_sitter.Node]:
        """The values the function's initialisers and plain assignments bind to the name."""
        return list(self._bindings_by_name.get(id(function), {}).get(name, ()))

    def readers(self, function: FunctionInfo) -> dict[str, set[str]]:
        """Name → the names the function binds from values that read it (`col = group * 32 + lane`:
        group → {col}, lane → {col}): one step of dataflow forward, worked out once per function."""
        found = self._readers_by_function.get(id(function))
        if found is None:
            found = defaultdict(set)
            for bound, values in self._bindings_by_name.get(id(function), {}).items():
                for value in values:
                    for read in IDENT.findall(self.source.text(value.start_byte, value.end_byte)):
                        found[read].add(bound)
            self._readers_by_function[id(function)] = found
        return found

    def var_classes(self, function: FunctionInfo, name: str) -> set[VarClass]:
        self._classify(function, (name,))
        classes = set(function.classes.get(name, set()))
        if function.node is not None:
            classes |= self.file_scope.classes.get(name, set())
        if not classes:
            if LANE_NAME.match(name):
                classes.add(VarClass.LANE)
            elif WARP_NAME.match(name):
                classes.add(VarClass.WARP)
        return classes

    def classes_of_expression(
        self, node: tree_sitter.Node, function: FunctionInfo, bound_name: str = ""
    ) -> set[VarClass]:
        shape = self._shape_of(self.source.text(node.start_byte, node.end_byte), bound_name)
        self._classify(function, shape.names)
        return self._classes_of_shape(shape, function)

    def _classes_of_shape(self, shape: _ExpressionShape, function: FunctionInfo) -> set[VarClass]:
        classes = set(shape.own)
        thread = shape.reads_thread
        for name in shape.names:
            inherited = function.classes.get(name, _NO_CLASSES)
            if function.node is not None:
                inherited = inherited | self.file_scope.classes.get(name, _NO_CLASSES)
            if inherited & _POSITION_CLASSES:
                thread = True
            if VarClass.GLOBAL in inherited:
                classes.add(VarClass.GLOBAL)
            if VarClass.MASK in inherited and not shape.counts_bits:
                classes.add(VarClass.MASK)
        if thread:
            classes |= shape.when_thread
        return classes

    def _shape_of(self, text: str, bound_name: str) -> _ExpressionShape:
        """What an expression's text says by itself; the classes it inherits from the names it
        reads change while `classified` iterates, this does not (so it is worked out once)."""
        key = (text, bound_name)
        shape = self._shapes.get(key)
        if shape is None:
            shape = self._shapes[key] = self._new_shape(text, bound_name)
        return shape

    def _new_shape(self, text: str, bound_name: str) -> _ExpressionShape:
        # each regex is asked only where the text holds what any match of it must (an operator,
        # `__`, `thread`): a file has tens of thousands of bindings, most of them plain
        own: set[VarClass] = set()
        intrinsics = "__" in text
        if (intrinsics or self._vote_wrapper_call is not None) and self.vote_in(text) is not None:
            own.add(VarClass.MASK)
        if "__lane_id" in text or "%laneid" in text:
            own.add(VarClass.LANE)
        if "%lanemask" in text:  # the PTX of an asm that reads a lane-mask register (_lane_mask_register_reads)
            own.add(VarClass.MASK)
        when_thread = {VarClass.GLOBAL if "blockIdx" in text else VarClass.THREAD}
        compact = "".join(text.split())  # what re.sub(r"\s+", "", text) gives, quicker
        modulo, divides = "&" in compact or "%" in compact, "/" in compact or ">>" in compact
        if modulo and _LANE_ARITHMETIC.search(compact):
            when_thread.add(VarClass.LANE)
        if divides and _WARP_ARITHMETIC.search(compact):
            when_thread.add(VarClass.WARP)
        if (modulo or divides) and _NAMED_DIVISOR.search(compact):
            when_thread |= self._named_warp_arithmetic(compact)
        if bound_name:
            if LANE_NAME.match(bound_name):
                when_thread.add(VarClass.LANE)
            if WARP_NAME.match(bound_name):
                when_thread.add(VarClass.WARP)
        read = _position_text(text) if any(mark in text for mark in _NOT_POSITION_MARKS) else text
        return _ExpressionShape(
            own=frozenset(own),
            reads_thread="thread" in read and _READS_THREAD.search(read) is not None,
            names=frozenset(IDENT.findall(read)) - {bound_name},
            counts_bits=intrinsics and _COUNTS_BITS.search(text) is not None,
            when_thread=frozenset(when_thread),
        )

    def expression_is_thread_based(self, node: tree_sitter.Node) -> bool:
        """Does the expression depend on the thread's position (threadIdx or a variable built on it)?"""
        function = self.function_of(node)
        if node.type == "identifier":
            return bool(self.var_classes(function, self.source.text(node.start_byte, node.end_byte)) - {VarClass.MASK})
        return bool(self.classes_of_expression(node, function) - {VarClass.MASK})

    def expression_classes(self, node: tree_sitter.Node) -> set[VarClass]:
        function = self.function_of(node)
        if node.type == "identifier":
            return self.var_classes(function, self.source.text(node.start_byte, node.end_byte))
        return self.classes_of_expression(node, function)

    # -- binary expressions -------------------------------------------------------------

    @cached_property
    def _binaries_by_operator(
        self,
    ) -> dict[str, list[tuple[tree_sitter.Node, tree_sitter.Node, str, tree_sitter.Node]]]:
        grouped: dict[str, list] = defaultdict(list)
        for node in captures("(binary_expression) @b", self.root).get("b", []) if self.root is not None else []:
            # child(i), not `children`: py-tree-sitter keeps the list `children` returns on the node,
            # and the index keeps every node (10 MB of peak over one 4 MB generated file)
            operator = node.child(1) if node.child_count == 3 else None
            if operator is not None and not operator.is_named:  # left, operator, right: no comment between
                left, right = node.child(0), node.child(2)
            else:
                left, operator, right = (node.child_by_field_name(name) for name in ("left", "operator", "right"))
            if left is not None and operator is not None and right is not None:
                grouped[operator.type].append((node, left, operator.type, right))
        return grouped

    def binaries(
        self, operators, ordered: bool = True
    ) -> list[tuple[tree_sitter.Node, tree_sitter.Node, str, tree_sitter.Node]]:
        """(node, left, operator, right) of the file's binary expressions with one of `operators`, in
        source order unless a rule that judges each alone says it needs none: several rules each
        want a few operators of the file's many binary expressions."""
        found = [item for operator in operators for item in self._binaries_by_operator.get(operator, ())]
        return sorted(found, key=lambda item: (item[0].start_byte, -item[0].end_byte)) if ordered else found

    def binaries_inside(
        self, node: tree_sitter.Node, operator: str
    ) -> list[tuple[tree_sitter.Node, tree_sitter.Node, str, tree_sitter.Node]]:
        """binaries((operator,)) within the node's bytes, found by a binary search: a rule that asks
        this of every kernel of a generated file reads each kernel's share, not the file's."""
        # one operator's group is in source order already: the node index holds them so
        found = self._binaries_by_operator.get(operator, [])
        starts = self._binary_starts.get(operator)
        if starts is None:
            starts = self._binary_starts[operator] = [item[0].start_byte for item in found]
        low = bisect.bisect_left(starts, node.start_byte)
        high = bisect.bisect_left(starts, node.end_byte, lo=low)
        return [item for item in found[low:high] if item[0].end_byte <= node.end_byte]

    @cached_property
    def _binary_starts(self) -> dict[str, list[int]]:
        return {}

    # -- calls --------------------------------------------------------------------------

    @cached_property
    def calls(self) -> list[tuple[str, tree_sitter.Node]]:
        if self.root is None:
            return []
        return [
            (call_name(node, self.source), node) for node in captures("(call_expression) @c", self.root).get("c", [])
        ]

    @cached_property
    def _calls_by_name(self) -> dict[str, list[tree_sitter.Node]]:
        grouped: dict[str, list[tree_sitter.Node]] = defaultdict(list)
        for name, node in self.calls:
            grouped[name].append(node)
        return grouped

    def calls_named(self, names) -> list[tuple[str, tree_sitter.Node]]:
        """The calls to any of `names`, in source order."""
        if isinstance(names, str):
            names = (names,)
        found = [(name, node) for name in set(names) for node in self._calls_by_name.get(name, ())]
        return sorted(found, key=lambda item: (item[1].start_byte, -item[1].end_byte))

    @cached_property
    def _call_starts(self) -> list[int]:
        return [node.start_byte for _, node in self.calls]

    def initial_values(self, node: tree_sitter.Node) -> list[tree_sitter.Node]:
        """The initialisers, in the function holding `node`, of the names `node` reads: one step of
        dataflow back (`K * group` with `const int group = lane / K;` gives `lane / K`)."""
        function = self.function_of(node).node
        if function is None:
            return []
        names = {self.source.text(n.start_byte, n.end_byte) for n in identifiers_in(node)}
        if node.type == "identifier":
            names.add(self.source.text(node.start_byte, node.end_byte))
        initialised = self._initialised_in(function)
        found = sorted((item for name in names for item in initialised.get(name, ())), key=itemgetter(0))
        return [value for _, value in found]

    def _initialised_in(self, function: tree_sitter.Node) -> dict[str, list[tuple[int, tree_sitter.Node]]]:
        """Declarator text → (offset, value) of the function's initialisers, read once per function:
        a generated kernel of thousands of declarations is asked about hundreds of its counts."""
        found = self._initialisers_by_function.get(function.id)
        if found is None:
            found = {}
            for declarator in captures("(init_declarator) @d", function).get("d", []):
                name, value = declarator.child_by_field_name("declarator"), declarator.child_by_field_name("value")
                if name is not None and value is not None:
                    text = self.source.text(name.start_byte, name.end_byte)
                    found.setdefault(text, []).append((declarator.start_byte, value))
            self._initialisers_by_function[function.id] = found
        return found

    def calls_inside(self, node: tree_sitter.Node, names=None) -> list[tuple[str, tree_sitter.Node]]:
        """The calls to any of `names` (None: to anything) that start inside `node` (a binary search,
        not a pass over the file)."""
        low = bisect.bisect_left(self._call_starts, node.start_byte)
        high = bisect.bisect_left(self._call_starts, node.end_byte, lo=low)
        return [(name, call) for name, call in self.calls[low:high] if names is None or name in names]

    @cached_property
    def shuffles_by_function(self) -> dict[int | None, list[tree_sitter.Node]]:
        grouped: dict[int | None, list[tree_sitter.Node]] = defaultdict(list)
        for _, node in self.calls_named(SHUFFLE_CALLS):
            owner = self.function_of(node).node
            grouped[owner.id if owner is not None else None].append(node)
        return grouped


_TEMPLATE_PARAMETERS = (
    "parameter_declaration", "optional_parameter_declaration", "type_parameter_declaration",
    "optional_type_parameter_declaration", "variadic_parameter_declaration", "variadic_type_parameter_declaration",
    "template_template_parameter_declaration",
)  # fmt: skip


def function_parameters(definition: tree_sitter.Node) -> list[tree_sitter.Node]:
    """A function definition's parameters in order, as its callers' arguments line up with them
    (the comments a parameter list may hold left out)."""
    declarator = function_declarator(definition)
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    listed = parameters.named_children if parameters is not None else []
    return [p for p in listed if p.type in ("parameter_declaration", "optional_parameter_declaration")]


def function_declarator(definition: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `name(parameters)` of a function definition, however its return type wraps it: a
    function that returns a pointer or a reference (`float* row(…)`, `const T& at(…)`) has it one
    declarator further in."""
    declarator = definition.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        inner = declarator.child_by_field_name("declarator")
        if inner is None and declarator.type == "reference_declarator":  # its declarator has no field name
            inner = declarator.named_children[-1] if declarator.named_children else None
        declarator = inner
    return declarator


def declared_type(source: SourceFile, function: tree_sitter.Node, name: str, element: bool = False) -> str | None:
    """The type, as written, that the function declares `name` with (a parameter or a local:
    `const __half v = …`, `cg::thread_block_tile<32>& warp`); with `element`, the type a pointer or
    an array `name` holds (`__half* x`, `float2 buffer[4]`). None where the function declares no such
    name, or declares it otherwise."""
    declarations = function_parameters(function) + captures("(declaration) @d", function).get("d", [])
    for declaration in declarations:
        type_node = declaration.child_by_field_name("type")
        if type_node is None:
            continue
        for declared in declaration.children_by_field_name("declarator"):
            if declared.type == "init_declarator":
                declared = declared.child_by_field_name("declarator")
            if declared is not None and _declares(source, declared, name, element):
                return source.text(type_node.start_byte, type_node.end_byte)
    return None


def element_type(source: SourceFile, function: tree_sitter.Node, node: tree_sitter.Node) -> str | None:
    """The type a pointer expression points to, as written: from a cast (`(const at::Half*)p`,
    `reinterpret_cast<__half2*>(p)`) or from the function's declaration of the pointer or array it
    is built from (`p`, `&p[i]`, `p + i`, `offset + p`). None where that is not known here."""
    node = unparenthesized(node)
    if node.type == "cast_expression":  # `(int)x` is no pointer
        cast = node.child_by_field_name("type")
        return _pointee(source.text(cast.start_byte, cast.end_byte)) if cast is not None else None
    if node.type == "call_expression":  # `reinterpret_cast<__half2*>(p)`, `static_cast<…>(p)`
        function_node = node.child_by_field_name("function")
        if function_node is None or function_node.type != "template_function":
            return None
        name = function_node.child_by_field_name("name")
        written = source.text(name.start_byte, name.end_byte) if name is not None else ""
        target = function_node.child_by_field_name("arguments")
        if written not in ("reinterpret_cast", "static_cast", "const_cast") or target is None:
            return None
        return _pointee(source.text(target.start_byte + 1, target.end_byte - 1))
    if node.type == "pointer_expression" and source.text(node.start_byte, node.start_byte + 1) == "&":
        inner = unparenthesized(node.child_by_field_name("argument"))
        if inner.type != "subscript_expression":
            return None
        node = inner.child_by_field_name("argument")
    elif node.type == "binary_expression":
        # pointer arithmetic: the one operand declared as a pointer is the one read through
        sides = (node.child_by_field_name("left"), node.child_by_field_name("right"))
        found = [t for side in sides if side is not None and (t := element_type(source, function, side))]
        return found[0] if len(found) == 1 else None
    if node is None or node.type != "identifier":
        return None
    return declared_type(source, function, source.text(node.start_byte, node.end_byte), element=True)


def calls_on_pointers_to(ctx, name: str, arity: int, types: re.Pattern[str]) -> Iterator[tuple[tree_sitter.Node, str]]:
    """The calls of `name` with `arity` arguments whose first points to a type `types` matches
    (its spelling without spaces or a leading `::`), with that type as written: `atomicAdd(out + i, v)`
    of a `half2* out`. Calls whose pointer's type is not known here (element_type) are left out."""
    for _, call in ctx.device.calls_named(name):
        function = ctx.device.function_of(call).node
        arguments = call_arguments(call)
        if function is None or len(arguments) != arity:
            continue
        element = element_type(ctx.source, function, arguments[0])
        if element is not None and types.fullmatch(re.sub(r"\s+", "", element).removeprefix("::")):
            yield call, element


def _pointee(written: str) -> str | None:
    """`const at::Half *` as `at::Half`; None for what is not a pointer to one level."""
    text = re.sub(r"\bconst\b|\bvolatile\b|\s", "", written)
    return text[:-1] if text.endswith("*") and not text.endswith("**") else None


def _declares(source: SourceFile, declarator: tree_sitter.Node, name: str, element: bool) -> bool:
    """`name` itself (`&name` too: a reference holds its type) or, for an `element`, `*name`,
    `* __restrict__ name` or `name[]`: one level of pointer (or an array) to the type."""
    if element:
        if declarator.type not in ("pointer_declarator", "array_declarator"):
            return False
        declarator = declarator.child_by_field_name("declarator")
    elif declarator.type == "reference_declarator":
        declarator = declarator.named_children[0] if declarator.named_child_count == 1 else None
    return (
        declarator is not None
        and declarator.type == "identifier"
        and source.text(declarator.start_byte, declarator.end_byte) == name
    )


def template_parameters(function: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The parameters of the template a function definition is, in order (none for a plain function)."""
    template = function.parent
    parameters = template.child_by_field_name("parameters") if template is not None else None
    if template is None or template.type != "template_declaration" or parameters is None:
        return []
    return [p for p in parameters.named_children if p.type in _TEMPLATE_PARAMETERS]


def is_constexpr_if(source: SourceFile, statement: tree_sitter.Node) -> bool:
    """`if constexpr (…)`."""
    condition = statement.child_by_field_name("condition")
    return condition is not None and b"constexpr" in source.data[statement.start_byte : condition.start_byte]


def spelled(ctx, node: tree_sitter.Node) -> str:
    """A node's text without its white space: `( v )` and `(v)` are one spelling."""
    return re.sub(r"\s+", "", ctx.source.text(node.start_byte, node.end_byte))


def shuffle_operands(name: str, call: tree_sitter.Node) -> tuple[tree_sitter.Node | None, tree_sitter.Node | None]:
    """(lane or offset argument, width argument) of a shuffle call."""
    arguments = call_arguments(call)
    first = 2 if name.endswith("_sync") else 1
    lane = arguments[first] if len(arguments) > first else None
    width = arguments[first + 1] if len(arguments) > first + 1 else None
    return lane, width
