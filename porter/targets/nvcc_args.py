"""Arguments for nvcc that no shell can misread.

nvcc runs its internal steps (the host preprocessor, cudafe++, cicc) through `sh -c`, putting each
argument in double quotes. Inside double quotes a shell still expands `$(…)`, backticks and `\\`,
and a `"` ends the quoting: a file named `$(touch x).cu` or a compile_commands.json entry
`-DX="$(touch x)"` would run a command on the user's machine. Every argument porter hands nvcc
passes through `shell_safe` first:

- a `-D` definition whose value holds such a character moves into a header nvcc force-includes
  (`#define NAME value`), where the preprocessor reads it as the original flag meant it;
- anything else holding one (a path, an include directory, a flag) is refused with `UnsafeArgument`,
  which the build reports as the unit's `unsafe-input` failure.
"""

from __future__ import annotations

import re
from pathlib import Path

from porter.errors import PorterError

SHELL_SPECIAL = re.compile(r'[$`"\\\n\r]')
DEFINE = re.compile(r"-D([A-Za-z_]\w*)(?:=(.*))?", re.S)


class UnsafeArgument(PorterError):
    """An argument nvcc would hand to a shell that could run a command."""


def shell_safe(arguments: list[str], defines_header: Path) -> list[str]:
    """`arguments` with unsafe definitions moved to `defines_header` (written only if needed); raises
    UnsafeArgument for any other argument a shell could misread."""
    safe, defines = [], []
    for argument in arguments:
        if not SHELL_SPECIAL.search(argument):
            safe.append(argument)
            continue
        define = DEFINE.fullmatch(argument)
        if define is None or "\n" in argument or "\r" in argument:
            raise UnsafeArgument(
                f'refused to pass {argument!r} to nvcc: nvcc runs its steps through a shell, and $, `, \\, " '
                "or a line break there could run a command (rename the file or folder, or fix the flag)"
            )
        value = "1" if define.group(2) is None else define.group(2)
        defines.append(f"#define {define.group(1)} {value}\n")
    if defines:
        if SHELL_SPECIAL.search(str(defines_header)):
            raise UnsafeArgument(f"refused to pass {str(defines_header)!r} to nvcc (see above)")
        defines_header.write_text("".join(defines))
        safe[1:1] = ["-include", str(defines_header)]  # after the compiler, before the sources
    return safe
