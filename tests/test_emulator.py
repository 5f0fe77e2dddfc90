"""porter's CPU device: kernel cases run at 32 and 64 lanes with no GPU, and the verdicts are right.

corpus/emulate holds kernels written for 32-lane warps whose block results do not depend on the
warp width: porter's own ports and hand ports must give the original's outputs at 64 lanes (gfx942)
and 32 (gfx1100); planted ports that are right only at 32 lanes must fail at 64 and pass at 32; a
deadlock must be reported as a hang naming its barrier, and a shared array overrun as an error
(the corpus's running time is bench/emulated_verify.py's to measure, not a test's).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from porter.config import load_config
from porter.scan import scan
from porter.verify import emulate
from porter.verify.run import verify

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
NO_GPUS = {"nvidia": [], "amd": []}


@pytest.fixture(scope="module")
def emulated(tmp_path_factory):
    if emulate.host_compiler() is None:
        pytest.skip("no host C++ compiler")
    tree = tmp_path_factory.mktemp("emulate") / "emulate"
    shutil.copytree(CORPUS / "emulate", tree)
    return verify(tree, ("gfx942", "gfx1100"), load_config(tree), gpus=NO_GPUS)


def verdicts(result, name):
    return {c.target: c for c in result.cases if c.name == name}


def test_ports_that_are_right_pass_at_both_widths(emulated):
    result = emulated
    assert len({c.name for c in result.cases}) >= 15
    right = {c.name for c in result.cases if not c.name.endswith(("planted",)) and c.name not in FAULTS}
    assert len(right) >= 12
    for name in right:
        rows = verdicts(result, name)
        assert rows["cpu-w32"].status == "pass", rows["cpu-w32"]
        assert rows["gfx942"].status == "pass", rows["gfx942"]
        assert rows["gfx1100"].status == "pass", rows["gfx1100"]


def test_planted_wave32_ports_fail_at_64_lanes_and_pass_at_32(emulated):
    result = emulated
    planted = {c.name for c in result.cases if c.name.endswith("planted")} - {EMBEDDED_PLANTED, *WAVE64_PLANTED}
    assert len(planted) == 39
    for name in planted:
        rows = verdicts(result, name)
        # caught: wrong outputs, or an access out of bounds (tile_column_sums_planted writes past its tile)
        caught = rows["gfx942"].status == "fail" and rows["gfx942"].mismatches > 0
        assert caught or "out of bounds" in (rows["gfx942"].reason or ""), rows["gfx942"]
        assert rows["gfx1100"].status == "pass", rows["gfx1100"]


FAULTS = {"divergent_barrier", "lane_table_overflow", "oversized_block", "warp_synchronous_race"}
EMBEDDED_PLANTED = "embedded_row_sums_planted"
# HIP ports written on CDNA for 64 lanes (`written_for = 64`): name, port, its wrong blocks at 32
# lanes, and the (line, rule) porter's scan at gfx1100 reports
WAVE64_PLANTED = {
    "warp_sum_atomic_wave64_planted": ("warp_sum_wave64.cu", 64, [(11, "WRP015"), (12, "WRP015")]),
    "block_all_positive_wave64_planted": ("block_votes_wave64.cu", 8, [(14, "WRP015")]),
}


@pytest.mark.parametrize("name", sorted(WAVE64_PLANTED))
def test_a_port_written_for_64_lanes_passes_on_cdna_and_fails_on_rdna(emulated, name):
    """planted/warp_sum_wave64.cu hard-codes 64 lanes in its butterfly and leader test, and
    planted/block_votes_wave64.cu tests its ballot against all 64 bits (`votes != ~0ull`): right at
    64, wrong at 32; porter's scan at gfx1100 names each 64-lane line."""
    port, wrong, expected = WAVE64_PLANTED[name]
    result = emulated
    rows = verdicts(result, name)
    assert rows["gfx942"].status == "pass", rows["gfx942"]
    assert rows["gfx1100"].status == "fail" and rows["gfx1100"].mismatches == wrong, rows["gfx1100"]
    assert not result.failed, [c for c in result.cases if c.name == name]
    config = load_config(CORPUS / "emulate")
    config.targets = ("gfx1100",)
    found = scan([CORPUS / "emulate" / "planted" / port], config, jobs=1)
    assert sorted((f.line, f.rule) for f in found.findings) == expected


