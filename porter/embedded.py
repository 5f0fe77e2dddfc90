"""CUDA C++ held in Python strings: `cupy.RawKernel(r'''…''')`, `RawModule(code=…)`,
`torch.utils.cpp_extension.load_inline(cuda_sources=…)`, NVRTC programs. The code is compiled at
run time, so no build file names it and no `.cu` holds it, but its warp-width assumptions break
on a wave64 GPU all the same (cupy/cupy#9977: a ladder from 16 and a 32-bit mask in a
`RawModule`).

The parse stage reads such a file as a *view*: a byte string as long as the file, its newlines
where the file has them, holding the bodies of the string literals that carry device code at
their own offsets and blanks everywhere else. Every rule runs on the view as on a `.cu` file,
and every offset, line and column it reports is the Python file's. An f-string's replacement
fields read as names as wide as they are (the values are Python's to fill in); the tokens are the
same on every Python from 3.11 (3.12 splits an f-string into parts, joined again here).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

from porter.source import IDENTIFIER_BYTES, FileKind, SourceFile, encoded_length

# Spellings of device code: a Python file that holds none is not read further, and a string
# literal that holds none is Python's business (a message, a path, a docstring).
DEVICE_WORDS = (b"__global__", b"__device__")
_LITERAL_DEVICE_WORDS = re.compile(
    r"__global__|__device__|__shared__|\bthreadIdx\b|\bblockIdx\b|__syncthreads|__shfl|\bwarpSize\b"
)
_PREFIX = re.compile(r"([rRbBuUfF]*)('''|\"\"\"|'|\")")
# a Python escape in a literal that is not raw (a lone backslash ends a line that continues)
_ESCAPE = re.compile(rb"\\(?:x[0-9a-fA-F]{2}|[0-7]{1,3}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\}|.|$)")
# every byte a blank but the line breaks (bytes.translate: a regex making 10 million one-byte
# replacements held a gigabyte for an 11 MB file)
_BLANKS = bytes(byte if byte in b"\r\n" else ord(" ") for byte in range(256))
# what `porter verify` writes beside a Python file for its harness to include: a name no discovery
# takes for a source, so that a conversion copies it as it is (porter does not port code in strings)
VIEW_SUFFIX = ".cuview"
_STATEMENT_EDGES = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)


@dataclass(frozen=True)
class Literal:
    """The body of one Python string literal (between its quotes), as byte offsets in the file."""

    start: int
    end: int
    raw: bool
    name: str | None = None  # what it is given to: `_kernel = r\"\"\"…`, `code=r\"\"\"…` (a keyword)
    formatted: bool = False  # an f-string: `{{` is a brace, `{expr}` a value Python fills in


def embeds_device_code(data: bytes) -> bool:
    """Might the Python file hold CUDA in a string? (A byte search: discovery asks it of every `.py`.)"""
    return any(word in data for word in DEVICE_WORDS)


def device_literals(data: bytes) -> list[Literal]:
    """The string literals that hold device code, in file order. Literals written side by side
    (`"…" "…"`, one line of a kernel each) are one string to Python and are taken together:
    one of them naming device code brings the others. A docstring is never code. A file that
    Python cannot tokenize holds none."""
    text = data.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    line_starts = SourceFile(Path(), "", data, FileKind.PYTHON).line_starts  # the bytes where each line starts

    def offset(row: int, column: int) -> int:  # the tokenizer's column counts characters
        return line_starts[row - 1] + encoded_length(lines[row - 1][:column])

    found: list[Literal] = []
    try:
        tokens = _f_strings_joined(tokenize.generate_tokens(io.StringIO(text).readline), lines)
        for group, name in _concatenations(tokens):
            bodies = [_body(token, offset, name) for token in group]
            bodies = [body for body in bodies if body is not None]
            if any(
                _LITERAL_DEVICE_WORDS.search(data[b.start : b.end].decode("utf-8", "surrogateescape")) for b in bodies
            ):
                found.extend(bodies)
    except (tokenize.TokenError, SyntaxError, ValueError):
        return []  # not Python this tokenizer reads: nothing is claimed about it
    return found


def _f_strings_joined(tokens, lines: list[str]):
    """The tokens, with each f-string one STRING token as Python 3.11 gives it (3.12 splits it into
    FSTRING_START, its parts and their expressions, FSTRING_END)."""
    start_type = getattr(tokenize, "FSTRING_START", None)
    depth, opening = 0, None
    for token in tokens:
        if start_type is None:
            yield token
        elif token.type == start_type:
            depth, opening = depth + 1, opening if depth else token
        elif depth and token.type == tokenize.FSTRING_END:
            depth -= 1
            if not depth:
                text = _between(lines, opening.start, token.end)
                yield tokenize.TokenInfo(tokenize.STRING, text, opening.start, token.end, opening.line)
        elif not depth:
            yield token


def _between(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    (first, column), (last, end_column) = start, end
    if first == last:
        return lines[first - 1][column:end_column]
    middle = lines[first : last - 1]
    return "\n".join([lines[first - 1][column:], *middle, lines[last - 1][:end_column]])


def _concatenations(tokens):
    """(group, name): the groups of STRING tokens that Python joins (adjacent, comments and line
    breaks between), each with the name it is given to, if any; a group that is a whole statement
    (a docstring, a bare string) is left out."""
    group: list = []
    before: list = []  # the significant tokens before the group, latest last
    seen: list = []
    for token in tokens:
        if token.type in (tokenize.NL, tokenize.COMMENT):
            continue
        if token.type == tokenize.STRING:
            if not group:
                before = seen[-4:]
            group.append(token)
        elif group:
            if not (_starts_statement(before) and token.type in _STATEMENT_EDGES):
                yield group, _given_to(before)
            group = []
        seen = seen[-3:] + [token]
    if group and not _starts_statement(before):
        yield group, _given_to(before)


def _given_to(before: list) -> str | None:
    """`_kernel = r\"\"\"…`, `_kernel = (\"…\" \"…\")`, `code=r\"\"\"…`: the name before the `=`."""
    tokens = list(before)
    while tokens and tokens[-1].string == "(":
        tokens.pop()
    if len(tokens) >= 2 and tokens[-1].string == "=" and tokens[-2].type == tokenize.NAME:
        return tokens[-2].string
    return None


def _starts_statement(before: list) -> bool:
    return not before or before[-1].type in _STATEMENT_EDGES


def _body(token: tokenize.TokenInfo, offset, name: str | None) -> Literal | None:
    prefix, quote = _PREFIX.match(token.string).groups()
    start = offset(*token.start) + len((prefix + quote).encode())
    end = offset(*token.end) - len(quote)
    if end < start:
        return None
    return Literal(start, end, raw="r" in prefix.lower(), name=name, formatted="f" in prefix.lower())


def device_code_view(data: bytes, literals: list[Literal]) -> bytes:
    """The file as the compiler of its strings would see them: each literal's body where it is,
    blanks elsewhere, newlines kept, so lines are the file's (and columns too, up to a line's
    first escape)."""
    view = bytearray(data.translate(_BLANKS))
    for literal in literals:
        body = data[literal.start : literal.end]
        code = body if literal.raw or b"\\" not in body else _unescaped(body)
        code = _fields_spelled(code) if literal.formatted or _filled_by_format(data, literal) else code
        view[literal.start : literal.end] = (
            _TEMPLATE_FIELD.sub(_field_as_name, code) if b"$" in code or b"%(" in code else code
        )
    return bytes(view)


_FORMAT_CALL = rb"\s*\.\s*format(?:_map)?\s*\("  # `.format(` or `.format_map(`
# `"""…""".format(…)` right after the literal's closing quote
_FORMAT_CALL_AFTER = re.compile(rb"(?:\'\'\'|\"\"\"|\'|\")" + _FORMAT_CALL)


def _filled_by_format(data: bytes, literal: Literal) -> bool:
    """A template `str.format` fills in: called on the literal itself, or on the name the file gives
    it (`KERNEL = \"\"\"__launch_bounds__({CLASS}::kThreads)…\"\"\"` … `KERNEL.format(CLASS=…)`). Its
    `{CLASS}` is a field and `{{` a brace, as in an f-string."""
    if b"{" not in data[literal.start : literal.end]:
        return False
    if _FORMAT_CALL_AFTER.match(data, literal.end):
        return True
    if literal.name is None:
        return False
    name = re.escape(literal.name.encode())
    return re.search(rb"(?<![\w.])" + name + _FORMAT_CALL, data) is not None


# the fields of `string.Template` (`${name}`, `$name`) and of %-formatting by name (`%(name)s`): no C
# spells either, so where a string holds one it is Python's, to be filled in before compiling
_TEMPLATE_FIELD = re.compile(rb"\$\{\w+\}|\$\w+|%\(\w+\)[sdi]")


def _field_as_name(match: re.Match) -> bytes:
    return _as_name(match.string, match.start(), match.group())


def _as_name(code: bytes, start: int, field: bytes) -> bytes:
    """A field Python fills in, at its width: a name of its own (`void ${name}(` reads `void __name_(`),
    or blanks where it ends a name (`curand%(suffix)s(` reads as a call of `curand`)."""
    if start > 0 and code[start - 1] in IDENTIFIER_BYTES:
        return b" " * len(field)
    return bytes(c if c in b"\r\n" or chr(c).isalnum() else ord("_") for c in field)


def _fields_spelled(body: bytes) -> bytes:
    """An f-string's text as the code it becomes, at its own width: `{{` and `}}` are one brace
    (and a blank), and each replacement field `{BLOCK * 2}` a name as long (`_BLOCK___2_`, see
    _as_name), which no rule takes for a number: the value is Python's to fill in."""
    out = bytearray(body)
    index = 0
    while index < len(body):
        char = body[index : index + 1]
        if char in (b"{", b"}") and body[index + 1 : index + 2] == char:
            out[index : index + 2] = char + b" "
            index += 2
        elif char == b"{":
            end = _field_end(body, index)
            out[index:end] = _as_name(out, index, body[index:end])
            index = end
        else:
            index += 1
    return bytes(out)


