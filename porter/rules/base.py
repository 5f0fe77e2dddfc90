"""What a rule is: its id, category, severity, fix kind and documentation, as data.

`porter rules ID`, the SARIF rule metadata and the HTML report all read the same Rule object,
so there is one copy of each rule's documentation, next to the logic that implements it.

A rule *family* is a module in porter/rules/ that declares its RULES and one `check`
function (plus, optionally, `wants_clang` and `check_clang` for the libclang layer).
"""

from __future__ import annotations

import re
import textwrap
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, TypeVar

from porter.findings import Edit, Engine, Finding, FixKind, Severity
from porter.rules.consteval import evaluate, named_value
from porter.rules.device import int_value, literal_value
from porter.rules.project import ProjectFacts
from porter.source import SNIPPET_BYTES, FileKind

T = TypeVar("T")

if TYPE_CHECKING:
    from porter.config import Config
    from porter.parse import ParsedFile
    from porter.rules.tables import Tables


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    category: str
    severity: Severity
    fix: FixKind
    summary: str
    what: str
    why: str
    example: str
    use_instead: str
    references: tuple[str, ...] = ()
    # what the construct needs has no AMD counterpart (TMA, cuDNN, PTX without a translation, ...):
    # a build failure where such a finding stands is an unsupported feature, not porter's error
    unsupported_on_amd: bool = False
    # the rule finds wave32 assumptions, which are bugs in HIP code too: it also runs over the
    # project's own ROCm branches and existing HIP ports, where CUDA-to-HIP rules stay silent
    audits_hip: bool = False
    # the rule finds 64-lane assumptions (porter.rules.wave32): its findings stand in code compiled
    # for RDNA alone, where every other rule's fall away
    breaks_wave32: bool = False
    # the generated compat header carries the fix (a declaration HIP lacks): a converted file where
    # such a finding stands includes the header, whatever else it needs
    fixed_by_compat_header: bool = False

    def explain(self) -> str:
        """The rule's documentation in Markdown, with ruff's fixed headings."""
        parts = [
            f"# {self.id} {self.name}",
            f"category: {self.category} · severity: {self.severity} · fix: {self.fix}",
            f"## What it does\n{_dedent(self.what)}",
            f"## Why is this bad on AMD?\n{_dedent(self.why)}",
            f"## Example\n```cuda\n{_dedent(self.example)}\n```",
            f"## Use instead\n{_dedent(self.use_instead)}",
        ]
        if self.references:
            parts.append("## References\n" + "\n".join(f"- {r}" for r in self.references))
        return "\n\n".join(parts) + "\n"

    def finding(
        self,
        ctx: FileContext,
        start: int,
        end: int,
        message: str,
        *,
        edits: tuple[Edit, ...] = (),
        engine: Engine = Engine.TREE_SITTER,
        severity: Severity | None = None,
        fix: FixKind | None = None,
    ) -> Finding:
        source = ctx.source
        span = source.span(start, end)
        if (fix or self.fix) is FixKind.MANUAL:
            edits = ()  # work for a person carries no edit that a rewriter could apply
        return Finding(
            rule=self.id,
            category=self.category,
            severity=severity or self.severity,
            fix=fix or self.fix,
            message=message,
            file=source.rel,
            span=span,
            engine=engine,
            edits=edits,
            snippet=source.line_text(span.line, SNIPPET_BYTES).strip()[:200],
        )


def _dedent(text: str) -> str:
    return textwrap.dedent(text).strip()


COMPAT_HEADER = "porter_compat.h"
WMMA_HEADER = "porter_wmma.h"  # nvcuda::wmma on MFMA, written beside the compat header where a tree uses it
CMAKE_MODULE = "porter_gpu.cmake"  # convert writes it at the root of a portable tree with CMake files
CUDA_INCLUDE = re.compile(rb"#\s*include\s*[<\"](?:cuda|cub/|thrust/|cooperative_groups|mma\.h|crt/)")


def written_for_hip(data: bytes) -> bool:
    """Does the text include HIP's runtime and nothing of CUDA's?"""
    from porter.rules.branches import HIP_INCLUDE

    return HIP_INCLUDE.search(data) is not None and CUDA_INCLUDE.search(data) is None


COMPAT_INCLUDE = re.compile(rb'#\s*include\s*"(?:[^"]*/)?porter_compat\.h"')


