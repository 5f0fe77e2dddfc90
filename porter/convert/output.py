"""Writing a conversion: a complete tree or nothing, and never a byte outside OUT.

A new tree is staged in a sibling directory of OUT, marked incomplete until the last file is
written, then renamed into place; a previous porter output at OUT is swapped out only then.
In-place conversion writes each changed file through a temporary file and a rename, after
keeping a backup of the original.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from porter.errors import PorterError

MARKER = ".porter-convert.json"
INCOMPLETE = "PORTER_INCOMPLETE"


class OutputError(PorterError):
    """OUT cannot be written as asked; the message says why."""


@dataclass
class TreePlan:
    """What the output tree holds: new bytes for some paths, copies or links for the rest."""

    files: dict[str, bytes] = field(default_factory=dict)  # rel → content
    modes: dict[str, int] = field(default_factory=dict)  # rel → st_mode of the original
    copies: dict[str, Path] = field(default_factory=dict)  # rel → original to copy
    links: dict[str, str] = field(default_factory=dict)  # rel → link target (inside the tree)


def check_destination(src: Path, out: Path) -> None:
    src_resolved, out_resolved = src.resolve(), out.resolve()
    if out_resolved == src_resolved or src_resolved in out_resolved.parents:
        raise OutputError(
            f"{out}: the output must not be inside the input tree {src} (use --in-place to convert in place)"
        )
    if out_resolved in src_resolved.parents:
        raise OutputError(f"{out}: the output must not contain the input tree {src}")
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise OutputError(f"{out}: exists, is not empty and is not a porter output; choose an empty or new directory")


def write_tree(out: Path, plan: TreePlan, manifest: dict) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.porter-", dir=out.parent))
    (staging / INCOMPLETE).write_text("porter convert was interrupted before this tree was complete\n")
    try:
        for rel, source in sorted(plan.copies.items()):
            target = _inside(staging, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        for rel, data in sorted(plan.files.items()):
            target = _inside(staging, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            if rel in plan.modes:
                os.chmod(target, plan.modes[rel] & 0o7777)
        for rel, link in sorted(plan.links.items()):
            target = _inside(staging, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(link, target)
        (staging / MARKER).write_text(json.dumps(manifest, indent=2) + "\n")
        (staging / INCOMPLETE).unlink()
    except BaseException:
        raise  # the staging directory stays, marked incomplete, for inspection
    _swap_into_place(staging, out)


def _swap_into_place(staging: Path, out: Path) -> None:
    previous = None
    if out.exists():
        previous = out.with_name(f".{out.name}.porter-previous")
        if previous.exists():
            shutil.rmtree(previous)
        out.rename(previous)
    staging.rename(out)
    if previous is not None:
        shutil.rmtree(previous, ignore_errors=True)


def _inside(root: Path, rel: str) -> Path:
    target = (root / rel).resolve()
    if root.resolve() not in target.parents:
        raise OutputError(f"{rel}: would be written outside the output tree")
    return root / rel


def write_in_place(root: Path, files: dict[str, bytes], backup_suffix: str, generated=()) -> list[Path]:
    """Replace changed files atomically, each after a backup (an existing backup is kept: it is the original).

    Files porter generates (`generated`) get no backup: they are porter's to rewrite.
    """
    written = []
    for rel, data in sorted(files.items()):
        target = _inside(root, rel)
        if target.is_file() and target.read_bytes() == data:
            continue
        if target.exists():
            backup = target.with_name(target.name + backup_suffix)
            if not backup.exists() and rel not in generated:
                shutil.copy2(target, backup)
            mode = target.stat().st_mode
        else:
            mode = 0o644
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.chmod(tmp, mode & 0o7777)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        written.append(target)
    return written
