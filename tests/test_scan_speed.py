"""The speed-ups of the scan keep its answers: word-led patterns find what the regex finds, the
table-name pre-filter what one pattern over every start finds, and struct sizes are the compiler's."""

from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
from pathlib import Path

import pytest

import porter.rules
from porter.parse import parse
from porter.rules import arch_guard, async_copy, branches, cooperative_groups, library, numeric_format, warp_size
from porter.rules.consteval import struct_sizes
from porter.rules.patterns import finditer, finditer_at, finditer_each, lead_literals, search_fast, word_led
from porter.rules.tables import load_tables
from porter.source import FileKind, SourceFile

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
TRICKY = (
    b"x__cluster_dims__ __cluster_dims__ $cuda::barrier cuda :: barrier a.CUDA_VERSION CUDA_VERSIONS\n"
    b"_CUDA_VERSION (CUDA_VERSION) h2exp(x) __hadd(a, b) ah2exp( __nv_fp8_e4m3 x__nv_fp8_e4m3 cub::X mycub::Y"
)
WORD_LED = (
    *(p.regex for p in async_copy.PATTERNS),
    arch_guard._VERSION,
    *numeric_format._FP8_TYPE,
    *numeric_format._INTRINSIC_CALLS,
    library._CUDNN_NAME,
)


def _inputs() -> list[bytes]:
    return [TRICKY, *(p.read_bytes() for p in sorted(CORPUS.rglob("*.cu*")))]


@pytest.mark.parametrize("regex", WORD_LED, ids=lambda r: r.pattern[:40].decode(errors="replace"))
def test_word_led_patterns_find_what_the_regex_finds(regex):
    for data in _inputs():
        assert [m.span() for m in finditer(regex, data)] == [m.span() for m in regex.finditer(data)]


# The single alternations numeric_format split by leading literal, as they were
SPLIT = {
    "_FP8_TYPE": rb"(?<![\w$])(__nv_cvt_\w*fp8\w*|__nv_fp8x?\d?_(e4m3|e5m2)|__nv_fp8_storage_t|__nv_fp8x\d_storage_t|__NV_E4M3|__NV_E5M2|Float8_e4m3fn|Float8_e5m2|kFloat8_e4m3fn|kFloat8_e5m2)\b",
    "_INTRINSIC_CALLS": rb"(?<![\w$])(__[a-z0-9_]+|h2?[a-z]+(?:_approx)?)\s*\(",
    "_HALF_INTERNAL": rb"\.\s*__x\b"
    rb"|__half2?_raw\s+\w+\s*=\s*\{|__half2?_raw\s*\{\s*0[xX]"
    rb"|reinterpret_cast\s*<\s*(const\s+)?(u?int32_t|unsigned(\s+int)?|int|uint)\s*\*\s*>\s*\(\s*&\s*\w*(h2|half2|bf2|bfloat162)\w*"
    rb"|reinterpret_cast\s*<\s*(const\s+)?(u?int16_t|unsigned\s+short|short)\s*\*\s*>\s*\(\s*&\s*\w+\s*\)"
    rb"|reinterpret_cast\s*<\s*(const\s+)?(u?int16_t|unsigned\s+short|short)\s*&\s*>\s*\(\s*\w+\s*\)"
    rb"|\*\s*\(\s*(const\s+)?(u?int32_t|unsigned|int|u?int16_t|unsigned\s+short)\s*\*\s*\)\s*&\s*\w*(h|h2|half|half2)\b",
}


@pytest.mark.parametrize("name", sorted(SPLIT))
def test_patterns_split_by_their_lead_find_what_the_one_alternation_found(name):
    whole = re.compile(SPLIT[name])
    extra = b"x.__x = 1; __half_raw r = {0}; *(unsigned*)&h2v; reinterpret_cast<short&>(hv); Float8_e5m2fnuz"
    for data in [*_inputs(), extra]:
        parts = finditer_each(getattr(numeric_format, name), data)
        assert [m.span() for m in parts] == [m.span() for m in whole.finditer(data)]


