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

A fourth environment, ROCm's host pass, knows none of the device pass's target macros
(`__gfx942__`, `__GFX9__`) and reads the wavefront macro (`__AMDGCN_WAVEFRONT_SIZE`) as 64 for every
target: a constant chosen by them takes another value in the host code that sizes the launch
(pass_splits).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import NamedTuple

import tree_sitter

from porter.parse import captures, captures_apart, directive_skeleton, is_include_guard
from porter.rules.brackets import closing_of
from porter.rules.device import enclosing, literal_value
from porter.rules.names import INCLUDE_LINE, file_name
from porter.rules.patterns import finditer_each
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
# an AMD target's own macro anywhere in a text (`#if defined(__gfx942__) || defined(__GFX11__)`)
TARGET_MACRO = re.compile(f"{_GFX_TARGET.pattern}|{_GFX_FAMILY.pattern}")
_WAVEFRONT = frozenset({"__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__"})
# hip-clang's host pass defines the wavefront macros too, as 64 whatever the offload targets
# (`-dM -E --cuda-host-only`, clang 19 and 21, for gfx942, for gfx1100, and for both): a width taken
# from them is 64 in the host code that sizes a launch, and an RDNA device pass's 32 differs from it
HOST_WAVEFRONT = 64


class Side(StrEnum):
    CUDA_ONLY = "cuda-only"  # compiled for NVIDIA only: the project already handles ROCm elsewhere
    ROCM = "rocm"  # never compiled for NVIDIA; for ROCm, on wave64 devices perhaps (and perhaps wave32 ones)
    ROCM_WAVE32 = "rocm-wave32"  # never compiled for NVIDIA nor for CDNA: RDNA (wave32) devices' code
    DEAD = "dead"  # compiled nowhere (`#if 0`)


@dataclass(frozen=True)
class Environment:
    name: str
    rocm: bool
    gfx: str = ""  # the AMD target of a ROCm device pass
    wave: int = 32
    device: bool = True  # hip-clang compiles a file twice: once per target (device), once for the host
    # macros the environment leaves undefined unless the project defines them (HIPCC_AS_WRITTEN)
    undefined: frozenset[str] = frozenset()

    def defined(self, name: str) -> bool | None:
        if name in ROCM_MARKERS:
            return self.rocm
        if name in ROCM_DEVICE_MARKERS:
            return self.rocm and self.device
        if name in _WAVEFRONT:
            return self.rocm  # the host pass's too (HOST_WAVEFRONT)
        if name in NVIDIA_ONLY:
            return not self.rocm
        target = _GFX_TARGET.fullmatch(name)
        if target:
            return self.rocm and self.device and target.group(1) == self.gfx
        family = _GFX_FAMILY.fullmatch(name)
        if family:
            gfx = self.gfx if self.device else ""
            return self.rocm and gfx.startswith(family.group(1)) and len(gfx) - len(family.group(1)) == 2
        # `__CUDA_ARCH__` stays unknown on ROCm too: a test on it is the arch-guard rules' question
        return None

    def value(self, name: str) -> int | None:
        if name in _WAVEFRONT and self.rocm:
            return self.wave if self.device else HOST_WAVEFRONT
        defined = self.defined(name)
        return None if defined is None else int(defined)  # an undefined name reads 0 in #if


def device_pass(gfx: str, wave: int) -> Environment:
    """The device pass of one AMD target (`gfx950`, 64 lanes), its own `__gfx…__`/`__GFX…__` macros
    defined; named for its wavefront's family, the name the project's platform macros are read by."""
    return Environment("rocm-cdna" if wave == 64 else "rocm-rdna", rocm=True, gfx=gfx.removeprefix("gfx"), wave=wave)


CUDA = Environment("cuda", rocm=False)
CDNA = Environment("rocm-cdna", rocm=True, gfx="942", wave=64)
RDNA = Environment("rocm-rdna", rocm=True, gfx="1100", wave=32)
ROCM_HOST = Environment("rocm-host", rocm=True, device=False)
ENVIRONMENTS = (CUDA, CDNA, RDNA, ROCM_HOST)
DEVICE_PASSES = (CDNA, RDNA)
# What only NVIDIA's compilers and toolkit headers define: hip-clang's device pass defines none of
# them (`-dM -E` for gfx942 with hip_runtime.h included). The platform regions leave tests on them
# undecided, since porter's fixes rewrite such tests (ARC002); HIPCC_AS_WRITTEN reads the file as
# its author wrote it, where `#if CUDART_VERSION < 12000` holds under hipcc (ARC003's "an old CUDA").
NVIDIA_TOOLKIT_MACROS = frozenset({
    "__CUDA_ARCH__", "__CUDACC__", "__NVCC__", "CUDA_VERSION", "CUDART_VERSION",
    "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__", "__CUDA_API_VERSION",
})  # fmt: skip
# CDNA's device pass (its name: the project's platform macros are looked up by it), read as written
HIPCC_AS_WRITTEN = Environment("rocm-cdna", rocm=True, gfx="942", wave=64, undefined=NVIDIA_TOOLKIT_MACROS)
_ARM_TYPES = frozenset({"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef", "preproc_else"})

# `constexpr int NAME = VALUE;` (const, static, any integer type) or `#define NAME VALUE`
CONSTANT_DEFINITION = re.compile(
    rb"^[ \t]*(?:(?:static\s+|inline\s+)*(?:constexpr|const)\s+[\w\s]*?\b(\w+)\s*=\s*([^;\n]+?)\s*;"
    rb"|#[ \t]*define[ \t]+(\w+)[ \t]+([^\n]+?)[ \t]*$)",
    re.M,
)
# what only a device pass defines: a file without one of them has nothing to split
_DEVICE_PASS_WORDS = (b"__gfx", b"__GFX", b"__AMDGCN", b"__AMDGPU__", b"__HIP_DEVICE_COMPILE__")


CONDITION_BODY = re.compile(r"\bdefined\b|\|\||&&")
_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class ProjectConditions:
    """What the project's headers tell a file's conditionals: their platform macros (`BNB_HIP`:
    0 for CUDA, 1 for ROCm) and their condition macros (`IS_CDNA`), by name."""

    macros: dict[str, dict[str, int | None]] = field(default_factory=dict)
    bodies: dict[str, str] = field(default_factory=dict)
    # the macros whose definitions an AMD target's own macros choose (`#if defined(__gfx942__)`
    # around `#define IS_CDNA3 1`): each definition's condition as one `#if` text, with its value
    guards: dict[str, tuple[tuple[str, int | None], ...]] = field(default_factory=dict)

    def mentioned_in(self, data: bytes) -> bool:
        return any(name.encode("utf-8", "surrogateescape") in data for name in (*self.macros, *self.bodies))

    def names_target_macros_in(self, data: bytes) -> bool:
        """Does the text name a macro that the project's AMD target macros choose?"""
        return any(name.encode("utf-8", "surrogateescape") in data for name in self.guards)


