"""The warm re-scan (porter.memo): an unchanged tree's scan is replayed, and any change to what the
scan could read (a file's bytes, a new file, the command line, the environment) runs it again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

KERNEL = b"__global__ void k(int *out) { int lane = threadIdx.x % 32; out[threadIdx.x] = lane * warpSize; }\n"
LANE_ID = b'__global__ void l(int *o) { int lane; asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane)); o[0] = lane; }\n'
BALLOT = b"__global__ void v(unsigned *o, int p) { unsigned m = __ballot_sync(0xffffffff, p); o[0] = m; }\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "kernel.cu").write_bytes(KERNEL)
    return root


def _scan(tree: Path, cache: Path, *options: str, env: dict | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PORTER_CACHE": str(cache), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "porter", "scan", str(tree), "--format", "json", *options],
        capture_output=True, text=True, env=environment, check=False,
    )  # fmt: skip


def _scan_text(tree: Path, cache: Path) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PORTER_CACHE": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "porter", "scan", str(tree)],
        capture_output=True, encoding="utf-8", env=environment, check=False,
    )  # fmt: skip


def _records(cache: Path) -> list[Path]:
    return sorted((cache / "runs").rglob("*.json"))


def _rules(run: subprocess.CompletedProcess) -> list[str]:
    return sorted(f["rule"] for f in json.loads(run.stdout)["findings"])


def _poison(cache: Path) -> None:
    """Mark every record: a run that prints the mark was replayed, not run."""
    for record in _records(cache):
        entry = json.loads(record.read_text())
        entry["text"] = json.dumps({"findings": [{"rule": "REPLAYED"}]})
        record.write_text(json.dumps(entry))


def test_an_unchanged_tree_is_replayed(tree, tmp_path):
    cache = tmp_path / "cache"
    first = _scan(tree, cache)
    assert first.returncode == 0 and "WRP001" in _rules(first)
    assert len(_records(cache)) == 1
    _poison(cache)
    assert _rules(_scan(tree, cache)) == ["REPLAYED"]


@pytest.mark.parametrize(
    "change",
    [
        lambda tree: (tree / "kernel.cu").write_bytes(KERNEL.replace(b"% 32", b"% 64")),  # same size, new bytes
        lambda tree: (tree / "vote.cu").write_bytes(BALLOT),  # a new file
        lambda tree: (tree / "porter.toml").write_text('targets = ["gfx1100"]\n'),  # configuration
    ],
    ids=["edited", "added", "configured"],
)
def test_a_change_to_the_tree_runs_the_scan_again(tree, tmp_path, change):
    cache = tmp_path / "cache"
    _scan(tree, cache)
    _poison(cache)
    change(tree)
    again = _scan(tree, cache)
    assert "REPLAYED" not in again.stdout and again.returncode == 0
    assert _rules(again) == _rules(_scan(tree, tmp_path / "fresh-cache", "--no-cache"))


def test_other_options_and_environments_run_again(tree, tmp_path):
    cache = tmp_path / "cache"
    _scan(tree, cache)
    _poison(cache)
    assert "REPLAYED" not in _scan(tree, cache, "--target", "gfx90a").stdout
    assert "REPLAYED" not in _scan(tree, cache, env={"PORTER_EXTRA": "1"}).stdout


def test_a_text_listing_is_recorded_and_replayed_as_printed(tree, tmp_path):
    """The listing is written and recorded in parts, never joined: the record holds the printed
    text, non-ASCII characters (the `→` of ASM001's message) and timing line included, and the
    replay prints it byte for byte."""
    (tree / "lane.cu").write_bytes(LANE_ID)
    cache = tmp_path / "cache"
    first = _scan_text(tree, cache)
    assert first.returncode == 0 and "→" in first.stdout and first.stdout.endswith("s\n")
    [record] = _records(cache)
    assert json.loads(record.read_text(encoding="utf-8"))["text"] == first.stdout
    assert _scan_text(tree, cache).stdout == first.stdout


def test_no_cache_neither_replays_nor_records(tree, tmp_path):
    cache = tmp_path / "cache"
    _scan(tree, cache, "--no-cache")
    assert _records(cache) == []


def test_an_output_file_is_written_again_on_replay(tree, tmp_path):
    cache, output = tmp_path / "cache", tmp_path / "out" / "scan.json"
    _scan(tree, cache, "-o", str(output))
    written = output.read_text()
    output.unlink()
    assert _scan(tree, cache, "-o", str(output)).returncode == 0
    assert output.read_text() == written


def test_a_run_with_unreadable_files_is_not_recorded(tree, tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    (tree / "locked.cu").write_bytes(KERNEL)
    (tree / "locked.cu").chmod(0)
    cache = tmp_path / "cache"
    assert _scan(tree, cache).returncode == 2
    assert _records(cache) == []


@pytest.mark.parametrize("damage", ["[1, 2]", '{"text": 3}', '{"output": null}', "{not json"])
def test_a_damaged_record_runs_the_scan_again(tree, tmp_path, damage):
    cache = tmp_path / "cache"
    expected = _rules(_scan(tree, cache))
    for record in _records(cache):
        record.write_text(damage)
    again = _scan(tree, cache)
    assert again.returncode == 0 and again.stderr == ""
    assert _rules(again) == expected