def test_word_led_only_where_every_alternative_is_word_led():
    assert word_led(re.compile(rb"(?<![\w$])a|(?<![\w$])b")).pattern == b"a|b"
    assert word_led(re.compile(rb"(?<![\w$])a|b")) is None  # `b` has no boundary test
    assert word_led(re.compile(rb"x(?<![\w$])a")) is None  # not at the match's start
    assert word_led(re.compile(rb"(?<![\w$])a[|]b")).pattern == b"a[|]b"  # a `|` in a class splits nothing


def test_table_candidates_match_one_pattern_over_every_start():
    tables = load_tables()
    prefixes = b"|".join(re.escape(n[:3].encode()) for n in sorted({n[:3] for n in tables.identifiers}))
    reference = re.compile(rb"(?<![\w$])(?:" + prefixes + rb")\w*")
    for data in _inputs():
        expected = [(m.start(), m.end(), m.group().decode("ascii", "replace")) for m in reference.finditer(data)]
        assert tables.candidates(data) == expected


STRUCTS = """
typedef struct { double values[4096]; double weights[4100]; } Workspace;
struct Padded { char a; float b[2]; char c; };
struct Nested { Padded p; double d; char e; };
struct Shorts { short s[3]; char c; };
namespace inner { struct Counts { int n[N]; long long total; }; }
struct WithPointer { int* p; };
struct Derived : Padded { int d; };
"""


def test_struct_sizes_are_the_compilers(tmp_path):
    source = SourceFile(tmp_path / "s.cu", "s.cu", STRUCTS.encode(), FileKind.CUDA)
    sizes = struct_sizes(source, parse(source).root, {"N": 5})
    assert set(sizes) == {"Workspace", "Padded", "Nested", "Shorts", "Counts"}  # no pointer, no base class
    checks = "".join(
        f'static_assert(sizeof({"inner::" if name == "Counts" else ""}{name}) == {size}, "{name}");\n'
        for name, size in sizes.items()
    )
    program = tmp_path / "check.cpp"
    program.write_text("constexpr int N = 5;\n" + STRUCTS + checks)
    compiled = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", str(program)], capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr


def test_header_constants_chain_across_headers_in_any_order():
    """A later pass re-evaluates only texts naming a constant found in the pass before: a chain
    defined backwards still resolves, and a name defined twice differently stays unknown."""
    from porter.rules.consteval import header_constants

    headers = [b"#define A (B * 2)\n", b"#define B (C + 1)\n#define D 1\n", b"#define C 15\n#define D 2\n"]
    assert header_constants(headers).values == {"C": 15, "B": 16, "A": 32}
    deeper = [f"#define K{i} (K{i + 1} + 1)\n".encode() for i in range(5)] + [b"#define K5 27\n"]
    assert header_constants(deeper).values["K0"] == 32


# The gates answered by `in` before (or instead of) a regex, with the regexes they replaced
GATES = {
    "member major": (
        arch_guard._member_major,
        rb"(?:\.|->)\s*major\b",
        b"p.major p -> major p.majority row_major x->\n\t major a.major_ b. major",
    ),
    "platform words": (
        branches.mentions_platform,
        rb"HIP|ROCM|ROCm|AMDGCN|AMDGPU|__gfx|__GFX|NVCC|NVCOMPILER|#\s*if\s+0\b",
        b"#if  0\n# if 00\nROC_M __GF X NVCOMPILE",
    ),
}


@pytest.mark.parametrize("name", sorted(GATES))
def test_gates_answer_as_the_regex_they_replace(name):
    gate, regex, extra = GATES[name]
    whole = re.compile(regex)
    pieces = [extra, *extra.split(b" "), *extra.split(b"\n"), b"", b"major", b".major"]
    for data in [*_inputs(), *pieces]:
        assert gate(data) == (whole.search(data) is not None), data[:60]


