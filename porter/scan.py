"""The scan pipeline: discover → parse → analyze (rules, deepened by libclang) → results.

Files are analysed in parallel, one process per core. A file that cannot be read, or a rule
that fails on one file, becomes a per-file error in the results; the run goes on.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import os
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from porter import __version__, clang
from porter import cache as scan_cache
from porter.config import Config
from porter.discover import DiscoveredFile, Discovery, TorchExtension, discover, find_torch_extensions
from porter.embedded import device_source
from porter.findings import Finding
from porter.parse import ParsedFile, error_count, include_point, parse, warm_queries
from porter.rules import FAMILIES, FileContext, on_ported_platform, scan_limits
from porter.rules.branches import header_sides, hip_written_headers, learned_rocm_markers
from porter.rules.consteval import (
    HEADER_SUFFIXES,
    HeaderConstants,
    HeaderTexts,
    header_constants,
    stand_ins,
    warp_function_names,
)
from porter.rules.embedded import hold_fixes
from porter.rules.project import (
    ProjectFacts,
    block_limit_keys,
    row_width_keys,
    settle,
    settled_keys,
    widened_assumptions,
)
from porter.rules.tables import load_tables
from porter.rules.within_rows import reached_warp_functions
from porter.source import FileKind, SourceFile, UndecodableSource
from porter.suppress import apply_suppressions

UNREADABLE_PREFIXES = ("cannot read", "cannot decode")
BINARY_PROBE = 8192  # bytes looked at for NULs (git and grep look at as many)
# A process pool pays off where the other workers can take this many bytes off the busiest one:
# on two cores torch-scatter's 27 files (108 KB) scan in the same wall time either way, llama.cpp's
# ggml-cuda (1.1 MB) in 1.25 s with the pool and 1.7 s without. What can be taken off counts, not
# how many files there are: flashinfer's generated MoE kernels are 14 files of 6 MB.
PARALLEL_BYTES = 192 * 1024


class Deep(StrEnum):
    """When to run libclang: only where a rule asks for it, always, or never."""

    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


@dataclass
class FileResult:
    rel: str
    kind: str
    lines: int = 0
    size: int = 0
    findings: list[Finding] = field(default_factory=list)
    parse_errors: int = 0
    clang: str = "not-needed"  # not-needed | parsed | failed | unavailable
    clang_detail: str = ""
    error: str | None = None
    torch_extensions: list[TorchExtension] = field(default_factory=list)
    suppressed: list[Finding] = field(default_factory=list)
    kernels: list[dict] = field(default_factory=list)  # {name, line, end_line}
    include_point: int | None = None  # where convert puts its first include (parse.include_point)
    project: ProjectFacts = field(default_factory=ProjectFacts)  # settled with the other files' (settle_project)


@dataclass
class ScanResult:
    root: Path
    config: Config
    files: list[FileResult]
    discovery: Discovery
    seconds: float

    @property
    def unreadable(self) -> list[str]:
        """Folders that could not be listed and files that could not be read or decoded: not analysed."""
        files = [f"{r.rel}: {r.error}" for r in self.files if r.error and r.error.startswith(UNREADABLE_PREFIXES)]
        return self.discovery.unreadable + files

    @property
    def findings(self) -> list[Finding]:
        found = [f for result in self.files for f in result.findings]
        return sorted(found, key=Finding.sort_key)

    def summary(self, findings: list[Finding] | None = None) -> dict:
        """The run in figures; `findings`, where the caller has them (`self.findings`), are not
        gathered and sorted again."""
        findings = self.findings if findings is None else findings
        clang_states = Counter(r.clang for r in self.files)
        return {
            "root": str(self.root),
            "files": len(self.files),
            "files_by_kind": dict(sorted(Counter(r.kind for r in self.files).items())),
            "lines": sum(r.lines for r in self.files),
            "bytes": sum(r.size for r in self.files),
            "findings": len(findings),
            "by_category": dict(sorted(Counter(f.category for f in findings).items())),
            "by_severity": dict(sorted(Counter(str(f.severity) for f in findings).items())),
            "by_fix": dict(sorted(Counter(str(f.fix) for f in findings).items())),
            "by_rule": dict(sorted(Counter(f.rule for f in findings).items())),
            "by_engine": dict(sorted(Counter(str(f.engine) for f in findings).items())),
            "files_with_parse_errors": sum(1 for r in self.files if r.parse_errors),
            "libclang": {
                "available": clang.find_setup() is not None,
                "parsed": clang_states.get("parsed", 0),
                "failed": clang_states.get("failed", 0),
                "unavailable": clang_states.get("unavailable", 0),
            },
            "file_errors": [{"file": r.rel, "error": r.error} for r in self.files if r.error],
            "unreadable": self.unreadable,
            "torch_extensions": [e.to_json() for r in self.files for e in r.torch_extensions],
            "kernels": [{"file": r.rel, **k} for r in self.files for k in r.kernels],
            "suppressed": dict(sorted(Counter(f.rule for r in self.files for f in r.suppressed).items())),
            "compile_commands": str(self.discovery.compile_commands.path) if self.discovery.compile_commands else None,
            "skipped_vendored": self.discovery.skipped_vendored,
            "targets": list(self.config.targets),
            "rocm_version": str(self.config.rocm_version),
            "seconds": round(self.seconds, 3),
        }

    def to_json(self) -> dict:
        findings = self.findings
        return {
            "porter_version": __version__,
            "findings": [f.to_json() for f in findings],
            "summary": self.summary(findings),
        }


def _to_cache(result: FileResult) -> dict:
    return {
        "lines": result.lines,
        "size": result.size,
        "findings": [f.to_row() for f in result.findings],
        "suppressed": [f.to_row() for f in result.suppressed],
        "parse_errors": result.parse_errors,
        "clang": result.clang,
        "clang_detail": result.clang_detail,
        "torch_extensions": [e.to_json() for e in result.torch_extensions],
        "kernels": result.kernels,
        "include_point": result.include_point,
        "project": result.project.to_json(),
    }


def _encoded(result: FileResult) -> str:
    return scan_cache.encode_entry(_to_cache(result))


def _from_cache(file: DiscoveredFile, cached: dict) -> FileResult:
    return FileResult(
        rel=file.rel,
        kind=str(file.kind),
        lines=cached["lines"],
        size=cached["size"],
        findings=[Finding.from_row(f) for f in cached["findings"]],
        parse_errors=cached["parse_errors"],
        clang=cached["clang"],
        clang_detail=cached["clang_detail"],
        torch_extensions=[TorchExtension(**{**e, "sources": tuple(e["sources"])}) for e in cached["torch_extensions"]],
        suppressed=[Finding.from_row(f) for f in cached["suppressed"]],
        kernels=cached["kernels"],
        include_point=cached["include_point"],
        project=ProjectFacts.from_json(cached["project"]),
    )


def analyze_file(
    file: DiscoveredFile,
    config: Config,
    deep: Deep,
    extra_args: list[str] | None,
    cap: int | None = scan_limits.FINDINGS_PER_RULE,
    project_constants: HeaderConstants | None = None,
    alone: bool = True,
    widened: frozenset[str] = frozenset(),
) -> FileResult:
    """One file's findings; `cap` limits those listed per rule (None: all, as convert needs every edit);
    `project_constants` are the integer constants of the tree's headers; `widened`, the header
    constants the file assumed left as written that the project widens (read_again_where_widened).
    A file analysed `alone` settles its project facts by itself; a scan settles them over all its
    files (settle_project)."""
    results = [_analyze_unsettled(file, config, deep, extra_args, cap, project_constants, widened)]
    if alone:
        read_again_where_widened(
            results,
            lambda again: [
                _analyze_unsettled(file, config, deep, extra_args, cap, project_constants, keys) for _, keys in again
            ],
        )
        settle_project(results)
    return results[0]


def _analyze_unsettled(file, config, deep, extra_args, cap, project_constants, widened=frozenset()) -> FileResult:
    result = FileResult(rel=file.rel, kind=str(file.kind))
    try:
        source = SourceFile.read(file.path, file.rel, file.kind)
    except OSError as exc:
        result.error = f"cannot read: {exc.strerror or exc}"
        return result
    except UndecodableSource as exc:
        result.error = f"cannot decode: {exc}"
        return result
    if _looks_wide(source.data):
        result.error = "cannot decode: mostly NUL bytes (UTF-16/32 without a byte-order mark, or binary): not analysed"
        return result
    _analyze(source, file, config, deep, extra_args, result, cap, project_constants, widened)
    return result


def _analyze(
    source,
    file,
    config,
    deep,
    extra_args,
    result: FileResult,
    cap: int | None,
    project: HeaderConstants | None,
    widened: frozenset[str] = frozenset(),
) -> None:
    result.lines, result.size = source.line_count, len(source.data)
    ctx = None
    if file.kind in (FileKind.SETUP_PY, FileKind.PYTHON):
        result.torch_extensions = find_torch_extensions(file.rel, source.data)
    written = source  # the file as its author wrote it: its comments (Python's too) hold the suppressions
    if file.kind is FileKind.PYTHON:
        source = device_source(written)
        if source is None:
            return
        deep = Deep.NEVER  # libclang reads the file from disk, and this one is Python
    try:
        token_pass = scan_limits.needs_token_pass(source)
        parsed = (
            ParsedFile(source, None)
            if token_pass
            else parse(source, stand_ins(source.data, project and project.attributes))
        )
        ctx = FileContext(
            parsed=parsed,
            config=config,
            tables=load_tables(),
            project_constants=project.values if project else {},
            project_specifiers=project.specifiers if project else {},
            project_votes=project.votes if project else frozenset(),
            project_shims=project.shims if project else None,
            project_width_splits=project.width_splits if project else {},
            project_conditions=project.conditions if project else None,
            project_row_launches=project.row_launches if project else {},
            project_header_sides=project.header_sides if project else {},
            project_pasting_macros=project.pasting_macros if project else {},
            project_logical_warp=project.logical_warp if project else None,
            project_warp_functions=project.warp_functions if project else frozenset(),
            project_row_callers=project.row_callers if project else {},
            project_formulas=project.formulas if project else {},
            project_defined=project.defined if project else frozenset(),
            project_warpsize_carriers=project.warpsize_carriers if project else {},
            project_widened=widened,
        )
        if token_pass:
            result.findings.append(scan_limits.too_large(ctx))
        result.parse_errors = error_count(parsed)
        for family in FAMILIES:
            result.findings.extend(family.check(ctx))
        if ctx.parsed.tree is not None:
            _deepen(ctx, result, deep, extra_args)
        result.findings = on_ported_platform(ctx, result.findings)
        result.kernels = _kernels(ctx)
        if ctx.parsed.tree is not None and source.embedded_in is None:
            result.include_point = include_point(ctx.parsed)
        kept, result.suppressed = apply_suppressions(written, _dedupe(result.findings))
        if source.embedded_in is not None:  # what stands in a Python file's strings, said once (EMB001)
            kept, held_back = apply_suppressions(written, hold_fixes(ctx, kept))
            result.suppressed += held_back
        result.findings = scan_limits.capped(ctx, kept, cap)
        result.project = _standing_facts(ctx)
    except Exception as exc:  # one broken file or rule must not end the run
        result.error = f"internal error: {exc.__class__.__name__}: {exc}"
        result.clang_detail = traceback.format_exc(limit=4)
        result.findings = scan_limits.capped(ctx, _dedupe(result.findings), cap) if ctx else _dedupe(result.findings)


def _standing_facts(ctx: FileContext) -> ProjectFacts:
    """The file's project facts, their pending findings cut as its own findings are: the
    project's platform branches and the file's suppressions hold for them too."""
    facts = ctx.project
    if facts.pending:
        standing = on_ported_platform(ctx, [finding for _, finding in facts.pending])
        kept = {id(finding) for finding in apply_suppressions(ctx.source, standing)[0]}
        facts.pending = [(key, finding) for key, finding in facts.pending if id(finding) in kept]
    return facts


def read_again_where_widened(
    results: list[FileResult],
    read_again: Callable[[list[tuple[int, frozenset[str]]]], Iterable[FileResult]],
    contradicted: Callable[[set[str]], set[str]] = lambda _: set(),
) -> None:
    """Each file whose conclusions rest on a header's constant taken as left as written (an
    assumption, porter.rules.project) that the project widens after all, or on a function it calls
    taken as holding no warp operation that `contradicted` (the assumptions → those the project's
    headers contradict) finds reaching one, read again knowing so: `read_again([(index, keys),
    …])` gives their new results, in that order (a scan's pool reads them side by side). One
    round: a file read again rests on fewer assumptions, and what it claims anew does not send the
    others round again."""
    facts = [result.project for result in results if result.project]
    keys = settled_keys(facts) | contradicted(set().union(*(f.assumed_kept for f in facts)))
    again = [
        (index, widened)
        for index, result in enumerate(results)
        if result.project and (widened := widened_assumptions(result.project, keys))
    ]
    for (index, _), result in zip(again, read_again(again) if again else (), strict=True):
        results[index] = result


def settle_project(results: list[FileResult]) -> None:
    """Findings that depend on other files (porter.rules.project): added or withdrawn in place."""
    facts = [r.project for r in results if r.project]
    keys, row_widths, limits = settled_keys(facts), row_width_keys(facts), block_limit_keys(facts)
    for result in results:
        if result.project:
            result.findings = settle(result.findings, result.project, keys, row_widths, limits)


def _looks_wide(data: bytes) -> bool:
    """Text in UTF-16 or UTF-32 without a byte-order mark: every second or fourth byte is NUL."""
    probe = data[:BINARY_PROBE]
    return len(probe) >= 16 and probe.count(0) * 4 >= len(probe)


def _kernels(ctx: FileContext) -> list[dict]:
    """The file's __global__ functions: the report groups findings by them."""
    kernels = []
    for info in ctx.device.functions if ctx.source.kind.is_c_family else []:
        if info.is_kernel and info.node is not None:
            name = info.name.split("(")[0].strip()
            kernels.append({"name": name, "line": info.node.start_point[0] + 1, "end_line": info.node.end_point[0] + 1})
    return sorted(kernels, key=lambda k: k["line"])


# the families with a question for libclang: under `--deep always` each asks it, under auto those
# that say where (wants_clang)
_DEEPENING = tuple(f for f in FAMILIES if hasattr(f, "check_clang"))
_ASKING = tuple(f for f in _DEEPENING if hasattr(f, "wants_clang"))


def _deepen(ctx: FileContext, result: FileResult, deep: Deep, extra_args: list[str] | None) -> None:
    if deep is Deep.NEVER or (deep is Deep.AUTO and not _ASKING) or not ctx.source.kind.is_c_family:
        return
    families = [f for f in _DEEPENING if deep is Deep.ALWAYS or _wants_clang(f, ctx)]
    if not families:
        return
    if clang.find_setup() is None:
        result.clang = "unavailable"
        return
    try:
        unit = clang.parse_unit(ctx.source, extra_args)
    except clang.ClangFailure as exc:
        result.clang, result.clang_detail = "failed", str(exc)
        return
    result.clang = "parsed"
    if unit.errors:
        result.clang_detail = f"{len(unit.errors)} error(s), first: {unit.errors[0]}"
    for family in families:
        result.findings.extend(family.check_clang(ctx, unit))


def _wants_clang(family, ctx: FileContext) -> bool:
    """Does the family have a question for libclang in this file? A family that declares no
    `wants_clang` asks only under `--deep always`."""
    wants = getattr(family, "wants_clang", None)
    return wants is not None and wants(ctx)


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple] = set()
    unique = []
    for finding in sorted(findings, key=Finding.sort_key):
        key = (finding.rule, finding.span.start_byte, finding.span.end_byte, finding.engine)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return unique


