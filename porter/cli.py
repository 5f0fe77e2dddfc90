"""The `porter` command line: thin, it parses flags, calls the pipeline and renders."""

from __future__ import annotations

import functools
import json
import os
import sys
import traceback
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from porter import __version__, memo
from porter.atomic import write_output_file
from porter.errors import PorterError
from porter.report.jsonout import document as json_document

app = typer.Typer(
    name="porter",
    help="Take CUDA code, PyTorch extensions included, to AMD GPUs running ROCm/HIP.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class ScanFormat(StrEnum):
    TEXT = "text"
    JSON = "json"
    SARIF = "sarif"


class PlainFormat(StrEnum):
    TEXT = "text"
    JSON = "json"


class BuildFailOn(StrEnum):
    CODE = "code"
    ANY = "any"
    NEVER = "never"


class SetupPart(StrEnum):
    ALL = "all"
    ROCM_SYSROOT = "rocm-sysroot"
    CUDA_HEADERS = "cuda-headers"
    CUDA_LIBRARIES = "cuda-libraries"
    ROCM = "rocm"


# The options several commands share, declared once. Values are checked against porter's one target
# table (porter.targets) where they are used, with the same messages everywhere.
AmdTargets = Annotated[
    list[str] | None,
    typer.Option(
        "--target", help="AMD targets the port is for, e.g. gfx942 (repeat or comma-separate; default gfx942)."
    ),
]
BuildTargets = Annotated[
    list[str] | None,
    typer.Option("--target", help="sm_* and gfx* targets, e.g. sm_90 gfx942 gfx950 (repeat; default sm_90, gfx942)."),
]
RocmVersionOption = Annotated[
    str | None, typer.Option("--rocm-version", help="ROCm release the port targets: 5.7 to 7.2 (default 6.4).")
]


def fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"porter: error: {message}", err=True)
    return typer.Exit(code)


def to_stdout(output: Path | None) -> bool:
    """Does the output go to standard output: none named, or `-` (the usual convention)?"""
    return output is None or str(output) == "-"


