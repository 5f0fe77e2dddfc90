"""Expert ports as ground truth: does porter flag the code that experts changed for ROCm?

Several PyPI packages carry hand-written ROCm branches (`#ifdef USE_ROCM`, `MMCV_WITH_HIP`,
`__HIP_PLATFORM_AMD__`, ...). For each package this script:

1. strips those branches, keeping the CUDA side, like `unifdef` with the ROCm macros undefined;
2. records where the CUDA side was: a *replaced* region is CUDA code the experts swapped for
   something else on ROCm; an *added* region is ROCm-only code with nothing on the CUDA side;
3. scans the stripped tree with porter and counts a region as found when a finding lies in it
   (one line of slack either side).

Recall over replaced regions is the headline; added regions are listed, since no checker can
flag code that is not there. Usage: `python bench/expert.py [--output reports/expert-ports.md]`.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.pypi import PACKAGES, fetch  # noqa: E402
from porter.config import Config  # noqa: E402
from porter.scan import scan  # noqa: E402
from porter.source import kind_of  # noqa: E402

ROCM_MACROS = re.compile(
    r"\b(USE_ROCM|__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|MMCV_WITH_HIP|__HIPCC__|__HIP__|__HIP_DEVICE_COMPILE__"
    r"|HIP_VERSION|ROCM_VERSION|USE_HIP|TORCH_HIP_VERSION|WITH_HIP|BUILD_WITH_HIP|__gfx\w+__|__GFX\d+__)\b"
)
DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
EXPERT_PACKAGES = ("torch-scatter", "causal-conv1d", "mmcv", "deepspeed", "gptqmodel")


@dataclass
class Region:
    file: str
    start: int  # 1-based lines of the stripped file, inclusive
    end: int
    kind: str  # replaced | added
    rocm_lines: int
    hits: list[str] = field(default_factory=list)


def truth(condition: str) -> bool | None:
    """Value of a preprocessor condition with every ROCm macro undefined; None if other macros decide it."""
    text = re.sub(r"//.*|/\*.*?\*/", "", condition)
    text = re.sub(
        r"defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)",
        lambda m: "0" if ROCM_MACROS.fullmatch(m.group(1) or m.group(2)) else "UNKNOWN",
        text,
    )
    text = ROCM_MACROS.sub("0", text)
    text = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", text)
    text = re.sub(r"\b(?!UNKNOWN\b)[A-Za-z_]\w*", "UNKNOWN", text)
    python = text.replace("&&", " and ").replace("||", " or ")
    python = re.sub(r"!(?!=)", " not ", python)
    outcomes = set()
    for unknown in (0, 1, 1_000_000):
        try:
            outcomes.add(bool(eval(python, {"__builtins__": {}}, {"UNKNOWN": unknown})))  # noqa: S307 - digits and operators only
        except Exception:
            return None
    return outcomes.pop() if len(outcomes) == 1 else None


def strip(lines: list[str], rel: str) -> tuple[list[str], list[Region]]:
    """Keep the CUDA side of ROCm conditionals; return the new lines and the regions."""
    out: list[str] = []
    regions: list[Region] = []
    stack: list[dict] = []

    def emitting() -> bool:
        return all(frame["emit"] for frame in stack)

    for line in lines:
        match = DIRECTIVE.match(line)
        kind, rest = (match.group(1), match.group(2)) if match else (None, "")
        if kind in ("if", "ifdef", "ifndef"):
            condition = (
                rest
                if kind == "if"
                else (f"defined({rest.strip()})" if kind == "ifdef" else f"!defined({rest.strip()})")
            )
            value = truth(condition) if ROCM_MACROS.search(rest) else None
            if value is None:
                stack.append({"rocm": False, "emit": True})
                if emitting():
                    out.append(line)
                continue
            frame = {
                "rocm": True,
                "emit": value,
                "taken": value,
                "cuda_start": len(out) + 1,
                "rocm_lines": 0,
                "had_cuda": value,
            }
            stack.append(frame)
            continue
        if kind in ("elif", "else") and stack and stack[-1]["rocm"]:
            frame = stack[-1]
            value = True if kind == "else" else truth(rest)
            if value is None:
                value = False  # an undecidable #elif after a ROCm test: keep the CUDA branch found so far
            frame["emit"] = (not frame["taken"]) and value
            frame["taken"] = frame["taken"] or value
            frame["had_cuda"] = frame["had_cuda"] or frame["emit"]
            continue
        if kind == "endif" and stack and stack[-1]["rocm"]:
            frame = stack.pop()
            if emitting():
                start, end = frame["cuda_start"], len(out)
                regions.append(
                    Region(rel, start, max(start, end), "replaced" if end >= start else "added", frame["rocm_lines"])
                )
            continue
        if kind == "endif" and stack:
            stack.pop()
            if emitting():
                out.append(line)
            continue
        if stack and stack[-1]["rocm"] and not stack[-1]["emit"]:
            stack[-1]["rocm_lines"] += 1
        if emitting():
            out.append(line)
    return out, regions


def analyse(name: str, tree: Path, work: Path) -> dict:
    regions: list[Region] = []
    for path in sorted(tree.rglob("*")):
        kind = kind_of(path)
        if kind is None or not kind.is_c_family or not path.is_file():
            continue
        rel = path.relative_to(tree).as_posix()
        raw = path.read_bytes().decode("utf-8", "surrogateescape")
        newline = "\r\n" if "\r\n" in raw else "\n"
        lines, found = strip(raw.split(newline), rel)
        target = work / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(newline.join(lines).encode("utf-8", "surrogateescape"))
        regions.extend(found)
    started = time.perf_counter()
    result = scan([work], Config(), jobs=None)
    seconds = time.perf_counter() - started
    by_line: dict[tuple[str, int], list[str]] = {}
    for finding in result.findings:
        for line in range(finding.span.line, finding.span.end_line + 1):
            by_line.setdefault((finding.file, line), []).append(f"{finding.rule}:{finding.category}")
    for region in regions:
        for line in range(region.start - 1, region.end + 2):
            region.hits.extend(by_line.get((region.file, line), []))
    replaced = [r for r in regions if r.kind == "replaced"]
    found = [r for r in replaced if r.hits]
    return {
        "package": name,
        "files": result.summary()["files"],
        "lines": result.summary()["lines"],
        "regions": len(regions),
        "replaced": len(replaced),
        "added": len(regions) - len(replaced),
        "found": len(found),
        "recall": len(found) / len(replaced) if replaced else None,
        "categories": Counter(h.split(":")[1] for r in found for h in set(r.hits)),
        "missed": [r for r in replaced if not r.hits],
        "seconds": seconds,
    }


def report(results: list[dict], stripped: dict[str, Path]) -> str:
    lines = [
        "# Expert ROCm ports as ground truth",
        "",
        "Each package's own ROCm branches were stripped (CUDA side kept, ROCm macros undefined) and the",
        "stripped tree scanned with porter's defaults (gfx942, ROCm 6.4). A *replaced* region is CUDA code the",
        "package's experts swapped for something else on ROCm; it counts as found when a porter finding lies",
        "in it, with one line of slack. *Added* regions hold ROCm-only code with nothing on the CUDA side.",
        "",
        "| package | files | lines | ROCm regions | replaced | found | recall | added | scan s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    total_replaced = sum(r["replaced"] for r in results)
    total_found = sum(r["found"] for r in results)
    for r in results:
        recall = f"{r['recall']:.2f}" if r["recall"] is not None else "n/a"
        lines.append(
            f"| {r['package']} | {r['files']} | {r['lines']} | {r['regions']} | {r['replaced']} | {r['found']} | {recall} | {r['added']} | {r['seconds']:.1f} |"
        )
    if total_replaced:
        lines.append(
            f"| **all** | | | | {total_replaced} | {total_found} | **{total_found / total_replaced:.2f}** | | |"
        )
    lines += ["", "Categories of the findings inside found regions:", ""]
    for r in results:
        cats = ", ".join(f"{c} {n}" for c, n in r["categories"].most_common()) or "none"
        lines.append(f"- {r['package']}: {cats}")
    lines += ["", "Replaced regions porter did not flag (first lines of the CUDA side):", ""]
    for r in results:
        for region in r["missed"][:12]:
            text = (
                (stripped[r["package"]] / region.file)
                .read_text(errors="replace")
                .split("\n")[region.start - 1 : region.end]
            )
            first = next((t.strip() for t in text if t.strip()), "")[:100]
            lines.append(f"- {r['package']} `{region.file}:{region.start}`: `{first}`")
        if len(r["missed"]) > 12:
            lines.append(f"- {r['package']}: … {len(r['missed']) - 12} more")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=Path, default=REPO / "reports" / "expert-ports.md")
    args = parser.parse_args()
    results, stripped = [], {}
    with tempfile.TemporaryDirectory(prefix="porter-expert-") as tmp:
        for name in EXPERT_PACKAGES:
            print(f"[expert] {name}: fetching", file=sys.stderr)
            tree = fetch(PACKAGES[name])
            work = Path(tmp) / name
            print(f"[expert] {name}: stripping ROCm branches and scanning", file=sys.stderr)
            results.append(analyse(name, tree, work))
            stripped[name] = work
        text = report(results, stripped)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
