"""Writing a conversion: a complete tree or nothing, never a byte outside OUT, and nothing lost.

A new tree is staged in a sibling directory of OUT, marked incomplete until the last file is
written, then renamed into place; a previous porter output at OUT is swapped out only then, and
only if it holds nothing porter did not write (its manifest records every file's hash) or the
user says `--force`. One lock per OUT keeps two runs from swapping at once; a run that died
between the two renames is repaired by the next; staging folders left by killed runs are removed
after a day. In-place conversion writes each changed file through a temporary file and a rename,
after keeping a backup of the original; links stay links.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from porter.atomic import write_atomically
from porter.errors import PorterError
from porter.source import kind_of

MARKER = ".porter-convert.json"
INCOMPLETE = "PORTER_INCOMPLETE"
STALE_SECONDS = 24 * 3600  # a staging folder this old belongs to no live run


class OutputError(PorterError):
    """OUT cannot be written as asked; the message says why."""


@dataclass
class TreePlan:
    """What the output tree holds: new bytes for some paths, copies or links for the rest."""

    files: dict[str, bytes] = field(default_factory=dict)  # rel → content
    modes: dict[str, int] = field(default_factory=dict)  # rel → st_mode of the original
    copies: dict[str, Path] = field(default_factory=dict)  # rel → original to copy
    links: dict[str, str] = field(default_factory=dict)  # rel → link target (inside the tree)
    skipped: dict[str, str] = field(default_factory=dict)  # rel → why it is not in OUT


def check_backup_suffix(suffix: str) -> None:
    """A backup must never look like a source, or a later run would convert it (a.cu.cu.cu)."""
    if not suffix or "/" in suffix or "\0" in suffix:
        raise OutputError(f"--backup-suffix must be a non-empty file-name suffix, got {suffix!r}")
    if kind_of(Path("a.cu" + suffix)) is not None or kind_of(Path("setup.py" + suffix)) is not None:
        raise OutputError(
            f"--backup-suffix {suffix!r} would make backups look like sources, which a later run would convert; "
            "use a suffix such as .orig"
        )


def check_placement(src: Path, out: Path) -> None:
    """OUT and SRC must not hold each other (checked before anything, a lock included, is written)."""
    src_resolved, out_resolved = src.resolve(), out.resolve()
    if out_resolved == src_resolved or src_resolved in out_resolved.parents:
        raise OutputError(
            f"{out}: the output must not be inside the input tree {src} (use --in-place to convert in place)"
        )
    if out_resolved in src_resolved.parents:
        raise OutputError(f"{out}: the output must not contain the input tree {src}")


def check_destination(src: Path, out: Path, mode: str, force: bool = False) -> None:
    """OUT must be new, empty, or an earlier porter output holding nothing but what porter wrote."""
    check_placement(src, out)
    recover_swap(out)
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: exists and is not a directory")
    if not out.is_dir() or not any(out.iterdir()):
        return
    if not (out / MARKER).is_file():
        raise OutputError(f"{out}: exists, is not empty and is not a porter output; choose an empty or new directory")
    if force:
        return
    manifest = _read_manifest(out)
    if manifest.get("mode", mode) != mode:
        raise OutputError(
            f"{out}: an earlier porter output in {manifest['mode']} mode; converting it in {mode} mode would "
            "replace it (use --force, or choose another OUT)"
        )
    changes = foreign_changes(out, manifest)
    if changes:
        shown = ", ".join(changes[:5]) + (f" and {len(changes) - 5} more" if len(changes) > 5 else "")
        raise OutputError(f"{out}: holds changes porter did not write ({shown}); use --force to replace them")


def _read_manifest(out: Path) -> dict:
    try:
        manifest = json.loads((out / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise OutputError(f"{out / MARKER}: unreadable porter manifest ({exc}); use --force to replace OUT") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise OutputError(f"{out}: made by a porter that kept no file hashes; use --force to replace it")
    return manifest


def foreign_changes(out: Path, manifest: dict) -> list[str]:
    """Paths under OUT that differ from what porter recorded writing there: edited, added or removed."""
    recorded: dict = manifest["files"]
    links: dict = manifest.get("links", {})
    found: list[str] = []
    seen: set[str] = set()
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out).as_posix()
        if rel == MARKER or path.is_dir() and not path.is_symlink():
            continue
        seen.add(rel)
        if path.is_symlink():
            if links.get(rel) != os.readlink(path):
                found.append(f"{rel} (added)" if rel not in links else f"{rel} (changed)")
        elif rel not in recorded:
            found.append(f"{rel} (added)")
        elif _digest(path) != recorded[rel]:
            found.append(f"{rel} (edited)")
    found += [f"{rel} (removed)" for rel in sorted(set(recorded) | set(links)) if rel not in seen]
    return found


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def recover_swap(out: Path) -> None:
    """A run killed between its two renames left OUT missing and the old tree aside: put it back."""
    previous = out.with_name(f".{out.name}.porter-previous")
    if previous.is_dir() and not out.exists():
        previous.rename(out)


def remove_stale_staging(out: Path) -> None:
    """Staging folders of killed runs (marked incomplete, untouched for a day) are removed."""
    if not out.parent.is_dir():
        return
    for candidate in out.parent.glob(f".{out.name}.porter-*"):
        with contextlib.suppress(OSError):
            if (candidate / INCOMPLETE).is_file() and time.time() - candidate.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(candidate, ignore_errors=True)


@contextlib.contextmanager
def locked(out: Path):
    """One porter run at a time writes OUT; a second one says so instead of racing at the swap."""
    out.parent.mkdir(parents=True, exist_ok=True)
    lock = out.with_name(f".{out.name}.porter.lock")  # not a staging name: never pruned
    with open(lock, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputError(f"{out}: another porter run is writing this output; wait for it to finish") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_tree(out: Path, plan: TreePlan, manifest: dict) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_staging(out)
    manifest = {**manifest, "files": {}, "links": dict(sorted(plan.links.items()))}
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.porter-", dir=out.parent))
    os.chmod(staging, 0o777 & ~_umask())  # mkdtemp makes it 0700; OUT gets the user's usual mode
    (staging / INCOMPLETE).write_text("porter convert was interrupted before this tree was complete\n")
    resolved = staging.resolve()
    folders: set[Path] = {staging}
    try:
        for rel, source in sorted(plan.copies.items()):
            target = _staged(staging, rel, folders)
            shutil.copy2(source, target)
            manifest["files"][rel] = _digest(target)
        for rel, data in sorted(plan.files.items()):
            target = _staged(staging, rel, folders)
            target.write_bytes(data)
            if rel in plan.modes:
                os.chmod(target, plan.modes[rel] & 0o7777)
            manifest["files"][rel] = hashlib.sha256(data).hexdigest()
        for rel, link in sorted(plan.links.items()):
            target = _inside(staging, rel, resolved)
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


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _staged(staging: Path, rel: str, folders: set[Path]) -> Path:
    """`staging / rel`, its folder made (`folders`: those made already), refused unless `rel` is
    relative and climbs no `..`. The staging folder is porter's own and holds no link while its
    files are written (links come last), so the path's words alone say where it lands."""
    path = PurePosixPath(rel)
    parts = path.parts
    if not parts or path.is_absolute() or ".." in parts:
        raise OutputError(f"{rel}: would be written outside the output tree")
    target = staging.joinpath(*parts)
    if target.parent not in folders:
        target.parent.mkdir(parents=True, exist_ok=True)
        folders.add(target.parent)
    return target