@dataclass
class _Contents:
    """What the main process keeps of a file it reads once: its first bytes, for the project's
    facts, and its size and (where the cache keys it) digest, for the work's order and the key."""

    head: bytes
    size: int
    digest: str | None


def _read_all(files: list[DiscoveredFile], digests: bool) -> list[_Contents | None]:
    """Each file, read once by the main process (None where it cannot be read: the file's own
    analysis reports that). Only a file's first FULL_ANALYSIS_BYTES are kept, and only those are
    read unless the cache needs the whole file's digest."""
    contents: list[_Contents | None] = []
    for file in files:
        try:
            with open(file.path, "rb") as handle:
                if digests:
                    data = handle.read()
                    contents.append(
                        _Contents(data[: scan_limits.FULL_ANALYSIS_BYTES], len(data), hashlib.sha256(data).hexdigest())
                    )
                else:
                    head = handle.read(scan_limits.FULL_ANALYSIS_BYTES)
                    contents.append(_Contents(head, os.fstat(handle.fileno()).st_size, None))
        except OSError:
            contents.append(None)
    return contents


def _project_constants(files: list[DiscoveredFile], contents: list[_Contents | None], pool=None) -> HeaderConstants:
    """The integer constants of the tree's headers (a warp width defined in one header is used in
    another file), read with the project's own ROCm markers, which any of its sources may show.
    What each file says alone (HeaderTexts) is read by the pool's workers, where a pool runs,
    while this process reads the rest: the workers would wait for both all the same."""
    headers, sources, names, source_names, header_paths, source_paths = [], [], [], [], [], []
    for file, read in zip(files, contents, strict=True):
        header = file.path.suffix.lower() in HEADER_SUFFIXES
        if read is None or not (header or file.kind.is_c_family):
            continue
        data = read.head
        sources.append(data)
        source_names.append(file.path.name)
        source_paths.append(file.path)
        if header:
            headers.append(data)
            names.append(file.path.name)
            header_paths.append(file.path)
    read_texts = _texts_in_pool(pool, header_paths, names, source_paths, source_names) if pool is not None else None
    markers = learned_rocm_markers(sources, hip_written_headers(zip(names, headers, strict=True)))
    sides = header_sides(sources, frozenset(names), markers, lambda path: path in load_tables().includes, source_names)
    return header_constants(
        headers,
        markers,
        names,
        sides,
        read_texts or (lambda: HeaderTexts.of(headers, names, sources, None, source_names)),
    )


