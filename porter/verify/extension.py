"""PyTorch-extension cases: the original and the ported extension, each built with torch's own
torch.utils.cpp_extension (which hipifies by itself under a ROCm build of torch), called on the same
seeded inputs in a process of its own (porter.verify.torch_runner), and compared.

Variants: `torch-original` (the sources as given; checked against the case's CPU reference when it
names one) and `torch-port` (porter's portable conversion, or the case's hand-written `port`),
checked against the original, or against a recorded run with --compare.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from porter.source import kind_of
from porter.targets import Variant, toolchains
from porter.verify.cases import TorchCase
from porter.verify.harness import seed

ORIGINAL, PORT = Variant.TORCH_ORIGINAL, Variant.TORCH_PORT

# A build's folder is named by its whole tree (build_digest), so a project edited between runs
# leaves one folder per edit: those unused this long are removed
UNUSED_BUILD_DAYS = 30
# a folder without porter's record is a build that failed or is under way in another run
UNFINISHED_BUILD_DAYS = 1


def builds_dir() -> Path:
    return toolchains.cache_dir() / "torch-extensions"


def spec_for(case: TorchCase, variant: str, tree: Path, outputs: Path, digests: TreeDigests | None = None) -> dict:
    sources = case.port if variant == PORT and case.port else case.sources
    digest = build_digest(tree, sources, digests)
    spec = {
        "name": case.name,
        "label": re.sub(r"\W", "_", f"{case.name}_{variant}"),
        # named by what it is built from, so that cases of the same sources share one build
        "module": f"porter_ext_{digest}",
        "sources": [str(tree / s) for s in sources],
        "include": sorted({str(tree)} | {str((tree / s).parent) for s in sources}),
        "function": case.function,
        "device": case.device,
        "args": [
            {
                "name": a.name,
                "dtype": a.dtype,
                "size": a.size,
                "init": a.init,
                "init_args": list(a.init_args),
                "seed": seed(case, i),
            }
            for i, a in enumerate(case.args)
        ],  # fmt: skip
        "returns": [{"name": r.name, "dtype": r.dtype} for r in case.returns],
        "reference": str(tree / case.reference) if case.reference and variant == ORIGINAL else None,
        "warmup": case.warmup,
        "reps": case.reps,
        "outputs": str(outputs),
    }
    spec["build"] = str(builds_dir() / spec["module"])
    return spec


def build_digest(tree: Path, sources: list[str], digests: TreeDigests | None = None) -> str:
    """What an extension is built from: its sources and every C-family file of the tree they may
    include, by path within the tree and content. porter stages each run's trees in a new folder,
    which cpp_extension's own check (paths, flags, times) takes for a change: this digest is what
    lets the torch runner reuse a build from porter's cache (torch, Python and the compiler the
    runner checks itself, as it imports the build). `digests` hashes each tree once a run."""
    files = (digests or TreeDigests()).of(tree)
    return hashlib.sha256("\0".join([*sources, files]).encode()).hexdigest()[:20]


class TreeDigests:
    """Each staged tree's C-family files hashed once, whichever of a run's cases asks first (cases
    run side by side, in threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._digests: dict[Path, str] = {}

    def of(self, tree: Path) -> str:
        with self._lock:
            if tree not in self._digests:
                self._digests[tree] = _c_family_digest(tree)
            return self._digests[tree]


def _c_family_digest(tree: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(tree.rglob("*")):
        kind = kind_of(path)
        if kind is not None and kind.is_c_family and path.is_file():
            digest.update(path.relative_to(tree).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def prune_unused_builds(now: float | None = None) -> list[Path]:
    """Remove the extension builds no run has used for UNUSED_BUILD_DAYS (the runner marks a
    build's record each time it imports one), and the unfinished ones left UNFINISHED_BUILD_DAYS;
    returned, the folders removed."""
    now = time.time() if now is None else now
    removed = []
    for build in sorted(builds_dir().glob("porter_ext_*")) if builds_dir().is_dir() else ():
        record = build / "porter-build.json"
        days = (now - _last_change(record if record.is_file() else build)) / 86400
        if days > (UNUSED_BUILD_DAYS if record.is_file() else UNFINISHED_BUILD_DAYS):
            shutil.rmtree(build, ignore_errors=True)
            removed.append(build)
    return removed


def _last_change(path: Path) -> float:
    """When the file, or the folder or any entry directly in it, last changed."""
    try:
        times = [path.stat().st_mtime]
        if path.is_dir():
            times += [entry.stat().st_mtime for entry in path.iterdir()]
    except OSError:
        return time.time()  # changing under our feet: in use
    return max(times)


def run_variant(spec: dict, work: Path, timeout: int = 1800) -> dict:
    """Run the runner for one variant; its status.json, or why there is none."""
    path = work / f"{spec['label']}.json"
    path.write_text(json.dumps(spec))
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "porter.verify.torch_runner", str(path)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return {"status": "failed", "reason": f"the runner took longer than {timeout} s", "device": None}
    status = Path(spec["outputs"]) / "status.json"
    if not status.is_file():
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return {"status": "failed", "reason": f"the runner crashed: {' | '.join(tail)}", "device": None}
    return json.loads(status.read_text())
