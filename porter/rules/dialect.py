"""C++ dialect (category `dialect`): code nvcc compiles and hip-clang rejects.

nvcc hands device code to its own front end and host code to g++, both lenient where clang is
strict. A construct that only draws a warning from them stops a hip-clang build.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from porter.findings import Edit, Finding, FixKind, Severity
from porter.parse import identifiers_named
from porter.rules.base import FileContext, Rule
from porter.source import FileKind

REGISTER_STORAGE = Rule(
    id="DLC001",
    name="register-storage-class",
    category="dialect",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="`register` storage class, which C++17 removed: hip-clang stops, nvcc and g++ go on",
    what="Finds declarations with the `register` storage class specifier in files hip-clang compiles (`.cu`, `.cuh`, `.hip`, and headers they may include).",
    why="""
        C++17 removed `register`. nvcc accepts it in device code and g++ warns in host code, so
        CUDA builds with `-std=c++17` (PyTorch's extensions, CMake's CUDA_STANDARD 17) go through;
        clang makes it an error (`ISO C++17 does not allow 'register' storage class specifier`,
        checked with hip-clang 21 for gfx942), and hip-clang's default dialect is C++17. The
        specifier asks nothing of either compiler's register allocator: removing it changes no
        meaning. A register variable given an `asm` label (a GNU extension clang accepts) stays.
        """,
    example="register float acc[128];",
    use_instead="`float acc[128];`: the compiler keeps it in registers as it did.",
)

RULES = (REGISTER_STORAGE,)

# hip-clang compiles these as C++; a .cpp file goes to the host compiler, which only warns
_HIP_CLANG_KINDS = (FileKind.CUDA, FileKind.HIP, FileKind.HEADER)
_ASM_LABEL = re.compile(rb"\b(?:asm|__asm__|__asm)\s*\(")


def check(ctx: FileContext) -> Iterable[Finding]:
    if ctx.source.kind not in _HIP_CLANG_KINDS:
        return
    for keyword in identifiers_named(ctx.parsed.root, ctx.source.data, "register", ("register",)):
        specifier = keyword.parent
        if specifier is None or specifier.type != "storage_class_specifier" or _has_asm_label(ctx, specifier):
            continue
        following = specifier.next_sibling
        end = following.start_byte if following is not None else specifier.end_byte
        yield REGISTER_STORAGE.finding(
            ctx, specifier.start_byte, specifier.end_byte,
            "`register` is not C++17: hip-clang rejects the declaration (nvcc accepts it)",
            edits=(Edit(specifier.start_byte, end, b""),),
        )  # fmt: skip


def _has_asm_label(ctx: FileContext, specifier) -> bool:
    """`register int r asm("v0")`: an explicit register variable, which clang accepts in C++17."""
    declaration = specifier.parent
    if declaration is None:
        return False
    return _ASM_LABEL.search(ctx.source.data, declaration.start_byte, declaration.end_byte) is not None
