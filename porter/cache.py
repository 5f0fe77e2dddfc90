"""The scan cache: a file's results keyed by what they depend on, kept in one pack per tree and
settings (a run reads the pack its last run of the same tree wrote, and writes its own).

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
from porter.memo import package_stats
from porter.targets.toolchains import cache_dir


@cache
def code_fingerprint() -> str:
    """A hash of porter's own files by their paths, sizes and modification times: any edit, install
    or checkout changes it, at the cost of a stat a file (reading them all took 40 ms a start)."""
    return hashlib.sha256("\n".join(package_stats()).encode()).hexdigest()


def key(parts: list[str]) -> str:
    """The key of what `parts` name (a file's content is among them as its digest), under this porter."""
    digest = hashlib.sha256(code_fingerprint().encode())
    for part in parts:
        digest.update(b"\x1f" + part.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _path(entry: str) -> Path:
    return cache_dir() / "scan" / entry[:2] / f"{entry}.json"


def load_pack(pack: str) -> dict[str, dict]:
    """The entries one earlier run of the same tree and settings stored (entry key -> a file's
    results); {} where there is none, or it cannot be read."""
    try:
        entries = json.loads(_path(pack).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return entries if isinstance(entries, dict) else {}


def encode_entry(entry: dict) -> str:
    """One file's entry as its pack holds it. A scan's workers encode the entries of the files they
    analyse, in parallel, and the main process only joins them (store_pack): encoded there, a
    flashinfer run's entries cost it 0.09 s after the analysis, with both cores idle."""
    return json.dumps(entry, separators=(",", ":"), check_circular=False)


def store_pack(pack: str, entries: dict[str, str]) -> None:
    """One run's entries (entry key -> encode_entry's text), in one file: written once, by the main
    process, after the run."""
    text = "{" + ",".join(f"{json.dumps(key)}:{entry}" for key, entry in entries.items()) + "}"
    write_cache_entry(_path(pack), text.encode())
