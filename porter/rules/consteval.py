"""Integer constant evaluation without a compiler: literals, sizeof of known types, and the
file's own `#define`s, `constexpr`/`const` integers and enumerators.

Good enough for array bounds and launch configurations written with named constants; whatever
it cannot evaluate (templates, other files' macros) is left to the libclang layer.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import operator
import re
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import tree_sitter

from porter.parse import BLANKED_WITH_ARGUMENTS, captures, initializers
from porter.parse import define_names as _define_names
from porter.rules import portable
from porter.rules.names import ShimIndex
from porter.rules.tables import read_data
from porter.rules.votes import vote_wrappers
from porter.source import FileKind, SourceFile

TYPE_SIZES = {
    "char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1, "__nv_fp8_e4m3": 1,
    "__nv_fp8_e5m2": 1, "short": 2, "unsigned short": 2, "int16_t": 2, "uint16_t": 2, "half": 2, "__half": 2,
    "__nv_bfloat16": 2, "nv_bfloat16": 2, "__hip_bfloat16": 2, "int": 4, "unsigned": 4, "unsigned int": 4,
    "int32_t": 4, "uint32_t": 4, "float": 4, "half2": 4, "__half2": 4, "__nv_bfloat162": 4, "long": 8,
    "unsigned long": 8, "long long": 8, "unsigned long long": 8, "int64_t": 8, "uint64_t": 8, "size_t": 8,
    "double": 8, "float2": 8, "int2": 8, "uint2": 8, "float4": 16, "int4": 16, "uint4": 16, "double2": 16,
    "float3": 12, "int3": 12, "double4": 32, "char4": 4, "uchar4": 4,
}  # fmt: skip

# alignment where it differs from the size: the 3-vectors align as their element, double4 as double2
_TYPE_ALIGNMENTS = {"float3": 4, "int3": 4, "double4": 16}

# the words _SIZEOF and _INTEGER_CAST rewrite away
_REWRITTEN_WORDS = frozenset({"sizeof", "const", *(word for name in TYPE_SIZES for word in name.split())})

_OPERATORS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod, ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_,
    ast.BitAnd: operator.and_, ast.BitXor: operator.xor,
}  # fmt: skip


@cache
def library_constants() -> tuple[dict[str, int], dict[str, int]]:
    """(function-like, object-like) library macros with a known value on NVIDIA (CUB's warp width)."""
    table = read_data("warp_constants.json")
    return (
        {name: entry["value"] for name, entry in table["function_like"].items()},
        {name: entry["value"] for name, entry in table["object_like"].items()},
    )


_LIBRARY_CALL = re.compile(r"\b([A-Z_][A-Z0-9_]*)\s*\([^()]*\)")


def evaluate(text: str, constants: dict[str, int]) -> int | None:
    """The integer value of a C expression, or None when anything in it is unknown."""
    if len(text) > 400:
        return None  # a constant's expression is short; anything longer is code, not a constant
    plain = _PLAIN.fullmatch(text)
    if plain is not None:  # most constants are one literal or one name: no need to parse them
        if plain.group(2):
            return named_value(plain.group(2), constants)
        try:
            return int(plain.group(1), 0)
        except ValueError:
            return None  # `010`: octal in C, which the parser below does not read either
    if "/" in text:
        text = _COMMENT.sub("", text)
    if _names_one_unknown(text, constants):
        return None
    if "(" in text:
        functions = library_constants()[0]
        text = _LIBRARY_CALL.sub(lambda m: str(functions[m.group(1)]) if m.group(1) in functions else m.group(), text)
        text = _SIZEOF.sub(lambda m: str(TYPE_SIZES.get(_BLANKS.sub(" ", m.group(1)), "?")), text)
        text = _INTEGER_CAST.sub("", text)
    if "static_cast" in text:
        text = _STATIC_CAST.sub("", text)
    text = _SUFFIXED.sub(r"\1", text)
    text = _IDENTIFIER.sub(lambda m: _constant(m.group(), constants), text)
    if _LEFT_NAME.search(text) or not text.isascii():
        return None  # a name with no known value (or no C integer expression at all)
    text = text.replace("/", "//").replace("////", "//")
    try:
        with warnings.catch_warnings():  # `1if`-like text is no C constant, and no warning for the user
            warnings.simplefilter("ignore", SyntaxWarning)
            tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return None
    return _value(tree.body)


def _names_one_unknown(text: str, constants: dict[str, int]) -> bool:
    """A name with no value that no rewrite below takes away: _LEFT_NAME would find it after them
    all, so it decides at once (most texts here are code, not constants). The rewrites take away
    the words of `sizeof(type)` and integer casts; a library macro's call or a `static_cast<T>`
    takes any name inside it, so a text holding one goes the whole way."""
    if "static_cast" in text:
        return False
    functions = library_constants()[0]
    unknown = False
    for name in _LEFT_NAME_WORD.findall(text):
        if name in functions:
            return False
        if not unknown and name not in _REWRITTEN_WORDS and named_value(name, constants) is None:
            unknown = True
    return unknown


def named_value(name: str, constants: dict[str, int]) -> int | None:
    """A name's value: the project's constants win over the libraries' (CUB's warp width)."""
    value = constants.get(name)
    return value if value is not None else library_constants()[1].get(name)


def _constant(name: str, constants: dict[str, int]) -> str:
    value = named_value(name, constants)
    return name if value is None else str(value)


CONST_QUALIFIER = re.compile(rb"\b(constexpr|const)\b")  # a declaration's qualifiers that make it a constant
_PLAIN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|([A-Za-z_]\w*))\s*")
_COMMENT = re.compile(r"//.*|/\*.*?\*/")
_SIZEOF = re.compile(r"\bsizeof\s*\(\s*([\w\s]+?)\s*\)")
_BLANKS = re.compile(r"\s+")
_INTEGER_CAST = re.compile(r"\((?:unsigned |signed |const )*(?:int|long|size_t|unsigned|int32_t|int64_t|uint32_t)\)")
_STATIC_CAST = re.compile(r"\bstatic_cast<[^>]+>")
_SUFFIXED = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# after substitution, a letter that does not continue a number (`0x1f`) is a name left unknown
_LEFT_NAME = re.compile(r"(?<![\w.])[A-Za-z_]")
_LEFT_NAME_WORD = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


