"""A warm re-scan answered before the command line is even parsed: the whole run's output, keyed
by everything the run could have read.

This is ccache's direct mode for `porter scan`. The key covers porter's own files (size and
modification time), the command line, the working directory, the environment, whether stdout
and stderr are terminals, and the type, size, modification time and inode of every file and
folder under the scanned paths (symbolic links followed, as discovery follows them). A change
to any of them misses, and the full run records again. The fingerprint is taken before the run
reads anything, so a file edited while a scan runs makes that run's record unreachable instead
of stale.

Only a run that ended cleanly (exit 0, everything readable) is recorded; `--no-cache` neither
replays nor records. Imports stay light (no typer, no rules): replay is the whole point.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator

from porter.atomic import write_cache_entry, write_output_file
from porter.home import cache_dir

# Environment variables that differ between two runs of the same command without changing it.
_VOLATILE_ENVIRONMENT = frozenset({"_", "OLDPWD", "SHLVL", "COLUMNS", "LINES"})
_OUTPUT_OPTIONS = frozenset({"-o", "--output"})
_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_pending: str | None = None  # the key of this run, once replay missed: the scan command records under it


def scan_key(arguments: list[str]) -> str | None:
    """The memo key of `porter scan ARGUMENTS`, or None where the run is not one to memoise."""
    if not arguments or arguments[0] != "scan" or "--no-cache" in arguments or "--help" in arguments:
        return None
    digest = hashlib.sha256()
    _add(digest, "porter", *package_stats())
    _add(digest, "argv", *arguments)
    _add(digest, "cwd", os.getcwd(), sys.executable)
    _add(digest, "env", *sorted(f"{k}={v}" for k, v in os.environ.items() if k not in _VOLATILE_ENVIRONMENT))
    _add(digest, "tty", str(sys.stdout.isatty()), str(sys.stderr.isatty()))
    # every argument that names a file or folder is fingerprinted (a path after an option this
    # module does not know included), all but the output, which each run rewrites
    for previous, argument in zip(arguments, arguments[1:], strict=False):
        if previous not in _OUTPUT_OPTIONS and not argument.startswith("-") and os.path.exists(argument):
            _add(digest, "path", argument, *_tree_stats(argument))
    return digest.hexdigest()


def replay(arguments: list[str]) -> bool:
    """Write a recorded run's output and return True; on a miss remember the key and return False."""
    global _pending
    _pending = None
    key = scan_key(arguments)
    if key is None:
        return False
    try:
        with open(_entry(key), encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        record = None
    if not _well_formed(record):  # none, or damaged: the full run writes it again
        _pending = key
        return False
    if record.get("output") is None:
        sys.stdout.write(record["text"])
    else:
        write_output_file(record["output"], record["text"])
    return True


def record(text: str | list[bytes], output: str | None) -> None:
    """Keep this run's output (its text, or the UTF-8 parts it was written in) under the key replay
    missed (best effort: an unwritable cache is no error)."""
    global _pending
    if _pending is None:
        return
    target, _pending = _entry(_pending), None
    write_cache_entry(target, _document(text, None if output is None else os.path.abspath(output)))


def _document(text: str | list[bytes], output: str | None) -> Iterator[bytes]:
    """The record, {"output": …, "text": …}, in parts: the text's string a part at a time, each
    part's characters escaped as JSON escapes them in the whole, so that a large tree's text is not
    copied whole twice more (escaped, then encoded)."""
    yield b'{"output": ' + json.dumps(output).encode() + b', "text": "'
    for part in [text] if isinstance(text, str) else text:
        part = part if isinstance(part, str) else part.decode("utf-8", "surrogateescape")
        yield json.dumps(part)[1:-1].encode()
    yield b'"}'


def _well_formed(record) -> bool:
    return (
        isinstance(record, dict)
        and isinstance(record.get("text"), str)
        and isinstance(record.get("output"), (str, type(None)))
    )


def _entry(key: str) -> str:
    return os.path.join(cache_dir(), "runs", key[:2], f"{key}.json")


def _add(digest, label: str, *parts: str) -> None:
    digest.update(b"\x1e" + label.encode())
    for part in parts:
        digest.update(b"\x1f" + part.encode("utf-8", "surrogateescape"))


def _tree_stats(top: str) -> list[str]:
    """One line per entry under `top` (itself included): its path, type, size, mtime and inode."""
    lines = [_stat_line(top, top)]
    for folder, folders, files in os.walk(top, followlinks=False):
        folders.sort()
        for name in sorted(files) + folders:
            lines.append(_stat_line(os.path.join(folder, name), top))
    return lines


def package_stats() -> list[str]:
    """porter's own files, bytecode and folders left out: the bytecode a first run writes (and the
    folder times it moves) change nothing that porter does."""
    lines = []
    for folder, folders, files in os.walk(_PACKAGE):
        folders[:] = sorted(name for name in folders if name != "__pycache__")
        lines += [_stat_line(os.path.join(folder, name), _PACKAGE) for name in sorted(files)]
    return lines


def _stat_line(path: str, top: str) -> str:
    try:
        status = os.stat(path)  # a link's target, as discovery reads it
    except OSError:
        return f"{os.path.relpath(path, top)} missing"
    return f"{os.path.relpath(path, top)} {status.st_mode:o} {status.st_size} {status.st_mtime_ns} {status.st_ino}"
