"""Parsing: tree-sitter-cuda for every C-family file.

Real CUDA often parses with ERROR nodes (macros tree-sitter cannot expand, CUDA syntax the
grammar lacks). That is normal: rules work on whatever nodes exist and fall back to token
context where the tree is broken. The libclang layer (porter.clang) deepens files on demand.
"""

from __future__ import annotations

import bisect
import dataclasses
import operator
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import NamedTuple

import tree_sitter
import tree_sitter_cuda

from porter.source import IDENTIFIER_BYTES, SourceFile


@cache
def cuda_language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_cuda.language())


@cache
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(cuda_language())


@cache
def query(pattern: str) -> tree_sitter.Query:
    return tree_sitter.Query(cuda_language(), pattern)


def warm_queries() -> None:
    """Compile the query every file's analysis asks for. tree-sitter takes ~25 ms for each here,
    whatever its size (the grammar's, not the pattern's, cost): a scan's pool workers, forked after
    this, inherit it instead of compiling their own."""
    query(_INDEX_QUERY)


# Node types the rules ask for again and again: one query collects them all, once per tree, and
# `captures` answers the simple `(type) @name` patterns from that index instead of walking the
# tree once per rule.
INDEXED_TYPES = (
    "binary_expression", "call_expression", "init_declarator", "assignment_expression", "declaration",
    "for_statement", "preproc_arg", "preproc_def", "function_definition", "gnu_asm_expression",
    "template_argument_list", "launch_bounds", "subscript_expression", "array_declarator", "enumerator",
    "optional_parameter_declaration", "ERROR", "preproc_include", "kernel_call_syntax", "preproc_if",
    "preproc_elif", "preproc_ifdef", "struct_specifier", "type_definition", "preproc_function_def",
)  # fmt: skip
_INDEX_QUERY = " ".join(f"({t}) @{t}" for t in INDEXED_TYPES)  # one capture per type: grouped in C
_SIMPLE = re.compile(r"\((\w+)\) @(\w+)")
_index: dict = {"root": None, "nodes": None, "initializers": None}


def _root_of(node: tree_sitter.Node) -> tree_sitter.Node:
    while node.parent is not None:
        node = node.parent
    return node


_START, _END = operator.attrgetter("start_byte"), operator.attrgetter("end_byte")


def _indexed(node: tree_sitter.Node) -> dict[str, tuple[list[int], list[tree_sitter.Node]]]:
    root = _root_of(node)
    if _index["root"] is None or _index["root"].id != root.id or _index["root"].end_byte != root.end_byte:
        index = {}
        for kind, nodes in tree_sitter.QueryCursor(query(_INDEX_QUERY)).captures(root).items():
            # in source order, an outer node before an inner one that starts with it: two stable
            # sorts by C-level keys, where one by a (start, -end) tuple built per node cost twice as much
            nodes.sort(key=_END, reverse=True)
            nodes.sort(key=_START)
            index[kind] = ([n.start_byte for n in nodes], nodes)
        _index.update(root=root, nodes=index, initializers=None)
    return _index["nodes"]


class Initializer(NamedTuple):
    """One `init_declarator` (`static constexpr int WS = 32`), its parts looked up once for the
    several rules that read every one of a file's many declarations."""

    node: tree_sitter.Node
    name: str | None  # the declared name, where the declarator is a plain identifier
    value: tree_sitter.Node | None
    qualifiers: bytes  # the declaration's text before the declarator: `static constexpr int`


def initializers(root: tree_sitter.Node | None, data: bytes) -> list[Initializer]:
    """The tree's initialised declarators, in source order (worked out once per tree)."""
    if root is None:
        return []
    _indexed(root)  # a tree other than the indexed one starts afresh
    if _index["initializers"] is None:
        found = []
        for node in captures("(init_declarator) @i", root).get("i", []):
            target, value = node.child_by_field_name("declarator"), node.child_by_field_name("value")
            name = (
                data[target.start_byte : target.end_byte].decode("utf-8", "surrogateescape")
                if target is not None and target.type == "identifier"
                else None
            )
            declaration = node.parent
            qualifiers = data[declaration.start_byte : node.start_byte] if declaration is not None else b""
            found.append(Initializer(node, name, value, qualifiers))
        _index["initializers"] = found
    return _index["initializers"]