@lru_cache(maxsize=256)
def _condition_expression(body: str) -> tuple[SourceFile, tree_sitter.Node] | None:
    """A macro body parsed as an `#if` condition (a node keeps its tree alive)."""
    from pathlib import Path

    from porter.parse import cuda_language
    from porter.source import FileKind

    # the body as read from the file, undecodable bytes included (SourceFile.text keeps them as surrogates)
    data = b"#if " + body.replace("\\\n", " ").encode("utf-8", "surrogateescape") + b"\n#endif\n"
    tree = tree_sitter.Parser(cuda_language()).parse(data)
    directive = tree.root_node.named_children[0] if tree.root_node.named_child_count else None
    condition = directive.child_by_field_name("condition") if directive is not None else None
    if condition is None or condition.has_error:
        return None
    return SourceFile(path=Path("macro"), rel="macro", data=data, kind=FileKind.HEADER), condition


class PassSplit(NamedTuple):
    """A warp width that follows the device pass's wavefront while the host pass, compiled once
    for every target, reads another value: `#if defined(__GFX9__)` is false there."""

    device: int  # the value in the device pass of `target`, that target's wavefront width
    host: int
    target: str  # the gfx target whose device pass disagrees with the host


@dataclass(frozen=True)
class Region:
    start: int
    end: int
    side: Side


def _enclosing(spans: list[tuple[int, int]]) -> list[int] | None:
    """For each span (sorted by start, an outer one before an inner one of the same start), the
    index of the innermost span before it that holds it, -1 where none does; None where two spans
    overlap without one holding the other, as properly nested arms never do."""
    enclosing, open_spans = [], []
    for index, (start, end) in enumerate(spans):
        while open_spans and spans[open_spans[-1]][1] <= start:
            open_spans.pop()
        if open_spans and spans[open_spans[-1]][1] < end:
            return None
        enclosing.append(open_spans[-1] if open_spans else -1)
        open_spans.append(index)
    return enclosing


def _innermost(spans: list[tuple[int, int]], starts: list[int], enclosing: list[int] | None, offset: int) -> int:
    """The index of the innermost span holding the offset (of those holding it, the one that starts
    last), -1 where none does. From the last span to start at or before the offset, a span that ended
    before it leads to the one around it: only those can hold the offset, where a walk back over
    every span cost a file's thousands of arms per question."""
    index = bisect.bisect_right(starts, offset) - 1
    while index >= 0:
        if offset < spans[index][1]:
            return index
        index = enclosing[index] if enclosing is not None else index - 1
    return -1