def test_the_suggested_fix_of_a_full_wavefront_vote_is_right_at_both_widths(tmp_path):
    """porter's suggested edit for `votes != ~0ull` (WRP015 at gfx1100), applied by `convert
    --unsafe-fixes`, compares with every lane of the wavefront running it: the port then gives
    the original's flags at 64 lanes and at 32."""
    if emulate.host_compiler() is None:
        pytest.skip("no host C++ compiler")
    config = load_config(CORPUS / "emulate")
    config.targets = ("gfx1100",)
    tree = converted_planted(tmp_path, "block_votes_wave64.cu", config, unsafe_fixes=True)
    assert "votes != (0xffffffffffffffffull >> (64 - PORTER_WARP_SIZE))" in (tree / "port.cu").read_text()
    args = (
        '  { name = "x", dtype = "f32", size = "16 * 128", init = "uniform(-0.002, 1)" },\n'
        '  { name = "all_positive", dtype = "i32", size = "16", output = true },\n'
        '  { name = "n", dtype = "i32", value = "16 * 128" },\n'
    )
    assert statuses_against(tree, "block_votes.cu", "block_all_positive", 16, 128, args) == ALL_PASS


ALL_PASS = {"cpu-w32": "pass", "gfx942": "pass", "gfx1100": "pass"}


def converted_planted(tmp_path, planted: str, config, unsafe_fixes: bool = False):
    """corpus/emulate/planted/`planted` converted by porter (as port.cu): the converted tree."""
    from porter.convert import ConvertOptions, convert

    source = tmp_path / "in"
    source.mkdir()
    shutil.copy(CORPUS / "emulate" / "planted" / planted, source / "port.cu")
    convert(ConvertOptions(source, tmp_path / "tree", jobs=1, unsafe_fixes=unsafe_fixes), config)
    return tmp_path / "tree"


def statuses_against(tree, original: str, kernel: str, grid: int, block: int, args: str) -> dict[str, str]:
    """Each target's verdict on the tree's port.cu against corpus/emulate/`original`, on the CPU device."""
    shutil.copy(CORPUS / "emulate" / original, tree / original)
    (tree / "porter.toml").write_text(
        f'[[verify.case]]\nname = "k"\nsource = "{original}"\nport = "port.cu"\nkernel = "{kernel}"\n'
        f"grid = {grid}\nblock = {block}\nargs = [\n{args}]\n"
    )
    rows = verdicts(verify(tree, ("gfx942", "gfx1100"), load_config(tree), gpus=NO_GPUS), "k")
    return {target: row.status for target, row in rows.items()}


def test_a_kernel_in_a_python_string_runs_as_the_file_holds_it(emulated):
    """corpus/emulate/embedded_row_sums.py holds a cupy kernel for 32 lanes: at 64 its full 32-bit
    mask leaves lane 32 out, which ROCm stops at (cupy/cupy#9977), and so does the CPU device; its
    hand port, another Python file, passes at both widths (test_ports_that_are_right_…)."""
    result = emulated
    rows = verdicts(result, EMBEDDED_PLANTED)
    assert rows["cpu-w32"].status == "pass", rows["cpu-w32"]
    assert rows["gfx942"].status == "error", rows["gfx942"]
    assert "lane 32 calls __shfl_down_sync with mask 0xffffffff" in rows["gfx942"].reason
    assert "row_sums" in rows["gfx942"].reason
    assert rows["gfx1100"].status == "pass", rows["gfx1100"]
    assert {c.status for c in verdicts(result, "embedded_row_sums_hand_port").values()} == {"pass"}


