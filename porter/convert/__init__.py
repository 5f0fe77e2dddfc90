"""`porter convert`: scan, then apply every rule's edits through the one rewriter.

- portable (default): the output is still CUDA source. A generated porter_compat.h maps what the
  tree uses onto HIP under PORTER_HIP, CUDA headers become `#if defined(PORTER_HIP)` blocks,
  and the semantic fixes (warp size, lane masks, PTX, arch guards, ...) are applied.
- hip: a HIP tree: hip* names and headers, .cu files renamed .hip, the same semantic fixes.

Conversion is idempotent: a converted tree includes the compat header, and the rules report
nothing the header already covers, so a second conversion changes nothing.
"""

from __future__ import annotations

import difflib
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from porter import __version__
from porter.config import Config
from porter.convert import buildfiles
from porter.convert.compat import (
    existing_names,
    existing_packages,
    name_map,
    render_cmake,
    render_header,
    render_wmma_header,
)
from porter.convert.output import (
    MARKER,
    OutputError,
    TreePlan,
    check_backup_suffix,
    check_destination,
    check_placement,
    locked,
    write_in_place,
    write_tree,
)
from porter.discover import ALWAYS_SKIPPED_DIRS, GENERATED_FILES
from porter.findings import Edit, Finding
from porter.parse import include_point, parse
from porter.rewrite import applicable, edits_for_mode, rewrite
from porter.rules import fixed_by_compat_header
from porter.rules.base import CMAKE_MODULE, COMPAT_HEADER, COMPAT_INCLUDE, WMMA_HEADER
from porter.rules.build import cmake_packages
from porter.rules.consteval import stand_ins
from porter.rules.matrix import wmma_header_needed
from porter.rules.tables import load_tables
from porter.scan import ScanResult, cycles_uncollected, scan
from porter.source import FileKind, SourceFile

COMPAT_CATEGORIES = ("api", "library", "warp-sync", "warp-size", "lane-mask", "launch-bounds", "inline-asm")
# Device code under hipcc needs hip_runtime.h, which the compat header brings (as hipify adds it).
DEVICE_CODE = re.compile(rb"__global__|__device__|__shared__|threadIdx|blockIdx")
ANNOTATION = re.compile(rb"PORTER\((\w+)\)")

__all__ = ["ConvertOptions", "ConvertResult", "OutputError", "convert", "convert_source"]


@dataclass
class ConvertOptions:
    src: Path
    out: Path | None
    mode: str = "portable"
    in_place: bool = False
    backup_suffix: str = ".orig"
    annotate: bool = False
    diff: bool = False
    jobs: int | None = None
    use_cache: bool = False
    force: bool = False  # replace an earlier output even where it holds changes porter did not write
    unsafe_fixes: bool = False  # also apply the edits of suggested findings (never silently: they are counted)


@dataclass
class FileOutcome:
    rel: str
    out_rel: str
    changed: bool
    applied: list[Finding] = field(default_factory=list)
    conflicts: list[Finding] = field(default_factory=list)
    left: list[Finding] = field(default_factory=list)  # manual and suggested findings
    diff: str = ""
    data: bytes | None = field(default=None, repr=False)  # the converted bytes, when changed


@dataclass
class ConvertResult:
    options: ConvertOptions
    scan: ScanResult
    files: list[FileOutcome]
    written_to: Path
    skipped: dict[str, str] = field(default_factory=dict)  # rel → why it was not copied to OUT

    def summary(self) -> dict:
        applied = [f for o in self.files for f in o.applied]
        left = [f for o in self.files for f in o.left]
        return {
            "mode": self.options.mode,
            "output": str(self.written_to),
            "files_scanned": len(self.scan.files),
            "files_changed": sum(1 for o in self.files if o.changed),
            "fixes_applied": len(applied),
            "fixes_by_category": dict(sorted(Counter(f.category for f in applied).items())),
            "conflicts": [
                {"file": f.file, "line": f.line, "rule": f.rule, "message": f.message}
                for o in self.files
                for f in o.conflicts
            ],
            "not_copied": dict(sorted(self.skipped.items())),
            "left_for_a_person": len(left),
            "left_by_rule": dict(sorted(Counter(f.rule for f in left).items())),
        }

    def to_json(self) -> dict:
        return {
            "porter_version": __version__,
            "summary": self.summary(),
            "files": [
                {
                    "file": o.rel,
                    "output": o.out_rel,
                    "changed": o.changed,
                    "applied": [f.to_json() for f in o.applied],
                    "conflicts": [f.to_json() for f in o.conflicts],
                    "left": [f.to_json() for f in o.left],
                }
                for o in self.files
            ],
        }


