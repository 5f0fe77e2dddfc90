"""Verification cases from `[tool.porter.verify]` (pyproject.toml) or `[verify]` (porter.toml).

    [[verify.case]]
    name = "saxpy"
    source = "saxpy.cu"
    kernel = "saxpy"
    params = { n = 4096 }
    grid = "(n + 255) / 256"
    block = 256
    args = [
      { name = "n", dtype = "i32", value = "n" },
      { name = "x", dtype = "f32", size = "n", init = "randn" },
      { name = "y", dtype = "f32", size = "n", init = "uniform(-1, 1)", output = true },
    ]
    tolerance = { f32 = { rtol = 1e-5, atol = 1e-6 } }

Sizes, grid, block and dynamic shared memory are integer expressions over `params`.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from porter.config import Config, ConfigError
from porter.source import is_python

DTYPES = {  # name: (C type in the harness, bytes, numpy dtype of the stored bits)
    "f64": ("double", 8, "<f8"),
    "f32": ("float", 4, "<f4"),
    "f16": ("uint16_t", 2, "<f2"),
    "bf16": ("uint16_t", 2, "<u2"),
    "i64": ("int64_t", 8, "<i8"),
    "i32": ("int32_t", 4, "<i4"),
    "i16": ("int16_t", 2, "<i2"),
    "i8": ("int8_t", 1, "<i1"),
    "u64": ("uint64_t", 8, "<u8"),
    "u32": ("uint32_t", 4, "<u4"),
    "u8": ("uint8_t", 1, "<u1"),
}
FLOATS = {"f64", "f32", "f16", "bf16"}
GENERATOR = re.compile(r"^(randn|zeros|arange|uniform|range|const)\s*(?:\(([^)]*)\))?$")
DEFAULT_TOLERANCE = {
    "f64": {"rtol": 1e-12, "atol": 1e-12},
    "f32": {"rtol": 1e-5, "atol": 1e-6},
    "f16": {"rtol": 1e-3, "atol": 1e-3},
    "bf16": {"rtol": 8e-3, "atol": 8e-3},
}

_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.floordiv,  # launch geometry is integral: "(n + 255) / 256" means C's division
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}


@dataclass(frozen=True)
class Tolerance:
    rtol: float = 0.0
    atol: float = 0.0
    max_ulp: int | None = None
    mismatch_fraction: float = 0.0


@dataclass(frozen=True)
class Arg:
    name: str
    dtype: str
    size: int | None  # None: a scalar passed by value
    init: str = "zeros"
    init_args: tuple[float, ...] = ()
    output: bool = False


class Compared:
    """What verify compares of a case: the tensors it produces, each within its dtype's tolerance."""

    tolerance: dict[str, Tolerance]

    def tolerance_for(self, dtype: str) -> Tolerance:
        return self.tolerance.get(dtype) or Tolerance(**DEFAULT_TOLERANCE.get(dtype, {}))


@dataclass
class Case(Compared):
    name: str
    source: str
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int
    args: list[Arg]
    tolerance: dict[str, Tolerance] = field(default_factory=dict)
    warmup: int = 3
    reps: int = 20
    flush_l2: bool = False
    port: str | None = None  # a hand-written port to verify instead of porter's conversion
    expect: str = "pass"  # "fail" for planted bugs: verify must catch them
    # the warp width a planted port is written for: it must fail at the other width, and may pass at its own
    written_for: int = 32
    # for a Python source (and port): the name its kernel's string is given to (`_kernel = r"""…`);
    # without it, every string of the file that holds device code
    string: str | None = None

    @property
    def produced(self) -> list[Arg]:
        return [a for a in self.args if a.output]


# A case describes sizes and launch geometry: 64-bit values, short expressions. Bounds that keep a
# hostile porter.toml from exhausting memory (`1 << 100000000000`) or the stack (20,000 minus signs).
MAX_EXPRESSION_CHARS = 500
MAX_EXPRESSION_DEPTH = 32
MAX_MAGNITUDE = 2**63 - 1
MAX_SHIFT = 63