def test_search_fast_needles_are_matches_of_their_regex():
    """A needle found answers yes at once, so each must be a match of the regex on its own."""
    for needles, regex in (
        (warp_size._MAY_ASSUME_32_NEEDLES, warp_size._MAY_ASSUME_32),
        (warp_size._WARP_LEVEL_NEEDLES, warp_size._WARP_LEVEL),
    ):
        for needle in needles:
            assert regex.fullmatch(needle) or regex.search(needle), needle


def test_search_fast_answers_as_the_regex():
    """With the needles and the parts every other match holds, on real code and on near misses."""
    near = [b"__reduce_add_sync(m, v)", b"myWarpReduce<T>(x)", b"warp_sum (x)", b"Warp", b"__reduce_", b"arp("]
    for data in [*_inputs(), *near]:
        for regex, needles, rest in (
            (warp_size._WARP_LEVEL, warp_size._WARP_LEVEL_NEEDLES, warp_size._WARP_LEVEL_REST),
            (warp_size._MAY_ASSUME_32, warp_size._MAY_ASSUME_32_NEEDLES, ()),
        ):
            assert search_fast(data, needles, regex, rest) == (regex.search(data) is not None), data[:60]


def _rule_patterns() -> list[re.Pattern[bytes]]:
    """Every bytes pattern a rule module holds, alone or in a tuple (as a Pattern's regex too)."""
    found = []
    for info in pkgutil.iter_modules(porter.rules.__path__):
        module = importlib.import_module(f"porter.rules.{info.name}")
        for value in vars(module).values():
            for item in value if isinstance(value, tuple) else (value,):
                regex = getattr(item, "regex", item)
                if isinstance(regex, re.Pattern) and isinstance(regex.pattern, bytes):
                    found.append(regex)
    return found


def test_every_rule_pattern_finds_through_finditer_what_the_regex_finds():
    """finditer picks a way per pattern (tried from its leads, word-led, or the regex itself): each
    must give the regex's own matches."""
    patterns = _rule_patterns()
    assert sum(1 for regex in patterns if lead_literals(regex)) >= 5  # the lead path is exercised
    near = b"cudaFuncAttributeRequiredClusterWidth this_cluster ( CUtensorMapX xcute::a cute ::b thrust :: cuda::x"
    for data in [*_inputs(), near]:
        for regex in patterns:
            assert [m.span() for m in finditer(regex, data)] == [m.span() for m in regex.finditer(data)], regex.pattern


def test_a_pattern_led_by_a_lookbehind_gives_the_regexs_matches_from_its_literal():
    """`(?<=[<"])cuda/barrier`: one lead, but a look-behind before it (tried at every byte by the
    regex engine): finditer looks from the literal's places, and must find what the regex finds."""
    regex = re.compile(rb'(?<=[<"])(cuda/barrier|cuda/pipeline)(?=[>"])')
    data = b'#include <cuda/barrier>\n#include "cuda/pipeline"\nxcuda/barrier> <cuda/barriers> <cuda/pipeline"'
    assert [m.span() for m in finditer(regex, data)] == [m.span() for m in regex.finditer(data)]
    assert len([m.span() for m in regex.finditer(data)]) == 3


def test_lead_literals_only_where_every_match_must_start_with_one():
    assert lead_literals(re.compile(rb"(?<![\w$])abc\s*::|(?<![\w$])(?:defg|hij)\b")) == (b"abc", b"defg", b"hij")
    assert lead_literals(re.compile(rb"(?<=[<\"])cuda\.h(?=[>\"])")) == (b"cuda.h",)  # `\.` is a dot
    assert lead_literals(re.compile(rb"abcd?e|xyz")) == (b"abc", b"xyz")  # `d` may be absent
    assert lead_literals(re.compile(rb"(?:abc)?def|xyz")) is None  # an optional group leads nothing
    assert lead_literals(re.compile(rb"abc|\d+")) is None
    assert lead_literals(re.compile(rb"abc|xy")) is None  # a lead too short to be worth finding
    assert lead_literals(re.compile(rb"abc|xyz", re.IGNORECASE)) is None
    assert lead_literals(re.compile(rb"a b c|xyz", re.VERBOSE)) is None  # `a b c` matches `abc`