def write_output(text: str | list[bytes], output: Path | None) -> None:
    """Print, or write atomically: a temporary file in the same directory, then a rename. `text`
    may come as the UTF-8 parts it is written in (report.text.findings_listing)."""
    if to_stdout(output):
        for part in [text] if isinstance(text, str) else text:
            sys.stdout.write(part if isinstance(part, str) else part.decode("utf-8", "surrogateescape"))
        return
    write_output_file(output, text)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"porter {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """porter: scan, convert, build and verify CUDA→ROCm ports."""


@app.command()
def scan(
    paths: Annotated[list[Path], typer.Argument(help="Files or directories; the first is the root of reported paths.")],
    format: Annotated[ScanFormat, typer.Option("--format", "-f", help="Output format.")] = ScanFormat.TEXT,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
    target: AmdTargets = None,
    rocm_version: RocmVersionOption = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Parallel processes (default: all cores).")
    ] = None,
    deep: Annotated[
        str, typer.Option("--deep", help="libclang layer: auto (where a question needs it), always, never.")
    ] = "auto",
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Analyse every file again, ignoring the scan cache.")
    ] = False,
    keep_going: Annotated[
        bool, typer.Option("--keep-going", help="Exit 0 even when some files or folders could not be read.")
    ] = False,
) -> None:
    """Scan CUDA sources and build files for what breaks or changes on AMD GPUs."""
    from porter.scan import cycles_uncollected

    with cycles_uncollected():  # the report of a scan's findings too
        _scan(paths, format, output, target, rocm_version, jobs, deep, no_cache, keep_going)


def _scan(paths, format, output, target, rocm_version, jobs, deep, no_cache, keep_going) -> None:
    from porter.config import load_config
    from porter.report.sarif import to_sarif
    from porter.report.text import findings_listing
    from porter.scan import Deep
    from porter.scan import scan as run_scan

    try:
        deep_mode = Deep(deep)
    except ValueError:
        raise fail(f"--deep must be one of auto, always, never (got {deep!r})") from None
    config = load_config(paths[0]).with_overrides(target, rocm_version)
    result = _with_progress(
        lambda progress: run_scan(paths, config, jobs=jobs, deep=deep_mode, use_cache=not no_cache, progress=progress)
    )
    text: str | list[bytes]
    if format is ScanFormat.JSON:
        text = json_document(result.to_json())
    elif format is ScanFormat.SARIF:
        text = json_document(to_sarif(result.findings, result.root.resolve().as_uri() + "/"))
    else:
        findings = result.findings
        text = findings_listing(findings, result.summary(findings))
        del findings
    unreadable = result.unreadable
    del result  # the results have served: what is written and recorded goes out without them beside it
    write_output(text, output)
    if unreadable and not keep_going:
        shown = "; ".join(unreadable[:5]) + (f"; and {len(unreadable) - 5} more" if len(unreadable) > 5 else "")
        raise fail(
            f"{len(unreadable)} path(s) could not be read and were not analysed: {shown} (--keep-going to accept)"
        )
    if not no_cache:
        memo.record(text, None if to_stdout(output) else str(output))


class ConvertMode(StrEnum):
    PORTABLE = "portable"
    HIP = "hip"


@app.command()
def convert(
    src: Annotated[Path, typer.Argument(help="The CUDA source tree.")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Where the converted tree goes (new or empty).")
    ] = None,
    mode: Annotated[
        ConvertMode, typer.Option("--mode", help="portable: one source for nvcc and hipcc; hip: a HIP tree.")
    ] = ConvertMode.PORTABLE,
    target: AmdTargets = None,
    rocm_version: RocmVersionOption = None,
    diff: Annotated[bool, typer.Option("--diff", help="Print a unified diff of every changed file.")] = False,
    in_place: Annotated[bool, typer.Option("--in-place", help="Rewrite SRC itself, keeping backups.")] = False,
    backup_suffix: Annotated[
        str, typer.Option("--backup-suffix", help="Suffix of the backups --in-place keeps.")
    ] = ".orig",
    annotate: Annotated[
        bool, typer.Option("--annotate", help="Leave a // PORTER(ID): comment at each finding left for a person.")
    ] = False,
    format: Annotated[PlainFormat, typer.Option("--format", "-f", help="Summary as text or JSON.")] = PlainFormat.TEXT,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1)] = None,
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace an earlier OUT even where it holds edits or files porter did not write."),
    ] = False,
    unsafe_fixes: Annotated[
        bool,
        typer.Option(
            "--unsafe-fixes",
            help="Also apply suggested fixes (counted in the summary); by default only automatic ones.",
        ),
    ] = False,
) -> None:
    """Convert a CUDA tree: a portable single source (default) or a HIP tree."""
    from porter.config import load_config
    from porter.convert import ConvertOptions
    from porter.convert import convert as run_convert

    if in_place and output is not None:
        raise fail("--in-place and --output exclude each other")
    if not src.exists():
        raise fail(f"{src}: no such file or directory")
    options = ConvertOptions(
        src, output, str(mode), in_place, backup_suffix, annotate, diff, jobs, use_cache=True, force=force,
        unsafe_fixes=unsafe_fixes,
    )  # fmt: skip
    config = load_config(src).with_overrides(target, rocm_version)
    result = _with_progress(lambda progress: run_convert(options, config, progress))
    if diff:
        for outcome in result.files:
            if outcome.diff:
                sys.stdout.write(outcome.diff)
    if format is PlainFormat.JSON:
        typer.echo(json_document(result.to_json()), nl=False)
        return
    from porter.report.text import convert_summary

    print(convert_summary(result.summary()), end="", file=sys.stderr if diff else sys.stdout)


def _with_progress(work):
    """A rich progress bar on stderr for long trees, when stderr is a terminal."""
    if not sys.stderr.isatty():
        return work(None)
    from rich.progress import Progress

    with Progress(transient=True) as progress:
        task = progress.add_task("porter", total=None)
        return work(lambda rel: progress.update(task, advance=1, description=rel[-40:]))


@app.command()
def build(
    path: Annotated[Path, typer.Argument(help="The source tree.")],
    target: BuildTargets = None,
    format: Annotated[PlainFormat, typer.Option("--format", "-f")] = PlainFormat.TEXT,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1)] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Compile everything again.")] = False,
    hip_nvidia: Annotated[
        bool, typer.Option("--hip-nvidia", help="Also build the HIP tree for each sm_* target (HIP-on-NVIDIA).")
    ] = False,
    no_convert: Annotated[
        bool,
        typer.Option("--no-convert", help="Build the tree as it is for gfx* too (an existing port, or CUDA as HIP)."),
    ] = False,
    rocm_version: Annotated[
        list[str] | None,
        typer.Option(
            "--rocm-version",
            help="ROCm release the port targets: 5.7 to 7.2 (default 6.4); repeat for a target × version matrix.",
        ),
    ] = None,
    fail_on: Annotated[
        BuildFailOn,
        typer.Option(
            "--fail-on",
            help="Exit 1 when a unit fails: for a reason in the code or the port (code), for any reason, or never.",
        ),
    ] = BuildFailOn.CODE,
) -> None:
    """Build the original (sm_*) and the port (gfx*), with per-kernel registers, shared memory, spills, occupancy.

    gfx units build against the HIP of the ROCm version (6.4 by default: the HIP 6.4 root of `porter
    setup rocm`; 5.7 and older: the HIP 5.7 sysroot); the output says which was used."""
    from porter.build.run import build_matrix
    from porter.config import load_config

    targets = _build_targets(target)
    # the port is converted for the AMD targets being built, not the configured ones
    configs = [
        load_config(path).with_overrides([t.id for t in targets if t.is_amd], version)
        for version in dict.fromkeys(rocm_version or [None])
    ]
    result = _with_progress(
        lambda progress: build_matrix(
            path,
            targets,
            configs,
            jobs=jobs,
            use_cache=not no_cache,
            hip_nvidia=hip_nvidia,
            convert_first=not no_convert,
            progress=progress,
        )
    )
    if format is PlainFormat.JSON:
        write_output(json_document(result.to_json()), output)
    else:
        from porter.report.text import build_listing

        write_output(build_listing(result), output)
    from porter.build.classify import fails_gate

    if any(fails_gate(unit, fail_on.value) for unit in result.units):
        raise typer.Exit(1)


def _build_targets(values: list[str] | None):
    from porter.targets import parse_targets

    return parse_targets(values or ["sm_90", "gfx942"])


@app.command()
def verify(
    path: Annotated[Path, typer.Argument(help="The source tree with [tool.porter.verify] cases.")],
    target: BuildTargets = None,
    format: Annotated[PlainFormat, typer.Option("--format", "-f")] = PlainFormat.TEXT,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
    record: Annotated[Path | None, typer.Option("--record", help="Store outputs, timings and provenance here.")] = None,
    compare: Annotated[
        Path | None, typer.Option("--compare", help="Check against outputs another machine recorded.")
    ] = None,
    init: Annotated[
        bool, typer.Option("--init", help="Propose cases from the kernels' signatures (TOML), to complete by hand.")
    ] = False,
    emulate: Annotated[
        bool,
        typer.Option("--emulate", help="Run kernel cases on porter's CPU device even where a GPU is present."),
    ] = False,
) -> None:
    """Build a harness per case for the original and the port, run it on the GPUs present, compare."""
    from porter.config import load_config
    from porter.verify.run import verify as run_verify

    if init:
        from porter.verify.init import propose

        write_output(propose(path, load_config(path)), output)
        return
    if compare is not None and not (compare / "manifest.json").is_file():
        raise fail(f"{compare}: not a recorded verify run (no manifest.json); make one with --record")
    config = load_config(path)
    result = _with_progress(
        lambda progress: run_verify(
            path,
            _build_targets(target),
            config,
            record=record,
            reference_dir=compare,
            use_emulator=emulate or None,
            progress=progress,
        )
    )
    if format is PlainFormat.JSON:
        write_output(json_document(result.to_json()), output)
    else:
        from porter.report.text import verify_listing

        write_output(verify_listing(result), output)
    if result.failed:
        raise typer.Exit(1)


@app.command()
def report(
    results: Annotated[
        list[Path], typer.Argument(help="scan/convert/build/verify JSON files, or a directory of them.")
    ],
    output: Annotated[list[Path], typer.Option("--output", "-o", help="Report file(s): .html, .md, .json or .sarif.")],
) -> None:
    """Render a port report from porter's JSON results; the format follows each output's suffix."""
    from porter.report.merge import load_results
    from porter.report.render import render

    merged = load_results(results)
    rendered = [(path, render(merged, path)) for path in output]
    for path, text in rendered:
        write_output(text, path)
        typer.echo(f"wrote {path}")


class FailOn(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


def _scan_for_gate(paths: list[Path], target, rocm_version):
    from porter.config import load_config
    from porter.scan import scan as run_scan

    config = load_config(paths[0]).with_overrides(target, rocm_version)
    return run_scan(paths, config, use_cache=True)


@app.command()
def baseline(
    paths: Annotated[list[Path], typer.Argument(help="What `porter check` will scan.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="The baseline file to write.")] = Path(
        "porter-baseline.json"
    ),
    target: AmdTargets = None,
    rocm_version: RocmVersionOption = None,
) -> None:
    """Record today's findings, so that `porter check` fails only on new ones."""
    from porter.check import write_baseline

    count = write_baseline(_scan_for_gate(paths, target, rocm_version), output)
    typer.echo(f"wrote {output}: {count} finding(s) in the baseline")


