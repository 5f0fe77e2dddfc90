"""ASM001 names the bitwise expression a `lop3.b32` lookup table encodes.

Real code passes the table as an operand, not a literal: marlin's `template <int lut> lop3(a, b, c)`
(`"lop3.b32 %0, %1, %2, %3, %4;" ... "n"(lut)`, instantiated as `lop3<(0xf0 & 0xcc) | 0xaa>`), and
cutlass-style converters' `static constexpr uint32_t immLut = (0xf0 & 0xcc) ^ 0xaa;` as `%3`. porter
read the operand's number as the table (`%4`: 0x04, `(~a & b & ~c)`): a wrong function, named as the
replacement, on 24 statements of gptqmodel 7.7.0. Each expression printed is checked here against
PTX's definition of the table: bit i of the result is bit (a_i b_i c_i) of the table.
"""

from __future__ import annotations

import random
import re

from porter.config import Config
from porter.scan import scan

LOP3_FORMS = """#include <cstdint>
template <int lut>
__device__ inline int lop3(int a, int b, int c) {
  int res;
  asm volatile("lop3.b32 %0, %1, %2, %3, %4;\\n" : "=r"(res) : "r"(a), "r"(b), "r"(c), "n"(lut));
  return res;
}

__device__ uint32_t mask_and_flip(uint32_t r) {
  static constexpr uint32_t and_mask = 0xFFF0FF0F;
  static constexpr uint32_t xor_mask = 0x64006400;
  static constexpr uint32_t immLut = (0xf0 & 0xcc) ^ 0xaa;
  asm volatile("{\\n  lop3.b32 %0, %0, %1, %2, %3;\\n}\\n" : "+r"(r) : "n"(and_mask), "n"(xor_mask), "n"(immLut));
  return r;
}

__device__ uint32_t majority(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t r;
  asm("lop3.b32 %0, %1, %2, %3, 0xE8;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
  return r;
}

__device__ int dequant(int q, int mask, int ex) {
  return lop3<(0xf0 & 0xcc) | 0xaa>(q, mask, ex) + lop3<0x96>(q, mask, ex);
}
"""

# the table each statement's source writes, as Python reads the same expressions
WRITTEN = {5: [(0xF0 & 0xCC) | 0xAA, 0x96], 13: [(0xF0 & 0xCC) ^ 0xAA], 19: [0xE8]}


def _lop3(table: int, a: int, b: int, c: int) -> int:
    """PTX's definition: bit i of the result is bit (a_i << 2 | b_i << 1 | c_i) of the table."""
    return sum(((table >> ((a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1))) & 1) << i for i in range(32))


def _evaluate(expression: str, a: int, b: int, c: int) -> int:
    return eval(expression, {}, {"a": a, "b": b, "c": c}) & 0xFFFFFFFF  # the printed C++ is Python too


def test_each_lop3_expression_is_the_table_its_source_writes(tmp_path):
    (tmp_path / "lop3.cu").write_text(LOP3_FORMS, encoding="utf-8")
    findings = [f for f in scan([tmp_path], Config()).findings if f.rule == "ASM001"]
    assert sorted(f.line for f in findings) == sorted(WRITTEN)
    rng = random.Random(7)
    samples = [tuple(rng.getrandbits(32) for _ in range(3)) for _ in range(64)]
    for finding in findings:
        expressions = re.findall(r"(?:`: |→ )([^`;]+?)(?:; `| \(a, b, c)", finding.message)
        matched = {
            table
            for expression in expressions
            for table in WRITTEN[finding.line]
            if all(_evaluate(expression, a, b, c) == _lop3(table, a, b, c) for a, b, c in samples)
        }
        assert len(expressions) == len(WRITTEN[finding.line]), finding.message
        assert matched == set(WRITTEN[finding.line]), finding.message


def test_a_table_the_file_does_not_give_is_not_guessed(tmp_path):
    """The template alone (its instantiations in another file): no expression is named."""
    template = LOP3_FORMS.split("__device__ uint32_t mask_and_flip")[0]
    (tmp_path / "lop3.cuh").write_text(template, encoding="utf-8")
    (finding,) = [f for f in scan([tmp_path], Config()).findings if f.rule == "ASM001"]
    assert "the bitwise expression the immediate encodes" in finding.message
    assert "~" not in finding.message and "&" not in finding.message