def test_a_deadlock_is_a_hang_and_an_overrun_is_an_error(emulated):
    result = emulated
    hang = verdicts(result, "divergent_barrier")
    assert all(row.status == "hang" for row in hang.values())
    assert "__syncthreads reached by 32 of 64" in hang["gfx942"].reason and "divergent_barrier" in hang["gfx942"].reason
    overrun = verdicts(result, "lane_table_overflow")["cpu-w32"]
    assert overrun.status == "error" and "out of bounds" in overrun.reason and "faults.cu:" in overrun.reason
    # a block the GPU refuses to launch: the CPU device refuses it at every width, before any lane runs
    oversized = verdicts(result, "oversized_block")
    assert {row.status for row in oversized.values()} == {"error"}, oversized
    assert "2048 threads: more than 1024 threads in a block" in oversized["gfx942"].reason
    assert "oversized_block" in oversized["gfx942"].reason
    # a warp-synchronous race: the original's sum changes with the order its lanes run in, so it is
    # no reference, and no port is judged against it
    race = verdicts(result, "warp_synchronous_race")
    assert race["cpu-w32"].status == "error" and race["cpu-w32"].reason.startswith("a race"), race["cpu-w32"]
    assert {race[t].status for t in ("gfx942", "gfx1100")} == {"not-run"}, race
    assert "the original has a race" in race["gfx942"].reason
    assert not result.failed, [c for c in result.cases if c.status not in ("pass",)]


def test_the_verify_corpus_passes_at_both_widths_and_its_planted_port_fails(tmp_path):
    tree = tmp_path / "verify"
    shutil.copytree(CORPUS / "verify", tree)
    result = verify(tree, ("gfx942", "gfx1100"), load_config(tree), gpus=NO_GPUS)
    for case in result.cases:
        planted = case.name.endswith("planted_half_wave") and case.variant == "emu-port"
        # the planted port stops its ladder at 8 (wrong at any width) and keeps a 32-bit mask, which
        # at 64 lanes names only half the wavefront: the emulator stops it there
        want = {"gfx942": {"error"}, "gfx1100": {"fail"}}[case.target] if planted else {"pass"}
        assert case.status in want, case
    assert not result.failed


def test_a_lane_outside_its_sync_mask_is_an_error_naming_it(tmp_path):
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "k.cu").write_text(
        "__global__ void k(float* x) { x[threadIdx.x] = __shfl_down_sync(0xffffffff, x[threadIdx.x], 1); }\n"
    )
    (tree / "porter.toml").write_text(
        '[[verify.case]]\nname = "k"\nsource = "k.cu"\nport = "k.cu"\nkernel = "k"\ngrid = 1\nblock = 64\n'
        'args = [{ name = "x", dtype = "f32", size = 64, init = "arange", output = true }]\n'
    )
    result = verify(tree, ("gfx942",), load_config(tree), gpus=NO_GPUS)
    row = verdicts(result, "k")["gfx942"]
    assert row.status == "error" and "lane 32 calls __shfl_down_sync with mask 0xffffffff" in row.reason


def _one_case(tmp_path, source: str, block: int = 64) -> dict:
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "k.cu").write_text(source)
    (tree / "porter.toml").write_text(
        f'[[verify.case]]\nname = "k"\nsource = "k.cu"\nport = "k.cu"\nkernel = "k"\ngrid = 1\nblock = {block}\n'
        'args = [{ name = "x", dtype = "f32", size = 64, init = "arange", output = true }]\n'
    )
    return verdicts(verify(tree, ("gfx942", "gfx1100"), load_config(tree), gpus=NO_GPUS), "k")


def test_lanes_that_diverge_from_a_maskless_shuffle_to_a_barrier_let_it_complete(tmp_path):
    """HIP's `__shfl_xor` runs with the lanes that reach it: half a wavefront under `if`, the other
    half at the barrier (a 32-thread row's last step on wave64). It hung the CPU device before."""
    rows = _one_case(
        tmp_path,
        "__global__ void k(float* x) {\n  float v = x[threadIdx.x];\n"
        "  if (threadIdx.x < 32) v += __shfl_xor(v, 1);\n  __syncthreads();\n  x[threadIdx.x] = v;\n}\n",
    )
    assert {target: row.status for target, row in rows.items()} == {
        "cpu-w32": "pass",
        "gfx942": "pass",
        "gfx1100": "pass",
    }