def _texts_in_pool(
    pool, headers: list[Path], names: list[str], sources: list[Path], source_names: list[str]
) -> Callable[[], HeaderTexts]:
    """HeaderTexts, read by the pool in two tasks of about equal size (one a worker): the headers'
    functions with warp operations, and the rest. The workers read the files themselves, as they
    do the files they analyse: sent over, a large tree's bytes (265 MB of flashinfer's whole
    package) were copied twice more, pickled here and unpickled there."""
    warp = pool.submit(_warp_function_names_of, headers)
    rest = pool.submit(_header_texts_of, headers, names, sources, source_names)
    return lambda: dataclasses.replace(rest.result(), warp_functions=warp.result())


def _heads(paths: list[Path]) -> list[bytes]:
    """Each file's first FULL_ANALYSIS_BYTES, as _read_all keeps them (empty where it cannot be read now)."""
    heads = []
    for path in paths:
        try:
            with open(path, "rb") as handle:
                heads.append(handle.read(scan_limits.FULL_ANALYSIS_BYTES))
        except OSError:
            heads.append(b"")
    return heads


def _header_paths(files: list[DiscoveredFile]) -> list[Path]:
    return [file.path for file in files if file.path.suffix.lower() in HEADER_SUFFIXES]


def _warp_function_names_of(headers: list[Path]) -> frozenset[str]:
    return warp_function_names(_heads(headers))


