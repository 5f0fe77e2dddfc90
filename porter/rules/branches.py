"""Which platform each preprocessor branch of a file is compiled for.

Real CUDA projects that already support ROCm keep both sides in one file:
`#ifdef USE_ROCM … #else … #endif`, `#if defined(__HIP_PLATFORM_AMD__)`, RDNA-only paths under
`__gfx11…__`, and project macros set from those (`#define HAS_PTX 0` on the ROCm side). Code the
project compiles only for NVIDIA is not porter's to port, and code it compiles only for ROCm is
HIP, to be audited as HIP (wave64 analysis) and never as CUDA.

Each branch's condition is evaluated in three environments with three-valued logic: the CUDA
compilation, a ROCm compilation for a CDNA (wave64) device and one for an RDNA (wave32) device.
Only what the environments know decides a branch: platform markers, AMD target macros and the
project's own macros defined on one side. Everything else (`__CUDA_ARCH__` values, feature flags)
is unknown, so `#if __CUDA_ARCH__ >= 800` is never taken for a ROCm decision: that test is the
arch-guard rules' business.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from enum import StrEnum

import tree_sitter

from porter.parse import captures
from porter.rules.device import literal_value
from porter.source import SourceFile

# Defined by hipcc/hip-clang or by a project's ROCm build (the last two by PyTorch's extension builder).
ROCM_MARKERS = frozenset(
    {"__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_HCC__", "__HIPCC__", "__HIP__", "USE_ROCM", "__HIP_ROCclr__"}
)
# Defined only in hip-clang's device pass: evaluated as the device pass, where kernels are compiled.
ROCM_DEVICE_MARKERS = frozenset({"__HIP_DEVICE_COMPILE__", "__AMDGCN__", "__AMDGPU__"})
NVIDIA_ONLY = frozenset({"__NVCC__", "__NVCOMPILER", "__HIP_PLATFORM_NVIDIA__", "__HIP_PLATFORM_NVCC__"})
_GFX_TARGET = re.compile(r"__gfx(\w+?)__")
_GFX_FAMILY = re.compile(r"__GFX(\d+)__")
_WAVEFRONT = frozenset({"__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__"})


class Side(StrEnum):
    CUDA_ONLY = "cuda-only"  # compiled for NVIDIA only: the project already handles ROCm elsewhere
    ROCM = "rocm"  # compiled for ROCm only, on wave64 devices (and possibly wave32 ones)
    ROCM_WAVE32 = "rocm-wave32"  # compiled for ROCm only, on RDNA (wave32) devices only
    DEAD = "dead"  # compiled nowhere (`#if 0`)


@dataclass(frozen=True)
class Environment:
    name: str
    rocm: bool
    gfx: str = ""  # the AMD target of a ROCm environment
    wave: int = 32

    def defined(self, name: str) -> bool | None:
        if name in ROCM_MARKERS or name in ROCM_DEVICE_MARKERS:
            return self.rocm
        if name in NVIDIA_ONLY:
            return not self.rocm
        if name in _WAVEFRONT:
            return self.rocm
        target = _GFX_TARGET.fullmatch(name)
        if target:
            return self.rocm and target.group(1) == self.gfx
        family = _GFX_FAMILY.fullmatch(name)
        if family:
            return self.rocm and self.gfx.startswith(family.group(1)) and len(self.gfx) - len(family.group(1)) == 2
        # `__CUDA_ARCH__` stays unknown on ROCm too: a test on it is the arch-guard rules' question
        return None

    def value(self, name: str) -> int | None:
        if name in _WAVEFRONT and self.rocm:
            return self.wave
        defined = self.defined(name)
        return None if defined is None else int(defined)  # an undefined name reads 0 in #if


CUDA = Environment("cuda", rocm=False)
CDNA = Environment("rocm-cdna", rocm=True, gfx="942", wave=64)
RDNA = Environment("rocm-rdna", rocm=True, gfx="1100", wave=32)
ENVIRONMENTS = (CUDA, CDNA, RDNA)


@dataclass(frozen=True)
class Region:
    start: int
    end: int
    side: Side


class Branches:
    """The decided platform regions of one file, by start; `side_at(byte)` answers per position."""

    def __init__(self, source: SourceFile, root: tree_sitter.Node | None):
        self.source = source
        self.regions: list[Region] = []
        # project macros whose value follows the platform: name -> {environment name: value}
        self.macros: dict[str, dict[str, int | None]] = {}
        if root is not None and _mentions_platform(source.data):
            self._walk(root)
        # a chain's arms are recorded before the conditionals nested in its first arm: sort by start
        self.regions.sort(key=lambda region: region.start)
        self._starts = [region.start for region in self.regions]

    def side_at(self, offset: int) -> Side | None:
        """The side of the innermost decided region holding the offset, else None (both platforms).

        Arms nest properly, so of the regions holding the offset the innermost starts last.
        """
        for index in range(bisect.bisect_right(self._starts, offset) - 1, -1, -1):
            region = self.regions[index]
            if offset < region.end:
                return region.side
        return None

    # -- walking the conditionals -------------------------------------------------------

    def _walk(self, root: tree_sitter.Node) -> None:
        """Conditionals and #defines in source order; each is live where its enclosing arm is.

        A flat pass over query results, not a recursion: real files nest deeply and the
        enclosing arm is found on a stack of open arms.
        """
        kinds = ("preproc_if", "preproc_ifdef", "preproc_def")
        events = sorted(
            (node for kind in kinds for node in captures(f"({kind}) @n", root).get("n", [])), key=lambda n: n.start_byte
        )
        open_arms: list[tuple[int, dict[str, bool | None]]] = []  # (end, live) of enclosing arms
        everywhere = {env.name: True for env in ENVIRONMENTS}
        for node in events:
            while open_arms and open_arms[-1][0] <= node.start_byte:
                open_arms.pop()
            outer = open_arms[-1][1] if open_arms else everywhere
            if node.type == "preproc_def":
                self._record_macro(node, outer)
                continue
            arms = self._conditional(node, outer)
            # arms do not overlap, so the one holding the next event is the innermost open one
            for _start, end, live in reversed(arms):
                open_arms.append((end, live))
            open_arms.sort(key=lambda arm: -arm[0])

    def _conditional(self, node: tree_sitter.Node, outer: dict[str, bool | None]) -> list[tuple[int, int, dict]]:
        """One #if/#ifdef chain: each arm is live where the outer code is, its own test holds and no earlier one did."""
        earlier: dict[str, bool | None] = {env.name: False for env in ENVIRONMENTS}
        arms = []
        arm: tree_sitter.Node | None = node
        while arm is not None:
            own = {env.name: self._arm_test(arm, env) for env in ENVIRONMENTS}
            live = {name: _and(outer[name], _and(_not(earlier[name]), own[name])) for name in outer}
            body_start, body_end = _body_span(arm)
            self._record_region(body_start, body_end, live)
            arms.append((body_start, body_end, live))
            earlier = {name: _or(earlier[name], own[name]) for name in earlier}
            arm = arm.child_by_field_name("alternative")
        return arms

    def _arm_test(self, arm: tree_sitter.Node, env: Environment) -> bool | None:
        if arm.type == "preproc_else":
            return True
        if arm.type in ("preproc_ifdef", "preproc_elifdef"):
            name = arm.child_by_field_name("name")
            if name is None:
                return None
            defined = self._defined(self.source.text(name.start_byte, name.end_byte), env)
            negated = self.source.data[arm.start_byte : name.start_byte].rstrip().endswith((b"ifndef", b"elifndef"))
            return _not(defined) if negated else defined
        condition = arm.child_by_field_name("condition")
        if condition is None:
            return None
        value = self._evaluate(condition, env)
        return None if value is None else value != 0

    def _record_region(self, start: int, end: int, live: dict[str, bool | None]) -> None:
        side = _side(live)
        if side is not None and start < end:
            self.regions.append(Region(start, end, side))

    def _record_macro(self, define: tree_sitter.Node, live: dict[str, bool | None]) -> None:
        """A project macro defined on one platform's side only takes its value from the side."""
        name_node, value_node = define.child_by_field_name("name"), define.child_by_field_name("value")
        if name_node is None:
            return
        name = self.source.text(name_node.start_byte, name_node.end_byte)
        text = self.source.text(value_node.start_byte, value_node.end_byte).strip() if value_node else "1"
        number = literal_value(re.sub(r"//.*|/\*.*", "", text).strip().strip("()").strip()) if text else 1
        values = self.macros.setdefault(name, {env.name: False for env in ENVIRONMENTS})
        for env in ENVIRONMENTS:
            if live[env.name] is True:
                values[env.name] = number if number is not None else None
            elif live[env.name] is None and values[env.name] is False:
                values[env.name] = None

    # -- evaluating a condition -----------------------------------------------------------

    def _platform_macro(self, name: str) -> dict[str, int | None] | None:
        """The project macro's values per environment, if they differ (a macro set alike everywhere decides nothing)."""
        values = self.macros.get(name)
        if values is None or len({repr(v) for v in values.values()}) == 1:
            return None
        return values

    def _defined(self, name: str, env: Environment) -> bool | None:
        known = env.defined(name)
        if known is not None:
            return known
        if self._platform_macro(name) is not None:
            value = self.macros[name][env.name]
            return None if value is None else value is not False
        return None

    def _value(self, name: str, env: Environment) -> int | None:
        known = env.value(name)
        if known is not None:
            return known
        if self._platform_macro(name) is not None:
            value = self.macros[name][env.name]
            if value is False:
                return 0
            return None if value is None or value is True else int(value)
        return None

    def _evaluate(self, node: tree_sitter.Node, env: Environment) -> int | None:
        kind = node.type
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self._evaluate(node.named_children[0], env)
        if kind == "number_literal":
            return literal_value(self.source.text(node.start_byte, node.end_byte))
        if kind == "identifier":
            return self._value(self.source.text(node.start_byte, node.end_byte), env)
        if kind == "preproc_defined":
            name = next((c for c in node.named_children if c.type == "identifier"), None)
            defined = self._defined(self.source.text(name.start_byte, name.end_byte), env) if name else None
            return None if defined is None else int(defined)
        if kind == "unary_expression":
            operator = node.child_by_field_name("operator")
            operand = self._evaluate(node.child_by_field_name("argument"), env)
            symbol = self.source.text(operator.start_byte, operator.end_byte) if operator else ""
            if symbol == "!":
                return None if operand is None else int(operand == 0)
            if symbol == "-":
                return None if operand is None else -operand
            return None
        if kind == "binary_expression":
            return self._binary(node, env)
        return None

    def _binary(self, node: tree_sitter.Node, env: Environment) -> int | None:
        operator_node = node.child_by_field_name("operator")
        operator = self.source.text(operator_node.start_byte, operator_node.end_byte) if operator_node else ""
        left = self._evaluate(node.child_by_field_name("left"), env)
        right = self._evaluate(node.child_by_field_name("right"), env)
        if operator == "&&":
            if left == 0 or right == 0:
                return 0
            return None if left is None or right is None else 1
        if operator == "||":
            if (left is not None and left != 0) or (right is not None and right != 0):
                return 1
            return None if left is None or right is None else 0
        if left is None or right is None:
            return None
        comparisons = {
            "==": left == right, "!=": left != right, "<": left < right,
            ">": left > right, "<=": left <= right, ">=": left >= right,
        }  # fmt: skip
        if operator in comparisons:
            return int(comparisons[operator])
        return None