def identifiers_in(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The identifier nodes of the node's subtree (itself included), in source order. A walk: the
    rules ask this of a few small expressions (147 over flashinfer, deepspeed and ggml-cuda, none
    over 200 bytes), where a query would cost its ~25 ms compilation in every process."""
    found, pending = [], [node]
    while pending:
        current = pending.pop()
        if current.type == "identifier":
            found.append(current)
        pending.extend(reversed(current.children))
    return found


def define_names(root: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The name node of every object-like `#define` in the tree."""
    defines = captures("(preproc_def) @d", root).get("d", [])
    return [name for d in defines if (name := d.child_by_field_name("name")) is not None]


class KernelLaunch(NamedTuple):
    """A `kernel<<<grid, block, shared, stream>>>(…)` launch: its `<<<…>>>` node, the expression
    around it (a call, where the parse reads one), the kernel named, and the configuration's
    arguments (comments left out: 0 the grid, 1 the block, 2 the shared memory)."""

    node: tree_sitter.Node
    call: tree_sitter.Node | None
    function: tree_sitter.Node | None
    arguments: list[tree_sitter.Node]


def kernel_launches(root: tree_sitter.Node | None) -> list[KernelLaunch]:
    """Every `<<<…>>>` launch in the tree, in source order."""
    found = []
    for node in captures("(kernel_call_syntax) @k", root).get("k", []):
        call = node.parent
        function = call.child_by_field_name("function") if call is not None else None
        found.append(KernelLaunch(node, call, function, [a for a in node.named_children if a.type != "comment"]))
    return found


def captures(pattern: str, node: tree_sitter.Node | None) -> dict[str, list[tree_sitter.Node]]:
    if node is None:  # a file analysed without a tree (not C-family, or past the full-analysis limit)
        return {}
    simple = _SIMPLE.fullmatch(pattern)
    if simple and simple.group(1) in INDEXED_TYPES:
        starts, nodes = _indexed(node).get(simple.group(1), ([], []))
        if node.parent is not None:
            # the nodes inside `node` start within its bytes: a binary search finds them, so a
            # question about one function costs what that function holds, not the whole file
            low = bisect.bisect_left(starts, node.start_byte)
            high = bisect.bisect_left(starts, node.end_byte, lo=low)
            nodes = [n for n in nodes[low:high] if n.end_byte <= node.end_byte]
        return {simple.group(2): list(nodes)}
    return tree_sitter.QueryCursor(query(pattern)).captures(node)


def identifiers_named(
    root: tree_sitter.Node | None,
    data: bytes,
    name: str,
    types: tuple[str, ...] = ("identifier",),
    within: tree_sitter.Node | None = None,
) -> list[tree_sitter.Node]:
    """The identifier nodes spelled `name`, in source order (of `types`: a template argument such as
    `k<WIDTH>` reads as a `type_identifier`), of the whole tree or only `within` a node. A byte
    search and one lookup per hit: a query would be compiled (~15 ms a process) and walk the whole
    tree for a name most files lack."""
    needle = name.encode()
    start, stop = (within.start_byte, within.end_byte) if within is not None else (0, len(data))
    if root is None or data.find(needle, start, stop) == -1:
        return []
    found = []
    # bytes.find and a look at the bytes either side: a pattern led by a lookbehind is tried at every
    # byte (0.06 s for `register` over flashinfer's headers, where comments say "registers")
    at = data.find(needle, start, stop)
    while at != -1:
        end = at + len(needle)
        if stands_alone(data, at, end):
            node = root.descendant_for_byte_range(at, end)
            if node is not None and node.type in types and (node.start_byte, node.end_byte) == (at, end):
                found.append(node)
        at = data.find(needle, end, stop)
    return found


class Context(StrEnum):
    CODE = "code"
    COMMENT = "comment"
    STRING = "string"
    MACRO_BODY = "macro-body"  # inside #define: raw text tree-sitter does not parse
    INCLUDE = "include"
    MEMBER = "member"  # after `.` or `->`: a field, not a free name
    ASM = "asm"  # the template string of an asm statement


# Nodes that no comment, string, macro body, include or asm statement holds: the walk up from a
# name in code stops at the first of them instead of climbing to the root.
_HOLDS_ONLY_CODE = frozenset({
    "expression_statement", "compound_statement", "declaration", "field_declaration", "function_definition",
    "return_statement", "if_statement", "for_statement", "while_statement", "translation_unit",
    "field_declaration_list", "declaration_list", "parameter_list", "template_declaration",
})  # fmt: skip
_STRING_TYPES = frozenset({"string_literal", "raw_string_literal", "char_literal", "string_content", "escape_sequence"})


@dataclass
class ParsedFile:
    source: SourceFile
    tree: tree_sitter.Tree | None

    @property
    def root(self) -> tree_sitter.Node | None:
        return self.tree.root_node if self.tree else None

    @property
    def has_errors(self) -> bool:
        return bool(self.tree and self.tree.root_node.has_error)

    def context_at(self, start: int, end: int) -> Context:
        """What kind of text the byte range sits in."""
        if self.tree is None:
            return Context.CODE
        node = self.tree.root_node.descendant_for_byte_range(start, end)
        first = True
        while node is not None:
            kind = node.type
            if kind == "comment":
                return Context.COMMENT
            if kind in ("system_lib_string",) or (kind == "string_literal" and _parent_type(node) == "preproc_include"):
                return Context.INCLUDE
            if kind in ("preproc_arg",):
                return Context.MACRO_BODY
            if kind == "gnu_asm_expression":
                return Context.ASM
            if kind in _STRING_TYPES:
                return Context.ASM if _inside(node, "gnu_asm_expression") else Context.STRING
            if first and kind == "field_identifier":
                return Context.MEMBER
            if kind in _HOLDS_ONLY_CODE:
                return Context.CODE
            first = False
            node = node.parent
        return Context.CODE


def _parent_type(node: tree_sitter.Node) -> str | None:
    return node.parent.type if node.parent else None


def _inside(node: tree_sitter.Node, kind: str) -> bool:
    while node is not None:
        if node.type == kind:
            return True
        node = node.parent
    return False


def parse(source: SourceFile, stand_ins: Mapping[bytes, bytes] | None = None) -> ParsedFile:
    """The file's tree. `stand_ins` (name → bytes of the same width) are what the parser reads in
    place of macros it cannot see through: `CUTLASS_DEVICE void f()` parses as a definition where
    `__device__      void f()` stands in. Every node keeps its offsets, and every rule reads
    text from the file as written."""
    if not source.kind.is_c_family:
        return ParsedFile(source=source, tree=None)
    _index.update(root=None, nodes=None, initializers=None)  # node ids are only unique within one live tree
    data = _stood_in(source.data, stand_ins) if stand_ins else source.data
    return ParsedFile(source=source, tree=_parser().parse(balanced_arms(data)))


def directives(source: SourceFile, constants: bool = True, also: re.Pattern[bytes] | None = None) -> ParsedFile:
    """The file's preprocessor directives and, with `constants`, its constant declarations alone,
    parsed: other lines are left out but their comments (so a directive inside a comment stays
    inside it), and those `also` finds. What a header's conditionals and macros say costs a
    fraction of a full parse this way."""

    def wanted(line: bytes) -> bool:
        return (constants and b"const" in line) or (also is not None and also.search(line) is not None)

    kept = [view for line, view in _directive_view(source.data, wanted) if view is not None]
    compact = dataclasses.replace(source, data=b"\n".join(kept) + b"\n", _line_starts=[])
    return ParsedFile(compact, _parser().parse(compact.data))


def directive_skeleton(data: bytes) -> tree_sitter.Node:
    """The file's preprocessor directives parsed alone, at their own offsets: every other line is
    blanked but its comments (as in `directives`). Where the file's own tree breaks (an ERROR node
    that swallows an `#if`, as a conditional inside a template's head does), its conditionals still
    nest here as the preprocessor reads them."""
    kept = [view if view is not None else _blanked(line) for line, view in _directive_view(data)]
    return _parser().parse(b"\n".join(kept)).root_node


def _directive_view(data: bytes, wanted=None) -> Iterator[tuple[bytes, bytes | None]]:
    """Each line, and what a parse of the directives keeps of it: the whole line for a directive (or
    its continuation) and where `wanted` says so; its comments alone, at their offsets, for another
    line that holds a comment delimiter; None for the rest. The comment state carries across
    lines: a directive inside a comment stays inside it. A code line kept whole for its comment
    (`f(a, /*b=*/0,`) left a call open that swallowed the directives after it (flashinfer's
    decode.cuh)."""
    continued = in_comment = False
    for line in data.split(b"\n"):
        whole = continued or line.lstrip().startswith(b"#") or (wanted is not None and wanted(line))
        if whole:
            yield line, line
            in_comment = _comments_of(line, in_comment)[1]
        elif b"/*" in line or b"*/" in line:
            comments, in_comment = _comments_of(line, in_comment)
            yield line, comments
        else:
            yield line, None
        continued = whole and line.endswith(b"\\")


_BLANKS = re.compile(rb"[^\r]")
# what a code line holds that a comment's state depends on: a comment's delimiters, a line comment,
# and literals (a `/*` in a string opens nothing)
_COMMENT_SYNTAX = re.compile(rb'/\*|\*/|//|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')


def _comments_of(line: bytes, in_comment: bool) -> tuple[bytes, bool]:
    """The line with everything but its comments blanked (delimiters and text kept, at their
    offsets), and whether a block comment is still open at its end."""
    out, position = bytearray(_blanked(line)), 0
    while position < len(line):
        if in_comment:
            close = line.find(b"*/", position)
            stop = len(line) if close == -1 else close + 2
            out[position:stop] = line[position:stop]
            if close == -1:
                return bytes(out), True
            position, in_comment = stop, False
            continue
        match = _COMMENT_SYNTAX.search(line, position)
        if match is None:
            break
        token = match.group()
        if token == b"//":
            out[match.start() :] = line[match.start() :]
            break
        if token == b"/*":
            in_comment, position = True, match.start()
            continue
        position = match.end()  # a literal, or a stray `*/`
    return bytes(out), in_comment


def _blanked(line: bytes) -> bytes:
    """The line's bytes as spaces, a carriage return kept: most lines hold none, and a run of spaces
    as long costs a tenth of the substitution (22,000 lines over flashinfer's headers)."""
    return _BLANKS.sub(b" ", line) if b"\r" in line else b" " * len(line)


def captures_apart(root: tree_sitter.Node) -> dict[str, list[tree_sitter.Node]]:
    """The indexed node types of a tree other than the file's (a skeleton), by type, without
    touching the file's node index."""
    return tree_sitter.QueryCursor(query(_INDEX_QUERY)).captures(root)


# The stand-in of a function-like macro the parser reads best as nothing at all, its arguments
# included: `__cluster_dims__(N, 1, 1)`, whose list no keyword of the grammar takes.
BLANKED_WITH_ARGUMENTS = b""


def _stood_in(data: bytes, stand_ins: Mapping[bytes, bytes]) -> bytes:
    copy = None
    for name, stand_in in stand_ins.items():
        # a byte search per name: a regex over the names tests a look-behind at every byte
        at = data.find(name)
        while at >= 0:
            end = at + len(name)
            if stands_alone(data, at, end) and not _in_directive(data, at):
                copy = copy if copy is not None else bytearray(data)
                if stand_in == BLANKED_WITH_ARGUMENTS:
                    end = _after_arguments(data, end)
                    copy[at:end] = _NOT_NEWLINE.sub(b" ", data[at:end])  # lines stay
                else:
                    copy[at:end] = stand_in
            at = data.find(name, end)
    return bytes(copy) if copy is not None else data


_PAREN_DEPTH = {ord("("): 1, ord(")"): -1}
_NOT_IN_ARGUMENTS = frozenset(b";{}")  # an attribute's arguments hold no statement or block


def _after_arguments(data: bytes, end: int) -> int:
    """Where a macro's parenthesised arguments, after `end`, end; `end` itself where none follow,
    or where they do not close before a `;`, `{` or `}` (a name in a comment: `see
    __cluster_dims__(` with code on the lines after it): the name alone is blanked then."""
    at = end
    while at < len(data) and data[at] in b" \t\r\n":
        at += 1
    if at >= len(data) or data[at] != ord("("):
        return end
    depth = 0
    for index in range(at, min(len(data), at + 4096)):  # an attribute's arguments are short
        byte = data[index]
        if byte in _NOT_IN_ARGUMENTS:
            return end
        depth += _PAREN_DEPTH.get(byte, 0)
        if depth == 0:
            return index + 1
    return end


# -- conditional arms whose braces do not balance ------------------------------------------
#
# Real CUDA opens a block in one `#if` arm and closes it in a later one:
#     #if (__CUDA_ARCH__ < 800)
#       if constexpr (is_bf16) { unsupported(); } else {
#     #endif
#       ... the kernel ...
#     #if (__CUDA_ARCH__ < 800)
#       }
#     #endif
# or gives each arm of an #if/#else its own opening line (`__global__ void k(...) {` and
# `void k(...) {`) before one shared body. tree-sitter parses every arm as if all were compiled,
# so the braces never match and the rest of the file becomes one ERROR node (flashinfer's
# prefill.cuh: all of its 245 KB). What the parser reads is made to balance, byte offsets kept:
# where a later group of the same arm closes what a group opens, both lose their unmatched braces
# and the heads of the blocks those open (`else`, `extern "C"`); where every arm of a group opens
# the same blocks, the longest arm keeps its braces and the others lose theirs. Comments stay,
# directives stay, and the rules read the file as written.

_CONDITIONAL = re.compile(rb"#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b")
# what holds braces that are not the code's: comments, string and character literals, and other
# directive lines (`#define BEGIN_NAMESPACE namespace x {`)
_NOT_CODE = re.compile(
    rb"//[^\n]*|/\*.*?\*/|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|^[ \t]*#(?:[^\n\\]|\\.)*",
    re.S | re.M,
)
_BRACE = re.compile(rb"[{}]")
_COMMENT_OR_OTHER = re.compile(rb"(//[^\n]*|/\*.*?\*/)|(?:[^/]|/(?![/*]))+", re.S)
_NOT_NEWLINE = re.compile(rb"[^\r\n]")


def balanced_arms(data: bytes) -> bytes:
    """`data` with the braces of its preprocessor arms balanced for the parser (see above)."""
    if b"#" not in data or b"{" not in data:
        return data
    copy = bytearray(data)
    groups: list[list[list[int]]] = []  # the open #if groups, innermost last: each arm's [start, end]
    opened_in: dict[int, list] = {}  # an enclosing arm's start → its groups left opening blocks
    for match in _CONDITIONAL.finditer(data):
        at = match.start()
        if data[data.rfind(b"\n", 0, at) + 1 : at].strip():
            continue  # not a directive: `#if` inside a line (a comment's ` * #if`, a string)
        word, body = match.group(1), data.find(b"\n", match.end()) + 1 or len(data)
        if word.startswith(b"if"):
            groups.append([[body, body]])
        elif not groups:
            continue  # an #else or #endif with no #if: left to the parser
        elif word == b"endif":
            arms = groups.pop()
            arms[-1][1] = at
            _balance_group(copy, arms, opened_in.setdefault(groups[-1][-1][0] if groups else -1, []))
        else:
            groups[-1][-1][1] = at
            groups[-1].append([body, body])
    return bytes(copy) if copy != data else data


def _balance_group(copy: bytearray, arms: list[list[int]], unpaired: list) -> None:
    """Balance one group whose arms end where they are: where each arm opens the same blocks, only
    the longest is read; a group that opens blocks a later group of the same arm closes (the two
    `#if (__CUDA_ARCH__ < 800)` above) loses its unmatched braces, and so does that later group. A
    group whose blocks close outside any arm (an include guard around a function the file closes
    after its `#endif`) stays as written: the parser copes with it."""
    # a count over the raw bytes first: nearly every group balances, comments and strings included
    if all(copy.count(b"{", start, end) == copy.count(b"}", start, end) for start, end in arms):
        return
    code = [_NOT_CODE.sub(lambda m: _NOT_NEWLINE.sub(b" ", m.group()), bytes(copy[s:e])) for s, e in arms]
    opened = [text.count(b"{") - text.count(b"}") for text in code]
    if len(arms) > 1 and 0 not in opened and len(set(opened)) == 1:
        # the longest arm keeps its braces (the code, where the others are a stub or a second
        # signature); the others lose their unmatched ones, and keep their comments and strings
        kept = max(range(len(arms)), key=lambda i: arms[i][1] - arms[i][0])
        for i, ((start, _), text) in enumerate(zip(arms, code, strict=True)):
            if i != kept:
                _blank_unmatched(copy, start, text)
        return
    net = set(opened) - {0}
    if len(net) != 1:
        return  # all balanced, or arms that disagree in both directions: left to the parser
    count = net.pop()
    partner = next((g for g in reversed(unpaired) if g[0] == -count), None)
    if partner is None:
        unpaired.append((count, arms, code, opened))
        return
    unpaired.remove(partner)
    for group_arms, group_code, group_opened in (partner[1:], (arms, code, opened)):
        for (start, _), text, arm_count in zip(group_arms, group_code, group_opened, strict=True):
            if arm_count:
                _blank_unmatched(copy, start, text)


def _blank_unmatched(copy: bytearray, start: int, code: bytes) -> None:
    """Blank the arm's unmatched braces, and the head of each block one opens (`else`,
    `extern "C"`, a second signature, the end of a split condition): the head alone would not
    parse either. Comments stay comments."""
    for offset in _unmatched_braces(code):
        head = _head_of_block(code, offset) if code[offset] == ord("{") else offset
        segment = bytes(copy[start + head : start + offset + 1])
        copy[start + head : start + offset + 1] = _COMMENT_OR_OTHER.sub(
            lambda m: m.group() if m.group(1) else _NOT_NEWLINE.sub(b" ", m.group()), segment
        )


def _head_of_block(code: bytes, brace: int) -> int:
    """Where the statement that `{` at `brace` opens starts: after the last `;`, `{` or `}` outside
    parentheses (a `for` header's semicolons are inside them), or at the arm's start."""
    depth = 0
    for at in range(brace - 1, -1, -1):
        byte = code[at]
        if byte == ord(")"):
            depth += 1
        elif byte == ord("("):
            depth -= 1
        elif depth <= 0 and byte in b";{}":
            return at + 1
    return 0


def _unmatched_braces(code: bytes) -> list[int]:
    """Offsets of the braces in `code` that no brace of `code` matches."""
    opening, closing = [], []
    for brace in _BRACE.finditer(code):
        if brace.group() == b"{":
            opening.append(brace.start())
        elif opening:
            opening.pop()
        else:
            closing.append(brace.start())
    return opening + closing


def stands_alone(data: bytes, start: int, end: int) -> bool:
    """Not part of a longer name: `CUTE_HOST` inside `CUTE_HOST_DEVICE` is not it."""
    return (start == 0 or data[start - 1] not in IDENTIFIER_BYTES) and (
        end == len(data) or data[end] not in IDENTIFIER_BYTES
    )


def _in_directive(data: bytes, at: int) -> bool:
    """`#ifdef CUTLASS_DEVICE`, `#define CUTLASS_DEVICE …`: the directive names the macro itself."""
    return data[data.rfind(b"\n", 0, at) + 1 : at].lstrip().startswith(b"#")


def error_count(parsed: ParsedFile) -> int:
    if not parsed.has_errors:
        return 0
    return len(captures("(ERROR) @e", parsed.root).get("e", []))


_INCLUDE_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*include\b", re.M)


def include_point(parsed: ParsedFile) -> int:
    """Where a header included first goes: before the file's first `#include` that no conditional
    holds (an include guard aside), else before its first line of code. Found once, where the
    scan has the tree, so that convert need not parse the file again."""
    data, root = parsed.source.data, parsed.root
    include = _INCLUDE_DIRECTIVE.search(data)
    if include is not None:
        node = root.descendant_for_byte_range(include.start(), include.end()) if root is not None else None
        while node is not None and node.type not in ("preproc_if", "preproc_ifdef", "translation_unit"):
            node = node.parent
        if node is None or node.type == "translation_unit" or is_include_guard(node, data):
            return data.rfind(b"\n", 0, include.start()) + 1
    for child in root.children if root is not None else []:
        if child.type not in ("comment", "preproc_call") and not is_include_guard(child, data):
            return child.start_byte
        if is_include_guard(child, data):
            inner = [
                c for c in child.children if c.type not in ("comment", "#ifndef", "identifier", "preproc_def", "#endif")
            ]
            if inner:
                return inner[0].start_byte
    return 0


def is_include_guard(node: tree_sitter.Node, data: bytes) -> bool:
    if node.type != "preproc_ifdef" or not data[node.start_byte : node.start_byte + 8].startswith(b"#ifndef"):
        return False
    name = node.child_by_field_name("name")
    defines = [c for c in node.children if c.type == "preproc_def"]
    defined = defines[0].child_by_field_name("name") if defines else None
    return (
        name is not None
        and defined is not None
        and data[name.start_byte : name.end_byte] == data[defined.start_byte : defined.end_byte]
    )