def _inside(root: Path, rel: str, resolved_root: Path | None = None) -> Path:
    """`root / rel`, refused if it resolves outside `root` (`resolved_root`: root resolved already,
    by a caller that writes many files under it)."""
    target = (root / rel).resolve()
    if (resolved_root or root.resolve()) not in target.parents:
        raise OutputError(f"{rel}: would be written outside the output tree")
    return root / rel


def write_in_place(
    root: Path, files: dict[str, bytes], backup_suffix: str, generated=(), renamed: dict[str, str] | None = None
) -> list[Path]:
    """Replace changed files atomically, each after a backup (an existing backup is kept: it is the original).

    Files porter generates (`generated`) get no backup: they are porter's to rewrite. A link is never
    replaced by a file: its target, when it is in the tree, is converted under its own name.
    `renamed` (hip mode: a.cu → a.hip) moves each old file to its backup once the new one is written.
    """
    written = []
    for rel, data in sorted(files.items()):
        target = _inside(root, rel)
        if target.is_symlink():
            continue
        if target.is_file() and target.read_bytes() == data:
            continue
        if target.exists():
            backup = target.with_name(target.name + backup_suffix)
            if not backup.exists() and rel not in generated:
                shutil.copy2(target, backup)
            mode = target.stat().st_mode
        else:
            mode = 0o644
        write_atomically(target, data, mode & 0o7777)
        written.append(target)
    for old, new in sorted((renamed or {}).items()):
        _retire_renamed(root, old, new, backup_suffix)
    return written


def _retire_renamed(root: Path, old: str, new: str, backup_suffix: str) -> None:
    """After a.hip is written, a.cu becomes its backup a.cu.orig (kept if one is there already)."""
    source, replacement = _inside(root, old), _inside(root, new)
    if source.is_symlink() or not source.is_file() or not replacement.is_file():
        return
    backup = source.with_name(source.name + backup_suffix)
    number = 0
    while backup.exists() or backup.is_symlink():  # an earlier run's backup is the original: keep it too
        number += 1
        backup = source.with_name(f"{source.name}{backup_suffix}.{number}")
    source.rename(backup)
