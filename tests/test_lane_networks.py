"""A 32-lane network (xor shuffles combined by each lane's bit of the offset: a Hadamard butterfly, a
bitonic step) is sized by its data, not by the warp: on wave64 each half-wavefront runs its own, as
written. Its 32s, and the lane math of the functions that call it, get no automatic fix; a warp
sum's ladder beside it (every lane keeps the one sum) still does."""

from __future__ import annotations

from porter.config import Config
from porter.discover import DiscoveredFile
from porter.findings import FixKind
from porter.scan import Deep, analyze_file
from porter.source import FileKind

# exllamav3's shape (quant/hadamard_inner.cuh): a butterfly helper and a 128-value transform that
# indexes its chunk by `threadIdx.x & 31`, whose callers live in other files; then a warp sum
HEADER = """\
__device__ inline float butterfly32(float v, const int lane_id)
{
    for (int i = 1; i < 32; i <<= 1)
    {
        float pv = __shfl_xor_sync(0xffffffff, v, i);
        v = (lane_id & i) ? pv - v : v + pv;
    }
    return v;
}

__device__ inline void had_128(const float* in, float* out)
{
    int t = threadIdx.x & 31;
    out[t] = butterfly32(in[t], t);
}

__device__ inline float warp_sum(float v)
{
    for (int i = 1; i < 32; i <<= 1)
        v += __shfl_xor_sync(0xffffffff, v, i);
    return v;
}

__device__ inline float lane_sum(const float* in)
{
    int lane = threadIdx.x & 31;
    return warp_sum(in[lane]);
}
"""


def _warp_findings(tmp_path) -> dict[tuple[int, str], object]:
    """(line, rule) → finding, for the warp-size rules."""
    path = tmp_path / "networks.cuh"
    path.write_text(HEADER)
    config = Config(targets=("gfx942",), rocm_version="6.4")
    result = analyze_file(DiscoveredFile(path, path.name, FileKind.CUDA), config, Deep.NEVER, None)
    assert result.error is None, result.error
    return {(f.span.line, f.rule): f for f in result.findings if f.rule.startswith("WRP")}


def _line(text: str, occurrence: int = 0) -> int:
    numbers = [n for n, line in enumerate(HEADER.splitlines(), 1) if line.strip() == text]
    return numbers[occurrence]


LADDER = "for (int i = 1; i < 32; i <<= 1)"


def test_a_networks_32s_and_its_callers_lane_math_are_not_fixed_automatically(tmp_path):
    found = _warp_findings(tmp_path)
    loop = found[(_line(LADDER, 0), "WRP002")]  # the butterfly's
    lane = found[(_line("int t = threadIdx.x & 31;"), "WRP001")]  # had_128 calls the butterfly
    assert loop.fix is FixKind.SUGGESTED and "32-lane network" in loop.message
    assert lane.fix is FixKind.SUGGESTED and "32-lane network" in lane.message


def test_a_warp_sum_beside_a_network_is_still_fixed(tmp_path):
    found = _warp_findings(tmp_path)
    assert found[(_line(LADDER, 1), "WRP002")].fix is FixKind.AUTO
    assert found[(_line("int lane = threadIdx.x & 31;"), "WRP001")].fix is FixKind.AUTO