class Branches:
    """The decided platform regions of one file, by start; `side_at(byte)` answers per position."""

    def __init__(self, source: SourceFile, root: tree_sitter.Node | None, project: ProjectConditions | None = None):
        self.source = source
        self.regions: list[Region] = []
        # every arm of every conditional: (start, end, where it is live), for live_at
        self._arms: list[tuple[int, int, dict[str, bool | None]]] = []
        # project macros whose value follows the platform: name -> {environment name: value}
        project = project or ProjectConditions()
        self.macros: dict[str, dict[str, int | None]] = {name: dict(v) for name, v in project.macros.items()}
        # object-like macros that stand for a condition (`#define IS_CDNA (defined(__gfx942__) || …)`)
        self._bodies: dict[str, str] = dict(project.bodies)
        # each macro's definitions: (the conditions it is defined under, as `#if` texts, its value);
        # read again for an AMD target other than the ones `macros` was recorded for (_for_target)
        self._guards: dict[str, list[tuple[tuple[str, ...], int | None]]] = {
            name: [((text,), value) for text, value in definitions] for name, definitions in project.guards.items()
        }
        self._own_definitions: set[str] = set()
        self._root = root
        self._defined_before: set[str] = set()
        self._expanding: set[str] = set()
        self._constants: dict[str, int] = {}  # the values holds_for is given, while it evaluates
        self._fallbacks: dict[int, bool] = {}  # arm start -> hip_skips_rightly
        if root is not None and (
            mentions_platform(source.data) or project.mentioned_in(source.data) or _may_guard_newer_ptx(source.data)
        ):
            # a broken tree may have swallowed a conditional: its directives alone nest as written
            if root.has_error:
                self._walk(directive_skeleton(source.data), skeleton=True)
            else:
                self._walk(root)
        # a chain's arms are recorded before the conditionals nested in its first arm: sort by start
        self.regions.sort(key=lambda region: region.start)
        self._region_spans = [(region.start, region.end) for region in self.regions]
        self._starts = [region.start for region in self.regions]
        self._regions_around = _enclosing(self._region_spans)
        self._arms.sort(key=lambda arm: arm[0])
        self._arm_spans = [(start, end) for start, end, _ in self._arms]
        self._arm_starts = [arm[0] for arm in self._arms]
        self._arms_around = _enclosing(self._arm_spans)

    def platform_macros(self) -> dict[str, dict[str, int | None]]:
        """The macros the file defines per platform, for the files that include it."""
        return {name: self.macros[name] for name in self.macros if self._platform_macro(name) is not None}

    def target_guards(self) -> dict[str, tuple[tuple[str, int | None], ...]]:
        """The macros the file's AMD target tests choose, each definition's conditions as one `#if`
        text (ProjectConditions.guards), for the files that include it."""
        return {
            name: tuple(
                (" && ".join(f"({piece})" for piece in guard) or "1", value) for guard, value in self._guards[name]
            )
            for name in self._guards
            if self._defined_by_target(name)
        }

    def chosen_by_target(self, name: str, seen: frozenset[str] = frozenset()) -> bool:
        """Does an AMD target's own macros choose the macro: some definition of it under a test of
        them (directly or through another such macro), or a body that tests them (`#define IS_CDNA
        (defined(__gfx942__) || …)`)?"""
        if name in seen:
            return False
        body = self._bodies.get(name)
        return self._defined_by_target(name, seen) or (body is not None and self.tests_target(body, seen | {name}))

    def _defined_by_target(self, name: str, seen: frozenset[str] = frozenset()) -> bool:
        return any(
            self.tests_target(piece, seen | {name}) for guard, _ in self._guards.get(name, ()) for piece in guard
        )

    def tests_target(self, text: str, seen: frozenset[str] = frozenset()) -> bool:
        """Does a condition's text test an AMD target: its own macros (`__gfx942__`, `__GFX9__`), or
        a macro they choose (`IS_CDNA3`)?"""
        if TARGET_MACRO.search(text):
            return True
        return any(
            self.chosen_by_target(word, seen)
            for word in set(_WORD.findall(text))
            if word in self._guards or word in self._bodies
        )

    def side_at(self, offset: int) -> Side | None:
        """The side of the innermost decided region holding the offset, else None (both platforms).

        Arms nest properly, so of the regions holding the offset the innermost starts last.
        """
        index = _innermost(self._region_spans, self._starts, self._regions_around, offset)
        return self.regions[index].side if index >= 0 else None

    def holds_for(
        self, node: tree_sitter.Node, env: Environment, constants: dict[str, int] | None = None
    ) -> bool | None:
        """Does every conditional arm around the node hold in `env` (the arm's own test, and in an
        `#elif`/`#else` no earlier test of its chain)? None where some test is unknown there.
        `constants` (the file's and its project's) give the other names their values
        (`#if CUDART_VERSION < CUDART_HMASK`)."""
        self._constants = constants or {}
        try:
            return self._holds_for(node, env)
        finally:
            self._constants = {}

    def _holds_for(self, node: tree_sitter.Node, env: Environment) -> bool | None:
        holds: bool | None = True
        child, parent = node, node.parent
        while parent is not None and holds is not False:
            if parent.type in _ARM_TYPES:
                alternative = parent.child_by_field_name("alternative")
                if (
                    alternative is not None
                    and alternative.start_byte == child.start_byte
                    and alternative.type == child.type
                ):
                    holds = _and(holds, _not(self._arm_test(parent, env)))
                else:
                    holds = _and(holds, self._arm_test(parent, env))
            child, parent = parent, parent.parent
        return holds

    def live_at(self, offset: int) -> dict[str, bool | None]:
        """Where the code at the offset is compiled, per environment (the innermost arm holding it)."""
        index = _innermost(self._arm_spans, self._arm_starts, self._arms_around, offset)
        return self._arms[index][2] if index >= 0 else {env.name: True for env in ENVIRONMENTS}

    def has_arm_only(self, live: str, dead: str) -> bool:
        """Does some arm compile for environment `live` and not for `dead` (an arm live_at can answer)?"""
        return any(arm[live] is True and arm[dead] is False for _, _, arm in self._arms)

    def pass_splits(self, constants: dict[str, int], known: dict[str, PassSplit] | None = None) -> dict[str, PassSplit]:
        """The file's warp widths defined apart for ROCm's device and host passes (PassSplit): in
        a device pass the name's value is that target's wavefront, in the host pass another. A
        constant defined from such a width (`constexpr int kRows = 128 / WARP;`, here or from
        `known`, the project headers' splits) splits with it."""
        data = self.source.data
        direct = self._direct_splits(constants) if self._arms and mentions_device_pass(data) else {}
        widths = {**(known or {}), **direct}
        if not widths:
            return {}
        device_values = {**constants, **{name: split.device for name, split in widths.items()}}
        host_values = {**constants, **{name: split.host for name, split in widths.items()}}
        derived = {}
        for match in constant_definition_matches(data):
            name, text = _definition(match)
            used = [widths[word] for word in re.findall(r"[A-Za-z_]\w*", text) if word in widths]
            if name in widths or not used or self._in_function(match.end()):
                continue  # a function's own constant is reported where it reads the width
            device, host = evaluate_definition(text, device_values), evaluate_definition(text, host_values)
            if device is not None and host is not None and device != host:
                derived[name] = PassSplit(device, host, used[0].target)
        return {**direct, **derived}

    def _in_function(self, offset: int) -> bool:
        node = self._root.descendant_for_byte_range(offset - 1, offset - 1) if self._root is not None else None
        return node is not None and enclosing(node, ("function_definition",)) is not None

    def _direct_splits(self, constants: dict[str, int]) -> dict[str, PassSplit]:
        values: dict[str, dict[str, set[int | None]]] = {}
        for match in constant_definition_matches(self.source.data):
            name, text = _definition(match)
            live = self.live_at(match.start())
            per_pass = values.setdefault(name, {})
            for env in (*DEVICE_PASSES, ROCM_HOST):
                if live[env.name] is not False:  # compiled there, or perhaps (an unknown value)
                    value = _definition_value(text, env, constants) if live[env.name] else None
                    per_pass.setdefault(env.name, set()).add(value)
        return {name: split for name, per_pass in values.items() if (split := _split(per_pass)) is not None}

    # -- walking the conditionals -------------------------------------------------------

    def _walk(self, root: tree_sitter.Node, skeleton: bool = False) -> None:
        """Conditionals and #defines in source order; each is live where its enclosing arm is.

        A flat pass over query results, not a recursion: real files nest deeply and the
        enclosing arm is found on a stack of open arms. A skeleton's (directive_skeleton) are
        found by a query of their own: the file's node index stays the file's tree's.
        """
        kinds = ("preproc_if", "preproc_ifdef", "preproc_def")
        found = (
            captures_apart(root) if skeleton else {kind: captures(f"({kind}) @n", root).get("n", []) for kind in kinds}
        )
        events = sorted((node for kind in kinds for node in found.get(kind, [])), key=lambda n: n.start_byte)
        # (end, live, guard) of enclosing arms; a guard is the arm's conditions as `#if` texts
        open_arms: list[tuple[int, dict[str, bool | None], tuple[str, ...]]] = []
        everywhere = {env.name: True for env in ENVIRONMENTS}
        for node in events:
            while open_arms and open_arms[-1][0] <= node.start_byte:
                open_arms.pop()
            outer, guard = (open_arms[-1][1], open_arms[-1][2]) if open_arms else (everywhere, ())
            if node.type == "preproc_def":
                self._record_macro(node, outer, guard)
                continue
            arms = self._conditional(node, outer, guard)
            self._arms.extend(arm[:3] for arm in arms)
            # arms do not overlap, so the one holding the next event is the innermost open one
            for _start, end, live, arm_guard in reversed(arms):
                open_arms.append((end, live, arm_guard))
            open_arms.sort(key=lambda arm: -arm[0])

    def _conditional(
        self, node: tree_sitter.Node, outer: dict[str, bool | None], outer_guard: tuple[str, ...] = ()
    ) -> list[tuple[int, int, dict, tuple[str, ...]]]:
        """One #if/#ifdef chain: each arm is live where the outer code is, its own test holds and no
        earlier one did; its guard says the same in `#if` texts."""
        earlier: dict[str, bool | None] = {env.name: False for env in ENVIRONMENTS}
        earlier_tests: list[str] = []
        arms = []
        endif = _endif_start(node)
        arm: tree_sitter.Node | None = node
        while arm is not None:
            own = {env.name: self._arm_test(arm, env) for env in ENVIRONMENTS}
            live = {name: _and(outer[name], _and(_not(earlier[name]), own[name])) for name in outer}
            body_start, body_end = _body_span(arm, endif)
            self._record_region(body_start, body_end, live)
            test = self._arm_text(arm)
            guard = (*outer_guard, *(f"!({t})" for t in earlier_tests), *((test,) if test != "1" else ()))
            arms.append((body_start, body_end, live, guard))
            earlier = {name: _or(earlier[name], own[name]) for name in earlier}
            earlier_tests.append(test)
            arm = arm.child_by_field_name("alternative")
        return arms

    def _arm_text(self, arm: tree_sitter.Node) -> str:
        """The arm's own test as an `#if` condition's text (`#ifdef X` is `defined(X)`)."""
        if arm.type == "preproc_else" or is_include_guard(arm, self.source.data):
            return "1"
        if arm.type in ("preproc_ifdef", "preproc_elifdef"):
            test = self._ifdef_test(arm)
            if test is None:
                return "1"
            name, negated = test
            return f"!defined({name})" if negated else f"defined({name})"
        condition = arm.child_by_field_name("condition")
        return self.source.text(condition.start_byte, condition.end_byte) if condition is not None else "1"

    def hip_reads_the_test(self, arm: tree_sitter.Node) -> bool:
        """Does some ROCm pass evaluate the `#if`/`#elif` arm's test: is the code around its chain
        compiled there, with no earlier arm of the chain taken? `#elif CUDART_VERSION >= X` after
        `#if defined(GGML_USE_HIP)` is NVIDIA's question alone."""
        head = chain_head(arm)
        earlier = []
        current: tree_sitter.Node | None = head
        while current is not None and current.start_byte < arm.start_byte:
            earlier.append(current)
            current = current.child_by_field_name("alternative")
        outer = self.live_at(head.start_byte)
        return any(
            outer[env.name] is not False and all(self._arm_test(other, env) is not True for other in earlier)
            for env in ENVIRONMENTS
            if env.rocm
        )

    def skipped_by_hip(self, arm: tree_sitter.Node | None) -> bool:
        """hip_skips_rightly, asked once per arm (each ROCm pass asks, ARC001 and ARC003)."""
        if arm is None:
            return False
        key = arm.start_byte
        if key not in self._fallbacks:
            self._fallbacks[key] = hip_skips_rightly(self.source.data, arm)
        return self._fallbacks[key]

    def _ifdef_test(self, arm: tree_sitter.Node) -> tuple[str, bool] | None:
        """(the name, whether the test is negated) of an `#ifdef`/`#ifndef` arm (`#elifdef` too)."""
        name = arm.child_by_field_name("name")
        if name is None:
            return None
        negated = self.source.data[arm.start_byte : name.start_byte].rstrip().endswith((b"ifndef", b"elifndef"))
        return self.source.text(name.start_byte, name.end_byte), negated

    def _arm_test(self, arm: tree_sitter.Node, env: Environment) -> bool | None:
        if arm.type == "preproc_else":
            return True
        if arm.type in ("preproc_if", "preproc_elif") and self.skipped_by_hip(arm):
            return False if env.rocm else None  # NVIDIA's for newer GPUs: maybe, on an unknown arch
        if arm.type in ("preproc_ifdef", "preproc_elifdef"):
            if is_include_guard(arm, self.source.data):
                return True  # `#ifndef X_H` / `#define X_H`: the header's body, compiled wherever it is included
            test = self._ifdef_test(arm)
            if test is None:
                return None
            name, negated = test
            defined = self._defined(name, env)
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

    def _record_macro(
        self, define: tree_sitter.Node, live: dict[str, bool | None], guard: tuple[str, ...] = ()
    ) -> None:
        """A project macro defined on one platform's side only takes its value from the side."""
        name_node, value_node = define.child_by_field_name("name"), define.child_by_field_name("value")
        if name_node is None:
            return
        name = self.source.text(name_node.start_byte, name_node.end_byte)
        text = self.source.text(value_node.start_byte, value_node.end_byte).strip() if value_node else "1"
        number = literal_value(re.sub(r"//.*|/\*.*", "", text).strip().strip("()").strip()) if text else 1
        self._record_body(name, text if number is None else None)
        if name not in self._own_definitions:  # the file's own definitions stand for the project's
            self._own_definitions.add(name)
            self._guards[name] = []
        self._guards[name].append((guard, number))
        values = self.macros.setdefault(name, {env.name: False for env in ENVIRONMENTS})
        for env in ENVIRONMENTS:
            if live[env.name] is True:
                values[env.name] = number if number is not None else None
            elif live[env.name] is None and values[env.name] is False:
                values[env.name] = None

    def _record_body(self, name: str, text: str | None) -> None:
        """A macro defined once with a condition's text is expanded where a condition names it."""
        if text is not None and name not in self._defined_before and CONDITION_BODY.search(text):
            self._bodies[name] = text
        else:
            self._bodies.pop(name, None)
        self._defined_before.add(name)

    def _expanded(self, name: str, env: Environment) -> int | None:
        """The value of a condition macro's body (`#if IS_CDNA`), as the preprocessor expands it."""
        body = self._bodies.get(name)
        if body is None or name in self._expanding:
            return None
        self._expanding.add(name)
        try:
            return self._evaluate_text(body, env)
        finally:
            self._expanding.discard(name)

    def _evaluate_text(self, text: str, env: Environment) -> int | None:
        """The value in `env` of a condition written apart from the file (a macro's body, a
        definition's guard), None where it does not parse as one."""
        expression = _condition_expression(text)
        if expression is None:
            return None
        # the evaluator reads node text from self.source: the text's own source while it evaluates
        outer_source, (self.source, node) = self.source, expression
        try:
            return self._evaluate(node, env)
        finally:
            self.source = outer_source

    def _for_target(self, name: str, env: Environment) -> tuple[bool | None, int | None] | None:
        """(defined, value) of a macro that AMD target macros choose, in the device pass of a target
        other than the two `macros` was recorded for (CDNA, RDNA): its definitions' conditions read
        again there, since gfx90a's pass does not define `__gfx942__`. None where the recorded
        reading stands."""
        if not env.rocm or not env.device or name in self._expanding:
            return None
        if any((env.gfx, env.wave) == (recorded.gfx, recorded.wave) for recorded in DEVICE_PASSES):
            return None
        if not self._defined_by_target(name):
            return None  # a body's test is read in each environment as it is expanded (_expanded)
        held, unknown = [], False
        self._expanding.add(name)
        try:
            for guard, value in self._guards[name]:
                holds = self._guard_holds(guard, env)
                unknown = unknown or holds is None
                if holds:
                    held.append(value)
        finally:
            self._expanding.discard(name)
        if unknown:
            return (None, None)
        values = set(held)
        return (bool(held), values.pop() if len(values) == 1 else None)

    def _guard_holds(self, guard: tuple[str, ...], env: Environment) -> bool | None:
        holds: bool | None = True
        for text in guard:
            if _condition_expression(text) is None:
                return None  # a condition porter cannot read: the guard is unknown
            value = self._evaluate_text(text, env)
            holds = _and(holds, None if value is None else value != 0)
            if holds is False:
                return False
        return holds

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
        if (held := self._for_target(name, env)) is not None:
            return held[0]
        if self._platform_macro(name) is not None:
            value = self.macros[name][env.name]
            return None if value is None else value is not False
        return self._left_undefined(name, env)

    def _left_undefined(self, name: str, env: Environment) -> bool | None:
        """False where the environment leaves the name undefined and the project defines it nowhere
        it has told of; else unknown."""
        return False if name in env.undefined and name not in self.macros else None

    def _value(self, name: str, env: Environment) -> int | None:
        known = env.value(name)
        if known is not None:
            return known
        if (held := self._for_target(name, env)) is not None:
            defined, value = held
            if not defined:
                return None if defined is None else 0  # an undefined name reads 0 in #if
            return value if value is not None else self._expanded(name, env)
        if self._platform_macro(name) is not None:
            value = self.macros[name][env.name]
            if value is False:
                return 0
            return None if value is None or value is True else int(value)
        expanded = self._expanded(name, env)
        if expanded is None and self._left_undefined(name, env) is False:
            return 0  # an undefined name reads 0 in #if
        return expanded if expanded is not None else self._constants.get(name)

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