def convert(options: ConvertOptions, config: Config, progress=None) -> ConvertResult:
    src = options.src
    if not src.is_dir():
        raise OutputError(f"{src}: convert takes a directory")
    if options.in_place:
        check_backup_suffix(options.backup_suffix)
    elif options.out is None:
        raise OutputError("an output directory is required (-o OUT), or --in-place")
    destination = src if options.in_place else options.out
    if not options.in_place:
        check_placement(src, destination)
    with locked(destination):
        if not options.in_place:
            check_destination(src, destination, options.mode, options.force)
        with cycles_uncollected():  # the scan's, and the rewriting of its findings after it
            return _convert_locked(options, config, progress, destination)


def _convert_locked(options: ConvertOptions, config: Config, progress, destination: Path) -> ConvertResult:
    src = options.src
    # uncapped: every automatic fix must be applied, however many a file has
    result = scan([src], config, jobs=options.jobs, progress=progress, use_cache=options.use_cache, cap=None)
    findings = result.findings  # sorted at each read: read once
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        by_file.setdefault(finding.file, []).append(finding)
    sources = {r.rel: SourceFile.read(src / r.rel, r.rel, _kind(r.kind)) for r in result.files if not r.error}
    data_by_file = {rel: s.data for rel, s in sources.items()}
    names = existing_names(src / COMPAT_HEADER) if options.mode == "portable" else {}
    names.update(name_map(findings, data_by_file, options.unsafe_fixes) if options.mode == "portable" else {})
    include_points = {r.rel: r.include_point for r in result.files}
    outcomes = [
        _convert_file(sources[rel], by_file.get(rel, []), options, config, include_points.get(rel))
        for rel in sorted(sources)
    ]
    needs_compat = any(o.changed for o in outcomes) or (src / COMPAT_HEADER).is_file()
    generated = {COMPAT_HEADER: render_header(names, config.targets).encode()} if needs_compat else {}
    applied = (f for f in findings if applicable(f, options.unsafe_fixes))
    if wmma_header_needed(applied) or (src / WMMA_HEADER).is_file():  # an earlier port's, written again
        generated[WMMA_HEADER] = render_wmma_header().encode()
    cmake_changed = any(o.rel.endswith(("CMakeLists.txt", ".cmake")) and o.changed for o in outcomes)
    if options.mode == "portable" and (cmake_changed or (src / CMAKE_MODULE).is_file()):
        packages = cmake_packages(findings, load_tables().libraries) + existing_packages(src / CMAKE_MODULE)
        generated[CMAKE_MODULE] = render_cmake(config.targets, packages).encode()
    changed = {o.out_rel: o.data for o in outcomes if o.changed}
    skipped: dict[str, str] = {}
    if options.in_place:
        renamed = {o.rel: o.out_rel for o in outcomes if o.out_rel != o.rel}
        write_in_place(src, {**changed, **generated}, options.backup_suffix, set(generated), renamed)
    else:
        plan = _plan(src, outcomes, changed, generated, options.mode, config.targets)
        write_tree(
            destination, plan, {"porter_version": __version__, "source": str(src.resolve()), "mode": options.mode}
        )
        skipped = plan.skipped
    return ConvertResult(options, result, outcomes, destination, skipped)