def _value(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _value(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _value(node.left), _value(node.right)
        if left is None or right is None or (isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right == 0):
            return None
        if isinstance(node.op, (ast.LShift, ast.RShift)) and not 0 <= right <= 64:
            return None  # a negative count is undefined in C (and an error in Python); a huge one, a huge number
        return _OPERATORS[type(node.op)](left, right)
    return None


def file_constants(
    source: SourceFile,
    root: tree_sitter.Node | None,
    inherited: dict[str, int] | None = None,
    per_platform: Callable[[int], bool] | None = None,
    definitions: list[tuple[int, str, str]] | None = None,
) -> dict[str, int]:
    """Integer constants the file defines, in definition order, each evaluated with the earlier ones
    and with the constants of the project's headers (`inherited`); the file's own win.

    A name defined differently in a platform's branch (`per_platform(offset)`: 32 on NVIDIA, the
    wavefront on ROCm) holds no one value: it is no constant here. `definitions`: the file's
    constant_definitions, where the caller has them already."""
    if root is None:
        return dict(inherited or {})
    if definitions is None:
        definitions = constant_definitions(source, root)
    constants: dict[str, int] = dict(inherited or {})
    own: set[str] = set()
    if per_platform is not None:
        own = _defined_per_platform(definitions, per_platform)
        for name in own:
            constants.pop(name, None)
    for _, name, text in sorted(definitions):
        value = evaluate(text, constants)
        if value is not None and name not in own:
            constants[name] = value
            own.add(name)
    return constants


def constant_definitions(source: SourceFile, root: tree_sitter.Node) -> list[tuple[int, str, str]]:
    """(where, name, value as written) of each constant the file defines: an object-like `#define`,
    a `const`/`constexpr` initialised declarator, an enumerator given a value."""
    definitions: list[tuple[int, str, str]] = []
    for name_node in _define_names(root):
        value = name_node.parent.child_by_field_name("value")
        if value is not None:
            definitions.append((name_node.start_byte, _text(source, name_node), _text(source, value)))
    for declared in initializers(root, source.data):
        qualifiers = declared.qualifiers  # first: most declarations are not constants
        if b"const" not in qualifiers or not CONST_QUALIFIER.search(qualifiers):
            continue
        if declared.name is not None and declared.value is not None:
            definitions.append((declared.node.start_byte, declared.name, _text(source, declared.value)))
    for enumerator in captures("(enumerator) @e", root).get("e", []):
        name, value = enumerator.child_by_field_name("name"), enumerator.child_by_field_name("value")
        if name is not None and value is not None:
            definitions.append((enumerator.start_byte, _text(source, name), _text(source, value)))
    return definitions


def _defined_per_platform(definitions: list[tuple[int, str, str]], per_platform: Callable[[int], bool]) -> set[str]:
    texts: dict[str, set[str]] = {}
    decided: set[str] = set()
    for offset, name, text in definitions:
        texts.setdefault(name, set()).add(text)
        if per_platform(offset):
            decided.add(name)
    return {name for name in decided if len(texts[name]) > 1}


# The project-wide pass reads headers as text: it must stay far cheaper than parsing them. Both
# patterns begin with a literal (`#`, `const`), which the regex engine finds by a fast search;
# the anchors a leading `^[ \t]*` or `\b` would give are checked per match instead (7-8x faster
# on a 61 MB tree of headers, the same matches).
_HEADER_DEFINE = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]+?)[ \t]*$", re.M)
_HEADER_CONST = re.compile(
    rb"const(?:expr)?\s+(?:static\s+)?(?:(?:unsigned|signed|long|short|int|size_t|u?int(?:32|64)_t|auto)\s+)+"
    rb"([A-Za-z_]\w*)\s*=\s*([^;{}\n]{1,200});"
)