def mentions_device_pass(data: bytes) -> bool:
    return any(word in data for word in _DEVICE_PASS_WORDS)


def _definition(match: re.Match) -> tuple[str, str]:
    """(name, value text) of a CONSTANT_DEFINITION match, a `constexpr` or a `#define`."""
    group = 1 if match.group(1) else 3
    return match.group(group).decode(), match.group(group + 1).decode("utf-8", "replace")


def constant_definitions(data: bytes) -> Iterable[tuple[int, str, str]]:
    """(offset, name, value text) of each constant the text defines (CONSTANT_DEFINITION)."""
    for match in constant_definition_matches(data):
        yield (match.start(), *_definition(match))


@lru_cache(maxsize=2)
def constant_definition_matches(data: bytes) -> tuple[re.Match[bytes], ...]:
    """CONSTANT_DEFINITION's matches in the text, found once for the several rules that read a
    file's definitions (six passes over each of flashinfer's generated kernels, thousands of
    definitions each). A bytes object's hash is kept, and the file's own bytes are the same object
    for every rule: a question costs a lookup.

    The pattern is tried only at the starts of the lines that can begin a match (_DEFINITION_LINE),
    in order, past the end of the last match: what finditer finds, where a pattern led by `^` under
    re.M is tried at every byte (half the time over flashinfer's headers, the same matches over
    338 MB of sources)."""
    found: list[re.Match[bytes]] = []
    end = 0
    for start in _definition_line_starts(data):
        if start >= end and (match := CONSTANT_DEFINITION.match(data, start)) is not None:
            found.append(match)
            end = match.end()
    return tuple(found)