def _field_end(body: bytes, start: int) -> int:
    """Past the `}` that closes the field opened at `start` (its format spec may hold fields too)."""
    depth = 0
    for index in range(start, len(body)):
        if body[index] == ord("{"):
            depth += 1
        elif body[index] == ord("}"):
            depth -= 1
            if not depth:
                return index + 1
    return len(body)


def _unescaped(body: bytes) -> bytes:
    """A body that is not raw, its escapes read as Python reads them (`\\"` is a quote), each line
    padded back to its length with blanks at its end. A line break spelled `\\n` reads as a blank:
    a break there would move every later line of the file."""
    lines = []
    for line in body.split(b"\n"):
        text = line.rstrip(b"\r")
        decoded = _ESCAPE.sub(_decoded, text)
        lines.append(decoded + b" " * (len(text) - len(decoded)) + line[len(text) :])
    return b"\n".join(lines)


def _decoded(match: re.Match) -> bytes:
    escaped = match.group(0)
    if escaped == b"\\":  # a line continued inside the literal
        return b""
    try:
        char = escaped.decode("unicode_escape")
    except UnicodeDecodeError:
        return b" "
    return char.encode("utf-8", "surrogateescape") if char.isprintable() else b" "


def device_code(data: bytes, name: str | None = None) -> bytes:
    """A Python file's view (blank where it holds no device code); with `name`, of the strings
    given that name alone (`_calc_Bp_kernel = r\"\"\"…`): a file's other kernels may be templates
    that Python fills in before compiling them."""
    literals = device_literals(data) if embeds_device_code(data) else []
    return device_code_view(data, [literal for literal in literals if name is None or literal.name == name])


def device_source(source: SourceFile) -> SourceFile | None:
    """The view of a Python file's device code as a CUDA source (None where it holds none)."""
    literals = device_literals(source.data) if embeds_device_code(source.data) else []
    if not literals:
        return None
    view = device_code_view(source.data, literals)
    return SourceFile(path=source.path, rel=source.rel, data=view, kind=FileKind.CUDA, embedded_in=FileKind.PYTHON)