def convert_source(source: SourceFile, findings: list[Finding], mode: str, config: Config) -> bytes:
    """One file's converted bytes (its own encoding kept), as `convert` writes them, without a tree."""
    outcome = _convert_file(source, findings, ConvertOptions(source.path.parent, None, mode), config)
    return outcome.data if outcome.changed and outcome.data is not None else source.encode_back(source.data)


def _kind(kind: str) -> FileKind:
    return FileKind(kind)


def _out_rel(rel: str, mode: str) -> str:
    if mode == "hip" and rel.endswith(".cu"):
        return rel[: -len(".cu")] + ".hip"
    return rel


def _convert_file(
    source: SourceFile, findings: list[Finding], options: ConvertOptions, config: Config, include_at: int | None = None
) -> FileOutcome:
    mode = options.mode
    extra: list[tuple[Finding | None, Edit]] = []
    left = [f for f in findings if not applicable(f, options.unsafe_fixes)]
    if source.kind.is_c_family and _needs_compat(source, findings, mode, options.unsafe_fixes):
        extra.append((None, _compat_include(source, include_at)))
    if options.annotate and source.kind is not FileKind.PYTHON:  # a note there would be Python, or change a string
        extra += _annotations(source, left)
    result = rewrite(source.data, findings, mode, extra, options.unsafe_fixes)
    data = result.data
    if mode == "hip" and source.kind in (FileKind.CMAKE, FileKind.SETUP_PY):
        data = buildfiles.rename_cu_sources(data)
    out_rel = _out_rel(source.rel, mode)
    outcome = FileOutcome(
        rel=source.rel,
        out_rel=out_rel,
        changed=data != source.data or out_rel != source.rel,
        applied=result.applied,
        conflicts=result.conflicts,
        left=left,
    )
    if outcome.changed:
        outcome.data = source.encode_back(data)
        if options.diff:
            outcome.diff = _diff(source, data, out_rel)
    return outcome


def _needs_compat(source: SourceFile, findings: list[Finding], mode: str, unsafe_fixes: bool = False) -> bool:
    """Will the converted file use a name the compat header defines (or need hip_runtime.h)?"""
    if COMPAT_INCLUDE.search(source.data):
        return False
    # portable mode makes the hip-mode renames through the header's name map, so they count there too
    uses_compat = any(
        f.category in COMPAT_CATEGORIES
        and applicable(f, unsafe_fixes)
        and (f.edits if mode == "portable" else edits_for_mode(f, mode))
        for f in findings
    )
    header_fixes = any(fixed_by_compat_header(f) for f in findings)
    return uses_compat or header_fixes or (source.kind is FileKind.CUDA and DEVICE_CODE.search(source.data) is not None)


def _compat_include(source: SourceFile, offset: int | None) -> Edit:
    """`#include "…/porter_compat.h"` before the file's first include (or its first line of code);
    `offset`, where scan found that point (None: parse the file to find it)."""
    path = "../" * source.rel.count("/") + COMPAT_HEADER  # `rel` is a POSIX path in the tree, without `..`
    line = f'#include "{path}"{source.newline}'.encode()
    if offset is None:
        offset = include_point(parse(source, stand_ins(source.data)))
    return Edit(offset, offset, line)