# a line whose first non-blank byte may start a CONSTANT_DEFINITION: `#`, `static`, `inline`, `const`;
# led by the newline, which the regex engine finds by a fast scan
_DEFINITION_LINE = re.compile(rb"\n[ \t]*(?:#|static|inline|const)")


def _definition_line_starts(data: bytes) -> Iterable[int]:
    yield 0
    for line in _DEFINITION_LINE.finditer(data):
        yield line.start() + 1


def evaluate_definition(text: str, constants: dict[str, int]) -> int | None:
    """A definition's value text, its comments left out, as consteval evaluates it."""
    from porter.rules.consteval import evaluate

    return evaluate(_uncommented(text), constants)


def _uncommented(text: str) -> str:
    return re.sub(r"//.*|/\*.*?\*/", "", text).strip()


def _definition_value(text: str, env: Environment, constants: dict[str, int]) -> int | None:
    """A definition's value in one pass: the wavefront macros are the device pass's own width (the
    host pass's HOST_WAVEFRONT), `warpSize` the device pass's (no constant on the host), anything
    else what consteval makes of it."""
    from porter.rules.consteval import evaluate

    bare = _uncommented(text).strip("()").strip()
    if bare in _WAVEFRONT:
        return env.value(bare)
    if bare == "warpSize":
        return env.wave if env.device else None
    return evaluate(bare, constants)


def _split(per_pass: dict[str, set[int | None]]) -> PassSplit | None:
    """A split where the host pass has one known value and some device pass another, equal to that
    target's wavefront (the name follows the wavefront there: it is a warp width)."""
    host = per_pass.get(ROCM_HOST.name, set())
    if len(host) != 1 or None in host:
        return None
    host_value = next(iter(host))
    for env in DEVICE_PASSES:
        device = per_pass.get(env.name, set())
        if device == {env.wave} and host_value != env.wave:
            return PassSplit(env.wave, host_value, "gfx" + env.gfx)
    return None