def _starts_line(data: bytes, start: int) -> bool:
    """Only blanks before the match on its line: a directive, not `// #define` or text."""
    return not data[data.rfind(b"\n", 0, start) + 1 : start].strip(b" \t")


def _starts_word(data: bytes, start: int) -> bool:
    return start == 0 or not (data[start - 1 : start].isalnum() or data[start - 1] == ord("_"))


_HEADER_PATTERNS = ((_HEADER_DEFINE, _starts_line), (_HEADER_CONST, _starts_word))
HEADER_SUFFIXES = (".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc", ".tcc")


@dataclass(frozen=True)
class HeaderConstants:
    """The integer constants of a tree's headers, its function-specifier macros (see
    specifier_macros) and its attribute macros (attribute_macros), with a digest for the scan
    cache's key (made once per scan and carried to the workers, not once per file)."""

    values: dict[str, int]
    digest: str
    specifiers: dict[str, str] = field(default_factory=dict)
    attributes: dict[str, str | None] = field(default_factory=dict)
    conditions: object = None  # branches.ProjectConditions
    width_splits: dict = field(default_factory=dict)  # name -> branches.PassSplit
    votes: frozenset[str] = frozenset()  # functions and macros whose result is a vote (votes.vote_wrappers)
    shims: object = None  # the headers that define CUDA names as HIP's (names.ShimIndex)
    row_launches: dict[str, bool] = field(default_factory=dict)  # block_rows.project_row_launches
    header_sides: dict = field(default_factory=dict)  # file name -> branches.Side (branches.header_sides)
    pasting_macros: dict = field(default_factory=dict)  # name -> macros.Macro (api.project_pasting_macros)
    logical_warp: object = None  # a warp of 32 kept on purpose (porter.rules.logical_warp.LogicalWarp)
    warp_functions: frozenset[str] = frozenset()  # functions holding warp operations (within_rows.warp_functions)
    row_callers: dict = field(default_factory=dict)  # name -> (row kernel, file) (block_rows.project_row_callers)
    formulas: dict = field(default_factory=dict)  # name -> the text of its one definition
    defined: frozenset[str] = frozenset()  # every name the headers define, whatever its value
    # macros that carry HIP's `warpSize` -> those whose own definitions write it (warp_size.header_warpsize_carriers)
    warpsize_carriers: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        values: dict[str, int],
        specifiers: dict[str, str] | None = None,
        attributes: dict[str, str | None] | None = None,
        conditions=None,
        width_splits: dict | None = None,
        votes: frozenset[str] = frozenset(),
        shims=None,
        row_launches: dict[str, bool] | None = None,
        header_sides: dict | None = None,
        pasting_macros: dict | None = None,
        logical_warp=None,
        warp_functions: frozenset[str] = frozenset(),
        row_callers: dict | None = None,
        formulas: dict | None = None,
        defined: frozenset[str] = frozenset(),
        warpsize_carriers: dict[str, frozenset[str]] | None = None,
    ) -> HeaderConstants:
        specifiers, attributes, width_splits = specifiers or {}, attributes or {}, width_splits or {}
        facts = repr(_canonical((
            sorted(values.items()), sorted(specifiers.items()), sorted(attributes.items(), key=str),
            conditions and (sorted(conditions.macros.items()), sorted(conditions.bodies.items()), sorted(conditions.guards.items())),
            sorted(width_splits.items()), sorted(votes),
            shims and (sorted(shims.shims.items()), sorted(shims.includes.items())),
            sorted((row_launches or {}).items()), sorted((header_sides or {}).items()),
            sorted((pasting_macros or {}).items()),
            logical_warp and (sorted(logical_warp.names), sorted(logical_warp.functions), sorted(logical_warp.helpers)),
            sorted(warp_functions), sorted((row_callers or {}).items()), sorted((formulas or {}).items()),
            sorted(defined), sorted((warpsize_carriers or {}).items()),
        )))  # fmt: skip
        digest = hashlib.sha256(facts.encode()).hexdigest()
        return cls(
            values, digest, specifiers, attributes, conditions, width_splits, votes, shims, row_launches or {},
            header_sides or {}, pasting_macros or {}, logical_warp, warp_functions, row_callers or {},
            formulas or {}, defined, warpsize_carriers or {},
        )  # fmt: skip


