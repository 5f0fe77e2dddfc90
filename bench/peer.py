"""The peer: torch's hipify, run the way a PyTorch extension's ROCm build runs it."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path


def run_hipify(project: Path, output: Path | None = None, includes: list[str] | None = None) -> dict:
    """hipify_python over `project` (into `output`, in place by default); its result per file.

    Its progress lines go to stderr. hipify keeps results of earlier calls in the same dict, so
    callers filter the result by their own paths.
    """
    from torch.utils.hipify import hipify_python

    output = output or project
    with contextlib.redirect_stdout(sys.stderr):
        return hipify_python.hipify(
            project_directory=str(project),
            output_directory=str(output),
            includes=includes or [str(project / "*")],
            show_detailed=False,
            show_progress=False,
            is_pytorch_extension=True,
        )