# What only code compiled by HIP holds: its headers, and calls of its runtime (`hipMemcpy(`)
HIP_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*[<"]hip/')
# HIP's headers, or a call of its runtime: two patterns, each found by a fast scan for its lead
# (as one alternation, led by a lookbehind, the engine tried it at every byte: ggml's 237 sources
# cost 38 ms of the project's header pass)
_HIP_EVIDENCE = (HIP_INCLUDE, re.compile(rb"(?<![\w$])hip[A-Z]\w*[ \t]*\("))
_CUDA_EVIDENCE = re.compile(rb'#[ \t]*include[ \t]*[<"](?:cuda|cub/|thrust/|cooperative_groups)')
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif)\b[ \t]*(.*)$", re.M)
_DEFINED_ONE = re.compile(rb"defined[ \t]*\(?[ \t]*(\w+)[ \t]*\)?")
# names whose meaning is known: never learned as a project's ROCm marker
_NOT_LEARNED = re.compile(
    r"__cplusplus|__CUDA\w*|__NVCC__|__NVCOMPILER|__HIP\w*|USE_ROCM|_WIN32|_MSC_VER|__clang__|__GNUC__"
)


def learned_rocm_markers(sources: list[bytes], hip_headers: Collection[str] = ()) -> set[str]:
    """The project's own macros that mean "compiled by HIP", learned from its code, not its names:
    a macro whose defined arm (`#ifdef X`, `#if defined(X)`, `#ifndef X … #else`) includes HIP's
    headers, or one of `hip_headers` (the project's headers written for HIP, by file name:
    hip_written_headers), or calls HIP's runtime (mmcv's `MMCV_WITH_HIP`, which its setup.py
    defines for ROCm builds, guards `#include <hip/hip_runtime_api.h>`; llama.cpp's `GGML_USE_HIP`
    guards `#include "vendors/hip.h"`). Only the innermost conditional holding the
    evidence is credited, so `#ifdef __cplusplus` around it learns nothing; a macro whose defined
    arm holds CUDA's headers too (`#ifdef USE_GPU` over both) means a GPU build, not a ROCm one."""
    learned: set[str] = set()
    both: set[str] = set()
    for data in sources:
        if b"hip" not in data and not (hip_headers and b"include" in data):
            continue
        evidence = [m.start() for m in finditer_each(_HIP_EVIDENCE, data)]
        if hip_headers:
            evidence = sorted(evidence + _includes_of(data, hip_headers))
        if evidence:
            learned |= _markers_around(data, evidence)
            both |= _markers_around(data, [m.start() for m in _CUDA_EVIDENCE.finditer(data)])
    return {name for name in learned - both if not _NOT_LEARNED.fullmatch(name)}


def hip_written_headers(headers: Iterable[tuple[str, bytes]]) -> frozenset[str]:
    """The file names of the headers written for HIP (base.written_for_hip: HIP's headers, none of
    CUDA's), so that an arm that includes one is an arm for ROCm."""
    from porter.rules.base import written_for_hip

    return frozenset(name for name, data in headers if written_for_hip(data))


def _includes_of(data: bytes, names: Collection[str]) -> list[int]:
    """Where `data` includes one of the headers `names` (by file name)."""
    return [m.start() for m in INCLUDE_LINE.finditer(data) if file_name(m.group(2)) in names]


_INCLUDE_OR_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif|include)\b[ \t]*(.*)$", re.M)
_NOT_DEFINED_ONE = re.compile(rb"![ \t]*defined[ \t]*\(?[ \t]*(\w+)[ \t]*\)?")
_ONE, _NOT_ONE = re.compile(rb"(\w+)"), re.compile(rb"![ \t]*(\w+)")  # cupy's `#if CUPY_USE_HIP`


def header_sides(
    sources: list[bytes],
    headers: Collection[str],
    markers: Collection[str],
    is_toolkit: Callable[[str], bool],
    source_names: Sequence[str] | None = None,
) -> dict[str, Side]:
    """The project's headers (by file name) that every file including them includes in an arm for
    one platform: under the undefined arm of a ROCm marker (`#else` of `#if defined(GGML_USE_HIP)`,
    `#ifndef USE_ROCM`), CUDA_ONLY, so their code is not to be ported (llama.cpp's vendors/cuda.h);
    under its defined arm, ROCM, code written for HIP. `markers` are the project's learned ones,
    beside ROCM_MARKERS; `<cuda.h>` and the other headers `is_toolkit` names are CUDA's, whatever a
    project header of that name (`vendors/cuda.h`) is (asked only of such names: the tables load late).
    `source_names` are the sources' own file names: a header that includes its own name includes
    another file of that name (llama.cpp's vendors/musa.h includes the MUSA SDK's `<musa.h>`)."""
    known = frozenset(markers) | ROCM_MARKERS
    needles = [name.encode() for name in known]
    named = list(zip(sources, source_names or [None] * len(sources), strict=True))
    sided = [(data, own) for data, own in named if b"include" in data and any(n in data for n in needles)]
    found: dict[str, set[Side | None]] = {}
    for data, own in sided:
        for bracket, path, side in _include_sides(data, known):
            if (name := _project_header(bracket, path, headers, is_toolkit)) not in (None, own):
                found.setdefault(name, set()).add(side)
    # a header included for one platform here may be included unconditionally elsewhere
    candidates = {name for name, sides in found.items() if None not in sides}
    candidate_needles = [name.encode() for name in candidates]
    read = {id(data) for data, _ in sided}
    for data, own in named if candidates else ():
        if id(data) not in read and b"include" in data and any(needle in data for needle in candidate_needles):
            for match in INCLUDE_LINE.finditer(data):
                name = _project_header(match.group(1), match.group(2), candidates, is_toolkit)
                if name not in (None, own):
                    found[name].add(None)
    return {name: sides.pop() for name, sides in found.items() if len(sides) == 1 and None not in sides}


def _project_header(bracket: bytes, path: bytes, headers: Collection[str], is_toolkit) -> str | None:
    """The file name of the project header an include names, or None (`<cuda.h>` is CUDA's own)."""
    name = file_name(path)
    if name not in headers or (bracket == b"<" and is_toolkit(path.decode("utf-8", "replace"))):
        return None
    return name


def _include_sides(data: bytes, known: frozenset[str]):
    """(delimiter, path, side) of each `#include` in `data`: the platform its arms confine it to, or None."""
    # [marker, whether its first arm has it defined, past the first arm, whether later arms have it the other way]
    frames: list[list] = []
    for directive in _INCLUDE_OR_CONDITIONAL.finditer(data):
        kind, rest = directive.group(1), _without_comment(directive.group(2))
        if kind == b"include":
            included = INCLUDE_LINE.match(directive.group())
            if included is not None:
                yield included.group(1), included.group(2), _arm_side(frames)
        elif kind in (b"ifdef", b"ifndef", b"if"):
            marker, first, later = _tested_marker(kind, rest, known)
            frames.append([marker, first, False, later])
        elif kind == b"elif" and frames:
            frame = frames[-1]
            if frame[0] is None:  # `#if defined(MUSA) … #elif defined(GGML_USE_HIP) … #else`
                frame[0], frame[1], frame[3] = _tested_marker(b"if", rest, known)
            else:
                frame[2] = True
        elif kind == b"else" and frames:
            frames[-1][2] = True
        elif kind == b"endif" and frames:
            frames.pop()