def _canonical(value):
    """`value` with every set in a fixed order: a set of strings repr()s in an order that changes
    from one process to the next (string hashing is randomised), and the digest must not, or no
    later run finds the cache entries this one wrote."""
    if isinstance(value, (set, frozenset)):
        return sorted((_canonical(item) for item in value), key=repr)
    if isinstance(value, dict):
        return sorted(((_canonical(k), _canonical(v)) for k, v in value.items()), key=repr)
    if hasattr(value, "_fields"):  # a NamedTuple: its type's name and its fields
        return (type(value).__name__, *(_canonical(item) for item in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_canonical(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, *(_canonical(getattr(value, f.name)) for f in dataclasses.fields(value)))
    return value


_SPECIFIER = re.compile(r"(?<![\w$])__(global|device)__(?![\w$])")


def specifier_macros(definitions: dict[str, set[str]]) -> dict[str, str]:
    """The object-like macros that make a function device code, by what they expand to:
    `#define DS_D_INLINE __device__ __forceinline__` gives `{"DS_D_INLINE": "__device__"}`
    (`__global__` where it expands to that). A macro defined for CUDA one way and otherwise
    another (`#ifdef __CUDACC__ … #else #define HD #endif`) counts by its CUDA definition."""
    found = {}
    for name, texts in definitions.items():
        kinds = {match.group(1) for text in texts for match in _SPECIFIER.finditer(text)}
        if kinds:
            found[name] = "__global__" if "global" in kinds else "__device__"
    return found


# A macro body made of function attributes alone: what CUDA code hides behind FLASHINFER_INLINE,
# CUTLASS_DEVICE or an unroll pragma. `static`, `constexpr` and types are not among them: those
# change what a declaration means to the rules, so a macro that holds one is read as written.
_ATTRIBUTES_ONLY = re.compile(
    r"(?:\s*(?:__(?:device|host|global|forceinline|inline|noinline|grid_constant)__|inline"
    r"|__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)|_Pragma\s*\(\s*\"[^\"]*\"\s*\)|#\s*pragma\s+unroll(?:\s+\d+)?))*\s*"
)


def attribute_macros(
    definitions: dict[str, set[str]], known: dict[str, str | None] | None = None
) -> dict[str, str | None]:
    """Each macro's expansion where every definition of it is attributes alone, else None: a
    name the project defines as something else is never read as attributes, a library's table
    notwithstanding. A body may name another such macro, of `definitions` or `known`
    (`#define HOST_DEVICE_INLINE HOST_DEVICE __forceinline__`): it counts by that one's expansion."""
    resolved = {name: text for name, text in (known or {}).items() if text is not None}
    found = _settled(definitions, _all_attributes, resolved)
    return {name: found.get(name) for name in definitions}


def _all_attributes(texts: set[str], resolved: dict[str, str]) -> str | None:
    expanded = [_attributes_only(text, resolved) for text in sorted(texts)]  # one order in every process
    return None if None in expanded else " ".join(expanded)


def _attributes_only(text: str, resolved: dict[str, str]) -> str | None:
    """The body with the attribute macros it names expanded, where that leaves attributes alone."""
    if _ATTRIBUTES_ONLY.fullmatch(text):
        return text
    if resolved and not resolved.keys().isdisjoint(_IDENTIFIER.findall(text)):
        expanded = _IDENTIFIER.sub(lambda word: resolved.get(word.group(), word.group()), text)
        if _ATTRIBUTES_ONLY.fullmatch(expanded):
            return expanded
    return None


@cache
def library_attribute_macros() -> dict[str, str]:
    """Library macros that stand for attributes (CUTLASS_DEVICE, C10_HOST_DEVICE), by their CUDA expansion."""
    return {name: entry["cuda"] for name, entry in read_data("attribute_macros.json")["macros"].items()}


@cache
def _function_like_stand_ins() -> dict[bytes, bytes]:
    """CUDA's function-like attribute macros, each read as the keyword of the same meaning (`__align__` → `alignas`),
    and porter's own `PORTER_LAUNCH_BOUNDS(…)` as `__launch_bounds__`: a port must read as its original did
    (a kernel bounded at R rows of 32 threads stays one), and as a macro the parser takes it for the
    function's name."""
    table = read_data("attribute_macros.json")["function_like"]
    # an empty stand-in stays empty: the parse blanks the macro with its arguments (parse.BLANKED_WITH_ARGUMENTS)
    found = {
        name.encode(): entry["stand_in"].encode().ljust(len(name)) if entry["stand_in"] else BLANKED_WITH_ARGUMENTS
        for name, entry in table.items()
    }
    found[portable.LAUNCH_BOUNDS.encode()] = b"__launch_bounds__".ljust(len(portable.LAUNCH_BOUNDS))
    return found


def stand_ins(data: bytes, project: dict[str, str | None] | None = None) -> dict[bytes, bytes]:
    """What the parser reads in place of each attribute macro the file names: the specifier it
    expands to (`__device__`, `__global__`, `__host__ __device__`), padded with spaces to the
    name's width so that every byte offset stays; blanks where it expands to attributes the rules
    do not ask about. A name narrower than its specifier (`DINLINE`) stays as written: the
    device facts read its expansion from the text (specifier_macros). CUDA's function-like
    `__align__(n)` reads as `alignas  (n)`, and `__cluster_dims__(x, y, z)` as blanks."""
    known = {**library_attribute_macros(), **(project or {})}
    if b"#" in data and b"define" in data:
        known.update(_file_attribute_macros(data, known))
    found = {name: stand_in for name, stand_in in _function_like_stand_ins().items() if name in data}
    for name, expansion in known.items():
        spelled = name.encode()
        if expansion is not None and spelled in data:
            stand_in = _stand_in(spelled, expansion.split())
            if stand_in is not None:
                found[spelled] = stand_in
    return found


def _stand_in(name: bytes, words: list[str]) -> bytes | None:
    if "__global__" in words:
        specifier = b"__global__"
    elif "__device__" in words:
        both = "__host__" in words and len(name) >= len(b"__host__ __device__")
        specifier = b"__host__ __device__" if both else b"__device__"
    else:
        specifier = b""
    return specifier.ljust(len(name)) if len(specifier) <= len(name) else None


def _file_attribute_macros(data: bytes, known: dict[str, str | None]) -> dict[str, str | None]:
    return attribute_macros(_file_definitions(data), known)


def file_specifier_macros(data: bytes) -> dict[str, str]:
    """specifier_macros of the `#define`s in one file."""
    if b"__device__" not in data and b"__global__" not in data:
        return {}
    return specifier_macros(_file_definitions(data))


_last_definitions: list = [None, {}]  # (data, its definitions): the parse and the device facts both ask


def _file_definitions(data: bytes) -> dict[str, set[str]]:
    """The object-like `#define`s of one file, by name."""
    if _last_definitions[0] is not data:
        definitions: dict[str, set[str]] = {}
        for name, text in _header_definitions(data, _HEADER_DEFINE, _starts_line):
            definitions.setdefault(name, set()).add(text)
        _last_definitions[:] = [data, definitions]
    return _last_definitions[1]


def _header_definitions(data: bytes, pattern: re.Pattern[bytes], anchored) -> Iterable[tuple[str, str]]:
    """(name, text) of each definition `pattern` finds where `anchored` says it stands."""
    for match in pattern.finditer(data):
        if anchored(data, match.start()):
            yield match.group(1).decode("ascii"), match.group(2).decode("utf-8", "replace")


CHAIN_PASSES = 8  # a constant defined from one defined from another... deeper than any real chain


@dataclass(frozen=True)
class HeaderTexts:
    """What each of the project's files says by its text alone: the headers' functions and macros
    whose result is a vote (votes.vote_wrappers), their functions that hold a warp operation
    (within_rows.warp_functions), the CUDA names they map onto HIP's (names.ShimIndex; None where
    their file names are not given) and their macros that paste API names
    (api.project_pasting_macros), the kernels the sources launch with blocks 32 threads wide
    (block_rows.project_row_launches) and the functions such kernels call (block_rows.project_row_callers).
    No file's answer needs another's, nor the headers'
    constants: a scan's worker reads them while the main process settles those."""

    votes: frozenset[str]
    warp_functions: frozenset[str]
    shims: object
    pasting_macros: dict
    row_launches: dict[str, bool]
    row_callers: dict[str, tuple[str, str]]

    @classmethod
    def of(
        cls,
        headers: list[bytes],
        names: list[str] | None = None,
        sources: list[bytes] | None = None,
        warp_functions: frozenset[str] | None = None,
        source_names: list[str] | None = None,
    ) -> HeaderTexts:
        """Read from the files; `warp_functions`, where given, were read apart (warp_function_names)."""
        # imported here: each of these modules reads this one
        from porter.rules.api import project_pasting_macros
        from porter.rules.block_rows import project_row_callers, project_row_launches

        row_launches = project_row_launches(sources) if sources is not None else {}
        return cls(
            votes=frozenset(name for data in headers for name in vote_wrappers(data)),
            warp_functions=warp_function_names(headers) if warp_functions is None else warp_functions,
            shims=ShimIndex.of(list(zip(names, headers, strict=True))) if names is not None else None,
            pasting_macros=project_pasting_macros(headers),
            row_launches=row_launches,
            row_callers=(
                project_row_callers(sources, source_names, row_launches)
                if sources is not None and source_names is not None else {}
            ),
        )  # fmt: skip


def warp_function_names(headers: list[bytes]) -> frozenset[str]:
    """The headers' functions that hold a warp operation (within_rows.warp_functions): the largest
    part of HeaderTexts, which a scan reads in a worker of its own."""
    from porter.rules.within_rows import warp_functions  # within_rows reads device, which reads this module

    return frozenset(name for data in headers for name in warp_functions(data))


def header_constants(
    headers: list[bytes],
    rocm_markers: Iterable[str] = (),
    names: list[str] | None = None,
    header_sides: dict | None = None,
    read_texts: Callable[[], HeaderTexts] | None = None,
) -> HeaderConstants:
    """Integer constants the project's headers define, for the files that include them.

    Names defined with two different values (per-platform branches, per-file variants) are
    dropped: which one a file sees depends on what it includes and how it is compiled.
    `rocm_markers` are the project's own macros for "compiled by HIP" (branches.learned_rocm_markers);
    `names`, the headers' file names, place the CUDA names they map onto HIP's (names.ShimIndex);
    `header_sides`, its headers included for one platform only (branches.header_sides), rides along,
    and so does what each file says alone (HeaderTexts), from `read_texts`, called last: a scan's
    worker reads them meanwhile (read here, from the headers alone, where it is not given).
    """
    from porter.rules.logical_warp import LogicalWarp
    from porter.rules.warp_size import header_warpsize_carriers

    definitions: dict[str, set[str]] = {}
    macros: dict[str, set[str]] = {}  # the #defines alone, whatever their values: for specifier_macros
    for data in headers:
        for pattern, anchored in _HEADER_PATTERNS:
            for name, text in _header_definitions(data, pattern, anchored):
                definitions.setdefault(name, set()).add(text)
                if pattern is _HEADER_DEFINE:
                    macros.setdefault(name, set()).add(text)
    constants = _settled(definitions, _one_value, {})  # constants defined from constants of other headers
    conditions, splits, logical = _header_conditions(headers, macros, constants, frozenset(rocm_markers))
    logical_warp = LogicalWarp.of(logical, headers, constants)
    texts = read_texts() if read_texts is not None else HeaderTexts.of(headers, names)
    return HeaderConstants.of(
        constants,
        specifier_macros(macros),
        _project_attribute_macros(macros),
        conditions,
        splits,
        texts.votes,
        texts.shims,
        texts.row_launches,
        header_sides,
        texts.pasting_macros,
        logical_warp,
        texts.warp_functions,
        texts.row_callers,
        _formulas(definitions, constants),
        frozenset(definitions),
        header_warpsize_carriers(macros, headers),
    )


def _formulas(definitions: dict[str, set[str]], constants: dict[str, int]) -> dict[str, str]:
    """Each constant defined once → its text (`tile_n_size = tile_k_size * 4`), for the files that
    use it without defining it: warp_size.kept_value follows its operands, block_limits evaluates it
    again with a warp width widened."""
    return {
        name: next(iter(texts)).strip() for name, texts in definitions.items() if name in constants and len(texts) == 1
    }


def formula_operands(text: str, name: str, constants: dict[str, int]) -> frozenset[str]:
    """The constants a constant's definition text names, itself aside."""
    return frozenset(word for word in _IDENTIFIER.findall(text) if word in constants and word != name)


# a conditional's or a macro's first line: where a header names a platform that matters here
_DIRECTIVE_LINE = re.compile(rb"#[ \t]*(?:if|elif|define)[^\n]*")


def _header_conditions(
    headers: list[bytes], macros: dict[str, set[str]], constants: dict[str, int], markers: frozenset[str]
):
    """The headers' platform and condition macros (branches.ProjectConditions), the warp widths
    they define apart for ROCm's device and host passes (branches.pass_splits), and the warp of 32
    they keep on purpose beside the wavefront (logical_warp). Only the headers that name a platform
    are parsed for them: few, in a CUDA project."""
    from porter.parse import directives
    from porter.rules.branches import (
        CONDITION_BODY,
        Branches,
        ProjectConditions,
        marker_conditions,
        mentions_device_pass,
        mentions_platform,
    )
    from porter.rules.logical_warp import WIDTH_RETURN, could_hold_pair, logical_widths

    learned = ProjectConditions(marker_conditions(set(markers)))
    parsed, originals = [], []
    for data in headers:
        lines = b"\n".join(_DIRECTIVE_LINE.findall(data))
        if mentions_platform(lines) or learned.mentioned_in(lines):
            header = SourceFile(path=Path("header"), rel="header", data=data, kind=FileKind.HEADER)
            # its constant declarations matter only where a device pass may define them apart
            # (pass_splits), or a wavefront stands beside them (logical_warp)
            pair = could_hold_pair(data)
            also = WIDTH_RETURN if pair else None
            parsed.append(directives(header, constants=mentions_device_pass(data) or pair, also=also))
            originals.append(data if pair else None)
    platform: dict[str, dict] = dict(learned.macros)
    guards: dict[str, tuple] = {}
    for header in parsed:  # each alone first: a header's macros are seen by the others
        branches = Branches(header.source, header.root, learned)
        for name, values in branches.platform_macros().items():
            platform[name] = values if platform.get(name, values) == values else None
        for name, definitions in branches.target_guards().items():
            guards[name] = definitions if guards.get(name, definitions) == definitions else None
    bodies = {
        name: next(iter(texts))
        for name, texts in macros.items()
        if len(texts) == 1 and CONDITION_BODY.search(next(iter(texts)))
    }
    conditions = ProjectConditions(
        {name: v for name, v in platform.items() if v is not None},
        bodies,
        {name: definitions for name, definitions in guards.items() if definitions is not None},
    )
    splits, logical = {}, set()
    for header, original in zip(parsed, originals, strict=True):
        skeleton = header.source.data
        if mentions_device_pass(skeleton) or original is not None:
            branches = Branches(header.source, header.root, conditions)
            if mentions_device_pass(skeleton):
                splits.update(branches.pass_splits(constants, splits))
            if original is not None:
                logical |= logical_widths(original, skeleton, branches, constants)
    return conditions, splits, frozenset(logical)


def _one_value(texts: set[str], constants: dict[str, int]) -> int | None:
    values = {evaluate(text, constants) for text in texts}
    return values.pop() if len(values) == 1 and None not in values else None


def _settled(definitions: dict[str, set[str]], resolve: Callable, resolved: dict) -> dict:
    """The names whose texts `resolve` gives a value for, given those `resolved` so far (updated as
    names are found), over passes: a name defined through another found in a later pass."""
    found = {}
    trying = definitions
    for _ in range(CHAIN_PASSES):
        newly = set()
        for name, texts in trying.items():
            value = resolve(texts, resolved)
            if value is not None:
                resolved[name] = found[name] = value
                newly.add(name)
        # a value once found stays, and a text resolved again gives the same answer unless it
        # names something found since: only those are worth another pass
        trying = {
            name: texts
            for name, texts in definitions.items()
            if name not in found and any(not newly.isdisjoint(_IDENTIFIER.findall(text)) for text in texts)
        }
        if not trying:
            break
    return found


def _project_attribute_macros(macros: dict[str, set[str]]) -> dict[str, str | None]:
    """attribute_macros of the headers, and the library's names the project defines otherwise
    (None): no other macro needs saying, and every file checks each name given."""
    library = library_attribute_macros()
    found = attribute_macros(macros, library)
    return {name: expansion for name, expansion in found.items() if expansion is not None or name in library}


def _text(source: SourceFile, node: tree_sitter.Node) -> str:
    return source.text(node.start_byte, node.end_byte)


def struct_sizes(source: SourceFile, root: tree_sitter.Node | None, constants: dict[str, int]) -> dict[str, int]:
    """Bytes of the plain structs the file defines (`struct S {…};`, `typedef struct {…} S;`), laid
    out by the C rules: each field at its alignment, the size a multiple of the largest. A struct
    with a base class, a bit-field, an alignment attribute or a field of unknown size is left out."""
    if root is None or b"struct" not in source.data:
        return {}
    layouts: dict[str, tuple[int, int]] = {}  # name -> (size, alignment)
    found = captures("(struct_specifier) @s", root).get("s", []) + captures("(type_definition) @t", root).get("t", [])
    for node in sorted(found, key=lambda n: n.start_byte):  # a struct is defined before it is used
        for name, body in _named_bodies(source, node):
            layout = _layout(source, body, constants, layouts)
            if layout is not None:
                layouts[name] = layout
    return {name: size for name, (size, _) in layouts.items()}


def _named_bodies(source: SourceFile, node: tree_sitter.Node):
    """(name, field list) of a struct definition: `struct S {…}` or `typedef struct {…} S`."""
    if node.type == "struct_specifier":
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if name is not None and body is not None and not any(c.type == "base_class_clause" for c in node.children):
            yield _text(source, name), body
    elif node.type == "type_definition":
        struct, declarator = node.child_by_field_name("type"), node.child_by_field_name("declarator")
        if struct is not None and struct.type == "struct_specifier" and declarator is not None:
            body = struct.child_by_field_name("body")
            if body is not None and declarator.type == "type_identifier":
                yield _text(source, declarator), body


def _layout(source, body, constants, layouts) -> tuple[int, int] | None:
    size = alignment = 0
    for member in body.named_children:
        if member.type == "comment":
            continue
        text = _text(source, member)
        if member.type != "field_declaration" or re.search(r":|__align__|alignas|__attribute__|\bstatic\b", text):
            return None
        type_node = member.child_by_field_name("type")
        type_text = _BLANKS.sub(" ", _text(source, type_node)).strip() if type_node is not None else ""
        if type_text in TYPE_SIZES:
            element, element_alignment = TYPE_SIZES[type_text], _TYPE_ALIGNMENTS.get(type_text, TYPE_SIZES[type_text])
        elif type_text in layouts:
            element, element_alignment = layouts[type_text]
        else:
            return None
        for declarator in member.children_by_field_name("declarator"):
            count = _element_count(source, declarator, constants)
            if count is None:
                return None
            size = -(-size // element_alignment) * element_alignment + element * count
            alignment = max(alignment, element_alignment)
    if alignment == 0:
        return None
    return -(-size // alignment) * alignment, alignment


def _element_count(source, declarator, constants) -> int | None:
    """1 for `x`, the product of the extents for `x[4][N]`; None for a pointer, reference or unknown extent."""
    count = 1
    while declarator.type == "array_declarator":
        extent = declarator.child_by_field_name("size")
        value = evaluate(_text(source, extent), constants) if extent is not None else None
        if value is None or value < 0:
            return None
        count *= value
        declarator = declarator.child_by_field_name("declarator")
    return count if declarator.type == "field_identifier" else None