def evaluate(expression, params: dict[str, int], where: str) -> int:
    """An integer expression over the case's params, without Python's eval, within 64-bit bounds."""
    if isinstance(expression, bool) or not isinstance(expression, (int, str)):
        raise ConfigError(f"{where}: expected an integer or an expression, got {expression!r}")
    if isinstance(expression, int):
        return _bounded(expression, where, str(expression))
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ConfigError(f"{where}: expression of {len(expression)} characters; at most {MAX_EXPRESSION_CHARS}")
    try:
        tree = ast.parse(expression, mode="eval").body
    except (SyntaxError, RecursionError, MemoryError, ValueError) as exc:
        raise ConfigError(f"{where}: {expression!r} is not an expression") from exc
    return _evaluate_node(tree, params, where, expression, 0)


def _bounded(value: int, where: str, text: str) -> int:
    if abs(value) > MAX_MAGNITUDE:
        raise ConfigError(f"{where}: {text!r} leaves the 64-bit range")
    return value


def _evaluate_node(node, params, where, text, depth: int) -> int:
    if depth > MAX_EXPRESSION_DEPTH:
        raise ConfigError(f"{where}: {text!r} nests deeper than {MAX_EXPRESSION_DEPTH} levels")
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return _bounded(node.value, where, text)
    if isinstance(node, ast.Name):
        if node.id not in params:
            raise ConfigError(f"{where}: {text!r} names {node.id!r}, which is not in params")
        return params[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left = _evaluate_node(node.left, params, where, text, depth + 1)
        right = _evaluate_node(node.right, params, where, text, depth + 1)
        if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and right == 0:
            raise ConfigError(f"{where}: {text!r} divides by zero")
        if isinstance(node.op, (ast.LShift, ast.RShift)) and not 0 <= right <= MAX_SHIFT:
            raise ConfigError(f"{where}: {text!r} shifts by {right}; shifts go from 0 to {MAX_SHIFT}")
        # both operands are within 64 bits, so no product or shift here is larger than 128 bits
        return _bounded(_OPERATORS[type(node.op)](left, right), where, text)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate_node(node.operand, params, where, text, depth + 1)
    raise ConfigError(f"{where}: {text!r} may use integers, params and + - * / % << >> only")


def _dim3(value, params, where) -> tuple[int, int, int]:
    values = value if isinstance(value, list) else [value]
    if not 1 <= len(values) <= 3:
        raise ConfigError(f"{where}: give one to three dimensions")
    dims = [evaluate(v, params, where) for v in values] + [1] * (3 - len(values))
    if any(d < 1 for d in dims):
        raise ConfigError(f"{where}: dimensions must be positive, got {dims}")
    return tuple(dims)


def _generator(text: str, where: str) -> tuple[str, tuple[float, ...]]:
    match = GENERATOR.match(text.strip())
    if not match:
        raise ConfigError(
            f"{where}: unknown generator {text!r}; use randn, uniform(a, b), range(a, b), zeros, arange, arange(start, step) or const(v)"
        )
    name, inner = match.group(1), match.group(2)
    try:
        values = tuple(float(v) for v in inner.split(",")) if inner and inner.strip() else ()
    except ValueError as exc:
        raise ConfigError(f"{where}: generator arguments must be numbers: {text!r}") from exc
    if not all(math.isfinite(v) for v in values):
        # the harness writes them into C++ as literals, which have no NaN or infinity
        raise ConfigError(f"{where}: generator arguments must be finite numbers: {text!r}")
    if name == "arange" and not values:
        values = (0.0, 1.0)  # arange(start, step): 0, 1, 2, … unless told
    wanted = {"uniform": 2, "range": 2, "const": 1, "arange": 2}.get(name, 0)
    if len(values) != wanted:
        raise ConfigError(f"{where}: {name} takes {wanted} argument(s), got {len(values)}")
    return name, values


NAME = re.compile(r"[A-Za-z_][\w.-]*")  # names become file names (outputs, harnesses)
KERNEL = re.compile(r"[A-Za-z_][\w:]*(\s*<[\w:<>,\s*]*>)?")  # pasted into the harness as C++


def _table(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a table, got {value!r}")
    return value


def _list(value, where: str) -> list:
    if not isinstance(value, list):
        raise ConfigError(f"{where}: expected a list, got {value!r}")
    return value


def _number(value, where: str, kind=float):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)):
        raise ConfigError(f"{where}: expected {'an integer' if kind is int else 'a number'}, got {value!r}")
    if not math.isfinite(value):
        raise ConfigError(f"{where}: expected a finite number (the harness has no literal for it), got {value!r}")
    return kind(value)


def _name(value, pattern: re.Pattern, where: str) -> str:
    if not isinstance(value, str) or not pattern.fullmatch(value):
        raise ConfigError(f"{where}: {value!r} is not a valid name here")
    return value