def _without_comment(rest: bytes) -> bytes:
    return rest.split(b"//", 1)[0].split(b"/*", 1)[0].strip()


def _tested_marker(kind: bytes, rest: bytes, known: frozenset[str]) -> tuple[str | None, bool, bool]:
    """The ROCm marker a conditional's first arm tests, whether that arm has it defined, and whether
    the arms after it have it the other way: so where it is tested alone (`#ifdef X`, `#if X`,
    `#if !defined(X)`); a conjunction (`defined(X) && defined(RDNA3)`) decides its first arm only."""
    if kind in (b"ifdef", b"ifndef"):
        name = re.match(rb"\w+", rest)
        marker = name.group().decode() if name else None
        return (marker, kind == b"ifdef", True) if marker in known else (None, False, False)
    conjuncts = _top_level_conjuncts(rest)
    for conjunct in conjuncts:
        for pattern, defined in ((_NOT_DEFINED_ONE, False), (_DEFINED_ONE, True), (_NOT_ONE, False), (_ONE, True)):
            single = pattern.fullmatch(conjunct)
            if single is not None and single.group(1).decode() in known:
                return single.group(1).decode(), defined, len(conjuncts) == 1
    return None, False, False


def _top_level_conjuncts(condition: bytes) -> list[bytes]:
    """The parts of a condition joined by `&&` outside parentheses; the whole condition where an
    `||` stands outside them (or the parentheses do not balance)."""
    parts, depth, start = [], 0, 0
    for index, byte in enumerate(condition):
        depth += (byte == 0x28) - (byte == 0x29)
        if depth < 0:
            return [condition]
        if depth == 0 and condition.startswith(b"||", index):
            return [condition]
        if depth == 0 and condition.startswith(b"&&", index):
            parts.append(condition[start:index].strip())
            start = index + 2
    parts.append(condition[start:].strip())
    return parts if depth == 0 else [condition]


def _arm_side(frames: list[list]) -> Side | None:
    """CUDA_ONLY where an enclosing arm has a ROCm marker undefined, ROCM where one has it defined."""
    states = {first != past for marker, first, past, later in frames if marker is not None and (later or not past)}
    if states == {False}:
        return Side.CUDA_ONLY
    if states == {True}:
        return Side.ROCM
    return None


def _markers_around(data: bytes, evidence: list[int]) -> set[str]:
    found: set[str] = set()
    frames: list[list] = []  # [macro or None, whether the current arm is the macro's defined one]
    position = 0
    for directive in _DIRECTIVE.finditer(data):
        position = _credit(evidence, position, directive.start(), frames, found)
        kind, rest = directive.group(1), _without_comment(directive.group(2))
        if kind in (b"ifdef", b"ifndef"):
            name = re.match(rb"\w+", rest)
            frames.append([name and name.group().decode(), kind == b"ifdef"])
        elif kind == b"if":
            single = _DEFINED_ONE.fullmatch(rest)
            frames.append([single.group(1).decode() if single else None, True])
        elif kind == b"elif" and frames:
            frames[-1] = [None, False]
        elif kind == b"else" and frames:
            frames[-1][1] = not frames[-1][1]
        elif kind == b"endif" and frames:
            frames.pop()
    _credit(evidence, position, len(data), frames, found)
    return found


def _credit(evidence: list[int], position: int, end: int, frames: list[list], found: set[str]) -> int:
    """Credit the innermost conditional with the evidence between `position` and `end`; the next position."""
    at = bisect.bisect_left(evidence, position)
    if at < len(evidence) and evidence[at] < end and frames and frames[-1][0] and frames[-1][1]:
        found.add(frames[-1][0])
    return end


def marker_conditions(markers: set[str]) -> dict[str, dict[str, int | bool | None]]:
    """Learned markers as platform macros: undefined for CUDA, defined (1) wherever HIP compiles."""
    return {name: {env.name: (1 if env.rocm else False) for env in ENVIRONMENTS} for name in markers}


_PLATFORM_WORDS = (b"HIP", b"ROCM", b"ROCm", b"AMDGCN", b"AMDGPU", b"__gfx", b"__GFX", b"NVCC", b"NVCOMPILER")
_IF_ZERO = re.compile(rb"#\s*if\s+0\b")


def _may_guard_newer_ptx(data: bytes) -> bool:
    """Could the file hold an arm of newer NVIDIA PTX that HIP skips (hip_skips_rightly)?"""
    return b"__CUDA_ARCH__" in data and INLINE_ASM.search(data) is not None


def mentions_platform(data: bytes) -> bool:
    # the words by `in`, not one alternation: a regex whose alternatives lead differently is tried at every byte
    return any(word in data for word in _PLATFORM_WORDS) or _IF_ZERO.search(data) is not None


def _body_span(arm: tree_sitter.Node, endif: int | None = None) -> tuple[int, int]:
    """From the end of the arm's directive line to the start of the next arm, or to the chain's
    `#endif` (at `endif`, where known): a last `#else`'s node ends with its last child, and in a
    directive skeleton (directive_skeleton) it has none."""
    head = arm.child_by_field_name("condition") or arm.child_by_field_name("name")
    start = head.end_byte if head is not None else arm.start_byte + len("#else")
    alternative = arm.child_by_field_name("alternative")
    if alternative is not None:
        return start, alternative.start_byte
    return start, max(arm.end_byte, endif) if endif is not None else arm.end_byte


def _endif_start(conditional: tree_sitter.Node) -> int | None:
    """Where the `#endif` of a conditional chain (its first arm's node holds it) starts."""
    for child in reversed(conditional.children):
        if child.type == "#endif":
            return child.start_byte
    return None


INLINE_ASM = re.compile(rb"(?<![\w$])(?:asm|__asm__|__asm)(?:[ \t]+(?:volatile|__volatile__))?[ \t]*\(")
# `__CUDA_ARCH__ >= 1000`, blanks taken out, in parentheses or not: false in every pass of
# hip-clang, which defines no `__CUDA_ARCH__`, and so is any `&&` of which it is a term
_ARCH_LOWER_BOUND = re.compile(rb"\(?__CUDA_ARCH__>=?\d+\)?")