def _header_texts_of(
    headers: list[Path], names: list[str], sources: list[Path], source_names: list[str]
) -> HeaderTexts:
    return HeaderTexts.of(_heads(headers), names, _heads(sources), frozenset(), source_names)


class _RunCache:
    """The scan cache as one run uses it: one pack of entries per tree and settings, read before
    the run and written once after it, and every file's entry key (porter.cache.key: the file's
    bytes, path and everything else its results depend on), worked out by the main process.
    Workers neither read nor write the cache: a cold run's hundreds of small files cost a tenth of
    its time."""

    def __init__(self, paths: list[Path], config: Config, deep: Deep, cap: int | None):
        self.settings = [
            ",".join(config.targets), str(config.rocm_version), str(deep), str(cap),
            "clang" if clang.find_setup() else "no-clang",
        ]  # fmt: skip
        self.pack = scan_cache.key(["pack", *(str(p.resolve()) for p in paths), *self.settings])
        self.entries = scan_cache.load_pack(self.pack)
        self.keys: list[str | None] = []

    def key_files(self, items, contents: list[_Contents | None], constants: HeaderConstants) -> None:
        self.keys = [
            None if read is None
            else scan_cache.key([file.rel, " ".join(extra or []), *self.settings, constants.digest, read.digest])
            for (file, extra), read in zip(items, contents, strict=True)
        ]  # fmt: skip

    def cached(self, index: int, file: DiscoveredFile) -> FileResult | None:
        key = self.keys[index]
        entry = self.entries.get(key) if key is not None else None
        try:
            return _from_cache(file, entry) if entry is not None else None
        except (KeyError, TypeError, ValueError):  # an entry damaged on disk: analysed again
            return None

    def store(self, results: list[FileResult], encoded: dict[int, str]) -> None:
        """The results' entries; `encoded` holds those a worker encoded already, by file index."""
        entries = {
            key: encoded.get(index) or _encoded(result)
            for index, (key, result) in enumerate(zip(self.keys, results, strict=True))
            if key is not None and result.error is None
        }  # fmt: skip
        scan_cache.store_pack(self.pack, entries)


