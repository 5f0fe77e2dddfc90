"""Writing a file whole or not at all: a reader (or a crash) sees the old file or the new one.

One helper for every file porter writes in place of another: command output, converted sources,
the scan cache and porter.memo's records. Imports stay light: the warm path uses it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable


def write_atomically(path: str | os.PathLike, data: bytes | Iterable[bytes], mode: int | None = None) -> None:
    """Write a temporary file in `path`'s folder, then rename it over `path`. `data` is the bytes,
    or the parts they are written in one after another; `mode` gives the new file's permissions;
    None gives a new file's usual ones (0o666 less the umask). The folder must exist."""
    path = os.fspath(path)
    import tempfile  # here: every run imports this module (porter.memo), few write through it

    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "wb") as handle:
            _write_parts(handle, data)
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_parts(handle, data: bytes | Iterable[bytes]) -> None:
    for part in (data,) if isinstance(data, bytes) else data:
        handle.write(part)


def write_cache_entry(path: str | os.PathLike, data: bytes | Iterable[bytes]) -> None:
    """A cache entry, written whole in a folder made as needed, readable by the user alone; best
    effort: a cache that cannot be written is no error."""
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        write_atomically(path, data, mode=0o600)
    except OSError:
        pass


def write_output_file(path: str | os.PathLike, text: str | Iterable[bytes]) -> None:
    """A command's output file (its text, or the UTF-8 parts it is written in), written whole: its
    folder made, the usual permissions.

    `-o /dev/null`, a FIFO or a terminal is written through: renaming a new file over it would
    replace the device itself (as root, /dev/null became a regular file). A symbolic link to a
    file has its target replaced, as a shell's `>` would, and stays a link."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        status = os.stat(path)
    except FileNotFoundError:
        status = None
    if status is not None and not stat.S_ISREG(status.st_mode) and not stat.S_ISDIR(status.st_mode):
        with open(path, "wb") as stream:
            _write_parts(stream, data)
        return
    target = os.path.realpath(path)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    write_atomically(target, data)
