"""16-bit atomics HIP lacks: `atomicAdd` of 16-bit floats (NUM005), which CUDA overloads for `__half`,
`__half2` and the bfloat16 types, and the 16-bit `atomicCAS` (API012) that projects build their own on.

exllamav2 0.0.4's GEMM kernels add `half2` results into their output with `atomicAdd(out, r)`; its
ROCm branch (compat.cuh, under `USE_ROCM`) defines the overloads itself. Without them the kernels do
not compile for gfx942 ("no matching function for call to 'atomicAdd'", HIP 6.4): the scan names the
calls, and the compat header declares the overloads, whose compare-and-swap arithmetic is run here on
the CPU against the correctly rounded sums (and the 16-bit compare-and-swap against its definition).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from compilers import hip_compile, nvcc_compile

from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.convert.compat import render_header
from porter.scan import scan
from porter.targets import toolchains

ACCUMULATE = """#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void add_rows(half2* out, const half2* rows, int n) {
  half2 r = rows[blockIdx.x * n + threadIdx.x];
  atomicAdd(out + threadIdx.x, r);
}

__global__ void add_scalars(__half* sum, const float* x, __nv_bfloat16* total, const __nv_bfloat162* pairs, float* check) {
  int i = threadIdx.x;
  atomicAdd(&sum[i % 4], __float2half(x[i]));
  atomicAdd(reinterpret_cast<__nv_bfloat162*>(total), pairs[i]);
  atomicAdd(check, x[i]);
}

template <typename scalar_t>
__global__ void add_any(scalar_t* out, const scalar_t* in) {
  atomicAdd(out, in[threadIdx.x]);
}

void launch(half2* o, const half2* r, __half* s, const float* x, __nv_bfloat16* t, const __nv_bfloat162* p, float* c,
            float* f) {
  add_rows<<<4, 64>>>(o, r, 64);
  add_scalars<<<1, 64>>>(s, x, t, p, c);
  add_any<float><<<1, 64>>>(f, x);
}
"""

# a project's own half atomicMax on the 16-bit compare-and-swap, as real code writes it
SHORT_CAS = """#include <cuda_fp16.h>

__device__ __half atomic_max_half(__half* address, __half value) {
  unsigned short int old = *(unsigned short int*)address;
  while (__hgt(value, __ushort_as_half(old))) {
    unsigned short int assumed = old;
    old = atomicCAS((unsigned short int*)address, assumed, __half_as_ushort(value));
    if (old == assumed) break;
  }
  return __ushort_as_half(old);
}

__global__ void claim(__half* top, const __half* x, unsigned short* flags, unsigned int* words) {
  atomic_max_half(top, x[threadIdx.x]);
  atomicCAS(&flags[threadIdx.x & 3], (unsigned short)0, (unsigned short)1);
  atomicCAS(words, 0u, 1u);
}
"""

PROJECT_OVERLOAD = """#pragma once
#include <cuda_fp16.h>
#if defined(USE_ROCM)
__device__ __forceinline__ void atomicAdd(half2* address, half2 val) { unsafeAtomicAdd(address, val); }
#endif
"""


def _adds(tree: Path) -> list[tuple[int, str]]:
    return [(f.line, f.message.split("`")[3]) for f in scan([tree], Config()).findings if f.rule == "NUM005"]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "accumulate.cu").write_text(ACCUMULATE, encoding="utf-8")
    return root


def test_each_add_of_a_16_bit_float_is_named_and_no_other(tree):
    """A pair through pointer arithmetic, a scalar through `&p[i]`, a pair through a cast; not the
    float, nor the template's `scalar_t`, which this file instantiates with float."""
    assert _adds(tree) == [(6, "half2"), (11, "__half"), (12, "__nv_bfloat162")]


