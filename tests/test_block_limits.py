"""A warp width that also sizes a launch's block (porter.rules.block_limits): widening its
definition would take the block past 1024 threads and the launch would fail on the GPU, so
WRP006 leaves it to a person and convert leaves the constant and its uses as written.

The kernel is the shape of exllamav2's RMS norm before its ROCm fix (turboderp-org/exllamav2#137):
32 warps of 32 threads, the warp and lane taken with the constant, a shuffle reduction; on wave64
the fix kept the block at 1024 threads by halving the warps (`NUM_WARPS (1024 / WARP_SIZE)`)."""

from __future__ import annotations

import pytest

from porter.config import Config
from porter.convert import ConvertOptions, convert
from porter.scan import Deep, scan

NORM = """#define WARPS {warps}
#define WIDTH 32
#define THREADS (WARPS * WIDTH)

__global__ void row_norm(const float* __restrict__ x, float* __restrict__ y, const int dim)
{{
    int warp = threadIdx.x / WIDTH;
    int lane = threadIdx.x % WIDTH;
    float acc = 0.0f;
    for (int c = warp * WIDTH + lane; c < dim; c += THREADS) acc += x[blockIdx.x * dim + c] * x[blockIdx.x * dim + c];
    for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffff, acc, off);
    __shared__ float partial[WARPS];
    if (lane == 0) partial[warp] = acc;
    __syncthreads();
    for (int c = warp * WIDTH + lane; c < dim; c += THREADS) y[blockIdx.x * dim + c] = x[blockIdx.x * dim + c] * partial[0];
}}

void launch(const float* x, float* y, int rows, int dim)
{{
{launch}
}}
"""
DIRECT = "    row_norm<<<rows, THREADS>>>(x, y, dim);"
ASSIGNED = (
    "    dim3 block, grid;\n    block.x = THREADS;\n    grid.x = rows;\n    row_norm<<<grid, block>>>(x, y, dim);"
)


def _warp_findings(tree):
    result = scan([tree], Config(), deep=Deep.NEVER)
    return {(f.span.line, f.rule): f for f in result.findings if f.category == "warp-size"}


def _write(tmp_path, warps: int, launch: str = DIRECT):
    tree = tmp_path / "src"
    tree.mkdir()
    (tree / "norm.cu").write_text(NORM.format(warps=warps, launch=launch))
    return tree


def test_a_width_that_would_take_the_block_past_1024_threads_is_left_to_a_person(tmp_path):
    found = _warp_findings(_write(tmp_path, 32))
    definition = found[(2, "WRP006")]
    assert definition.fix == "manual" and not definition.edits
    assert "the block of `row_norm`'s launch (`THREADS`, 1024 threads), which at 64 would be 2048" in definition.message
    # the uses give way to the definition's finding, as they do to an automatic one
    assert not [key for key in found if key[1] == "WRP001"]


def test_the_constant_and_its_uses_are_left_as_written_by_convert(tmp_path):
    tree = _write(tmp_path, 32)
    out = tmp_path / "out"
    convert(ConvertOptions(tree, out, "portable"), Config())
    ported = (out / "norm.cu").read_text()
    assert "#define WIDTH 32\n" in ported
    assert "threadIdx.x / WIDTH;" in ported and "threadIdx.x % WIDTH;" in ported


def test_a_block_read_from_a_local_dim3_is_followed(tmp_path):
    definition = _warp_findings(_write(tmp_path, 32, ASSIGNED))[(2, "WRP006")]
    assert definition.fix == "manual"
    assert "(`THREADS` × `1` × `1`, 1024 threads)" in definition.message


def test_a_launch_bound_past_1024_threads_is_read_as_a_block(tmp_path):
    """A kernel bounded at its block of THREADS is launched with THREADS: widened, 2048, which no
    launch can start (hip-clang itself compiles the bound)."""
    tree = _write(tmp_path, 32, "    // launched where the file does not show")
    source = tree / "norm.cu"
    source.write_text(
        source.read_text().replace("__global__ void row_norm", "__global__ void __launch_bounds__(THREADS) row_norm")
    )
    definition = _warp_findings(tree)[(2, "WRP006")]
    assert definition.fix == "manual"
    assert "`row_norm`'s `__launch_bounds__` (`THREADS`, 1024 threads)" in definition.message


def test_a_block_that_stays_within_1024_threads_keeps_the_automatic_fix(tmp_path):
    """8 warps: 256 threads, 512 widened. Widening the definition keeps each warp's rows whole."""
    found = _warp_findings(_write(tmp_path, 8))
    definition = found[(2, "WRP006")]
    assert definition.fix == "auto" and definition.edits
    assert "launch" not in definition.message