# A CUDA file that touches every rule family: a worker analyses it as it starts, while the main
# process is still reading the tree's headers for their constants, so that the patterns, queries
# and tables each family builds at its first use are built then and not inside the run's first files.
_WARM_UP = b"""#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <cooperative_groups.h>
#include <mma.h>
#include <cuda_fp8.h>
namespace cg = cooperative_groups;
#define WARP 32
#define FULL_MASK 0xffffffff
constexpr int kLanes = 32;
enum { kWarps = 4 };
struct Pair { int a; float b; };
__global__ void __launch_bounds__(256) kernel(float* out, const float* in, int n, int width = 32) {
  __shared__ float tile[32][33];
  int lane = threadIdx.x % 32, warp = threadIdx.x / WARP;
  unsigned mask = __ballot_sync(FULL_MASK, lane < n);
  float v = __shfl_xor_sync(0xffffffff, in[lane], 16);
  if (lane == 31) out[warp] = v + warpSize;
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(mask, v, offset);
  cg::thread_block_tile<32> t = cg::tiled_partition<32>(cg::this_thread_block());
  __nv_fp8_e4m3 f = __nv_fp8_e4m3(v);
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  __syncwarp();
#endif
}
void launch(float* d, int n) {
  cudaMalloc(&d, n * sizeof(float));
  int threads = 256, warps = threads / 32;
  kernel<<<(n + 255) / 256, threads>>>(d, d, n);
}
"""


