"""API names built by token pasting, found from the macro's text (porter.rules.macros) instead of
libclang's preprocessor: `--deep auto` no longer parses any file with libclang, and what libclang
found on the corpus the text reading finds too, at the same spans.

The shapes are those of real error-checking wrappers: a prefix macro used inside another macro's
body, a variadic macro that pastes its whole argument, a macro defined in a project header and
used in a source beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.config import Config
from porter.scan import Deep, scan

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def _pasted(root: Path, deep: Deep = Deep.AUTO) -> list[tuple[str, int, str]]:
    result = scan([root], Config(), jobs=1, deep=deep)
    return sorted(
        (f.file, f.line, f.message.split("`")[3])
        for f in result.findings
        if f.rule == "API008" and "expands to" in f.message
    )


def test_a_prefix_macro_used_inside_another_macro_and_alone(tmp_path):
    (tmp_path / "runtime.cu").write_text(
        "#include <cstdio>\n"
        "#if defined(OTHER_RUNTIME)\n"
        "#define RT(name) other##name\n"
        "#else\n"
        "#define RT(name) cuda##name\n"
        "#endif\n"
        "#define GPU(expr) do { auto rc = (expr); if (rc != RT(Success)) { \\\n"
        '    std::fprintf(stderr, "%s\\n", RT(GetErrorString)(rc)); } } while (0)\n'
        "void f(float** p, int n) {\n"
        "  GPU(RT(Malloc)(p, n));  // RT(Free) in a comment builds nothing\n"
        '  const char* s = "RT(Memset)";\n'
        "}\n"
    )
    assert _pasted(tmp_path) == [
        ("runtime.cu", 7, "cudaSuccess"),
        ("runtime.cu", 8, "cudaGetErrorString"),
        ("runtime.cu", 10, "cudaMalloc"),
    ]


def test_a_variadic_macro_pastes_its_whole_argument(tmp_path):
    (tmp_path / "check.cu").write_text(
        "#define cuda(...) cuda_assert(cuda##__VA_ARGS__, __FILE__, __LINE__)\n"
        "#define CHECK(call) { cudaError_t rc = cuda##call; (void)rc; }\n"
        "void f(float* d, int n) {\n"
        "  cuda(Malloc(&d, n * sizeof(float)));\n"
        "  CHECK(Memset(d, 0, (n, 4)));\n"
        "  cudaFree(d);  // spelled out: API001, not a pasted name\n"
        "}\n"
    )
    assert _pasted(tmp_path) == [("check.cu", 4, "cudaMalloc"), ("check.cu", 5, "cudaMemset")]


def test_a_pasting_macro_of_a_project_header_is_followed_into_its_users(tmp_path):
    (tmp_path / "gpu_api.h").write_text("#pragma once\n#define GPU_API(name) cuda##name\n")
    (tmp_path / "alloc.cu").write_text(
        '#include "gpu_api.h"\nvoid f(void** p) { GPU_API(Malloc)(p, 64); GPU_API(DeviceSynchronize)(); }\n'
    )
    assert _pasted(tmp_path) == [("alloc.cu", 2, "cudaDeviceSynchronize"), ("alloc.cu", 2, "cudaMalloc")]


def test_auto_parses_nothing_with_libclang_and_finds_what_it_found(libclang_available):
    tree = CORPUS / "api"
    auto = scan([tree], Config(), jobs=1, deep=Deep.AUTO)
    assert {r.clang for r in auto.files} == {"not-needed"}
    if not libclang_available:
        pytest.skip("libclang not set up: `porter setup cuda-headers` and apt-get install libclang1-19")
    always = scan([tree], Config(), jobs=1, deep=Deep.ALWAYS)
    assert "parsed" in {r.clang for r in always.files}
    # libclang's own answers: none that the text reading did not give (token_paste.cu's five uses)
    assert [f for f in always.findings if f.engine == "libclang"] == []
    assert [f.to_row() for f in always.findings] == [f.to_row() for f in auto.findings]
    assert len(_pasted(tree)) == 5
