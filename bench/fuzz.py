"""A fuzz campaign over the parser, the rules, the rewriter and every JSON/TOML reader.

Usage: `python bench/fuzz.py [--count 100000] [--seed 1] [--jobs 2] [--report reports/fuzz.md]`;
`--only N` replays input N of a seed (what a failure line names).

Each input is drawn from its own seeded generator, so any failure is replayed from (seed, index):
- source (70 %): a corpus file mutated (bytes inserted, deleted, replaced, spliced from another
  file, tokens that stress a C parser), then scanned uncapped, converted in both modes in memory,
  and the converted bytes scanned again; every finding's span and edit must lie inside the file;
- compile_commands, config, verify cases, baseline, results (6 % each): documents mutated from valid
  ones (keys dropped, values of other types, nesting past the stack, random JSON or TOML text) fed to
  their readers, which may raise porter's own errors only; results are also rendered in every format.

A failure is any other exception, a per-file internal error, an unsound span, or an input that runs
past `HANG_SECONDS` (a hang). Idempotence of the in-memory conversion is counted apart.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import string
import sys
import tempfile
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from porter.config import Config, load_config  # noqa: E402
from porter.discover import DiscoveredFile, load_compile_commands  # noqa: E402
from porter.embedded import embeds_device_code  # noqa: E402
from porter.errors import PorterError  # noqa: E402
from porter.source import FileKind, SourceFile, kind_of  # noqa: E402

HANG_SECONDS = 20
CORPUS = REPO / "corpus"
PARSER_STRESS = [
    b"{", b"}", b"(", b")", b"#if X\n", b"#endif\n", b"#define W 32\n", b'"', b"'", b"/*", b"*/", b"//", b"\\\n",
    b"<<<", b">>>", b"##", b"__global__ ", b"__shfl_down_sync(0xffffffff, v, 16)", b"threadIdx.x % 32",
    b"asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(l));", b"__launch_bounds__(256, 2, 1)", b"\xff\xfe",
    b"\x00", b"\r\n", b"template <int N>", b"cudaMalloc(&p, n);", b"wmma::fragment<", b"#pragma unroll\n",
]  # fmt: skip
KINDS = ["source"] * 70 + ["compile_commands", "config", "cases", "baseline", "results"] * 6


class Hang(Exception):
    pass


@dataclass
class Tally:
    inputs: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    hangs: list[str] = field(default_factory=list)
    not_idempotent: list[str] = field(default_factory=list)
    slowest: tuple[float, str] = (0.0, "")

    def merge(self, other: Tally) -> None:
        self.inputs += other.inputs
        for kind, count in other.by_kind.items():
            self.by_kind[kind] = self.by_kind.get(kind, 0) + count
        self.failures += other.failures
        self.hangs += other.hangs
        self.not_idempotent += other.not_idempotent
        self.slowest = max(self.slowest, other.slowest)


# -- generators --------------------------------------------------------------------------------


def corpus_sources() -> list[Path]:
    """The corpus files porter analyses as code: C-family sources, and Python files with CUDA in strings."""
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and kind_of(p) and _analysed_as_code(p))


def _analysed_as_code(path: Path) -> bool:
    kind = kind_of(path)
    return kind.is_c_family or (kind is FileKind.PYTHON and embeds_device_code(path.read_bytes()))


def mutate_bytes(rng: random.Random, data: bytes, donors: list[Path]) -> bytes:
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 10)):
        at = rng.randint(0, len(buffer))
        action = rng.choice(["insert", "delete", "replace", "splice", "duplicate"])
        chunk = rng.choice(PARSER_STRESS) if rng.random() < 0.6 else rng.randbytes(rng.randint(1, 8))
        if action == "insert":
            buffer[at:at] = chunk
        elif action == "delete":
            del buffer[at : at + rng.randint(1, 64)]
        elif action == "replace":
            buffer[at : at + len(chunk)] = chunk
        elif action == "splice":
            donor = rng.choice(donors).read_bytes()
            start = rng.randint(0, len(donor))
            buffer[at:at] = donor[start : start + rng.randint(1, 400)]
        else:
            start = rng.randint(0, len(buffer))
            buffer[at:at] = buffer[start : start + rng.randint(1, 200)] * rng.randint(1, 4)
    return bytes(buffer)


def random_json(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth > 4 or roll < 0.3:
        return rng.choice(
            [None, True, 0, -1, 2**70, 1.5, float("1e308"), "", "x", "../../etc/passwd", "$(touch x)", "a\x00b"]
        )
    if roll < 0.6:
        return [random_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    keys = ["file", "directory", "arguments", "command", "findings", "summary", "units", "kernels", "cases",
            "fingerprint", "format", "name", "targets", "rule", "line", "fix", "severity", "status", "mode"]  # fmt: skip
    return {rng.choice(keys): random_json(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def mutate_document(rng: random.Random, document):
    """A valid document with a few of its values replaced, dropped or nested past the stack."""
    document = json.loads(json.dumps(document))
    for _ in range(rng.randint(1, 4)):
        node = document
        while isinstance(node, (dict, list)) and node and rng.random() < 0.7:
            key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
            child = node[key]
            if not isinstance(child, (dict, list)) or rng.random() < 0.3:
                if rng.random() < 0.2 and isinstance(node, dict):
                    del node[key]
                else:
                    node[key] = random_json(rng, 3)
                break
            node = child
    return document


def deep_text(rng: random.Random) -> str:
    depth = rng.choice([1000, 20_000, 200_000])
    return "[" * depth + "]" * depth


def json_text(rng: random.Random, valid) -> str:
    roll = rng.random()
    if roll < 0.05:
        return deep_text(rng)
    if roll < 0.15:
        text = json.dumps(valid)
        cut = rng.randint(0, len(text))
        return text[:cut]  # cut short
    if roll < 0.35:
        return json.dumps(random_json(rng))
    return json.dumps(mutate_document(rng, valid))


def toml_text(rng: random.Random) -> str:
    values = ['"gfx942"', '["gfx942"]', "5", "true", '"6.4"', "[1, 2]", "{ a = 1 }", '"../x"', "[[]]", '""']
    keys = ["targets", "rocm-version", "include", "exclude", "vendored", "tool", "porter", "verify", "x"]
    lines = []
    for _ in range(rng.randint(0, 6)):
        roll = rng.random()
        if roll < 0.15:
            lines.append(f"[{rng.choice(['tool', 'tool.porter', 'verify', 'porter'])}]")
        elif roll < 0.2:
            lines.append("[[verify.case]]")
        elif roll < 0.25:
            lines.append("".join(rng.choice(string.printable) for _ in range(rng.randint(1, 20))))
        else:
            lines.append(f"{rng.choice(keys)} = {rng.choice(values)}")
    return "\n".join(lines) + "\n"


VALID_CASE = {
    "name": "k", "source": "k.cu", "kernel": "k", "params": {"n": 64}, "grid": "(n + 31) / 32", "block": 32,
    "args": [{"name": "n", "dtype": "i32", "value": "n"}, {"name": "x", "dtype": "f32", "size": "n", "init": "randn", "output": True}],
    "tolerance": {"f32": {"rtol": 1e-5, "atol": 1e-6}},
}  # fmt: skip
VALID_TORCH_CASE = {
    "name": "t", "sources": ["k.cu"], "function": "f", "device": "cpu", "params": {"n": 4},
    "args": [{"name": "x", "dtype": "f32", "size": "n"}], "returns": [{"name": "y", "dtype": "f32"}],
}  # fmt: skip


def cases_toml(rng: random.Random) -> str:
    """verify cases with mutated values, written as TOML (only what TOML can say survives)."""
    import tomli_w

    document = {
        "verify": {"case": [mutate_document(rng, VALID_CASE)], "torch": [mutate_document(rng, VALID_TORCH_CASE)]}
    }
    try:
        return tomli_w.dumps(_toml_safe(document))
    except (TypeError, ValueError):
        return toml_text(rng)


def _toml_safe(value):
    if value is None:
        return "none"
    if isinstance(value, dict):
        return {str(k): _toml_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_toml_safe(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**63:
        return str(value)
    return value


# -- one input -----------------------------------------------------------------------------------


@dataclass
class Context:
    sources: list[Path]
    scan_document: dict
    work: Path


def check_source(rng: random.Random, context: Context, tally: Tally, where: str) -> None:
    from porter.convert import convert_source
    from porter.scan import Deep, analyze_file

    origin = rng.choice(context.sources)
    data = mutate_bytes(rng, origin.read_bytes(), context.sources)
    path = context.work / f"input{origin.suffix}"
    path.write_bytes(data)
    kind = kind_of(path)
    config = Config()
    result = analyze_file(DiscoveredFile(path, path.name, kind), config, Deep.NEVER, None, cap=None)
    _require_sound(result, data, where, "scan")
    if result.error:
        return  # undecodable input: reported, nothing to convert
    source = SourceFile.read(path, path.name, kind)
    for mode in ("portable", "hip"):
        once = convert_source(source, result.findings, mode, config)
        path.write_bytes(once)
        again = analyze_file(DiscoveredFile(path, path.name, kind), config, Deep.NEVER, None, cap=None)
        _require_sound(again, once, where, f"rescan after {mode}")
        twice = convert_source(SourceFile.read(path, path.name, kind), again.findings, mode, config)
        if twice != once:
            tally.not_idempotent.append(f"{where} ({origin.relative_to(REPO)}, {mode})")
        path.write_bytes(data)


def _require_sound(result, data: bytes, where: str, step: str) -> None:
    if result.error and not result.error.startswith(("cannot read", "cannot decode")):
        raise AssertionError(f"{step}: {result.error}\n{result.clang_detail}")
    size = len(data) if not data.startswith((b"\xff\xfe", b"\xfe\xff")) else 4 * len(data)
    for finding in result.findings:
        span = finding.span
        assert 0 <= span.start_byte <= span.end_byte <= size, f"{step}: {finding.rule} span out of the file"
        assert span.line >= 1 and span.column >= 1, f"{step}: {finding.rule} at line {span.line}"
        for edit in finding.edits:
            assert 0 <= edit.start <= edit.end <= size, f"{step}: {finding.rule} edit out of the file"


def check_reader(kind: str, rng: random.Random, context: Context) -> None:
    work = context.work
    for stale in ("porter.toml", "pyproject.toml"):
        (work / stale).unlink(missing_ok=True)
    try:
        if kind == "compile_commands":
            valid = [
                {"directory": str(work), "file": "k.cu", "arguments": ["nvcc", "-DX=1", "-I", "inc", "-c", "k.cu"]}
            ]
            (work / "compile_commands.json").write_text(json_text(rng, valid))
            load_compile_commands(work / "compile_commands.json")
        elif kind == "config":
            (work / rng.choice(["porter.toml", "pyproject.toml"])).write_text(toml_text(rng))
            load_config(work)
        elif kind == "cases":
            from porter.verify.cases import load_cases, load_torch_cases

            (work / "porter.toml").write_text(cases_toml(rng))
            config = load_config(work)
            load_cases(config)
            load_torch_cases(config)
        elif kind == "baseline":
            from porter.check import read_baseline

            valid = {"format": 1, "findings": [{"fingerprint": "ab:0", "rule": "API001"}]}
            (work / "baseline.json").write_text(json_text(rng, valid))
            read_baseline(work / "baseline.json")
        else:
            from porter.report.merge import load_results
            from porter.report.render import render

            (work / "results.json").write_text(json_text(rng, context.scan_document))
            merged = load_results([work / "results.json"])
            for suffix in (".html", ".md", ".sarif", ".json"):
                try:
                    render(merged, work / f"report{suffix}")
                except PorterError:
                    pass
    except PorterError:
        pass  # the one allowed way to refuse input


def run_input(seed: int, index: int, context: Context, tally: Tally) -> None:
    rng = random.Random(seed * 1_000_003 + index)
    kind = rng.choice(KINDS)
    where = f"seed {seed} input {index} ({kind})"
    started = time.perf_counter()
    signal.alarm(HANG_SECONDS)
    try:
        if kind == "source":
            check_source(rng, context, tally, where)
        else:
            check_reader(kind, rng, context)
    except Hang:
        tally.hangs.append(where)
    except Exception as exc:  # noqa: BLE001 - every other exception is what the campaign looks for
        detail = "".join(traceback.format_exception(exc, limit=-3)).strip().splitlines()[-4:]
        tally.failures.append(f"{where}: {' | '.join(detail)}"[:600])
    finally:
        signal.alarm(0)
    elapsed = time.perf_counter() - started
    tally.inputs += 1
    tally.by_kind[kind] = tally.by_kind.get(kind, 0) + 1
    tally.slowest = max(tally.slowest, (elapsed, where))


def _on_alarm(signum, frame):
    raise Hang()


def campaign(seed: int, indices: range) -> Tally:
    """Run the inputs `indices` of `seed` in this process."""
    signal.signal(signal.SIGALRM, _on_alarm)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    tally = Tally()
    with tempfile.TemporaryDirectory(prefix="porter-fuzz-") as tmp:
        context = Context(corpus_sources(), _scan_document(), Path(tmp))
        for index in indices:
            run_input(seed, index, context, tally)
    return tally


def _scan_document() -> dict:
    from porter.scan import scan

    return scan([CORPUS / "api"], Config()).to_json()


def _campaign_star(args) -> Tally:
    return campaign(*args)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", type=int, help="replay one input of the seed")
    parser.add_argument("--report", type=Path, help="write the tally as Markdown here")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.only is not None:
        tally = campaign(args.seed, range(args.only, args.only + 1))
    else:
        chunk = 500
        work = [(args.seed, range(start, min(start + chunk, args.count))) for start in range(0, args.count, chunk)]
        tally = Tally()
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for done in pool.map(_campaign_star, work):
                tally.merge(done)
                print(f"[fuzz] {tally.inputs} inputs, {len(tally.failures)} failures, {len(tally.hangs)} hangs, "
                      f"{time.perf_counter() - started:.0f}s", file=sys.stderr)  # fmt: skip
    seconds = time.perf_counter() - started
    text = render_tally(tally, args, seconds)
    print(text)
    if args.report:
        args.report.write_text(text)
    return 1 if tally.failures or tally.hangs else 0


def render_tally(tally: Tally, args, seconds: float) -> str:
    lines = [
        "# Fuzz campaign: scan, convert and every JSON/TOML reader",
        "",
        f"Command: `python bench/fuzz.py --count {args.count} --seed {args.seed} --jobs {args.jobs}` "
        f"({os.cpu_count()} cores here). Replay one input with `--seed {args.seed} --only N`.",
        "",
        "| inputs | failures (tracebacks, internal errors, unsound spans) | hangs (> "
        f"{HANG_SECONDS} s) | conversions not idempotent | slowest input | wall time |",
        "|---:|---:|---:|---:|---|---:|",
        f"| {tally.inputs} | {len(tally.failures)} | {len(tally.hangs)} | {len(tally.not_idempotent)} | "
        f"{tally.slowest[0]:.2f} s ({tally.slowest[1]}) | {seconds:.0f} s |",
        "",
        "Inputs by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(tally.by_kind.items())) + ".",
    ]
    for title, items in (
        ("Failures", tally.failures),
        ("Hangs", tally.hangs),
        ("Not idempotent", tally.not_idempotent),
    ):
        if items:
            lines += ["", f"## {title} ({len(items)}; first 20)", ""] + [f"- {item}" for item in items[:20]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
