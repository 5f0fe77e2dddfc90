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

from porter.targets import Variant, toolchains
from porter.verify.cases import TorchCase
from porter.verify.harness import seed

ORIGINAL, PORT = Variant.TORCH_ORIGINAL, Variant.TORCH_PORT


def spec_for(case: TorchCase, variant: str, tree: Path, outputs: Path) -> dict:
    sources = case.port if variant == PORT and case.port else case.sources
    spec = {
        "name": case.name,
        "module": re.sub(r"\W", "_", f"porter_{case.name}_{variant}"),
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
    spec["build"] = str(build_directory(spec))
    return spec


def build_directory(spec: dict) -> Path:
    """torch's build directory for this module and these sources, kept in porter's cache so that an
    unchanged extension is not compiled again (cpp_extension rebuilds when sources or flags change)."""
    digest = hashlib.sha256(spec["module"].encode())
    for source in spec["sources"]:
        digest.update(Path(source).read_bytes())
    return toolchains.cache_dir() / "torch-extensions" / f"{spec['module']}-{digest.hexdigest()[:16]}"


def run_variant(spec: dict, work: Path, timeout: int = 1800) -> dict:
    """Run the runner for one variant; its status.json, or why there is none."""
    path = work / f"{spec['module']}.json"
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