def _annotations(source: SourceFile, left: list[Finding]) -> list[tuple[Finding, Edit]]:
    """Insertions: a `// PORTER(ID): message` line above each finding left for a person.

    Inside a multi-line macro a line comment would end the macro, so there the note becomes a
    block comment before the line's backslash. A note already there (from an earlier
    conversion) is not added again.
    """
    data = source.data
    lines = data.split(b"\n")
    starts = source.line_starts
    edits: list[tuple[Finding, Edit]] = []
    seen: set[tuple[int, str]] = set()
    for finding in sorted(left, key=lambda f: (f.line, f.rule)):
        index = finding.line - 1
        if index >= len(lines) or (index, finding.rule) in seen:
            continue
        seen.add((index, finding.rule))
        tag = f"PORTER({finding.rule})".encode()
        if tag in lines[index] or any(tag in line for line in _notes_above(lines, index)):
            continue
        message = re.sub(r"\s+", " ", finding.message).replace("*/", "* /")
        note = f"PORTER({finding.rule}): {message}".encode("utf-8", "replace")
        line = lines[index]
        body = line.rstrip(b"\r")
        if source.kind in (FileKind.CMAKE, FileKind.SETUP_PY):
            indent = re.match(rb"[ \t]*", line).group()
            newline = b"\r\n" if line.endswith(b"\r") else b"\n"
            edits.append((finding, Edit(starts[index], starts[index], indent + b"# " + note + newline)))
        elif body.endswith(b"\\") or (index > 0 and lines[index - 1].rstrip(b"\r").endswith(b"\\")):
            at = starts[index] + (len(body) - 1 if body.endswith(b"\\") else len(body))
            edits.append((finding, Edit(at, at, b" /* " + note + b" */ ")))
        else:
            indent = re.match(rb"[ \t]*", line).group()
            newline = b"\r\n" if line.endswith(b"\r") else b"\n"
            edits.append((finding, Edit(starts[index], starts[index], indent + b"// " + note + newline)))
    return edits


def _notes_above(lines: list[bytes], index: int) -> list[bytes]:
    notes = []
    while index > 0 and lines[index - 1].lstrip().startswith((b"// PORTER(", b"# PORTER(")):
        index -= 1
        notes.append(lines[index])
    return notes


def _diff(source: SourceFile, data: bytes, out_rel: str) -> str:
    before = source.data.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    after = data.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    return "".join(difflib.unified_diff(before, after, f"a/{source.rel}", f"b/{out_rel}"))


def _plan(src: Path, outcomes, changed: dict[str, bytes], generated: dict[str, bytes], mode: str, targets) -> TreePlan:
    plan = TreePlan()
    renamed = {o.rel: o.out_rel for o in outcomes}
    for dirpath, dirnames, filenames in os.walk(src, followlinks=False):
        here = Path(dirpath)
        dirnames[:] = sorted(
            d for d in dirnames if d not in ALWAYS_SKIPPED_DIRS and not _is_outside_link(here / d, src, plan)
        )
        for name in sorted(filenames):
            path = here / name
            rel = path.relative_to(src).as_posix()
            if name == MARKER or (name in GENERATED_FILES and here == src):
                continue
            if path.is_symlink():
                _plan_link(path, src, rel, plan)
                continue
            if not path.is_file():  # a named pipe, a socket, a device: nothing to copy, and reading one may block
                plan.skipped[rel] = "not a regular file"
                continue
            out_rel = renamed.get(rel, rel)
            if out_rel in changed:
                plan.files[out_rel] = changed[out_rel]
                plan.modes[out_rel] = path.stat().st_mode
            else:
                plan.copies[out_rel] = path
            if buildfiles.is_makefile(path):
                variant = buildfiles.hipcc_makefile(path.read_bytes(), targets, mode)
                if variant is not None:
                    plan.files[rel + ".hip" if mode == "portable" else rel] = variant
    plan.files.update(generated)
    return plan


def _is_outside_link(path: Path, src: Path, plan: TreePlan) -> bool:
    if not path.is_symlink():
        return False
    _plan_link(path, src, path.relative_to(src).as_posix(), plan)
    return True


def _plan_link(path: Path, src: Path, rel: str, plan: TreePlan) -> None:
    """Links inside the tree are kept as links; links out of it, and loops, are dropped, never followed."""
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):  # a loop, or a link to nothing
        plan.skipped[rel] = "a link that leads nowhere (a loop or a missing target)"
        return
    root = src.resolve()
    if target == root or root in target.parents:
        plan.links[rel] = os.path.relpath(target, path.parent.resolve())
    else:
        plan.skipped[rel] = "a link out of the tree"