def _start_worker() -> None:
    """A worker collects cycles once per file (_analyze_in_worker) instead of every 700
    allocations: a file's analysis makes hundreds of thousands of objects, and the passes over them
    cost ~4 % of a scan. What the worker inherited (modules, tables) is frozen out of the
    collector's view. Then it warms up (_WARM_UP)."""
    gc.freeze()
    gc.disable()
    path = Path("porter-warm-up.cu")
    source = SourceFile(path=path, rel=path.name, data=_WARM_UP, kind=FileKind.CUDA)
    result = FileResult(rel=path.name, kind=str(FileKind.CUDA))
    _analyze(source, DiscoveredFile(path, path.name, FileKind.CUDA), Config(), Deep.NEVER, None, result, None, None)
    gc.collect(1)


def _ready() -> None:
    """Nothing: submitted to start the workers (they start at the first task)."""


# What every file of a run shares (config, deep, cap, project constants, whether the run caches its
# results): one tuple, which each chunk of tasks carries once (pickle writes an object a chunk holds
# twice once).
def _analyze_in_worker(item: tuple[DiscoveredFile, list[str] | None, tuple]) -> tuple[FileResult, str | None]:
    """The file's result and, where the run caches it, its cache entry, encoded here (encode_entry)."""
    file, extra_args, (config, deep, cap, constants, caching) = item
    result = analyze_file(file, config, deep, extra_args, cap, constants, alone=False)
    gc.collect(1)  # the file's cycles (a context and the facts that point back at it), once it is done
    return result, _encoded(result) if caching and result.error is None else None


