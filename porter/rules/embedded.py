"""CUDA held in Python strings (category `embedded-source`): what porter's fixes cannot reach.

The other families analyse the strings through porter.embedded's view and report at the Python
file's lines; this one withholds their edits and says why, once per file.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from porter.findings import Finding, FixKind, Severity
from porter.rules.base import FileContext, Rule

RUN_TIME_CUDA = Rule(
    id="EMB001",
    name="cuda-in-python-string",
    category="embedded-source",
    severity=Severity.INFO,
    fix=FixKind.MANUAL,
    summary="CUDA C++ in a Python string, compiled at run time, with findings",
    what="""
        Reports a Python file whose string literals hold device code (`cupy.RawKernel`,
        `cupy.RawModule`, `torch.utils.cpp_extension.load_inline`, NVRTC programs) where porter's
        rules found something in that code. Each of those findings stands at its line in the
        Python file; this one says that their fixes are left to a person.
        """,
    why="""
        The code is compiled while the program runs (by hipRTC under cupy on ROCm, by hipcc after
        torch's hipify for `load_inline`), so no build sees it and its wave32 assumptions fail on
        a wave64 GPU at run time: cupy/cupy#9977 fixed a shuffle ladder starting at 16 and a 32-bit
        mask in a `RawModule`. porter does not rewrite it: its fixes name porter_compat.h, which a
        run-time compilation does not include, and a string that Python assembles (format fields,
        concatenation) is not the code as written.
        """,
    example="""
        kernel = cupy.RawKernel(r'''
        extern "C" __global__ void row_sum(const float* x, float* out) {
          float v = x[threadIdx.x];
          for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
          if (threadIdx.x % 32 == 0) atomicAdd(out, v);
        }''', 'row_sum')
        """,
    use_instead="""
        Port the string by hand, finding by finding (`warpSize` for the width, a 64-bit mask that
        matches the active lanes, `__activemask()`), or move the kernel into a `.cu` file that the
        build compiles and porter converts.
        """,
    references=("https://github.com/cupy/cupy/pull/9977",),
)

RULES = (RUN_TIME_CUDA,)


def check(ctx: FileContext) -> Iterable[Finding]:
    """Nothing of its own: see `hold_fixes`, which runs once the other families have reported."""
    return ()


def hold_fixes(ctx: FileContext, findings: list[Finding]) -> list[Finding]:
    """The findings in a Python file's strings, each left to a person (no edit), and EMB001 at the
    file's first device code saying so; a file without findings stays without."""
    if ctx.source.embedded_in is None or not findings:
        return findings
    held = [
        finding if finding.fix is FixKind.MANUAL else dataclasses.replace(finding, fix=FixKind.MANUAL, edits=())
        for finding in findings
    ]
    first = re.search(rb"\S+", ctx.source.data)
    start, end = first.span() if first else (0, 0)
    count = f"{len(findings)} finding{'s' if len(findings) != 1 else ''}"
    message = (
        f"{count} in CUDA that this Python file compiles at run time: "
        "porter does not rewrite code inside Python strings, port it by hand"
    )
    return [RUN_TIME_CUDA.finding(ctx, start, end, message), *held]