def test_major_variables_found_from_identifier_starts():
    near = b"if (cc_major >= 9) x; y = dev.major > 8; if (xmajor == 1) z; sm_major<=7; p->major==9; a_b_major != 8"
    for data in [*_inputs(), near, near.replace(b" ", b"\n")]:
        starts = arch_guard._identifier_starts(data, b"major")
        found = finditer_at(arch_guard._MAJOR_VARIABLE, data, starts)
        assert [m.span() for m in found] == [m.span() for m in arch_guard._MAJOR_VARIABLE.finditer(data)]


def test_arch_comparisons_found_from_their_starts():
    near = b"#if 800 <= __CUDA_ARCH__\n__CUDA_ARCH__>=700 x8>__CUDA_ARCH__ 9 =>__CUDA_ARCH__ 12\n!=\t__CUDA_ARCH__ 1<2<__CUDA_ARCH__"
    for data in [*_inputs(), near]:
        starts = arch_guard._arch_comparison_starts(data)
        found = finditer_at(arch_guard._ARCH_COMPARISON, data, starts)
        assert [m.span() for m in found] == [m.span() for m in arch_guard._ARCH_COMPARISON.finditer(data)]


def test_cooperative_groups_calls_found_from_their_starts():
    near = (
        b"namespace cg = cooperative_groups; cg::reduce(t, v, op); cooperative_groups :: inclusive_scan<int>(t)\n"
        b"x.reduce(a); y::reduce(b); reduce (c); auto g = cg::this_grid(); cg::sync(g); sync( g ); ns::sync(g) xsync(g)"
    )
    for data in [*_inputs(), near]:
        namespaces = cooperative_groups._namespaces(data)
        for using in (False, True):
            qualified = cooperative_groups._qualified(namespaces, using)
            found = cooperative_groups._checked_calls(data, namespaces, qualified)
            whole = cooperative_groups._checked_pattern(qualified).finditer(data)
            assert [m.span() for m in found] == [m.span() for m in whole]
        grids = {"g", "grid"}
        found = cooperative_groups._free_syncs(data, grids)
        assert [m.span() for m in found] == [
            m.span() for m in cooperative_groups._free_sync_pattern(grids).finditer(data)
        ]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("CUB_WARP_THREADS(PTX_ARCH)", 32),  # a library macro's call takes the unknown name inside it
        ("sizeof(unsigned int) * 8", 32),  # the words of sizeof and of casts are rewritten away
        ("(int)WS / 2", 16),
        ("static_cast<Foo>(WS) - 1", 31),  # so is the type a static_cast names
        ("WS /* lanes */", 32),
        ("WS // lanes", 32),
        ("threadIdx.x / WS", None),
        ("get(WS)", None),
        ("(unsigned)kUnknown", None),
        ("sizeof(Foo) * 8", None),
        ("WS >> -1", None),  # a negative shift count is undefined in C: no value (a fuzz input once stopped here)
        ("1 << -WS", None),
    ],
)
def test_constant_evaluation_answers_early_only_where_a_name_stays_unknown(text, value):
    from porter.rules.consteval import evaluate

    assert evaluate(text, {"WS": 32}) == value


def test_text_python_would_warn_about_is_no_constant_and_no_warning():
    import warnings

    from porter.rules.consteval import evaluate

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert evaluate("1if 2", {}) is None
    assert caught == []  # a warning would reach the user's terminal mid-scan


def test_columns_count_characters_where_a_line_is_not_ascii():
    data = "int a; // é\nint ü = 1; int b;\nint c;\n".encode()
    source = SourceFile(Path("x.cu"), "x.cu", data, FileKind.CUDA)
    assert source.position(data.index(b"b;")) == (2, 16)  # `ü` is two bytes, one character
    assert source.position(data.index(b"c;")) == (3, 5)
    assert source.position(data.index(b"a;")) == (1, 5)
