"""The harness: one C++ program per case, rendered from a template, identical for every variant."""

from __future__ import annotations

import hashlib
from pathlib import Path

import jinja2

from porter.config import ConfigError
from porter.embedded import VIEW_SUFFIX, device_code
from porter.source import is_python
from porter.verify.cases import DTYPES, Case

KINDS = {"zeros": 0, "arange": 1, "randn": 2, "uniform": 3, "range": 4, "const": 5}
_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("porter.verify", "templates"),
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
    undefined=jinja2.StrictUndefined,
)


def harness_name(case: Case, port: bool = False) -> str:
    """A case with a hand-written port gets a second harness around it, converted like the first."""
    return f"porter_verify_{case.name}{'.port' if port and case.port else ''}.cu"


def seed(case: Case, index: int) -> int:
    """Each argument's stream depends only on the case and the argument, never on the machine."""
    digest = hashlib.sha256(f"{case.name}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def _literal(value: float) -> str:
    """A C++ floating literal; cases.py refuses NaN and infinities, which have none."""
    return repr(float(value))


def _arg_view(case: Case, index: int) -> dict:
    arg = case.args[index]
    ctype, width, descr = DTYPES[arg.dtype]
    a, b = (arg.init_args + (0.0, 0.0))[:2]
    view = {
        "index": index,
        "name": arg.name,
        "dtype": arg.dtype,
        "ctype": ctype,
        "width": width,
        "descr": descr,
        "size": arg.size,
        "output": arg.output,
        "kind": KINDS[arg.init],
        "a": _literal(a),
        "b": _literal(b),
        "seed": seed(case, index),
        "bytes": (arg.size or 0) * width,
    }
    if arg.size is None:
        value = arg.init_args[0]
        view["value"] = _literal(value) if arg.dtype in ("f64", "f32", "f16", "bf16") else str(int(value))
    return view


def render(case: Case, source: str) -> str:
    args = [_arg_view(case, i) for i in range(len(case.args))]
    return _ENVIRONMENT.get_template("harness.cu.j2").render(case=case, args=args, source=source)


def write(case: Case, tree: Path) -> None:
    (tree / harness_name(case)).write_text(render(case, included(tree, case.source, case)), encoding="utf-8")
    if case.port:
        harness = render(case, included(tree, case.port, case))
        (tree / harness_name(case, port=True)).write_text(harness, encoding="utf-8")


def included(tree: Path, rel: str, case: Case) -> str:
    """What the harness includes for a case's source: the source, or for a Python file the CUDA in
    its strings (porter.embedded's view, written beside it; the case's `string` alone where it
    names one): the kernel that cupy or NVRTC would compile at run time, as the file holds it."""
    if not is_python(rel):
        return rel
    code = device_code((tree / rel).read_bytes(), case.string)
    if not code.strip():
        held = f"a string given to `{case.string}`" if case.string else "a string"
        raise ConfigError(f"case {case.name!r}: {rel} holds no device code in {held}")
    view = rel + VIEW_SUFFIX
    (tree / view).write_bytes(code)
    return view