_PLATFORM_WORDS = (b"HIP", b"ROCM", b"ROCm", b"AMDGCN", b"AMDGPU", b"__gfx", b"__GFX", b"NVCC", b"NVCOMPILER")
_IF_ZERO = re.compile(rb"#\s*if\s+0\b")


def _mentions_platform(data: bytes) -> bool:
    # the words by `in`, not one alternation: a regex whose alternatives lead differently is tried at every byte
    return any(word in data for word in _PLATFORM_WORDS) or _IF_ZERO.search(data) is not None


def _body_span(arm: tree_sitter.Node) -> tuple[int, int]:
    """From the end of the arm's directive line to the start of the next arm (or the #endif)."""
    head = arm.child_by_field_name("condition") or arm.child_by_field_name("name")
    start = head.end_byte if head is not None else arm.start_byte + len("#else")
    alternative = arm.child_by_field_name("alternative")
    end = alternative.start_byte if alternative is not None else arm.end_byte
    return start, end


def _side(live: dict[str, bool | None]) -> Side | None:
    cuda, cdna, rdna = live[CUDA.name], live[CDNA.name], live[RDNA.name]
    if cuda is False and cdna is False and rdna is False:
        return Side.DEAD
    if cdna is False and rdna is False:
        return Side.CUDA_ONLY  # the project's markers keep ROCm out (what NVIDIA compiles may be unknown)
    if cuda is False and cdna is True:
        return Side.ROCM
    if cuda is False and cdna is False and rdna is True:
        return Side.ROCM_WAVE32
    return None


def _not(value: bool | None) -> bool | None:
    return None if value is None else not value


def _and(left: bool | None, right: bool | None) -> bool | None:
    if left is False or right is False:
        return False
    return None if left is None or right is None else True


def _or(left: bool | None, right: bool | None) -> bool | None:
    if left is True or right is True:
        return True
    return None if left is None or right is None else False


__all__ = ["Branches", "Side"]
