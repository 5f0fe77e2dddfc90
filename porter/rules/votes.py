"""Where a lane mask comes from: the warp votes, and the functions and macros that hand one on.

A vote (`__ballot_sync`, `__activemask`, …) is 32 bits on NVIDIA and 64 on a CDNA wavefront.
Projects wrap it (`#define BALLOT(m, p) __ballot(p)` in a port's shim header, torch's
`WARP_BALLOT`, a `__device__ unsigned vote(bool p)` with a branch per platform), and a wrapper's
result is as much a lane mask as the vote's: stored in 32 bits it loses lanes 32-63 the same
way (FBGEMM#5830, a HIP server's ballot shim whose callers kept the mask in `unsigned`).

Wrappers are found in the text, not the tree, so that a project's headers (read once for the
whole scan, consteval.header_constants) and a file whose parse broke are read alike.
"""

from __future__ import annotations

import re

VOTE_CALLS = ("__ballot_sync", "__ballot", "__activemask", "__match_any_sync", "__match_all_sync", "__match_any")

# Library functions whose result is a lane mask: torch declares its vote WARP_BALLOT
# (ATen/cuda/DeviceUtils.cuh) and its lane masks getLaneMask{Lt,Le,Gt,Ge} (ATen/cuda/AsmUtils.cuh)
# `unsigned` on CUDA and `unsigned long long int` under USE_ROCM (tests/test_votes.py reads
# torch's headers to check it).
LIBRARY_MASKS = ("WARP_BALLOT", "getLaneMaskLt", "getLaneMaskLe", "getLaneMaskGt", "getLaneMaskGe")

_VOTE = "|".join(VOTE_CALLS)
_NEEDLES = (b"__ballot", b"__activemask", b"__match_a")  # every name of VOTE_CALLS holds one
# `#define NAME(args) body`, the body with its continuation lines
_FUNCTION_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)\n]*)\)((?:[^\n]*\\\r?\n)*[^\n]*)", re.M)
_RETURNED_VOTE = re.compile(rb"(?<![\w$])return\b[^;{}]*?(?<![\w$])(?:" + _VOTE.encode() + rb")\s*\(")
_COMMENT = re.compile(rb"//[^\n]*|/\*.*?\*/", re.S)
_RETURN = re.compile(rb"(?<![\w$])return\b([^;]*);")
# what may stand before the vote in an expression whose value is the vote's: parentheses and casts
_LEADING = re.compile(
    rb"(?:\s|\(\s*(?:unsigned|signed|long|int|u?int(?:32|64)_t|const|\s)+\)|static_cast\s*<[^<>;]*>|\()*"
)
_VOTE_CALL = re.compile(rb"(?:" + _VOTE.encode() + rb")\s*\(")
# the head of a function definition, just before its `{`: `… name(params) const`
_FUNCTION_HEAD = re.compile(rb"(\w+)\s*\(((?:[^()]|\([^()]*\))*)\)\s*(?:const\s*)?(?:noexcept\s*)?$")
_NOT_FUNCTIONS = frozenset({b"if", b"for", b"while", b"switch", b"catch", b"return", b"sizeof", b"defined"})
_HEAD_WINDOW = 400  # bytes before a body's `{` where its function's name and parameters are looked for


def mentions_votes(data: bytes) -> bool:
    return any(needle in data for needle in _NEEDLES)


def is_vote_text(text: bytes) -> bool:
    """Is the expression's value a vote's mask as it is (cast or parenthesised at most), not
    something computed from one (`__popc(__ballot(p))`, `__ballot(p) == 0`) or given one
    (`__reduce_add_sync(__activemask(), v)`)?"""
    rest = text[_LEADING.match(text).end() :]
    call = _VOTE_CALL.match(rest)
    if call is None:
        return False
    depth = 0
    for index in range(call.end() - 1, len(rest)):
        depth += {0x28: 1, 0x29: -1}.get(rest[index], 0)
        if depth == 0:
            return rest[index + 1 :].strip(b" \t\r\n)\\") == b""
    return False


def vote_wrappers(data: bytes) -> set[str]:
    """The function-like macros and the functions of `data` whose value is a vote's mask."""
    if not mentions_votes(data):
        return set()
    return _vote_macros(data) | _vote_functions(data)


def _vote_macros(data: bytes) -> set[str]:
    return {
        match.group(1).decode()
        for match in _FUNCTION_MACRO.finditer(data)
        if is_vote_text(_COMMENT.sub(b" ", match.group(3).replace(b"\\\n", b" ")))
    }


def _vote_functions(data: bytes) -> set[str]:
    """Functions every `return` of which returns a vote (one per platform arm, as torch's does)."""
    found: set[str] = set()
    for match in _RETURNED_VOTE.finditer(data):
        opening = _enclosing_brace(data, match.start())
        if opening is None:
            continue
        head = _FUNCTION_HEAD.search(data[max(0, opening - _HEAD_WINDOW) : opening])
        if head is None or head.group(1) in _NOT_FUNCTIONS:
            continue  # a block inside a function (`if (…) { return __ballot(p); }`): the function computes more
        closing = _matching_brace(data, opening)
        body = data[opening + 1 : closing]
        returns = _RETURN.findall(body)
        if returns and all(is_vote_text(value) for value in returns) and body.count(b"{") == 0:
            found.add(head.group(1).decode())
    return found


def _enclosing_brace(data: bytes, at: int) -> int | None:
    """The `{` of the innermost block holding `at` (braces in comments and strings are counted
    too: a wrapper is a few lines, and a miscount only loses one)."""
    depth = 0
    for index in range(at - 1, max(-1, at - 4096), -1):
        byte = data[index]
        if byte == 0x7D:  # }
            depth += 1
        elif byte == 0x7B:  # {
            if depth == 0:
                return index
            depth -= 1
    return None


def _matching_brace(data: bytes, opening: int) -> int:
    depth = 0
    for index in range(opening, min(len(data), opening + 4096)):
        byte = data[index]
        if byte == 0x7B:
            depth += 1
        elif byte == 0x7D:
            depth -= 1
            if depth == 0:
                return index
    return opening


def vote_pattern(wrappers: set[str] | frozenset[str]) -> re.Pattern[str] | None:
    """A search for a call to one of the wrappers, by whole name; None where there are none."""
    if not wrappers:
        return None
    names = "|".join(re.escape(name) for name in sorted(wrappers, key=len, reverse=True))
    return re.compile(rf"(?<![\w$])({names})\s*\(")