@app.command()
def check(
    paths: Annotated[list[Path], typer.Argument(help="Files or directories to scan.")],
    baseline_file: Annotated[
        Path | None, typer.Option("--baseline", help="Findings to tolerate (from `porter baseline`).")
    ] = None,
    fail_on: Annotated[
        FailOn, typer.Option("--fail-on", help="Lowest severity of a new finding that fails.")
    ] = FailOn.ERROR,
    format: Annotated[PlainFormat, typer.Option("--format", "-f")] = PlainFormat.TEXT,
    sarif: Annotated[
        Path | None, typer.Option("--sarif", help="Also write the scan as SARIF (for code scanning).")
    ] = None,
    target: AmdTargets = None,
    rocm_version: RocmVersionOption = None,
) -> None:
    """The CI gate: exit 1 on new findings at or above --fail-on, 0 otherwise, 2 on a usage error."""
    from porter.check import check as run_check
    from porter.check import read_baseline
    from porter.findings import Severity
    from porter.report.sarif import to_sarif

    known = read_baseline(baseline_file) if baseline_file else set()
    result = _scan_for_gate(paths, target, rocm_version)
    outcome = run_check(result, known, Severity(str(fail_on)))
    if sarif is not None:
        write_output(json_document(to_sarif(result.findings, result.root.resolve().as_uri() + "/")), sarif)
    # `--sarif -` makes the SARIF the standard output's one document: the gate's own listing goes
    # to standard error, or a code-scanning upload reads the two run together
    listing_to_stderr = sarif is not None and to_stdout(sarif)
    if format is PlainFormat.JSON:
        typer.echo(json.dumps(outcome.to_json(), indent=2), err=listing_to_stderr)
    else:
        from porter.report.text import check_listing

        typer.echo(check_listing(outcome, str(fail_on)), nl=False, err=listing_to_stderr)
    raise typer.Exit(1 if outcome.failed else 0)


