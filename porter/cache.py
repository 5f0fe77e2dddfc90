"""The scan cache: a file's results keyed by what they depend on.

The key is a hash of porter's own code and data (any change to a rule invalidates everything),
the configuration that changes findings (targets, ROCm version, libclang mode, compile flags), the
file's path in the tree and its bytes. Headers that a file includes are not part of the key: the
libclang layer's few findings may lag behind an edited header until the file itself changes or
`--no-cache` is given.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from porter.atomic import write_cache_entry
from porter.targets.toolchains import cache_dir


@cache
def code_fingerprint() -> str:
    """A hash of porter's source and data files."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".json", ".j2"):
            digest.update(path.relative_to(package).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def key(parts: list[str], data: bytes) -> str:
    digest = hashlib.sha256(code_fingerprint().encode())
    for part in parts:
        digest.update(b"\x1f" + part.encode("utf-8", "surrogateescape"))
    digest.update(b"\x1e" + data)
    return digest.hexdigest()


def _path(entry: str) -> Path:
    return cache_dir() / "scan" / entry[:2] / f"{entry}.json"


def load(entry: str) -> dict | None:
    try:
        return json.loads(_path(entry).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def store(entry: str, document: dict) -> None:
    write_cache_entry(_path(entry), json.dumps(document, separators=(",", ":"), check_circular=False).encode())