def test_each_16_bit_compare_and_swap_is_named_and_the_port_builds_on_either_hip(tmp_path):
    tree, out = tmp_path / "tree", tmp_path / "port"
    tree.mkdir()
    (tree / "claim.cu").write_text(SHORT_CAS, encoding="utf-8")
    assert [(f.line, f.rule) for f in scan([tree], Config()).findings if f.rule == "API012"] == [
        (7, "API012"),
        (15, "API012"),
    ]
    renamed = tmp_path / "renamed.hip"
    renamed.write_text(
        "#include <hip/hip_runtime.h>\n" + SHORT_CAS.replace("cuda_fp16.h", "hip/hip_fp16.h"), encoding="utf-8"
    )
    original = hip_compile(renamed, tmp_path, targets=("gfx942",))
    assert original.stderr.count("no matching function for call to 'atomicCAS'") == 2, original.stderr[-2000:]
    convert(ConvertOptions(tree, out, "portable"), Config(), None)
    assert [f.rule for f in scan([out], Config()).findings if f.rule == "API012"] == []
    for hip in {toolchains.find_hip_toolchain(), toolchains.find_sysroot_toolchain()} - {None}:
        port = hip_compile(out / "claim.cu", tmp_path, targets=("gfx942", "gfx1100"), hip=hip)
        assert port.returncode == 0, port.stderr[-2000:]
    nvidia = nvcc_compile(out / "claim.cu", tmp_path)
    assert nvidia.returncode == 0, nvidia.stderr[-2000:]


def test_a_project_that_defines_the_overload_is_left_alone(tree):
    (tree / "compat.cuh").write_text(PROJECT_OVERLOAD, encoding="utf-8")
    assert _adds(tree) == []


PROJECT_CAS = """#pragma once
#if defined(USE_ROCM)
__device__ __forceinline__ unsigned short atomicCAS(unsigned short int* address, unsigned short compare,
                                                    unsigned short value) {
  unsigned int* word = (unsigned int*)((size_t)address & ~(size_t)3);
  const unsigned int shift = ((size_t)address & 2) * 8;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    if (((assumed >> shift) & 0xffffu) != compare) break;
    old = atomicCAS(word, assumed, (assumed & ~(0xffffu << shift)) | ((unsigned int)value << shift));
  } while (old != assumed);
  return (unsigned short)(old >> shift);
}
#endif
"""