ci_app = typer.Typer(help="CI configuration for ROCm.", no_args_is_help=True)
app.add_typer(ci_app, name="ci")


@ci_app.command("init")
def ci_init(
    root: Annotated[Path, typer.Argument(help="The repository root.")] = Path("."),
    baseline_file: Annotated[str, typer.Option("--baseline")] = "porter-baseline.json",
    target: Annotated[str, typer.Option("--target", help="The AMD target the workflow builds for.")] = "gfx942",
    gpu_labels: Annotated[
        str, typer.Option("--gpu-labels", help="Runner labels of the ROCm GPU job, comma-separated.")
    ] = "self-hosted,rocm",
    porter_spec: Annotated[str, typer.Option("--porter-spec", help="What CI installs with pip.")] = "porter",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the files instead of writing them.")] = False,
) -> None:
    """Write a GitHub Actions workflow and a pre-commit hook that gate on new ROCm portability findings."""
    from porter.ci import PRE_COMMIT, CiOptions, plan

    if not root.is_dir():
        raise fail(f"{root}: not a directory")
    from porter.config import validate_targets

    target = ",".join(validate_targets([target], "--target"))
    labels = tuple(label.strip() for label in gpu_labels.split(",") if label.strip())
    if not labels:
        raise fail("--gpu-labels needs at least one label")
    commands = {c.name or c.callback.__name__ for c in app.registered_commands}
    files = plan(root, CiOptions(baseline_file, target, labels, porter_spec), commands)
    for path, text in files.items():
        if dry_run:
            typer.echo(f"--- {path}\n{text}")
            continue
        if path.name == PRE_COMMIT.name and path.exists():
            typer.echo(f"{path} exists: add this hook to it yourself:\n{text}")
            continue
        write_output(text, path)
        typer.echo(f"wrote {path}")


