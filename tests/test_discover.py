"""Discovery: file kinds, vendored trees, configuration, compile_commands.json, PyTorch extensions."""

from __future__ import annotations

import json
import os

import pytest
from corpus_cases import CORPUS

from porter.config import Config, load_config
from porter.discover import DiscoveryError, discover, find_torch_extensions


def tree(tmp_path, files: dict[str, str]):
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def rels(root, config=None):
    return [f.rel for f in discover([root], config or load_config(root)).files]


def test_file_kinds(tmp_path):
    names = ["a.cu", "b.cuh", "c.cpp", "d.cc", "e.cxx", "f.h", "g.hpp", "h.inl", "i.hip", "setup.py",
             "CMakeLists.txt", "x.cmake", "notes.md", "run.py", "k.c"]  # fmt: skip
    root = tree(tmp_path, {n: "" for n in names})
    assert sorted(rels(root)) == sorted(names[:12])


def test_vendored_trees_are_skipped_unless_included(tmp_path):
    root = tree(tmp_path, {"src/a.cu": "", "third_party/cutlass/b.cu": "", "csrc/cutlass/c.cuh": "", "vendor/d.cu": ""})
    found = discover([root], Config())
    assert [f.rel for f in found.files] == ["src/a.cu"]
    assert found.skipped_vendored == ["csrc/cutlass", "third_party", "vendor"]
    forced = Config(include=["third_party/cutlass/**"])
    assert rels(root, forced) == ["src/a.cu", "third_party/cutlass/b.cu"]


def test_pyproject_exclude_and_porter_toml_precedence(tmp_path):
    root = tree(tmp_path, {"a.cu": "", "tests/b.cu": "", "gen/c.cu": ""})
    (root / "pyproject.toml").write_text('[tool.porter]\nexclude = ["tests/**", "tests"]\n')
    assert rels(root) == ["a.cu", "gen/c.cu"]
    (root / "porter.toml").write_text('exclude = ["gen"]\ntargets = ["gfx90a"]\nrocm-version = "7.0"\n')
    config = load_config(root)
    assert config.targets == ("gfx90a",) and str(config.rocm_version) == "7.0"
    assert rels(root, config) == ["a.cu", "tests/b.cu"]


def test_compile_commands_flags_and_files(tmp_path):
    root = tree(tmp_path, {"src/a.cu": "", "gen/b.cu": ""})
    database = [
        {"directory": str(root), "file": "src/a.cu", "arguments": ["nvcc", "-Iinclude", "-DFOO=1", "-O3", "-std=c++17", "-c", "src/a.cu"]},
        {"directory": str(root), "command": "nvcc -isystem /opt/x -DBAR -c gen/b.cu", "file": "gen/b.cu"},
    ]  # fmt: skip
    (root / "compile_commands.json").write_text(json.dumps(database))
    found = discover([root], Config())
    flags = found.compile_commands.flags_for(root / "src" / "a.cu")
    assert flags == ["-I", str(root / "include"), "-DFOO=1", "-std=c++17"]
    assert found.compile_commands.flags_for(root / "gen" / "b.cu") == ["-isystem", "/opt/x", "-DBAR"]


def test_a_file_named_alone_takes_its_flags_from_the_database_beside_it_and_adds_no_files(tmp_path):
    root = tree(tmp_path, {"a.cu": "", "b.cu": "", "old/deep/compile_commands.json": "{not json"})
    database = [
        {"directory": str(root), "file": name, "arguments": ["nvcc", "-DFOO", "-c", name]} for name in ("a.cu", "b.cu")
    ]
    (root / "build").mkdir()
    (root / "build" / "compile_commands.json").write_text(json.dumps(database))
    found = discover([root / "a.cu"], Config())
    assert [f.rel for f in found.files] == ["a.cu"]
    assert found.compile_commands.flags_for(root / "a.cu") == ["-DFOO"]
    with pytest.raises(DiscoveryError, match="not a valid compilation database"):
        discover([root], Config())  # the tree itself: every database in it counts


def test_broken_compile_commands_is_named(tmp_path):
    root = tree(tmp_path, {"a.cu": "", "compile_commands.json": "{not json"})
    with pytest.raises(DiscoveryError, match="compile_commands.json: not a valid compilation database"):
        discover([root], Config())


def test_symlinks_out_of_the_tree_are_not_followed(tmp_path):
    outside = tree(tmp_path / "outside", {"secret.cu": "cudaMalloc"})
    root = tree(tmp_path / "root", {"a.cu": ""})
    os.symlink(outside / "secret.cu", root / "link.cu")
    os.symlink(outside, root / "linked_dir")
    assert rels(root) == ["a.cu"]


def test_torch_extension_detection():
    setup = (CORPUS / "torch_ext" / "setup.py").read_bytes()
    (ext,) = find_torch_extensions("torch_ext/setup.py", setup)
    assert ext.how == "CUDAExtension" and ext.name == "scale_ext._C"
    assert ext.sources == ("csrc/binding.cpp", "csrc/scale_kernel.cu")
    jit = b"from torch.utils.cpp_extension import load\nm = load(name='k', sources=['k.cu'], verbose=True)\n"
    (loaded,) = find_torch_extensions("build.py", jit)
    assert (loaded.how, loaded.name, loaded.sources) == ("load", "k", ("k.cu",))
    assert find_torch_extensions("other.py", b"import json\njson.load(f)\n") == []
    assert find_torch_extensions("broken.py", b"def (:\n") == []


def test_scan_reports_the_corpus_extension(corpus_scan):
    extensions = corpus_scan.summary()["torch_extensions"]
    assert sorted(e["name"] for e in extensions) == ["guards_ext._C", "scale_ext._C"]