def test_a_project_that_defines_its_own_16_bit_compare_and_swap_is_left_alone(tmp_path):
    """The header defines the overload for ROCm, in another file than the calls: a veto of the
    project's, read across the scan."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "claim.cu").write_text('#include "cas.cuh"\n' + SHORT_CAS, encoding="utf-8")
    assert [f.line for f in scan([tree], Config()).findings if f.rule == "API012"] == [8, 16]
    (tree / "cas.cuh").write_text(PROJECT_CAS, encoding="utf-8")
    assert [f.rule for f in scan([tree], Config()).findings if f.rule == "API012"] == []


def test_the_renamed_original_does_not_compile_for_amd_and_the_port_builds_for_both(tree, tmp_path):
    """Renamed as hipify renames it, the original stops at each add; the portable port builds."""
    renamed = tmp_path / "renamed.hip"
    renamed.write_text(
        "#include <hip/hip_runtime.h>\n"
        + ACCUMULATE.replace("cuda_fp16.h", "hip/hip_fp16.h")
        .replace("cuda_bf16.h", "hip/hip_bf16.h")
        .replace("__nv_", "__hip_"),
        encoding="utf-8",
    )
    original = hip_compile(renamed, tmp_path, targets=("gfx942",))
    assert original.stderr.count("no matching function for call to 'atomicAdd'") == 3, original.stderr[-2000:]
    out = tmp_path / "port"
    convert(ConvertOptions(tree, out, "portable"), Config(), None)
    assert _adds(out) == []  # the compat header's overloads serve the port's calls
    port = hip_compile(out / "accumulate.cu", tmp_path, targets=("gfx90a", "gfx942", "gfx1100"))
    assert port.returncode == 0, port.stderr[-2000:]
    older = toolchains.find_sysroot_toolchain()  # HIP 5.7, whose __hip_bfloat16 has no conversions
    if older is not None and older != toolchains.find_hip_toolchain():
        port = hip_compile(out / "accumulate.cu", tmp_path, targets=("gfx942",), hip=older)
        assert port.returncode == 0, port.stderr[-2000:]
    nvidia = nvcc_compile(out / "accumulate.cu", tmp_path)
    assert nvidia.returncode == 0, nvidia.stderr[-2000:]


# The compat header's overloads, compiled for the CPU: types shaped as HIP's (classes of 2 bytes that
# convert to and from float, rounding to nearest even; pairs with `.x` and `.y`) and an atomicCAS of
# the compiler's atomic builtin, as HIP's is; and a bfloat16 shaped as HIP 5.x's, with no conversions. Each sum is checked against the one a single rounding of the exact sum gives (a double
# holds any sum of two of these exactly), in both halves of a 32-bit word, its neighbour untouched,
# the old value returned; a float argument converts, as CUDA's overloads take it.
HARNESS = r"""
#include <cmath>
#include <cstdio>
#include <cstring>
#define __device__
unsigned int atomicCAS(unsigned int* address, unsigned int compare, unsigned int value) {  // as HIP's
  __atomic_compare_exchange_n(address, &compare, value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare;
}
struct half_t {
  _Float16 v;
  half_t() = default;
  half_t(float f) : v((_Float16)f) {}
  operator float() const { return (float)v; }
};
struct bf16_t {
  unsigned short bits;
  bf16_t() = default;
  bf16_t(float f) { unsigned int u; std::memcpy(&u, &f, 4); bits = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16; }
  operator float() const { unsigned int u = (unsigned int)bits << 16; float f; std::memcpy(&f, &u, 4); return f; }
  static bf16_t from(unsigned short b) { bf16_t h; h.bits = b; return h; }
};
struct half2_t { half_t x, y; };
struct bf162_t { bf16_t x, y; };
struct bare_bf16_t { unsigned short bits; };  // HIP 5.x's __hip_bfloat16: no conversions, a function to float
float __bfloat162float(bare_bf16_t h) { return (float)bf16_t::from(h.bits); }
struct bare_bf162_t { bare_bf16_t x, y; };
PORTER_OVERLOADS
static unsigned long long state = 88172645463325252ull;
static unsigned int next() { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return (unsigned int)state; }
static unsigned short bits_of(half_t h) { unsigned short b; std::memcpy(&b, &h, 2); return b; }
static unsigned short bits_of(bf16_t h) { return h.bits; }
static unsigned short bits_of(bare_bf16_t h) { return h.bits; }
static float as_float(half_t h) { return (float)h; }
static float as_float(bf16_t h) { return (float)h; }
static float as_float(bare_bf16_t h) { return __bfloat162float(h); }
static half_t random_half() {  // any finite half whose doubled magnitude stays finite, subnormals included
  unsigned short b = (unsigned short)((next() & 0x83ffu) | ((next() % 30u) << 10));
  half_t h; std::memcpy(&h, &b, 2); return h;
}
static bf16_t random_bf16() { bf16_t h; h.bits = (unsigned short)((next() & 0x807fu) | ((100u + next() % 50u) << 7)); return h; }
static bare_bf16_t random_bare_bf16() { bare_bf16_t h = {random_bf16().bits}; return h; }
static bare_bf16_t rounded_bare_bf16(double exact);
static half_t rounded_half(double exact) { half_t h; h.v = (_Float16)exact; return h; }
static bf16_t rounded_bf16(double exact) {  // nearest even at bfloat16's 8 significant bits (normal range)
  int e; double m = std::frexp(exact, &e);
  bf16_t h = bf16_t((float)std::ldexp(std::nearbyint(std::ldexp(m, 8)), e - 8)); return h;
}
static bare_bf16_t rounded_bare_bf16(double exact) { bare_bf16_t h = {rounded_bf16(exact).bits}; return h; }
template <typename T, typename Pair, bool FromFloat>
static int check(T (*random)(), T (*rounded)(double), const char* name) {
  for (int trial = 0; trial < 200000; ++trial) {
    alignas(4) T word[2] = {random(), random()};
    const T a = word[trial & 1], b = random(), other = word[1 - (trial & 1)];
    const T old = atomicAdd(&word[trial & 1], b);
    const T want = rounded((double)as_float(a) + (double)as_float(b));
    if (bits_of(old) != bits_of(a) || bits_of(word[trial & 1]) != bits_of(want) || bits_of(word[1 - (trial & 1)]) != bits_of(other)) {
      std::printf("%s: %a + %a gave %a, want %a\n", name, (double)as_float(a), (double)as_float(b), (double)as_float(word[trial & 1]), (double)as_float(want));
      return 1;
    }
    Pair pair = {random(), random()}, add = {random(), random()};
    const Pair before = pair, returned = atomicAdd(&pair, add);
    const T x = rounded((double)as_float(before.x) + (double)as_float(add.x)), y = rounded((double)as_float(before.y) + (double)as_float(add.y));
    if (bits_of(pair.x) != bits_of(x) || bits_of(pair.y) != bits_of(y) || bits_of(returned.x) != bits_of(before.x) || bits_of(returned.y) != bits_of(before.y)) {
      std::printf("%s pair: wrong sum\n", name);
      return 1;
    }
  }
  if constexpr (FromFloat) {
    alignas(4) T from_float[2] = {T(1.0f), T(2.0f)};
    atomicAdd(&from_float[1], 0.5f);
    if ((float)from_float[1] != 2.5f || (float)from_float[0] != 1.0f) { std::printf("%s: float argument\n", name); return 1; }
  }
  return 0;
}
static int check_compare_and_swap() {  // CUDA's: the old 16 bits, written only where they equal `compare`
  for (int trial = 0; trial < 200000; ++trial) {
    alignas(4) unsigned short word[2] = {(unsigned short)next(), (unsigned short)next()};
    const int at = trial & 1;
    const unsigned short before = word[at], other = word[1 - at], value = (unsigned short)next();
    const unsigned short compare = (trial & 2) ? before : (unsigned short)next();
    const unsigned short old = atomicCAS(&word[at], compare, value);
    if (old != before || word[at] != (compare == before ? value : before) || word[1 - at] != other) {
      std::printf("atomicCAS: %x at %d compared with %x, swapped for %x, gave %x and left %x\n", before, at, compare, value, old, word[at]);
      return 1;
    }
  }
  return 0;
}
int main() {
  if (check_compare_and_swap()) return 1;
  if (check<half_t, half2_t, true>(random_half, rounded_half, "half") || check<bf16_t, bf162_t, true>(random_bf16, rounded_bf16, "bf16") ||
      check<bare_bf16_t, bare_bf162_t, false>(random_bare_bf16, rounded_bare_bf16, "HIP 5 bf16"))
    return 1;
  std::printf("ok\n");
  return 0;
}
"""


def _overloads(header: str) -> str:
    """porter_enable_if and the 16-bit atomicAdd overloads, as the compat header writes them."""
    enable_if = re.search(r"template <bool Condition> struct porter_enable_if \{\};\n.*\n", header)
    overloads = re.search(
        r"template <typename T> struct porter_type_of .*?(?=#if HIP_VERSION < 70000000)", header, re.S
    )
    assert enable_if is not None and overloads is not None
    return enable_if.group() + overloads.group()


def test_the_compat_headers_adds_round_each_sum_once_in_either_half_of_a_word(tmp_path):
    compiler = shutil.which("clang++-19") or shutil.which("clang++")
    if compiler is None:
        pytest.skip("no clang++ for the host")
    source = tmp_path / "overloads.cpp"
    source.write_text(HARNESS.replace("PORTER_OVERLOADS", _overloads(render_header({}, ["gfx942"]))), encoding="utf-8")
    built = subprocess.run(
        [compiler, "-std=c++17", "-O1", str(source), "-o", str(tmp_path / "overloads")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    ran = subprocess.run([str(tmp_path / "overloads")], capture_output=True, text=True, timeout=300)
    assert ran.stdout == "ok\n", ran.stdout