def _split(tmp_path, in_header: int):
    """The kernel's file includes a header holding its first `in_header` definitions."""
    tree = _write(tmp_path, 32)
    lines = (tree / "norm.cu").read_text().split("\n")
    (tree / "norm_config.h").write_text("#pragma once\n" + "\n".join(lines[:in_header]) + "\n")
    (tree / "norm.cu").write_text('#include "norm_config.h"\n' + "\n".join(lines[in_header:]))
    return tree


def test_a_header_width_that_sizes_a_block_in_the_launching_file_is_left_to_a_person(tmp_path):
    """WARPS, WIDTH and THREADS in a header: the launch that THREADS sizes is in the source file,
    which re-evaluates the header's THREADS with WIDTH at 64."""
    tree = _split(tmp_path, 3)
    result = scan([tree], Config(), deep=Deep.NEVER)
    definition = next(f for f in result.findings if f.rule == "WRP006" and f.file.endswith("norm_config.h"))
    assert definition.fix == "manual" and not definition.edits
    assert "the block of `row_norm`'s launch in norm.cu (`THREADS`, 1024 threads)" in definition.message
    out = tmp_path / "out"
    convert(ConvertOptions(tree, out, "portable"), Config())
    assert "#define WIDTH 32\n" in (out / "norm_config.h").read_text()
    assert "threadIdx.x / WIDTH;" in (out / "norm.cu").read_text()


def test_a_block_derived_in_the_source_from_a_header_width_is_followed(tmp_path):
    """WARPS and WIDTH in the header, THREADS defined from them in the launching file."""
    tree = _split(tmp_path, 2)
    result = scan([tree], Config(), deep=Deep.NEVER)
    definition = next(f for f in result.findings if f.rule == "WRP006" and f.file.endswith("norm_config.h"))
    assert definition.fix == "manual"
    assert "which at 64 would be 2048" in definition.message


@pytest.mark.network
def test_exllamav2s_rms_norm_before_its_rocm_fix_is_left_to_a_person():
    """The real kernel (exllamav2 0.0.4's cuda/rms_norm.cu): `NUM_THREADS (NUM_WARPS * WARP_SIZE)`,
    32 warps. The project's fix kept the block at 1024 threads by halving the warps."""
    from bench.pypi import PACKAGES, FetchError, fetch

    try:
        tree = fetch(PACKAGES["exllamav2"])
    except FetchError as exc:
        pytest.skip(f"could not fetch exllamav2: {exc}")
    result = scan([tree / "cuda" / "rms_norm.cu"], Config(), deep=Deep.NEVER)
    (definition,) = [f for f in result.findings if f.rule == "WRP006"]
    assert (definition.line, definition.fix) == (11, "manual") and not definition.edits
    assert "(`NUM_THREADS` × `1` × `1`, 1024 threads), which at 64 would be 2048 threads" in definition.message
    # its own `#define __shfl_xor_sync(mask, var, laneMask) __shfl_xor(var, laneMask)` under USE_ROCM
    assert not {f.rule for f in result.findings} & {"MSK001", "SYN001"}


LOCAL_LAUNCH = """__global__ void rows(const float* x, float* y, int cols) {
  constexpr int kWarp = 32;
  int lane = threadIdx.x % kWarp;
  float s = 0.f;
  for (int c = lane; c < cols; c += kWarp) s += x[blockIdx.x * cols + c];
  for (int o = kWarp / 2; o > 0; o /= 2) s += __shfl_down_sync(0xffffffff, s, o);
  if (lane == 0) y[blockIdx.x] = s;
}

void launch(const float* x, float* y, int n, int cols) {
  constexpr int kWarp = 32;
  constexpr int kWarps = {warps};
  rows<<<n, kWarps * kWarp>>>(x, y, cols);
}
"""


@pytest.mark.parametrize(("warps", "fix"), [(32, "manual"), (8, "auto")])
def test_a_launchers_own_warp_width_past_1024_threads_is_left_to_a_person(tmp_path, warps, fix):
    tree = tmp_path / "src"
    tree.mkdir()
    (tree / "rows.cu").write_text(LOCAL_LAUNCH.replace("{warps}", str(warps)))
    host = _warp_findings(tree)[(13, "WRP008")]
    # the host's fix, `kWarps * porter_warp_size()`, would launch 2048 threads on wave64
    assert host.fix == fix and (("2048 threads" in host.message) == (fix == "manual"))
    assert bool(host.edits) == (fix == "auto")