@dataclass
class FileContext:
    """Everything a rule may look at for one file."""

    parsed: ParsedFile
    config: Config
    tables: Tables
    notes: list[str] = field(default_factory=list)
    # integer constants of the project's headers (porter.rules.consteval.header_constants)
    project_constants: dict[str, int] = field(default_factory=dict)
    # macros of the project's headers that expand to __device__ or __global__ (consteval.specifier_macros)
    project_specifiers: dict[str, str] = field(default_factory=dict)
    # functions and macros of the project's headers whose result is a vote (porter.rules.votes)
    project_votes: frozenset[str] = frozenset()
    # the project's headers that define CUDA names as HIP's (porter.rules.names.ShimIndex)
    project_shims: object = None
    # warp widths the project's headers define apart for ROCm's device and host passes (branches.PassSplit)
    project_width_splits: dict = field(default_factory=dict)
    # the platform and condition macros of the project's headers (branches.ProjectConditions)
    project_conditions: object = None
    # kernels the project's files launch with blocks 32 threads wide: name -> one row (block_rows)
    project_row_launches: dict[str, bool] = field(default_factory=dict)
    project_header_sides: dict = field(default_factory=dict)  # file name -> branches.Side: included for one platform
    # the project's headers' macros that paste an API name: name -> macros.Macro (api.project_pasting_macros)
    project_pasting_macros: dict = field(default_factory=dict)
    # a width of 32 the project keeps as its warp beside the wavefront it asks for (logical_warp.LogicalWarp)
    project_logical_warp: object = None
    # functions of the project's headers that hold a warp operation (porter.rules.within_rows)
    project_warp_functions: frozenset[str] = frozenset()
    # functions that kernels of 32-thread blocks call: name -> (kernel, its file's name) (block_rows)
    project_row_callers: dict = field(default_factory=dict)
    # each header constant defined once from others -> its text (consteval.HeaderConstants.formulas)
    project_formulas: dict = field(default_factory=dict)
    # every name the project's headers define, its value known or not (HeaderConstants.defined)
    project_defined: frozenset[str] = frozenset()
    # the headers' macros that carry HIP's `warpSize` -> those of them whose definitions write it
    # (HeaderConstants.warpsize_carriers)
    project_warpsize_carriers: dict[str, frozenset[str]] = field(default_factory=dict)
    # header constants this file took as left as written that the project widens after all, known
    # when the scan reads the file a second time (porter.rules.project: assumptions)
    project_widened: frozenset[str] = frozenset()
    # what the file tells about the whole project (porter.rules.project): settled across the scan
    project: ProjectFacts = field(default_factory=ProjectFacts)
    _values: dict[str, int | None] = field(default_factory=dict, repr=False)  # value_of's answers by text
    _facts: dict[str, object] = field(default_factory=dict, repr=False)  # once()'s answers by key

    @cached_property
    def source(self):  # read at nearly every site a rule looks at: kept, not looked up through `parsed`
        return self.parsed.source

    @cached_property
    def portable(self) -> bool:
        """Does the file include porter's compat header (a portable port already)?"""
        return COMPAT_INCLUDE.search(self.source.data) is not None

    @cached_property
    def written_for_hip(self) -> bool:
        """A .hip file, or one that includes HIP's runtime and nothing of CUDA's: code its authors
        wrote for HIP, not a CUDA source to port."""
        return self.source.kind is FileKind.HIP or written_for_hip(self.source.data)

    @cached_property
    def hip_shims(self) -> frozenset[str]:
        """The CUDA names the file, or a project header it reaches, maps onto HIP's itself
        (porter.rules.names.ShimIndex): renaming or enabling them for HIP is the project's own work."""
        from porter.rules.names import hip_shims

        index = self.project_shims
        data = self.source.data
        return hip_shims(data) | (index.reachable_from(data) if index else frozenset())

    @cached_property
    def device(self):
        from porter.rules.device import DeviceFacts

        # through a weak reference: a closure over the context would make a cycle (the context holds
        # its device facts), left for the collector instead of freed as the file's analysis ends
        context = weakref.ref(self)
        return DeviceFacts(
            self.source,
            self.parsed.root,
            lambda: context().shared_constants,
            self.project_specifiers,
            self.project_votes,
        )

    @cached_property
    def branches(self):
        from porter.rules.branches import Branches

        return Branches(self.source, self.parsed.root, self.project_conditions)

    @cached_property
    def shared_constants(self) -> dict[str, int]:
        from porter.rules.consteval import file_constants

        branches = self.branches
        per_platform = (lambda offset: branches.side_at(offset) is not None) if branches.regions else None
        return file_constants(
            self.source, self.parsed.root, self.project_constants, per_platform, self.constant_definitions
        )

    @cached_property
    def constant_definitions(self) -> list[tuple[int, str, str]]:
        """(where, name, value as written) of the file's constants (porter.rules.consteval)."""
        from porter.rules.consteval import constant_definitions

        return constant_definitions(self.source, self.parsed.root) if self.parsed.root is not None else []

    @cached_property
    def struct_sizes(self) -> dict[str, int]:
        """Bytes of the plain structs the file defines (porter.rules.consteval.struct_sizes)."""
        from porter.rules.consteval import struct_sizes

        return struct_sizes(self.source, self.parsed.root, self.shared_constants)

    def value_of(self, node) -> int | None:
        """The integer value of an expression node: a literal, or arithmetic over known constants."""
        if node is None:
            return None
        kind = node.type
        if kind == "number_literal":  # the common cases first, read without a second look at the node
            literal = literal_value(self.source.text(node.start_byte, node.end_byte))
            if literal is not None:
                return literal
        elif kind == "identifier" and node.end_byte - node.start_byte <= 200:
            return named_value(self.source.text(node.start_byte, node.end_byte), self.shared_constants)
        literal = int_value(node, self.source)
        if literal is not None:
            return literal
        if node.end_byte - node.start_byte > 200 or node.type in ("string_literal", "char_literal"):
            return None
        text = self.source.text(node.start_byte, node.end_byte)
        if node.type == "identifier":  # the common case: one name, looked up without parsing
            return named_value(text, self.shared_constants)
        if text not in self._values:  # the same operand recurs across a file's expressions
            self._values[text] = evaluate(text, self.shared_constants)
        return self._values[text]

    def once(self, key: str, compute: Callable[[], T]) -> T:
        """A per-file fact a rule asks for at many sites, worked out at the first: `key` is the rule's own name for it."""
        if key not in self._facts:
            self._facts[key] = compute()
        return self._facts[key]  # type: ignore[return-value]

    @cached_property
    def asm_statements(self):
        from porter.rules.ptx import asm_statements

        return asm_statements(self.source, self.parsed.root)

    @property
    def wave64_targets(self) -> list[str]:
        from porter.targets import wave64_targets

        return [t.id for t in wave64_targets(self.config.targets)]

    @property
    def wave32_targets(self) -> list[str]:
        from porter.targets import known

        return [t.id for t in known(self.config.targets) if t.is_amd and not t.wave64]

    @cached_property
    def table_hits(self):
        from porter.rules.names import find_table_names

        return find_table_names(self)
