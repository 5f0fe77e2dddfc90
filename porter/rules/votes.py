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

from porter.rules.brackets import closing_of, enclosing_opener, function_named_before

# HIP code reads the active mask with the AMDGCN builtin itself, and the lanes below or above the
# caller with HIP's __lanemask_lt() and __lanemask_gt(): 64 bits on a 64-lane wavefront
VOTE_CALLS = (
    "__ballot_sync", "__ballot", "__activemask", "__match_any_sync", "__match_all_sync", "__match_any",
    "__builtin_amdgcn_read_exec", "__lanemask_lt", "__lanemask_gt", "__lanemask_eq",
)  # fmt: skip

# Library functions whose result is a lane mask: torch declares its vote WARP_BALLOT
# (ATen/cuda/DeviceUtils.cuh) and its lane masks getLaneMask{Lt,Le,Gt,Ge} (ATen/cuda/AsmUtils.cuh)
# `unsigned` on CUDA and `unsigned long long int` under USE_ROCM (tests/test_votes.py reads
# torch's headers to check it).
LIBRARY_MASKS = ("WARP_BALLOT", "getLaneMaskLt", "getLaneMaskLe", "getLaneMaskGt", "getLaneMaskGe")

_VOTE = "|".join(VOTE_CALLS)
# every name of VOTE_CALLS holds one, and so does the PTX of an asm that reads a lane-mask register
_NEEDLES = (b"__ballot", b"__activemask", b"__match_a", b"_read_exec", b"__lanemask_", b"%lanemask")
# PTX's lane-mask registers read into a variable, `asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m))`:
# the mask of the lanes below the caller, 32 bits on NVIDIA and the wavefront's 64 once ported
_LANE_MASK_ASM = re.compile(rb'%%lanemask_[a-z]{2}\s*;?\s*"\s*:\s*"=r"\s*\(\s*([A-Za-z_]\w*)\s*\)')
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
    closing = closing_of(rest, call.end() - 1, 0x28, 0x29)
    return closing is not None and rest[closing + 1 :].strip(b" \t\r\n)\\") == b""


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
    """Functions every `return` of which returns a vote (one per platform arm, as torch's does), and
    those that read a PTX lane-mask register into a variable and return it, every `return` that
    variable (cub's and many projects' `LaneMaskLt()`): their value is a lane mask too."""
    votes = _functions_returning(data, _RETURNED_VOTE, lambda _, value: is_vote_text(value))
    return votes | _functions_returning(data, _LANE_MASK_ASM, lambda match, value: value.strip() == match.group(1))


def _functions_returning(data: bytes, pattern: re.Pattern[bytes], returned) -> set[str]:
    """The functions whose body holds a match of `pattern` directly (no inner block) and each of
    whose `return`s is a value `returned(match, value)` accepts."""
    found: set[str] = set()
    for match in pattern.finditer(data):
        opening = enclosing_opener(data, match.start())
        # a block inside a function (`if (…) { return __ballot(p); }`) has no name: the function computes more
        name = function_named_before(data, opening) if opening is not None else None
        closing = closing_of(data, opening) if name is not None else None
        if closing is None:
            continue
        body = data[opening + 1 : closing]
        returns = _RETURN.findall(body)
        if returns and all(returned(match, value) for value in returns) and body.count(b"{") == 0:
            found.add(name)
    return found


def vote_pattern(wrappers: set[str] | frozenset[str]) -> re.Pattern[str] | None:
    """A search for a call to one of the wrappers, by whole name; None where there are none."""
    if not wrappers:
        return None
    names = "|".join(re.escape(name) for name in sorted(wrappers, key=len, reverse=True))
    return re.compile(rf"(?<![\w$])({names})\s*\(")