def _path(value, where: str) -> str:
    """A path inside the case's tree: relative, without `..` (links out of the tree are refused at run time)."""
    if not isinstance(value, str) or not value or "\0" in value:
        raise ConfigError(f"{where}: expected a path relative to the tree, got {value!r}")
    path = PurePosixPath(value.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or re.match(r"[A-Za-z]:", value):
        raise ConfigError(f"{where}: {value!r} is outside the tree; give a path relative to it, without '..'")
    return value


def _params(value, where: str) -> dict[str, int]:
    return {str(k): _number(v, f"{where} params.{k}", int) for k, v in _table(value, f"{where} params").items()}


def _arg(table: dict, params: dict[str, int], where: str) -> Arg:
    table = _table(table, where)
    for key in ("name", "dtype"):
        if key not in table:
            raise ConfigError(f"{where}: every argument needs `{key}`")
    _name(table["name"], NAME, f"{where} name")
    dtype = table["dtype"]
    if not isinstance(dtype, str) or dtype not in DTYPES:
        raise ConfigError(f"{where}: unknown dtype {dtype!r}; known: {', '.join(DTYPES)}")
    if "value" in table:  # a scalar
        value = evaluate(table["value"], params, where) if dtype not in FLOATS else _number(table["value"], where)
        return Arg(table["name"], dtype, None, "const", (float(value),))
    if "size" not in table:
        raise ConfigError(f"{where}: argument {table['name']!r} needs `size` (an array) or `value` (a scalar)")
    init, init_args = _generator(str(table.get("init", "zeros")), where)
    return Arg(table["name"], dtype, evaluate(table["size"], params, where), init, init_args, bool(table.get("output")))


def _tolerances(table: dict, where: str) -> dict[str, Tolerance]:
    out = {}
    for dtype, values in _table(table, where).items():
        if dtype not in DTYPES or not isinstance(values, dict):
            raise ConfigError(f"{where}: tolerance keys are dtypes with tables, got {dtype!r}")
        allowed = {"rtol", "atol", "max_ulp", "mismatch_fraction"}
        if set(values) - allowed:
            raise ConfigError(f"{where}: tolerance for {dtype} knows {', '.join(sorted(allowed))}")
        kinds = {"max_ulp": int}
        out[dtype] = Tolerance(
            **{k: _number(v, f"{where} {dtype}.{k}", kinds.get(k, float)) for k, v in values.items()}
        )
    return out


def _case(table: dict, where: str) -> Case:
    table = _table(table, f"{where} verify.case")
    for key in ("name", "source", "kernel", "grid", "block", "args"):
        if key not in table:
            raise ConfigError(f"{where}: a verify case needs `{key}`")
    where = f"{where} case {_name(table['name'], NAME, f'{where} case name')!r}"
    params = _params(table.get("params", {}), where)
    args = [_arg(a, params, f"{where} args") for a in _list(table["args"], f"{where} args")]
    if not any(a.output for a in args):
        raise ConfigError(f"{where}: mark at least one argument `output = true`")
    return Case(
        name=table["name"],
        source=_path(table["source"], f"{where} source"),
        kernel=_name(table["kernel"], KERNEL, f"{where} kernel"),
        grid=_dim3(table["grid"], params, f"{where} grid"),
        block=_dim3(table["block"], params, f"{where} block"),
        shared=evaluate(table.get("shared", 0), params, f"{where} shared"),
        args=args,
        tolerance=_tolerances(table.get("tolerance", {}), f"{where} tolerance"),
        warmup=_number(table.get("warmup", 3), f"{where} warmup", int),
        reps=_number(table.get("reps", 20), f"{where} reps", int),
        flush_l2=bool(table.get("flush_l2", False)),
        port=None if table.get("port") is None else _path(table["port"], f"{where} port"),
        expect=_expect(table.get("expect", "pass"), where),
        written_for=_written_for(table.get("written_for", 32), where),
        string=_string(table, where),
    )


def _written_for(value, where: str) -> int:
    if value not in (32, 64) or isinstance(value, bool):
        raise ConfigError(f"{where}: written_for is the warp width a planted port assumes, 32 or 64, got {value!r}")
    return value


def _string(table: dict, where: str) -> str | None:
    """`string = "_kernel"`: a Python name, for a case whose source is a Python file."""
    if table.get("string") is None:
        return None
    name = table["string"]
    if not isinstance(name, str) or not name.isidentifier():
        raise ConfigError(f"{where}: `string` is the Python name a kernel's source is given to, got {name!r}")
    if not all(is_python(str(path)) for path in (table["source"], table.get("port")) if path is not None):
        raise ConfigError(f"{where}: `string` names a Python variable, but {table['source']!r} is not a Python file")
    return name


@dataclass
class TorchCase(Compared):
    """A PyTorch extension's op, built from `sources` with torch.utils.cpp_extension, called on seeded inputs."""

    name: str
    sources: list[str]
    function: str  # an attribute of the built module
    device: str  # "cuda" (a CUDA or ROCm build of torch, and its GPU) or "cpu"
    args: list[Arg]  # positional arguments: tensors (size) or scalars (value)
    returns: list[Arg]  # the returned tensors, by name and dtype
    reference: str | None = None  # "file.py:function", a CPU reference the outputs are also checked against
    tolerance: dict[str, Tolerance] = field(default_factory=dict)
    warmup: int = 3
    reps: int = 20
    port: list[str] | None = None  # hand-written port sources, instead of porter's conversion
    expect: str = "pass"

    @property
    def produced(self) -> list[Arg]:
        return self.returns


REFERENCE_FUNCTION = re.compile(r"[\w./-]+\.py:[A-Za-z_]\w*")


def _torch_case(table: dict, where: str) -> TorchCase:
    table = _table(table, f"{where} verify.torch")
    for key in ("name", "sources", "function", "args", "returns"):
        if key not in table:
            raise ConfigError(f"{where}: a verify.torch case needs `{key}`")
    where = f"{where} torch case {_name(table['name'], NAME, f'{where} torch case name')!r}"
    params = _params(table.get("params", {}), where)
    returns = []
    for entry in _list(table["returns"], f"{where} returns"):
        entry = _table(entry, f"{where} returns")
        returns.append(_arg({"size": 0, **entry}, params, f"{where} returns"))
    if not returns:
        raise ConfigError(f"{where}: name at least one returned tensor in `returns`")
    device = table.get("device", "cuda")
    if device not in ("cuda", "cpu"):
        raise ConfigError(f'{where}: device must be "cuda" or "cpu", got {device!r}')
    reference = table.get("reference")
    if reference is not None and not (isinstance(reference, str) and REFERENCE_FUNCTION.fullmatch(reference)):
        raise ConfigError(f'{where}: reference is "file.py:function", got {reference!r}')
    port = table.get("port")
    return TorchCase(
        name=table["name"],
        sources=[_path(s, f"{where} sources") for s in _list(table["sources"], f"{where} sources")],
        function=_name(table["function"], re.compile(r"[A-Za-z_]\w*"), f"{where} function"),
        device=device,
        args=[_arg(a, params, f"{where} args") for a in _list(table["args"], f"{where} args")],
        returns=returns,
        reference=reference,
        tolerance=_tolerances(table.get("tolerance", {}), f"{where} tolerance"),
        warmup=_number(table.get("warmup", 3), f"{where} warmup", int),
        reps=_number(table.get("reps", 20), f"{where} reps", int),
        port=None if port is None else [_path(s, f"{where} port") for s in _list(port, f"{where} port")],
        expect=_expect(table.get("expect", "pass"), where),
    )


EXPECTATIONS = ("pass", "fail", "hang", "error")  # hang and error: faults the CPU device must report


def _expect(value, where: str) -> str:
    if value not in EXPECTATIONS:
        raise ConfigError(f"{where}: expect must be one of {', '.join(EXPECTATIONS)}, got {value!r}")
    return value


def load_cases(config: Config) -> list[Case]:
    return _load(config)[0]


def load_torch_cases(config: Config) -> list[TorchCase]:
    return _load(config)[1]


def _load(config: Config) -> tuple[list[Case], list[TorchCase]]:
    where = str(config.source or "configuration")
    table = _table(config.raw.get("verify", {}), f"{where} verify")
    cases = [_case(entry, where) for entry in _list(table.get("case", []), f"{where} verify.case")]
    torch_cases = [_torch_case(entry, where) for entry in _list(table.get("torch", []), f"{where} verify.torch")]
    names = [c.name for c in cases] + [c.name for c in torch_cases]
    if len(names) != len(set(names)):
        raise ConfigError(f"{where}: verify case names must be unique")
    return cases, torch_cases
