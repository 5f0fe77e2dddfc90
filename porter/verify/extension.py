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
import subprocess
import sys
from pathlib import Path

from porter.source import kind_of
from porter.targets import Variant, toolchains
from porter.verify.cases import TorchCase
from porter.verify.harness import seed

ORIGINAL, PORT = Variant.TORCH_ORIGINAL, Variant.TORCH_PORT


def spec_for(case: TorchCase, variant: str, tree: Path, outputs: Path) -> dict:
    sources = case.port if variant == PORT and case.port else case.sources
    digest = build_digest(tree, sources)
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
    spec["build"] = str(toolchains.cache_dir() / "torch-extensions" / spec["module"])
    return spec


def build_digest(tree: Path, sources: list[str]) -> str:
    """What an extension is built from: its sources and every C-family file of the tree they may
    include, by path within the tree and content. porter stages each run's trees in a new folder,
    which cpp_extension's own check (paths, flags, times) takes for a change: this digest is what
    lets the torch runner reuse a build from porter's cache (torch, Python and the compiler the
    runner checks itself, as it imports the build)."""
    digest = hashlib.sha256("\0".join(sources).encode())
    for path in sorted(tree.rglob("*")):
        kind = kind_of(path)
        if kind is not None and kind.is_c_family and path.is_file():
            digest.update(path.relative_to(tree).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:20]


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