@app.command()
def rules(
    rule_id: Annotated[
        str | None, typer.Argument(metavar="[ID]", help="A rule id (API001) or name to explain.")
    ] = None,
    format: Annotated[PlainFormat, typer.Option("--format", "-f")] = PlainFormat.TEXT,
) -> None:
    """List the rules, or explain one: what it detects, why it breaks on AMD, an example, the fix."""
    from porter.rules import all_rules

    catalogue = all_rules()
    if rule_id is None:
        if format is PlainFormat.JSON:
            rows = [
                {
                    "id": r.id,
                    "name": r.name,
                    "category": r.category,
                    "severity": str(r.severity),
                    "fix": str(r.fix),
                    "summary": r.summary,
                }
                for r in catalogue.values()
            ]
            typer.echo(json.dumps(rows, indent=2))
            return
        from porter.report.text import rules_listing

        typer.echo(rules_listing(catalogue.values()), nl=False)
        return
    rule = catalogue.get(rule_id.upper()) or next((r for r in catalogue.values() if r.name == rule_id), None)
    if rule is None:
        raise fail(f"no rule {rule_id!r}; `porter rules` lists them")
    if format is PlainFormat.JSON:
        typer.echo(
            json.dumps(
                {"id": rule.id, "name": rule.name, "category": rule.category, "documentation": rule.explain()}, indent=2
            )
        )
    else:
        typer.echo(rule.explain(), nl=False)


@app.command()
def doctor(format: Annotated[PlainFormat, typer.Option("--format", "-f")] = PlainFormat.TEXT) -> None:
    """Report the toolchains porter can use here, and how to get what is missing."""
    from porter.build.doctor import run_checks

    checks = run_checks()
    missing = [c for c in checks if c.required and c.status != "ok"]
    if format is PlainFormat.JSON:
        typer.echo(json.dumps({"checks": [c.to_json() for c in checks], "ok": not missing}, indent=2))
    else:
        from porter.report.text import doctor_listing

        typer.echo(doctor_listing(checks), nl=False)
    raise typer.Exit(1 if missing else 0)


