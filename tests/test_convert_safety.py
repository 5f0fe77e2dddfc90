"""Convert loses nothing: hand edits in an earlier OUT, backups, links, renamed files, concurrent runs."""

from __future__ import annotations

import codecs
import fcntl
import os
import time

import pytest
from typer.testing import CliRunner

from porter.cli import app
from porter.config import Config
from porter.convert import ConvertOptions, OutputError, convert
from porter.convert.output import INCOMPLETE, MARKER

runner = CliRunner()
KERNEL = "#include <cuda_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x % 32] = 1; }\nvoid f(float** p) { cudaMalloc(p, 4); }\n"


@pytest.fixture
def src(tmp_path):
    tree = tmp_path / "src"
    tree.mkdir()
    (tree / "a.cu").write_text(KERNEL)
    return tree


def run(src, out=None, **options):
    return convert(ConvertOptions(src, out, **options), Config())


def test_hand_edits_in_an_earlier_output_are_refused_then_forced(src, tmp_path):
    out = tmp_path / "out"
    run(src, out)
    (out / "a.cu").write_text((out / "a.cu").read_text() + "// my fix\n")
    result = runner.invoke(app, ["convert", str(src), "-o", str(out)])
    assert result.exit_code == 2 and "a.cu (edited)" in result.output and "--force" in result.output
    assert "// my fix" in (out / "a.cu").read_text()
    assert runner.invoke(app, ["convert", str(src), "-o", str(out), "--force"]).exit_code == 0
    assert "// my fix" not in (out / "a.cu").read_text()


def test_an_output_of_the_other_mode_is_not_replaced_silently(src, tmp_path):
    out = tmp_path / "out"
    run(src, out)
    with pytest.raises(OutputError, match="portable mode"):
        run(src, out, mode="hip")
    assert (out / "a.cu").is_file() and not (out / "a.hip").exists()


@pytest.mark.parametrize("suffix", [".cu", ".h", ".bak.cpp", ".cmake", ""])
def test_backup_suffixes_that_look_like_sources_are_refused(src, suffix):
    result = runner.invoke(app, ["convert", str(src), "--in-place", "--backup-suffix", suffix])
    assert result.exit_code == 2 and "--backup-suffix" in result.output
    assert (src / "a.cu").read_text() == KERNEL and sorted(p.name for p in src.iterdir()) == ["a.cu"]


def test_in_place_twice_never_converts_its_backups(src):
    run(src, in_place=True)
    run(src, in_place=True)
    assert (src / "a.cu.orig").read_text() == KERNEL
    assert not list(src.glob("*.orig.orig")) and not list(src.glob("*.cu.cu"))


def test_in_place_keeps_links_as_links(src):
    (src / "alias.cu").symlink_to("a.cu")
    run(src, in_place=True)
    assert (src / "alias.cu").is_symlink() and os.readlink(src / "alias.cu") == "a.cu"
    assert "porter_compat.h" in (src / "a.cu").read_text()


def test_hip_in_place_backs_up_what_it_renames(src):
    run(src, in_place=True, mode="hip")
    assert (src / "a.hip").is_file() and not (src / "a.cu").exists()
    assert (src / "a.cu.orig").read_text() == KERNEL


def test_a_second_run_into_one_output_waits_its_turn(src, tmp_path):
    out = tmp_path / "out"
    with open(tmp_path / ".out.porter.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with pytest.raises(OutputError, match="another porter run"):
            run(src, out)
    assert not out.exists()
    run(src, out)
    assert (out / MARKER).is_file()


def test_a_run_killed_between_its_renames_is_repaired(src, tmp_path):
    out = tmp_path / "out"
    run(src, out)
    out.rename(tmp_path / ".out.porter-previous")  # as if killed right after the first rename
    run(src, out)
    assert (out / "a.cu").is_file() and not (tmp_path / ".out.porter-previous").exists()


def test_stale_staging_folders_are_removed_fresh_ones_kept(src, tmp_path):
    old, fresh = tmp_path / ".out.porter-old", tmp_path / ".out.porter-fresh"
    for folder in (old, fresh):
        folder.mkdir()
        (folder / INCOMPLETE).write_text("")
    two_days = time.time() - 2 * 24 * 3600
    os.utime(old, (two_days, two_days))
    run(src, tmp_path / "out")
    assert not old.exists() and fresh.exists()


def test_loops_pipes_and_dangling_links_are_reported_not_fatal(src, tmp_path):
    (src / "loop1.cu").symlink_to("loop2.cu")
    (src / "loop2.cu").symlink_to("loop1.cu")
    (src / "gone.cu").symlink_to("nowhere.cu")
    os.mkfifo(src / "pipe.cu")
    result = runner.invoke(app, ["convert", str(src), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "not copied: loop1.cu" in result.output and "not copied: pipe.cu: not a regular file" in result.output
    assert (tmp_path / "out" / "a.cu").is_file()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.porter-") and p.is_dir()] == []


def test_utf16_sources_are_analysed_and_written_back_in_utf16(tmp_path):
    tree = tmp_path / "src"
    tree.mkdir()
    (tree / "w.cu").write_bytes(codecs.BOM_UTF16_LE + KERNEL.encode("utf-16-le"))
    scanned = runner.invoke(app, ["scan", str(tree), "-f", "json"])
    assert scanned.exit_code == 0 and '"rule": "API001"' in scanned.stdout
    run(tree, tmp_path / "out")
    data = (tmp_path / "out" / "w.cu").read_bytes()
    assert data.startswith(codecs.BOM_UTF16_LE)
    text = data[2:].decode("utf-16-le")
    assert "porter_compat.h" in text and "#include <hip/hip_runtime.h>" in text


def test_bomless_wide_text_and_unlistable_folders_fail_the_scan_unless_kept_going(tmp_path, monkeypatch):
    tree = tmp_path / "src"
    (tree / "locked").mkdir(parents=True)
    (tree / "w.cu").write_bytes(KERNEL.encode("utf-16-le"))
    real_scandir = os.scandir

    def scandir(path="."):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = runner.invoke(app, ["scan", str(tree)])
    assert result.exit_code == 2
    assert "locked: Permission denied" in result.output and "w.cu: cannot decode" in result.output
    assert runner.invoke(app, ["scan", str(tree), "--keep-going"]).exit_code == 0


def test_output_folders_keep_the_users_umask(src, tmp_path):
    previous = os.umask(0o022)
    try:
        run(src, tmp_path / "out")
    finally:
        os.umask(previous)
    assert (tmp_path / "out").stat().st_mode & 0o777 == 0o755


def test_build_converts_for_the_amd_targets_it_builds(tmp_path, monkeypatch):
    import porter.build.run as build_run

    seen = []

    def converting(options, config, progress):
        seen.append(config.targets)
        raise SystemExit(0)  # enough: the conversion was asked for these targets

    monkeypatch.setattr(build_run, "convert", converting)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.cu").write_text(KERNEL)
    runner.invoke(app, ["build", str(tree), "--target", "sm_90", "--target", "gfx950"])
    assert seen == [("gfx950",)]