def _read_again(pool, items, again: list[tuple[int, frozenset[str]]], run: tuple) -> Iterable[FileResult]:
    """The files of `again` analysed anew, each knowing the assumptions of its own that the project
    contradicts; in the run's pool where it has one (a few large files, side by side)."""
    tasks = [(*items[index], run, widened) for index, widened in again]
    return pool.map(_read_again_in_worker, tasks) if pool is not None else map(_read_again_in_worker, tasks)


def _read_again_in_worker(item: tuple) -> FileResult:
    file, extra_args, (config, deep, cap, constants), widened = item
    result = analyze_file(file, config, deep, extra_args, cap, constants, alone=False, widened=widened)
    gc.collect(1)
    return result


def scan(
    paths: list[Path],
    config: Config,
    jobs: int | None = None,
    deep: Deep = Deep.AUTO,
    progress=None,
    use_cache: bool = False,
    cap: int | None = scan_limits.FINDINGS_PER_RULE,
) -> ScanResult:
    with cycles_uncollected():
        return _scan(paths, config, jobs, deep, progress, use_cache, cap)


@contextlib.contextmanager
def cycles_uncollected():
    """The cycle collector off for a while: a scan makes hundreds of thousands of objects (a tree's
    results, its findings) and next to no cycles, and the collector's passes over them cost ~85 ms
    of a flashinfer scan, and ~25 ms more of its report, for nothing."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _scan(paths, config, jobs, deep, progress, use_cache, cap) -> ScanResult:
    started = time.perf_counter()
    discovery = discover(paths, config)
    database = discovery.compile_commands
    items = [(f, database.flags_for(f.path) if database else None) for f in discovery.files]
    jobs = jobs or os.cpu_count() or 1
    run_cache = _RunCache(paths, config, deep, cap) if use_cache else None
    # a tree with no earlier results to reuse starts its workers now: they warm up while the
    # project's headers are read here
    parallel = _worth_a_pool(jobs, _sizes_on_disk(discovery.files))
    pool = _pool(jobs) if parallel and not (run_cache and run_cache.entries) else None
    if pool is not None:
        pool.submit(_ready)
    try:
        contents = _read_all(discovery.files, digests=run_cache is not None)
        constants = _project_constants(discovery.files, contents, pool)
        if run_cache is not None:
            run_cache.key_files(items, contents, constants)
        # the files' bytes have served (the workers read each file again): only sizes from here on,
        # or a large tree's sources stay in memory beside its results
        sizes = [read.size if read is not None else None for read in contents]
        del contents
        results = [run_cache.cached(i, f) if run_cache else None for i, (f, _) in enumerate(items)]
        missing = [i for i, result in enumerate(results) if result is None]
        for i in range(len(items)) if progress else ():
            if results[i] is not None:
                progress(items[i][0].rel)
        encoded: dict[int, str] = {}  # cache entries the workers encoded, by file index
        if _worth_a_pool(jobs, (sizes[i] for i in missing if sizes[i] is not None)):
            pool = pool or _pool(jobs)
            run = (config, deep, cap, constants, run_cache is not None)
            encoded = _analyze_in_pool(pool, items, missing, sizes, results, run, jobs, progress)
        else:
            for i in missing:
                file, extra_args = items[i]
                results[i] = analyze_file(file, config, deep, extra_args, cap, constants, alone=False)
                gc.collect(1)  # the file's cycles, as a worker collects them (_analyze_in_worker)
                if progress:
                    progress(file.rel)
        if run_cache is not None and missing:
            run_cache.store(results, encoded)  # unsettled, as analysed: settling depends on the other files
        read_again_where_widened(
            results,
            lambda again: _read_again(pool, items, again, (config, deep, cap, constants)),
            lambda assumed: reached_warp_functions(
                assumed, lambda: _heads(_header_paths(discovery.files)), constants.warp_functions
            ),
        )
    finally:
        if pool is not None:
            pool.shutdown()
    settle_project(results)
    return ScanResult(discovery.root, config, results, discovery, time.perf_counter() - started)


def _pool(jobs: int):
    # imported here: multiprocessing costs a small tree's scan ~20 ms it would not use
    from concurrent.futures import ProcessPoolExecutor

    warm_queries()  # compiled once, here, and inherited by every worker: not once per process
    load_tables()  # every worker's first file reads them: read once, here, and inherited
    return ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker)


def _sizes_on_disk(files: list[DiscoveredFile]) -> Iterator[int]:
    for file in files:
        try:
            yield file.path.stat().st_size
        except OSError:
            continue  # the file's own analysis reports it


def _worth_a_pool(jobs: int, sizes: Iterable[int]) -> bool:
    """Two cores or more, and work to share: the bytes the other workers would take off the busiest
    one (all but the largest file, or all but an even share, whichever is less) reach
    PARALLEL_BYTES. That figure never falls as files are added, so sizes are read only until it
    does (a large tree stops early)."""
    if jobs < 2:
        return False
    total = largest = 0
    for size in sizes:
        total, largest = total + size, max(largest, size)
        if total > largest and min(total - largest, total - total / jobs) >= PARALLEL_BYTES:
            return True
    return False


def _analyze_in_pool(
    pool, items, missing: list[int], sizes: list[int | None], results: list, run: tuple, jobs: int, progress
) -> dict[int, str]:
    """The `missing` files' results, analysed by the pool's workers, into `results`; returned, the
    cache entries the workers encoded, by file index."""
    encoded: dict[int, str] = {}
    # largest files first, in small chunks: a 250 KB header left to the end would keep one core
    # busy while the others wait (the results come back in discovery order all the same)
    by_size = sorted(missing, key=lambda i: -(sizes[i] or 0))
    ordered = [(*items[i], run) for i in by_size]
    chunks = pool.map(_analyze_in_worker, ordered, chunksize=max(1, len(missing) // (jobs * 32)))
    for index, (result, entry) in zip(by_size, chunks, strict=True):
        results[index] = result
        if entry is not None:
            encoded[index] = entry
        if progress:
            progress(result.rel)
    return encoded