@app.command()
def setup(
    part: Annotated[SetupPart, typer.Argument(help="What to provision into porter's cache.")] = SetupPart.ALL,
    force: Annotated[bool, typer.Option("--force", help="Provision again even if present.")] = False,
) -> None:
    """Provision the compile-only ROCm sysroot, the CUDA 12.9 headers libclang parses against, and the CUDA
    math library headers that torch's CUDA headers include."""
    from porter.targets import provision, rocm_root

    steps = {
        SetupPart.ROCM_SYSROOT: ("ROCm sysroot (Debian 13 HIP 5.7 packages)", provision.provision_sysroot),
        SetupPart.CUDA_HEADERS: ("CUDA 12.9 headers (NVIDIA wheels)", provision.provision_cuda_headers),
        SetupPart.CUDA_LIBRARIES: (
            "cuBLAS, cuSPARSE, cuSOLVER, cuDNN and cuRAND headers for CUDA 13.0 (NVIDIA wheels, by range requests)",
            provision.provision_cuda_libraries,
        ),
        SetupPart.ROCM: (
            "HIP 6.4 root (Debian unstable clang-21 and ROCm 6.4 headers, compile-only)",
            rocm_root.provision,
        ),
    }
    # `all` goes on without the optional parts: only PyTorch extensions' CUDA builds need the library
    # headers, and the HIP 6.4 root needs root privileges (the HIP 5.7 sysroot builds without it)
    optional = {SetupPart.CUDA_LIBRARIES, SetupPart.ROCM} if part is SetupPart.ALL else set()
    if part is SetupPart.ALL and not os.environ.get("PORTER_SETUP_ROCM"):
        steps.pop(SetupPart.ROCM)  # opt-in for now: PORTER_SETUP_ROCM=1 or `porter setup rocm`
    chosen = list(steps) if part is SetupPart.ALL else [part]
    for key in chosen:
        label, action = steps[key]
        try:
            path = action(force=force)
        except provision.ProvisionError as exc:
            if key in optional:
                typer.echo(f"porter: warning: {label}: {exc} (optional; `porter setup {key.value}` retries)", err=True)
                continue
            raise fail(f"{label}: {exc}", code=1) from exc
        typer.echo(f"ok  {label}: {path}")


def _os_error_text(exc: OSError) -> str:
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}"


def _one_error_path(callback):
    """Every command's user errors end the same way: one `porter: error: …` line and exit 2."""

    @functools.wraps(callback)
    def guarded(*args, **kwargs):
        try:
            return callback(*args, **kwargs)
        except PorterError as exc:
            raise fail(str(exc)) from None
        except OSError as exc:  # the user's files and folders: unreadable, unwritable, missing
            raise fail(_os_error_text(exc)) from None

    return guarded


for _command in (*app.registered_commands, *ci_app.registered_commands):
    _command.callback = _one_error_path(_command.callback)


def _app_for(argv: list[str]) -> typer.Typer:
    """The app, with only the command the run names: Typer builds every command's options from its
    signature at each run, ~35 ms for porter's eleven, a tenth of a small tree's scan. A run that
    names none (`porter --help`), or a name porter does not have, gets them all."""
    import copy

    from typer.main import get_command_name

    name = argv[1] if len(argv) > 1 else None
    named = [c for c in app.registered_commands if get_command_name(c.name or c.callback.__name__) == name]
    if not named and name != "ci":
        return app
    narrowed = copy.copy(app)  # the module's app stays whole (tests drive it with every command)
    narrowed.registered_commands = named  # `porter ci …` names the group: its commands alone
    narrowed.registered_groups = [] if named else app.registered_groups
    return narrowed


def run() -> None:
    """The console script: a traceback only for a bug in porter, and then a request to report it."""
    try:
        _app_for(sys.argv)()
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception:
        traceback.print_exc()
        print(
            "porter: internal error: this is a bug in porter; please report it with the traceback above",
            file=sys.stderr,
        )
        sys.exit(3)


if __name__ == "__main__":  # pragma: no cover
    run()