def hip_skips_rightly(data: bytes, arm: tree_sitter.Node | None) -> bool:
    """An `#if`/`#elif` arm that tests a lower bound of `__CUDA_ARCH__` around inline assembly,
    which hip-clang reads false and is right to skip, as no fix of porter's changes (ARC001's is a
    person's); the arm is NVIDIA's alone:
    - later arms in plain code, which hip-clang compiles, the only arms that can compile there (the
      assembly is PTX for a newer NVIDIA GPU): flashinfer's generated MoE kernels guard 576
      Blackwell `fma.rn.f32x2` blocks a file so, each with its scalar fallback. A fallback in PTX
      too (`st.global.cg` where the newer arm stores with `.release`) is the older GPU's
      semantics, which HIP would inherit: a person's call, so not this;
    - no later arm, and the assembly only instructions a HIP program loses nothing without
      (data/ptx.json's `dropped`): flashinfer's `griddepcontrol.wait` before every kernel's
      first load, for Hopper's programmatic dependent launch."""
    if arm is None or arm.type not in ("preproc_if", "preproc_elif"):
        return False
    condition, alternative = arm.child_by_field_name("condition"), arm.child_by_field_name("alternative")
    if condition is None or not _false_under_hip(data[condition.start_byte : condition.end_byte]):
        return False
    end = chain_end(arm)
    if alternative is None:
        return arm.type == "preproc_if" and _only_dropped_assembly(data[condition.end_byte : end])
    return (
        INLINE_ASM.search(data, condition.end_byte, alternative.start_byte) is not None
        and INLINE_ASM.search(data, alternative.start_byte, end) is None
        and _does_work(data[alternative.start_byte : end])
    )


def _false_under_hip(condition: bytes) -> bool:
    """Is the condition a lower bound of `__CUDA_ARCH__`, or an `&&` with one among its terms?"""
    return any(_ARCH_LOWER_BOUND.fullmatch(term) for term in _conjuncts(re.sub(rb"\s+", b"", condition)))


def _conjuncts(condition: bytes) -> list[bytes]:
    """The terms of a condition's top-level `&&` (blanks taken out), parentheses around the whole
    opened first: `(A&&(B>=9))` is A and (B>=9)."""
    while condition.startswith(b"(") and closing_of(condition, 0, ord("("), ord(")")) == len(condition) - 1:
        condition = condition[1:-1]
    terms, depth, start = [], 0, 0
    for index, char in enumerate(condition):
        depth += (char == ord("(")) - (char == ord(")"))
        if depth == 0 and condition.startswith(b"&&", index):
            terms.append(condition[start:index])
            start = index + 2
    return [*terms, condition[start:]]


# an asm statement's template strings, operands and clobbers, up to its `;`
_ASM_STATEMENT = re.compile(
    rb"\b(?:asm|__asm__|__asm)\s*(?:volatile|__volatile__)?\s*\(((?:[^;\"]|\"(?:[^\"\\]|\\.)*\")*)\)\s*;", re.S
)
_TEMPLATE_STRINGS = re.compile(rb'(?:\s*"(?:[^"\\]|\\.)*")+')  # the template: the strings before the first `:`


def _writes_an_operand(after_template: bytes) -> bool:
    """Does what follows an asm statement's template start with output operands (`: "=r"(x)`)?"""
    rest = after_template.lstrip()
    return rest.startswith(b":") and bool(rest[1:].split(b":", 1)[0].strip())


def _only_dropped_assembly(body: bytes) -> bool:
    """Does the arm's body hold asm statements alone (comments and directives aside), each with no
    output operand and only instructions a HIP program loses nothing without (a prefetch reads its
    address, and writes nothing)?"""
    from porter.rules.ptx import asm_template, classify, split_instructions

    statements = list(_ASM_STATEMENT.finditer(body))
    if not statements or _does_work(_ASM_STATEMENT.sub(b"", body)):
        return False
    for statement in statements:
        inside = statement.group(1)
        template = _TEMPLATE_STRINGS.match(inside)
        if template is None or _writes_an_operand(inside[template.end() :]):
            return False
        instructions = split_instructions(asm_template(template.group().decode("utf-8", "replace")))
        if not instructions or any((entry := classify(i)) is None or entry.dropped is None for i in instructions):
            return False
    return True


def chain_end(node: tree_sitter.Node) -> int:
    """The end of the whole `#if`…`#endif` chain that an arm, or an arm's condition, belongs to:
    its first arm's node holds the rest (and, in a directive skeleton, ends before the `#endif`)."""
    directive = chain_head(
        node if node.type in ("preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef") else node.parent
    )
    return max(directive.end_byte, _endif_start(directive) or 0)


def chain_head(arm: tree_sitter.Node) -> tree_sitter.Node:
    """The `#if`/`#ifdef` that opens the chain an arm belongs to: its node holds the later arms."""
    while arm.parent is not None and arm.type in ("preproc_elif", "preproc_else", "preproc_elifdef"):
        arm = arm.parent
    return arm


# what a stub arm holds: comments, directives, `(void)x;` casts, traps and asserts
_STUB_PARTS = re.compile(
    rb"//[^\n]*|/\*.*?\*/|^[ \t]*#[^\n]*|\(\s*void\s*\)\s*\w+\s*;"
    rb"|\b(?:__trap|__builtin_trap|__builtin_unreachable|abort|assert|printf)\s*\([^;]*\)\s*;|[\s;{}]",
    re.S | re.M,
)


def _does_work(fallback: bytes) -> bool:
    """Does a fallback arm hold code, not a stub (`(void)a0; … (void)scale_b;`, flashinfer's SM120
    NVFP4 MMA before SM120: its result is never computed)? HIP taking a stub is a person's call."""
    return bool(_STUB_PARTS.sub(b"", fallback))


def _side(live: dict[str, bool | None]) -> Side | None:
    cuda, cdna, rdna = live[CUDA.name], live[CDNA.name], live[RDNA.name]
    if cuda is False and cdna is False and rdna is False:
        return Side.DEAD
    if cdna is False and rdna is False:
        return Side.CUDA_ONLY  # the project's markers keep ROCm out (what NVIDIA compiles may be unknown)
    if cuda is False and cdna is not False:  # never NVIDIA's: HIP code, for CDNA at least perhaps
        return Side.ROCM
    if cuda is False and cdna is False:
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


__all__ = ["CONDITION_BODY", "CONSTANT_DEFINITION", "Branches", "PassSplit", "ProjectConditions", "Side"]