def test_block_local_shared_memory_is_poisoned_once_per_block_and_namespace_scope_left_alone(tmp_path):
    (tmp_path / "k.cu").write_text(
        "__shared__ float at_namespace[4];\n"
        "__global__ void k(float* out) {\n"
        "  __shared__ float tile[2][3];\n"
        "  __shared__ int flag;\n"
        "  static __shared__ int counts[4];\n"
        "  extern __shared__ float dynamic[];\n"
        "  out[0] = tile[0][0] + flag + dynamic[0];\n"
        "}\n"
    )
    staged = emulate.stage(tmp_path, tmp_path / "staged")
    text = (staged / "k.cu").read_text()
    assert "float at_namespace[4];\n" in text  # no statement may follow at namespace scope
    assert "__shared__ float tile[2][3]; porter_emu::poison_shared(&tile, sizeof(tile));" in text
    assert "__shared__ int flag; porter_emu::poison_shared(&flag, sizeof(flag));" in text
    assert "  __shared__ int counts[4]; porter_emu::poison_shared(&counts, sizeof(counts));" in text  # `static` once
    assert text.count("poison_shared") == 3  # the dynamic array is the block's buffer, poisoned as it is made


def test_a_butterfly_from_32_in_a_32_thread_block_reads_lanes_that_never_ran(emulated, tmp_path):
    """planted/row_max_ladder_32.cu, TileLang's HIP reduction (tile-ai/tilelang#2099): a butterfly
    from 32 in blocks of one 32-thread row. At 64 lanes its first step reads lanes 32-63, which
    the block never ran (the CPU device gives them the shared-memory poison, as AMD's registers
    hold whatever an earlier wavefront left); at 32 it is right. porter's scan at gfx942 names the
    ladder (WRP019), and the port with its edit applied passes at both widths."""
    result = emulated
    rows = verdicts(result, "row_ladders_planted")
    assert rows["gfx942"].status == "fail" and rows["gfx942"].mismatches == 6, rows["gfx942"]
    assert rows["gfx1100"].status == "pass", rows["gfx1100"]
    config = load_config(CORPUS / "emulate")
    config.targets = ("gfx942",)
    planted = CORPUS / "emulate" / "planted" / "row_max_ladder_32.cu"
    assert [(f.line, f.rule) for f in scan([planted], config, jobs=1).findings] == [(13, "WRP019")]
    tree = converted_planted(tmp_path, planted.name, config)
    assert "for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor(v, o));" in (tree / "port.cu").read_text()
    args = (
        '  { name = "x", dtype = "f32", size = "6 * 100", init = "randn" },\n'
        '  { name = "y", dtype = "f32", size = "6", output = true },\n'
        '  { name = "cols", dtype = "i32", value = "100" },\n'
    )
    assert statuses_against(tree, "row_ladders.cu", "row_max", 6, 32, args) == ALL_PASS


def test_harness_builds_take_the_system_headers_precompiled(tmp_path):
    """g++ takes a precompiled header only where the build's flags match the ones it was made with,
    and otherwise reads the header itself without a word: -H marks the copy it used with `!`."""
    compiler = emulate.host_compiler()
    if compiler is None or "g++" not in Path(compiler).name:
        pytest.skip("checks g++'s precompiled headers")
    flags = emulate.precompiled_system_headers(compiler)
    assert flags[0] == "-include" and Path(flags[1] + ".gch").is_file()
    (tmp_path / "k.cu").write_text(
        "#include <cstdio>\n#include <cuda_runtime.h>\n"
        "__global__ void k(int* x) { x[threadIdx.x] = __shfl_xor_sync(~0ull, (int)threadIdx.x, 1); }\n"
        "int main() {\n  int* x;\n  cudaMalloc(&x, 64 * sizeof(int));\n  void* arguments[] = {&x};\n"
        '  cudaLaunchKernel(&k, dim3(1), dim3(64), arguments, 0, 0);\n  std::printf("%d\\n", x[63]);\n}\n'
    )
    command = [compiler, *emulate.BUILD_FLAGS, "-x", "c++", *flags, "-H", "-DPORTER_EMULATOR=64"]
    command += [f"-I{emulate.EMULATOR / 'include'}", str(tmp_path / "k.cu"), "-o", str(tmp_path / "k")]
    built = subprocess.run(command, capture_output=True, text=True, check=True)
    assert f"! {flags[1]}.gch" in built.stderr.splitlines()
    assert subprocess.run([str(tmp_path / "k")], capture_output=True, text=True).stdout == "62\n"
