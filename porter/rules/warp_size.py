"""Warp size (category `warp-size`): code that assumes 32 lanes, on 64-wide CDNA wavefronts.

Precision matters as much as recall: a 32 is flagged only when the dataflow in
porter.rules.device ties it to a lane, a warp id, a shuffle or a warp-size constant. A 32-bit
bitset index, a 32×32 tile or a loop over the bits of a uint32_t stays silent.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import re
from collections.abc import Iterable, Iterator

import tree_sitter

from porter.findings import Edit, Finding, FixKind, Severity
from porter.parse import captures, define_names, identifiers_named, initializers, kernel_launches, stands_alone
from porter.rules import portable
from porter.rules.base import FileContext, Rule
from porter.rules.block_limits import widened_blocks
from porter.rules.block_rows import (
    ROW,
    block_rows,
    launched_32_wide,
    launched_nowhere_here,
    launched_threads,
    launched_wavefronts_key,
    reached_spans,
    record_launches,
    row_count_names,
    serves_a_widened_kernel,
    short_name,
    template_parameter_names,
)
from porter.rules.consteval import HEADER_SUFFIXES, formula_operands
from porter.rules.device import (
    IDENT,
    IDENT_BYTES,
    SHUFFLE_CALLS,
    FunctionInfo,
    VarClass,
    binary_parts,
    call_arguments,
    declared_type,
    enclosing,
    for_parts,
    int_value,
    is_constexpr_if,
    loop_step,
    shuffle_operands,
    spelled,
    template_parameters,
    unparenthesized,
)
from porter.rules.lane_mask import is_full_mask_32
from porter.rules.logical_warp import logical_names, mentions_any, row_path_widths
from porter.rules.patterns import finditer, search, search_fast
from porter.rules.votes import VOTE_CALLS
from porter.rules.within_rows import is_sync_mask, warp_valued_names
from porter.source import encoded_length
from porter.targets import host_warp_size

WHY_WAVE64 = """
    CDNA GPUs (gfx90a, gfx942, gfx950) run 64 threads per wavefront. Lane ids go to 63, a
    block of 256 threads holds 4 warps, not 8, and shuffles reach across 64 lanes. Code that
    hard-codes 32 computes wrong lane and warp ids there; it compiles, runs, and gives wrong
    answers. (RDNA targets run wave32, so these findings fall away when only they are targeted.)
    """

LANE_ARITHMETIC = Rule(
    id="WRP001",
    name="lane-warp-arithmetic",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="Lane or warp id computed with a hard-coded 32",
    what="Finds `& 31`, `% 32`, `/ 32` and `>> 5` applied to thread indices and the variables built from them (lane ids, warp ids, warps per block). "
    "The fix is suggested, not automatic, where the value feeds a 32-lane network (xor shuffles combined by each lane's bit of the offset, a Hadamard butterfly: in the file, or by name in another file of the project) "
    "or meets a literal 32 that rebuilds an index from the groups (`col = group * 32 + lane`), or works on a name its block bounds by a count of such groups "
    "(`for (i = threadIdx.x; i < rows * 32; ...)` around `i >> 5` and `i & 31`): there the 32 is also the data's, and widening the lane math alone changes what the code computes. "
    "A kernel whose warp operations all stay within 32 lanes, or that has none, is left as written: each 32-thread group does on a 64-lane wavefront what one NVIDIA warp does (porter.rules.within_rows). "
    "So is a thread's position scaled by a factor known only at run time (`bit = k * bits_per_index`): `bit >> 5` and `bit & 31` pick a 32-bit word and its bit. "
    "In a function that holds or calls fragment PTX (`mma.sync`, `ldmatrix`, `wgmma`), the lane math is the fragment's 32-lane layout: the fix is suggested, for the MFMA rewrite to settle.",
    why=WHY_WAVE64,
    example="int lane = threadIdx.x & 31;\nint warp = threadIdx.x >> 5;\nv = __shfl_down_sync(0xffffffff, v, 1);",
    use_instead=f"`int lane = threadIdx.x % {portable.WARP_SIZE}; int warp = threadIdx.x / {portable.WARP_SIZE};` where `{portable.WARP_SIZE}` is the compat header's per-architecture constant.",
)

SHUFFLE_OFFSET = Rule(
    id="WRP002",
    name="shuffle-assumes-32-lanes",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="Shuffle reduction or scan sized for 32 lanes",
    what="Finds shuffle ladders that start at offset 16 (or stop below 32, or climb by `1 << step` for steps 0-4), unrolled butterflies whose widest step is 16, and reads of lane 31 as the last lane.",
    why=WHY_WAVE64
    + "\nA reduction that starts at offset 16 only combines each half of a 64-lane wavefront: the result is two partial sums.",
    example="for (int offset = 16; offset > 0; offset /= 2)\n  v += __shfl_down_sync(0xffffffff, v, offset);",
    use_instead=(
        f"`for (int offset = {portable.WARP_SIZE} / 2; offset > 0; offset /= 2)`; an unrolled butterfly gets a step "
        f"of 32 before its 16 (the fix runs the first step for offsets `{portable.WARP_SIZE} / 2` down to 16); read "
        f"the last lane as `{portable.WARP_SIZE} - 1`."
    ),
)

PER_WARP_SHARED = Rule(
    id="WRP003",
    name="per-warp-shared-array",
    category="warp-size",
    audits_hip=True,
    severity=Severity.WARNING,
    fix=FixKind.AUTO,
    summary="Shared array with one slot per warp (or per lane) sized for 32",
    what="Finds `__shared__` arrays sized `[32]` and indexed by a lane id that nothing bounds, and arrays sized `[threads / 32]`.",
    why=WHY_WAVE64
    + "\nWith 64 lanes, `[blockDim / 32]` slots are twice too many (harmless) but `[32]` slots indexed by lane are too few for lanes 32-63: out-of-bounds writes to shared memory.",
    example="__shared__ float partial[32];\npartial[lane] = v;",
    use_instead=f"`__shared__ float partial[{portable.WARP_SIZE}];` and `[THREADS / {portable.WARP_SIZE}]`.",
)

SHUFFLE_WIDTH = Rule(
    id="WRP004",
    name="shuffle-width-32",
    category="warp-size",
    audits_hip=True,
    severity=Severity.WARNING,
    fix=FixKind.AUTO,
    summary="Shuffle width (or CUB logical warp) of 32 passed explicitly",
    what=(
        "Finds `__shfl*` calls whose width argument is 32, and CUB warp collectives given a logical warp of 32 "
        "(`cub::WarpReduce<float, 32>`, `WarpScan<int, 32>`), outside kernels whose block is rows of 32 threads."
    ),
    why=WHY_WAVE64
    + "\nOn wave64 a width of 32 splits the wavefront into two independent halves: a value never crosses lane 31 to 32.",
    example="v = __shfl_sync(0xffffffff, v, 0, 32);",
    use_instead=f"Drop the width (it defaults to the full warp) or pass `{portable.WARP_SIZE}`; keep 32 only where half-wavefront groups are meant.",
)

LANE_LOOP = Rule(
    id="WRP005",
    name="loop-over-32-lanes",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="Loop over the lanes of a warp bounded by 32, or striding from a lane id by 32",
    what=(
        "Finds loops bounded by 32 whose counter is used as a shuffle lane or offset, or compared with a lane id; "
        "and loops that start at a lane id (by dataflow) and step by 32, the lanes of a warp striding over a row."
    ),
    why=WHY_WAVE64
    + "\nLanes 32 to 63 are never visited; in a strided loop they repeat the elements of lanes 0-31 (a sum counts them twice).",
    example="for (int src = 0; src < 32; ++src)\n  acc += __shfl_sync(0xffffffff, v, src);",
    use_instead=f"`for (int src = 0; src < {portable.WARP_SIZE}; ++src)`.",
)

WARP_CONSTANT = Rule(
    id="WRP006",
    name="warp-size-constant",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="A constant used as the warp width defined as 32 (or its last lane 31, half 16, log2 5)",
    what=(
        "Finds the definition (`#define`, `const`/`constexpr`, enumerator, template default) of a constant that some file of "
        "the project uses as a warp width: in lane or warp arithmetic, a shuffle's width or ladder, a loop over lanes. "
        "Found by its uses, whatever its name (`static const int WS = 32;`); one that also counts bits "
        "(`1u << (i % WS)`) keeps its definition, and each warp use gets its own fix instead. A square tile's edge "
        "(`tile[TILE][TILE + 1]`) keeps its definition too and is read as a literal 32: in a kernel whose block is "
        "rows of it its warp uses stay, elsewhere each gets its own fix. One that a kernel "
        "template's branch for 32-thread rows hands to its shuffles as their width (`if constexpr (BDIM_X == 32)`, the "
        "launch's block x from BDIM_X, reducing with a helper given `WARP_SIZE` as the width) is a row's width, right "
        "on any wavefront: neither it nor any use of it is reported (widened, two rows would be added together). One "
        "that also sizes a launch's block (`#define THREADS (WARPS * WARP_SIZE)`, `<<<rows, THREADS>>>`, in its file or "
        "in any file that includes its header), "
        "where widening it would take the block past 1024 threads, is left to a person (fix: manual, the launch named, "
        "its uses left as written too): the launch would fail, and what keeps the block whole (fewer warps per "
        "block) is a choice the code does not show (porter.rules.block_limits)."
    ),
    why=WHY_WAVE64 + "\nEvery use of the constant inherits the assumption; fixing the definition fixes them all.",
    example="#define WARP_SIZE 32\nconstexpr int kLog2WarpSize = 5;",
    use_instead=f"`#define WARP_SIZE {portable.WARP_SIZE}` and `{portable.LOG2_WARP_SIZE}`: one source for nvcc and hipcc. On the host use `{portable.HOST_WARP_SIZE}`, which asks the device.",
)

TILE_32 = Rule(
    id="WRP007",
    name="tiled-partition-32",
    category="warp-size",
    audits_hip=True,
    severity=Severity.WARNING,
    fix=FixKind.SUGGESTED,
    summary="Cooperative-groups tile of 32 used as a whole warp",
    what="Finds `cg::tiled_partition<32>` and `thread_block_tile<32>`.",
    why=WHY_WAVE64
    + "\nA 32-thread tile is legal on AMD but is half a wavefront: code that treats it as the warp (warp-synchronous shared-memory tricks, one result per warp) splits each wavefront in two.",
    example="auto warp = cg::tiled_partition<32>(cg::this_thread_block());",
    use_instead=f"`cg::tiled_partition<{portable.WARP_SIZE}>(block)` when the whole warp is meant; keep 32 when 32-thread groups are the algorithm.",
)

HOST_WARPS_PER_BLOCK = Rule(
    id="WRP008",
    name="host-warps-per-block",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.SUGGESTED,
    summary="Host code computes warps per block as threads / 32",
    what="Finds host-side divisions of a thread count by 32 (`threads / 32`, `(threads + 31) / 32`).",
    why=WHY_WAVE64
    + "\nThe host sizes launches and shared memory from this number; on wave64 the kernel then sees half as many warps as the host planned for.",
    example="int warps = threads_per_block / 32;\nsize_t smem = warps * sizeof(float);",
    use_instead=f"Ask the device once: `{portable.HOST_WARP_SIZE}` (cudaDeviceProp::warpSize / hipDeviceProp_t::warpSize).",
)

CONSTEXPR_WARPSIZE = Rule(
    id="WRP009",
    name="warpsize-as-constant-expression",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="`warpSize` used where a compile-time constant is required, or read by host code",
    what=(
        "Finds `warpSize` in template arguments, array bounds, `constexpr` initialisers, `static_assert`s and `case` labels; "
        "in host code; and in object-like macros (`#define NUM_WARPS (1024 / warpSize)`, and the macros made "
        "from them), the file's own or the project headers', where a use of the macro in any of the project's files "
        "stands in either place: the finding and its fix are on the definition. A project that defines a constant "
        "named `warpSize` of its own is left alone."
    ),
    why="""
        In CUDA `warpSize` is a run-time variable of device code, but HIP made it a constexpr
        for a while, and HIP code came to rely on that, on the host as well. Under ROCm 7
        `warpSize` is a device variable and no constant expression: such code stops compiling
        ("variable length array declaration cannot have 'static' storage duration", "reference
        to device function 'operator int' in host function", as a real extension's ROCm branch
        did on RDNA4). A macro that carries it fails the same way where it is used. It also
        hides which width the device code was compiled for, and on the host it was 64
        whatever the device (HIP 6.4, in an RDNA-only build too).
        """,
    example="__shared__ float partial[warpSize];\nconstexpr int kLanes = warpSize;\n#define NUM_WARPS (1024 / warpSize)\nvoid launch() { int threads = 16 * warpSize; }",
    use_instead=(
        f"`{portable.WARP_SIZE}`, which is a constant expression per compiled architecture (in a macro's definition too); "
        f"in host code outside constant expressions, `{portable.HOST_WARP_SIZE}`, the device's width asked at run time. "
        "Before ROCm 7 host code read 64 for every target: where the targets include RDNA (wave32), the host's "
        "new width can be 32, and that fix is suggested rather than applied."
    ),
)

WARP_SIZE_GUARD = Rule(
    id="WRP010",
    name="guard-on-warp-size-32",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="A check that the warp size is 32",
    what="Finds comparisons of a warp size with 32 (`if (warpSize != 32)`, `static_assert(WS == 32)`, `prop.warpSize == 32`), where the warp size is `warpSize`, a device property or attribute, or a constant used as the warp width.",
    why=WHY_WAVE64
    + "\nThe guard documents that the code behind it was written for 32 lanes: on wave64 it refuses to run, or the assertion fails to compile; removing it alone leaves the 32-lane code wrong.",
    example='int warp_size = prop.warpSize;\nif (warp_size != 32) { fprintf(stderr, "unsupported"); exit(1); }',
    use_instead="Make the code behind the guard width-generic (porter's other warp-size findings show where), then drop the guard or test for 32 or 64.",
)

ROCM_WAVEFRONT_FROM_BUILD = Rule(
    id="WRP011",
    name="rocm-wavefront-from-build-system",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="The project's ROCm branch takes the wavefront size from a macro only its build system defines",
    what="Finds a constant that the NVIDIA side of a platform branch sets to the warp width (32) and the ROCm side sets from a macro defined nowhere in the sources (`constexpr int hw_warp_size = ROCM_WAVEFRONT_SIZE;`), which the project's build scripts pass as `-D` with a value they compute at build time (by asking the installed GPU).",
    why="""
        A port built by anything but that build script (CMake, a compilation database, porter build,
        a CI machine without a GPU to ask) stops at an undeclared identifier. The value the script
        computes is the wavefront width, which the compat header knows per compiled architecture.
        """,
    example="#ifdef __HIP_PLATFORM_AMD__\nconstexpr int hw_warp_size = ROCM_WAVEFRONT_SIZE;\n#else\nconstexpr int hw_warp_size = 32;\n#endif",
    use_instead=f"`#ifndef ROCM_WAVEFRONT_SIZE` / `#define ROCM_WAVEFRONT_SIZE {portable.WARP_SIZE}` before the use: the build script's value still wins where it is given.",
)

PER_WARP_SLOTS_READ_BY_COUNT = Rule(
    id="WRP012",
    name="per-warp-slots-read-by-count",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.SUGGESTED,
    summary="A shared array with one slot per warp, read back up to a count of 32-lane warps",
    what=(
        "Finds a `__shared__` array that each warp writes at its warp id (`partial[warp] = v`) and that is then "
        "read at a lane or thread index guarded by the array's own length (`lane < 8 ? partial[lane] : 0` for "
        "`partial[8]`), or by a loop counted to it (`for (int w = 0; w < 8; ++w) total += partial[w];`), where "
        "the length is a number smaller than 32: the block's warp count, worked out for 32-lane warps (`8` for "
        "256 threads). A read held below the reader's own warp id (`if (w < warp)`, a prefix over the warps "
        "before one's own) takes only slots that exist, and a kernel the file launches with blocks of other "
        "than 32 threads a slot (8 slots for 512 threads, 8 wavefronts of 64) is counted right: neither is flagged, "
        "nor a header's kernel that a file of the scan launches with 64 threads a slot."
    ),
    why=WHY_WAVE64 + "\nThe same block has half as many 64-lane wavefronts, so only half the slots are ever written: "
    "the read-back takes the other half from shared memory no wavefront wrote, and the block's reduction "
    "or arg-max comes out wrong on every launch.",
    example="__shared__ float partial[8];  // 256 threads\nif (lane == 0) partial[warp] = v;\n__syncthreads();\nv = lane < 8 ? partial[lane] : 0.0f;",
    use_instead=f"Count the slots the block's warps fill: `lane < (8 * 32 / {portable.WARP_SIZE})` (8 on NVIDIA, 4 on wave64), or `blockDim.x / {portable.WARP_SIZE}`.",
)

WIDTH_SPLIT_BY_PASS = Rule(
    id="WRP013",
    name="warp-width-split-by-compile-pass",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.MANUAL,
    summary="Host code reads a warp width that only ROCm's device pass sets to the wavefront",
    what=(
        "Finds host code (launch sizes, grid counts, template arguments chosen on the host) that reads a "
        "constant which the project defines as the wavefront width under a test only a device pass can pass "
        "(`#if defined(__GFX9__)`, `__gfx942__`, `__HIP_DEVICE_COMPILE__`) and as another value otherwise, "
        "or from the wavefront macro (`__AMDGCN_WAVEFRONT_SIZE`), which the host pass reads as 64 for every "
        "target (an RDNA device pass as 32), in the file or in one of the project's headers."
    ),
    why="""
        hip-clang compiles a file once per offload target (where `__GFX9__` is defined, and the
        wavefront macros hold the target's width) and once for the host, where the target
        macros are not defined and the wavefront macros read 64: the host is compiled once for
        every target. The kernel then works with 64-lane wavefronts while the host,
        reading 32, launches a grid planned for 32-lane warps: half the rows are never
        computed, or a kernel template is instantiated with another width than the host
        launches. Nothing fails to compile.
        """,
    example="#if defined(__GFX9__)\n#define WARP 64\n#else\n#define WARP 32\n#endif\nint blocks = (rows + 128 / WARP - 1) / (128 / WARP);  // host: 32",
    use_instead=(
        "Ask the device on the host (`hipDeviceProp_t::warpSize`, `porter_warp_size()`), or give the host a "
        "value from the targets the build compiles for; keep the device-pass test for device code only."
    ),
)

HALF_WAVE_GUARD = Rule(
    id="WRP014",
    name="half-wavefront-guard",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.SUGGESTED,
    summary="`threadIdx.x < 32` around a shuffle ladder that spans the whole wavefront",
    what=(
        "Finds a test that keeps threads 0-31 of a block (`if (tid < 32)`, `tid` built on `threadIdx`) around a "
        "shuffle ladder whose first offset follows the warp width (`warpSize / 2`): the last warp of a block "
        "reduction, written width-generic inside and for 32 lanes at its door."
    ),
    why=WHY_WAVE64
    + "\nOn a 64-lane wavefront the test leaves lanes 32-63 idle while the ladder's first step reads from them: "
    "lane 0 adds whatever those lanes last held. A ladder that starts at 16 is right there (it never reads past "
    "lane 31), which is why porter leaves such ladders alone under this test.",
    example="if (tid < 32) {\n  v = tid < warps ? partial[tid] : 0.f;\n  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);\n}",
    use_instead=f"`if (tid < {portable.WARP_SIZE})`: the first wavefront, whatever its width.",
)

ROW_SHUFFLE = Rule(
    id="WRP016",
    name="shuffle-leaves-32-thread-row",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="Shuffle without a width in a kernel whose block is rows of 32 threads",
    what=(
        "In a kernel launched with blocks of 32-thread rows (`dim3 block(32, 8)`, `<<<n, 32>>>`, a thread index "
        "`threadIdx.x + threadIdx.y * 32`, or `<<<n, R * 32>>>` of a kernel whose work is indexed "
        "`blockIdx.x * R + threadIdx.x / 32`) and the device functions only such kernels call, or in a function whose "
        "lanes count a project's logical warp of 32 (`threadIdx.x % WARP_SIZE` with llama.cpp's WARP_SIZE), finds `__shfl`, "
        "`__shfl_up` and `__shfl_down` calls (and their `_sync` forms) that give no width. The kernel's other 32s "
        "are its row's width and stay as they are: porter widens none of them there."
    ),
    why=WHY_WAVE64
    + "\nTwo 32-thread rows share a 64-lane wavefront (a block of one row fills half of one). Without a width a "
    "shuffle counts lanes across the whole wavefront: `__shfl_sync(m, v, 0)` in the second row reads the first "
    "row's lane 0, and `__shfl_down` near a row's end reads the next row (or a lane that does not run) where "
    "NVIDIA returns the lane's own value.",
    example="// launched with dim3 block(32, 4): threadIdx.x is the lane, threadIdx.y the row\nfloat first = __shfl_sync(0xffffffff, v, 0);",
    use_instead="`__shfl_sync(0xffffffff, v, 0, 32)`: a width of 32 keeps each row to itself, and is NVIDIA's default.",
)

ROW_VOTE = Rule(
    id="WRP017",
    name="vote-spans-two-rows",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="Warp vote in a kernel whose 32-thread rows share a wavefront",
    what=(
        "In a kernel launched with blocks of more than one 32-thread row (`dim3 block(32, 8)`, a thread "
        "index `threadIdx.x + threadIdx.y * 32`, `<<<n, R * 32>>>` with work indexed `blockIdx.x * R + threadIdx.x / 32`), finds `__ballot`, `__activemask` and `__match_*` calls and their "
        "`_sync` forms, and `__any`/`__all` without a mask or with one other than all 32 lanes (that one becomes "
        "the row's lanes, and HIP's `__any_sync`/`__all_sync` then answer for each row apart)."
    ),
    why=WHY_WAVE64
    + "\nTwo rows share each 64-lane wavefront, and a vote covers the wavefront: the second row's ballot is in "
    "bits 32-63 (where `__ffs`, `>> lane` and `== 0xffffffff` do not look for it), and `__any`/`__all` without "
    "the row's mask answer for both rows together.",
    example="// launched with dim3 block(32, 4)\nunsigned hits = __ballot_sync(0xffffffff, x > 0.f);",
    use_instead=(
        "The row's half of the wavefront's ballot, in 32 bits as NVIDIA gives it: porter writes "
        "`porter_row_ballot(mask, p)` and `porter_row_activemask()` (the compat header's "
        "`(unsigned)(__ballot_sync(mask, p) >> (__lane_id() & 32))` on AMD, `__ballot_sync` on NVIDIA); "
        "`__match_*` and maskless `__any`/`__all` are left to a person: give them the row's mask."
    ),
)

ROW_LANE = Rule(
    id="WRP018",
    name="wavefront-lane-in-32-thread-row",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="A wavefront's lane id taken as the lane of a 32-thread row",
    what=(
        "In a kernel whose block is rows of 32 threads, two of which share a 64-lane wavefront (porter.rules."
        "block_rows), finds `__lane_id()` and calls to the project's own functions that read PTX's `%laneid` "
        "(`get_lane_id()`, defined in any file of the scan) where the result is not already taken modulo 32."
    ),
    why=WHY_WAVE64
    + "\nOn NVIDIA `%laneid` is 0-31, the lane within the row. Ported, it is `__lane_id()`, which counts the "
    "wavefront's 64 lanes: the second row of each wavefront reads lanes 32-63 and indexes past its row "
    "(`out[row * 32 + lane]` writes the next row's elements).",
    example='// launched as one warp per row: row = blockIdx.x * 4 + threadIdx.x / 32\nint lane = get_lane_id();  // asm("mov.u32 %0, %%laneid;" ...)',
    use_instead="`(get_lane_id() % 32)`: the lane within the row on either vendor; the helper itself becomes `__lane_id()`.",
)

ROW_COLLECTIVE = Rule(
    id="WRP020",
    name="warp-collective-spans-two-rows",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="CUB warp collective with its default width in a kernel whose 32-thread rows share a wavefront",
    what=(
        "In a kernel whose block is rows of 32 threads (porter.rules.block_rows: `dim3 block(32, 8)`, one warp per "
        "row, a warp per item of the grid) and the device functions only such kernels call, finds CUB's warp "
        "collectives (`cub::WarpReduce`, `WarpScan`, `WarpExchange`, `WarpLoad`, `WarpStore`, `WarpMergeSort`) "
        "that leave their logical warp width to its default."
    ),
    why=WHY_WAVE64 + "\nCUB's default logical warp is NVIDIA's 32 lanes: the row. hipCUB's is the device's wavefront "
    "(`HIPCUB_DEVICE_WARP_THREADS`, 64 on gfx9): the port's collective then reduces or scans two rows together, "
    "and each row's result holds the other's values (a block of one row leaves lanes 32-63 idle, and the "
    "collective reads them).",
    example="// row = (THREADS / 32) * blockIdx.x + threadIdx.x / 32\ntypedef cub::WarpReduce<float> WarpReduce;",
    use_instead="`cub::WarpReduce<float, 32>`: the row's width, which is CUB's default on NVIDIA.",
)

ROW_WARPSIZE = Rule(
    id="WRP021",
    name="warpsize-in-32-thread-row",
    category="warp-size",
    audits_hip=True,
    severity=Severity.ERROR,
    fix=FixKind.AUTO,
    summary="`warpSize` in a kernel whose block is rows of 32 threads",
    what=(
        "In a kernel whose block is rows of 32 threads (porter.rules.block_rows: `<<<n, 32>>>`, `dim3 block(32, 8)`, "
        "one warp per row) and the device functions only such kernels call, finds `warpSize`: the kernel's author "
        "took the warp for the row it runs in."
    ),
    why=WHY_WAVE64
    + "\nThe row is 32 threads on every GPU; `warpSize` is 64 on gfx9. A lane id `threadIdx.x % warpSize` still "
    "counts 0-31, but a stride `i += warpSize` skips half the row's elements, a ladder from `warpSize / 2` shuffles "
    "by 32 (past the row: NVIDIA's shuffle returns the lane's own value there, and the sum doubles), and "
    "`lane == warpSize - 1` names a lane that is not in the row.",
    example="// launched as row_sums<<<rows, 32>>>\nfor (int i = lane; i < cols; i += warpSize) s += x[row * cols + i];",
    use_instead="`32`, the row's width, which is `warpSize` on NVIDIA.",
)

RULES = (
    LANE_ARITHMETIC,
    SHUFFLE_OFFSET,
    PER_WARP_SHARED,
    SHUFFLE_WIDTH,
    LANE_LOOP,
    WARP_CONSTANT,
    TILE_32,
    HOST_WARPS_PER_BLOCK,
    CONSTEXPR_WARPSIZE,
    WARP_SIZE_GUARD,
    ROCM_WAVEFRONT_FROM_BUILD,
    PER_WARP_SLOTS_READ_BY_COUNT,
    WIDTH_SPLIT_BY_PASS,
    HALF_WAVE_GUARD,
    ROW_SHUFFLE,
    ROW_VOTE,
    ROW_LANE,
    ROW_COLLECTIVE,
    ROW_WARPSIZE,
)

# (operator, literal) pairs that turn a thread index into a lane or warp id, with the fix.
ARITHMETIC = {
    ("&", 31): f"({portable.WARP_SIZE} - 1)",
    ("%", 32): portable.WARP_SIZE,
    ("/", 32): portable.WARP_SIZE,
    (">>", 5): portable.LOG2_WARP_SIZE,
}
_MAY_ASSUME_32 = re.compile(rb"threadIdx|__shfl|lane|(?i:warp)|&\s*(31|0x1[fF])\b|%\s*32\b|/\s*32\b|>>\s*5\b|<\s*32\b")
_MAY_ASSUME_32_NEEDLES = (b"threadIdx", b"__shfl", b"lane", b"warp", b"Warp", b"WARP")
THREAD_COUNT_NAME = re.compile(
    r"(?i)(thread|block_?size|blockdim|block_?dim|nthreads|num_?threads|threads_?per_?block|block_?threads|\bbs\b|\bnt\b)"
)
# the values a warp-width constant takes by role (width, last lane or mask, half, log2), with the fix
_WARP_CONSTANT_VALUES = {
    32: portable.WARP_SIZE,
    31: f"({portable.WARP_SIZE} - 1)",
    16: f"({portable.WARP_SIZE} / 2)",
    5: portable.LOG2_WARP_SIZE,
}


def warp_value(ctx: FileContext, node: tree_sitter.Node | None, derived: bool = True) -> int | None:
    """The value of a literal or of a named constant's expression (`WS`, `32 / 2`, `(WS - 1)`).

    A named constant counts by its value wherever it is used; whether its definition or the use
    carries the fix is settled across the project (WRP006). `sizeof` arithmetic
    (`sizeof(int) * 8`) counts bits, never lanes. With `derived`, an expression counts only where
    one of its terms is itself a warp quantity (`(WS - 1)`, `32 / 2`): `BN / 2` with a 64-wide
    tile is 32 by the tile's shape, and stays 32 on a 64-lane wavefront.
    """
    value = ctx.value_of(node)
    if value is None or node.type == "number_literal":
        return value
    if node.type == "identifier":  # a name holds no `sizeof`; a logical warp's 32 is right on wave64
        return None if _logical(ctx, node) else value
    if b"sizeof" in ctx.source.data[node.start_byte : node.end_byte]:
        return None
    return value if not derived or _has_warp_term(ctx, node) else None


def _has_warp_term(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """Whether a literal or a name among the expression's terms holds a warp width's value by role."""
    if node.type in ("number_literal", "identifier"):
        return ctx.value_of(node) in _WARP_CONSTANT_VALUES and not _logical(ctx, node)
    return any(_has_warp_term(ctx, child) for child in node.named_children)


def _logical(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """Is the name the project's logical warp, a 32 it keeps beside the wavefront (logical_warp)?"""
    names = logical_names(ctx)
    return bool(names) and ctx.source.text(node.start_byte, node.end_byte) in names


def _literal_edit(ctx: FileContext, node: tree_sitter.Node, replacement: str) -> tuple[Edit, ...]:
    return (Edit(node.start_byte, node.end_byte, replacement.encode()),)


def _replaced(rule: Rule, ctx: FileContext, node: tree_sitter.Node, message: str, replacement: str) -> Finding:
    """The rule's finding on a literal (or a bound) that the fix replaces by `replacement`."""
    return rule.finding(ctx, node.start_byte, node.end_byte, message, edits=_literal_edit(ctx, node, replacement))


def check(ctx: FileContext) -> Iterable[Finding]:
    if not ctx.source.kind.is_c_family or ctx.parsed.root is None:
        return
    yield from _constexpr_warpsize(ctx)
    yield from _wavefront_from_build(ctx)
    yield from _width_split_on_host(ctx)
    if not ctx.wave64_targets:
        return  # wave32 RDNA targets only: 32 lanes is right
    record_launches(ctx)
    uses = device_uses(ctx)
    yield from _reported_here(ctx, uses)
    warp_names = _width_names(ctx, uses)
    host = list(_host_uses(ctx, warp_names))
    yield from host
    guards = list(_guards(ctx, warp_names))
    yield from guards
    tiles = _tile_uses(ctx)  # a tile as wide as a constant makes the constant a warp width too
    yield from tiles
    _record_constant_roles(ctx, uses + tiles, host + guards)
    _record_network_roles(ctx, uses)
    yield from _row_crossings(ctx)
    yield from _logical_crossings(ctx)
    yield from _row_lanes(ctx)


def _reported_here(ctx: FileContext, uses: list[Finding]) -> Iterable[Finding]:
    """The uses, but those that a launch in another file may veto (_unless_launched_so): they go to
    the project, reported unless a file vetoes their key."""
    vetoable = _unless_launched_so(ctx)
    for finding in uses:
        key = vetoable.get((finding.rule, finding.span.start_byte, finding.span.end_byte))
        if key is None:
            yield finding
        else:
            ctx.project.claim_pending(key, finding)


def device_uses(ctx: FileContext) -> list[Finding]:
    """The file's uses of a 32-lane width (WRP001-005, and the host warp counts they imply), worked
    out once: WRP006 and the shared-memory rules both follow the constants these use."""
    return ctx.once("warp-width uses", lambda: _with_host_fixes_applied(ctx, list(_all_uses(ctx))))


def _raw_uses(ctx: FileContext) -> list[Finding]:
    """Every use of a 32-lane width the file writes, before its row kernels and 64-lane functions
    are set apart (_all_uses), worked out once."""

    def find() -> list[Finding]:
        if not search_fast(ctx.source.data, _MAY_ASSUME_32_NEEDLES, _MAY_ASSUME_32):
            return []
        return [
            *_arithmetic(ctx), *_shuffles(ctx), *_shared_arrays(ctx), *_lane_loops(ctx), *_template_widths(ctx),
            *_collective_widths(ctx),
        ]  # fmt: skip

    return ctx.once("raw warp-width uses", find)


def kept_value(ctx: FileContext, name: str, hops: int = 4, assumed: set[str] | None = None) -> int | None:
    """The value of a constant the file defines that porter leaves as written, with every constant
    it is computed from: `constexpr int kRowThreads = 32;` beside a `WARP_SIZE` the shuffles take,
    `#define THREADS (8 * 32)`. A constant of 32 (31, 16, 5) is left where it is the source file's
    own and none of the file's warp operations (nor a tile) takes it as a warp width, or where it is
    both edges of a square tile (`tile[TILE][TILE + 1]`, whose definition stays whatever its warp
    uses say): then it is read as its literal would be, and a kernel whose block is rows of it keeps
    its warp uses too, where widening each alone would leave the row index counting rows of 32
    (corpus/emulate/tile_rows.cu). None where
    porter may change it, or where that is not known here: a header's constant of 32 may be claimed
    by any file of the project, and one defined twice has no one text. Given `assumed`, such a
    header constant that nothing here claims counts as kept, its key added to `assumed`: the scan
    settles the assumption (porter.rules.project)."""
    value = ctx.shared_constants.get(name)
    if value is None or hops == 0:
        return None
    texts = _constant_texts(ctx).get(name)
    if texts is None and assumed is not None:  # a header's constant, used here
        return value if _header_constant_assumed(ctx, name, hops, assumed) else None
    if texts is None or len(texts) != 1:
        return None
    if value in _WARP_CONSTANT_VALUES and (
        _constant_key(ctx, name) != f"warp-width:{name}@{ctx.source.rel}"
        or (name in _warp_width_names(ctx) and name not in _square_tile_constants(ctx))
    ):
        if assumed is None or not _unclaimed_here(ctx, name):
            return None
        assumed.add(_constant_key(ctx, name))
    for word in set(IDENT.findall(next(iter(texts)))) - {name}:
        if word in ctx.shared_constants and kept_value(ctx, word, hops - 1, assumed) is None:
            return None
    return value


def _header_constant_assumed(ctx: FileContext, name: str, hops: int, assumed: set[str]) -> bool:
    """Can the header's constant, and the header's constants it is computed from, be taken as left
    as written (_unclaimed_here)? Their keys are added to `assumed`. The header's definitions are
    followed, not the file's own: a kernel's local `tile_size` shadows the header's only there."""
    formula = ctx.project_formulas.get(name)
    if formula is None or hops == 0 or not _unclaimed_here(ctx, name):
        return False
    assumed.add(_constant_key(ctx, name))
    operands = formula_operands(formula, name, ctx.project_constants)
    return all(_header_constant_assumed(ctx, word, hops - 1, assumed) for word in operands)


def _unclaimed_here(ctx: FileContext, name: str) -> bool:
    """A constant of the project's (a header's, or one the file does not define) that none of the
    file's warp operations takes as a warp width, and that the project does not widen, as far as
    this reading of the file knows (FileContext.project_widened)."""
    key = _constant_key(ctx, name)
    return key == f"warp-width:{name}" and name not in _warp_width_names(ctx) and key not in ctx.project_widened


def _constant_texts(ctx: FileContext) -> dict[str, set[str]]:
    """Name → the values the file's definitions of it write."""

    def group() -> dict[str, set[str]]:
        texts: dict[str, set[str]] = {}
        for _, name, text in ctx.constant_definitions:
            texts.setdefault(name, set()).add(text.strip())
        return texts

    return ctx.once("constant texts", group)


def _warp_width_names(ctx: FileContext) -> set[str]:
    """The constants the file's warp operations and tiles take as a warp width, before row kernels
    are set apart."""
    return ctx.once(
        "raw warp-width names",
        lambda: {name for use in [*_raw_uses(ctx), *_tile_uses(ctx)] for name in _cited(ctx, use)},
    )


def _all_uses(ctx: FileContext) -> Iterable[Finding]:
    uses = _raw_uses(ctx)
    if not uses:
        return
    written_for_64 = _functions_naming_upper_lanes(ctx)
    rows = block_rows(ctx)
    groups = _group_widths(ctx)
    networks = _lane_networks(ctx)
    recomposed = _recomposed(ctx, uses)
    for finding in uses:
        start = finding.span.start_byte
        if finding.rule == HOST_WARPS_PER_BLOCK.id:
            yield finding
        elif _cites_only_group_widths(ctx, finding, groups):
            continue  # `warp_size / threads_per_row` in its function: a group inside the warp, not the warp
        elif any(f.start_byte <= start < f.end_byte for f in written_for_64) or rows.row_only_at(start):
            continue  # the function's 32s are a half-wavefront or its block's 32-thread row: right as written
        elif (kernel := rows.row_kernel_sharing(start)) is not None:
            yield dataclasses.replace(
                finding,
                fix=FixKind.SUGGESTED,
                message=f"{finding.message}; {kernel} also calls this with blocks of 32-thread rows, where the 32 is right: change it per caller",
            )
        elif finding.rule in _NETWORK_SIZED and any(f.start_byte <= start < f.end_byte for f in networks):
            yield dataclasses.replace(
                finding,
                fix=FixKind.SUGGESTED,
                message=f"{finding.message}; but the 32 sizes a 32-lane network here (xor shuffles combined by the lane's bit of the offset), which each half of a wave64 wavefront runs on its own as written: widen it only with the data it transforms",
            )
        elif id(finding) in recomposed:
            text, bound = recomposed[id(finding)]
            what = "bounds it by a count of" if bound else "rebuilds an index from"
            yield dataclasses.replace(
                finding,
                fix=FixKind.SUGGESTED,
                message=f"{finding.message}; but `{text}` {what} these 32-thread groups, so the 32 is also the data's group width: widen it only with that {'bound' if bound else 'product'} and the group counts that go with it",
            )
        elif finding.rule == LANE_ARITHMETIC.id and (layout := _fragment_layout_at(ctx, start)) is not None:
            yield dataclasses.replace(
                finding,
                fix=FixKind.SUGGESTED,
                message=f"{finding.message}; but this function lays out NVIDIA matrix fragments over a warp's 32 lanes (`{layout}`), which MFMA lays out differently over 64: its lane math changes with that rewrite",
            )
        else:
            yield finding


# PTX that distributes a matrix fragment over a warp's lanes: each lane's lane math is the layout's
_FRAGMENT_PTX = re.compile(rb"\b(mma\.sync|mma\.sp|ldmatrix|stmatrix|wgmma)\b")


def _fragment_layout_at(ctx: FileContext, offset: int) -> str | None:
    """The fragment instruction (`ldmatrix`) of the function at `offset`, where it or a function of
    the file it calls holds one: the lane math of `mma.sync` kernels (flashinfer's generated MoE
    GEMMs, gptqmodel's Marlin and Swordfish) is the fragment's 32-lane layout, not a warp width to
    widen; those kernels need an MFMA rewrite, which decides it."""
    spans = _fragment_spans(ctx)
    if not spans:
        return None
    function = ctx.device.function_of(ctx.parsed.root.descendant_for_byte_range(offset, offset))
    if function.node is None:
        return None
    layouts = ctx.once("fragment layouts by function", dict)  # a function's findings ask once
    key = (function.node.start_byte, function.node.end_byte)
    if key not in layouts:
        layouts[key] = next((spans[span] for span in sorted(reached_spans(ctx, function)) if span in spans), None)
    return layouts[key]


def _fragment_spans(ctx: FileContext) -> dict[tuple[int, int], str]:
    """The file's functions whose own text holds fragment PTX, by span, with the instruction."""

    def find() -> dict[tuple[int, int], str]:
        matches = list(_FRAGMENT_PTX.finditer(ctx.source.data))  # once: each function's by bisection
        if not matches:
            return {}
        starts = [match.start() for match in matches]
        found = {}
        for info in ctx.device.functions:
            if info.node is None:
                continue
            index = bisect.bisect_left(starts, info.node.start_byte)
            if index < len(starts) and starts[index] < info.node.end_byte:
                found[(info.node.start_byte, info.node.end_byte)] = matches[index].group().decode()
        return found

    return ctx.once("fragment ptx functions", find)


def _recomposed(ctx: FileContext, uses: list[Finding]) -> dict[int, tuple[str, bool]]:
    """id of each automatic lane-math finding (WRP001) whose value meets a literal 32 that scales a
    32-thread group back into an index (`col = group * 32 + lane`, `(w << 5) | l`,
    `warp * 32 * sizeof(float)`), → (that product, False). The product is no warp width porter
    widens, so widening the lane math alone changes what the index reaches: with `group = tid / 64`
    and `lane = tid % 64`, `group * 32 + lane` gives lanes 32-63 the next group's columns and runs the
    last group past the end (exllamav3's exl3_gemm_kernel.cuh, corpus/emulate/recomposed_columns.cu).
    Also, → (the test, True), the lane math on a name that the function bounds by such a product
    (`if (tid >= 32 * NUM_WARPS) return; … dim3(tid % 32, tid / 32)`, flashinfer's pod.cuh): the block
    holds that many threads in groups of 32, and the groups widened alone leave half its warps idle."""
    automatic = sorted(
        (f for f in uses if f.rule == LANE_ARITHMETIC.id and f.fix is FixKind.AUTO), key=lambda f: f.span.start_byte
    )
    starts = [f.span.start_byte for f in automatic]
    found: dict[int, tuple[str, bool]] = {}
    for node, left, operator, right in ctx.device.binaries(("*", "<<"), ordered=False) if automatic else ():
        if not _scales_by_32(ctx, left, operator, right):
            continue
        function = ctx.device.function_of(node)
        if function.node is None:
            continue
        # the function's own findings (a binary search): a generated file holds thousands
        low = bisect.bisect_left(starts, function.node.start_byte)
        high = bisect.bisect_left(starts, function.node.end_byte, lo=low)
        if low == high:
            continue
        region = _Region.of(ctx, _sum_around(node))
        product = ctx.source.text(node.start_byte, node.end_byte)
        test, bounded = _bound_by(ctx, node)
        # the bound holds for the block it stands in (each arm of a branch may declare the name anew)
        scope = (enclosing(node, ("compound_statement",)) or function.node) if bounded is not None else None
        for finding in automatic[low:high]:
            flow = _lane_flow(ctx, finding.span.start_byte)
            if flow is not None and flow.reaches(region):
                found.setdefault(id(finding), (product, False))
            elif (
                scope is not None
                and scope.start_byte <= finding.span.start_byte < scope.end_byte
                and _operand_name(ctx, finding) == bounded
            ):
                found.setdefault(id(finding), (test, True))
    return found


_BOUNDS = frozenset({"<", "<=", ">", ">="})


def _bound_by(ctx: FileContext, product: tree_sitter.Node) -> tuple[str, str | None]:
    """(the test's text, the name) where the product is one side of a comparison whose other side is
    a plain name (`tid >= 32 * NUM_WARPS`); (the product's text, None) otherwise."""
    outer = _product_outside(product)
    operator = outer.parent.child_by_field_name("operator") if outer.parent is not None else None
    if operator is None or outer.parent.type != "binary_expression" or operator.type not in _BOUNDS:
        return ctx.source.text(product.start_byte, product.end_byte), None
    comparison = outer.parent
    other = comparison.child_by_field_name("left" if comparison.child_by_field_name("right") == outer else "right")
    other = unparenthesized(other) if other is not None else None
    name = (
        ctx.source.text(other.start_byte, other.end_byte) if other is not None and other.type == "identifier" else None
    )
    return ctx.source.text(comparison.start_byte, comparison.end_byte), name


def _product_outside(node: tree_sitter.Node) -> tree_sitter.Node:
    """The product with the parentheses and the further factors around it (`32 * A * B`'s whole)."""
    while node.parent is not None and (
        node.parent.type == "parenthesized_expression"
        or (node.parent.type == "binary_expression" and _operator(node.parent) == "*")
    ):
        node = node.parent
    return node


def _operator(node: tree_sitter.Node) -> str | None:
    operator = node.child_by_field_name("operator")
    return operator.type if operator is not None else None


def _operand_name(ctx: FileContext, finding: Finding) -> str | None:
    """The plain name a lane-math finding's operator works on (`tid` of `tid % 32`)."""
    literal = ctx.parsed.root.descendant_for_byte_range(finding.span.start_byte, finding.span.end_byte)
    binary = literal.parent if literal is not None else None
    while binary is not None and binary.type == "parenthesized_expression":
        binary = binary.parent
    if binary is None or binary.type != "binary_expression":
        return None
    left = binary.child_by_field_name("left")
    left = unparenthesized(left) if left is not None else None
    return ctx.source.text(left.start_byte, left.end_byte) if left is not None and left.type == "identifier" else None


def _scales_by_32(ctx: FileContext, left, operator: str, right) -> bool:
    """`x * 32`, `32 * x`, `x << 5`, the 32 (or 5) written as a literal."""
    if operator == "<<":
        return right.type == "number_literal" and int_value(right, ctx.source) == 5
    return (left.type == "number_literal" and int_value(left, ctx.source) == 32) or (
        right.type == "number_literal" and int_value(right, ctx.source) == 32
    )


def _sum_around(node: tree_sitter.Node) -> tree_sitter.Node:
    """`q * 32 + r` (or `|`) around the product `q * 32`, or the product alone."""
    outer = node.parent
    while outer is not None and outer.type == "parenthesized_expression":
        outer = outer.parent
    if outer is not None and outer.type == "binary_expression":
        operator = outer.child_by_field_name("operator")
        if operator is not None and operator.type in ("+", "|"):
            return outer
    return node


# what is the warp width whatever its value: `warpSize`, ggml's `warp_size` template parameter and
# `ggml_cuda_get_physical_warp_size()`
_WARP_WIDTH_NAME = re.compile(r"(?i)warp_?size|wave(?:front)?_?size|warp_?width")
_WIDTH_SHAPES = ("identifier", "call_expression", "qualified_identifier", "field_expression")


def _group_widths(ctx: FileContext) -> set[str]:
    """Constants the file divides a warp width by (`nrows = warp_size / threads_per_row`): the threads
    of a group inside the warp, 32 on NVIDIA by coincidence of the data layout (llama.cpp's quantised
    tiles keep it when the warp is 64 wide). By file, not by function: a conditional in the middle of
    a function (`#if MMA … #else … #endif`) often breaks its parse in two."""
    found = set()
    for _, left, _, right in ctx.device.binaries(("/",), ordered=False):
        if right.type == "identifier" and left.type in _WIDTH_SHAPES:
            if _WARP_WIDTH_NAME.search(ctx.source.text(left.start_byte, left.end_byte)):
                found.add(ctx.source.text(right.start_byte, right.end_byte))
    return found


def _cites_only_group_widths(ctx: FileContext, finding: Finding, groups: set[str]) -> bool:
    cited = _cited(ctx, finding) if groups else []
    return bool(cited) and all(name in groups for name in cited)


# -- WRP006 / WRP002: a template's integer parameter that is its warp width -------------------------


def _template_widths(ctx: FileContext) -> Iterable[Finding]:
    """`template <int width = 32> float warp_sum(float v)` whose ladder starts at `width / 2` (or whose
    shuffles take `width`): the default, and a call's `warp_sum<32>(v)`, size a 32-lane reduction."""
    if b"template" not in ctx.source.data or b"shfl" not in ctx.source.data:
        return
    for template, name, index, parameter in _width_parameters(ctx):
        default = parameter.child_by_field_name("default_value")
        if default is not None and warp_value(ctx, default) == 32 and default.type == "number_literal":
            yield WARP_CONSTANT.finding(
                ctx, default.start_byte, default.end_byte,
                f"`{name}` defaults to 32 and sizes `{template}`'s shuffles: on wave64 they cover half the wavefront",
                edits=_literal_edit(ctx, default, portable.WARP_SIZE),
            )  # fmt: skip
        for argument in _template_arguments(ctx, template, index):
            if warp_value(ctx, argument) == 32 or ctx.value_of(argument) == 32:
                yield SHUFFLE_OFFSET.finding(
                    ctx, argument.start_byte, argument.end_byte,
                    f"`{template}<{short_text(ctx, argument)}>` sizes its shuffles for 32 lanes: on wave64 they cover half the wavefront",
                    edits=_literal_edit(ctx, argument, portable.WARP_SIZE),
                )  # fmt: skip


def _collective_widths(ctx: FileContext) -> Iterable[Finding]:
    """`cub::WarpReduce<float, 32>` (and CUB's other warp collectives) in device code: a logical
    warp of 32 lanes, which on wave64 reduces or scans each half of the wavefront apart, as a
    shuffle of width 32 does (WRP004). In a kernel whose block is rows of 32 it is the row's width,
    and stays (_all_uses sets such kernels apart)."""
    for arguments, width_at in _cub_collectives(ctx):
        template = arguments.parent
        given = [a for a in arguments.named_children if a.type != "comment"]
        if len(given) <= width_at or not ctx.device.is_device_code(arguments):
            continue
        width = given[width_at]
        if warp_value(ctx, width) == 32 and not _logical_width(ctx, width):
            yield SHUFFLE_WIDTH.finding(
                ctx, width.start_byte, width.end_byte,
                f"`{short_text(ctx, template)}` takes a logical warp of 32 lanes: on wave64 it splits the wavefront in two",
                edits=_literal_edit(ctx, width, portable.WARP_SIZE),
            )  # fmt: skip


def _cub_collectives(ctx: FileContext) -> list[tuple[tree_sitter.Node, int]]:
    """The template argument lists of the file's CUB warp collectives (`WarpReduce<float, 32>`),
    each with the position of its width, found once per file (WRP004, WRP020 and WRP008's tile
    test ask)."""
    if b"Warp" not in ctx.source.data:
        return []
    return ctx.once("cub warp collectives", lambda: _templates_given_width(ctx, _CUB_WARP_COLLECTIVES))


def _templates_given_width(ctx: FileContext, positions: dict[str, int]) -> list[tuple[tree_sitter.Node, int]]:
    """The template argument lists of the templates `positions` names, with their width's position."""
    found = []
    for arguments in captures("(template_argument_list) @a", ctx.parsed.root).get("a", []):
        name = arguments.parent.child_by_field_name("name") if arguments.parent is not None else None
        width_at = positions.get(ctx.source.text(name.start_byte, name.end_byte)) if name else None
        if width_at is not None:
            found.append((arguments, width_at))
    return found


def _width_parameters(ctx: FileContext):
    """(template name, parameter name, position, parameter node) of the file's function templates'
    integer parameters that their bodies use as the warp width. Only the templates that shuffle are
    looked at, found from their shuffles: a query for every template of a file cost 6 % of a scan."""
    templates = {}
    for _, call in ctx.device.calls_named(SHUFFLE_CALLS):
        function = ctx.device.function_of(call)
        node = function.node
        if node is not None and node.parent is not None and node.parent.type == "template_declaration":
            templates[node.id] = (function.name, node)
    for name_text, function in templates.values():
        for index, parameter in enumerate(template_parameters(function)):
            declarator = parameter.child_by_field_name("declarator")
            if parameter.type.startswith(("parameter", "optional_parameter")) and declarator is not None:
                name = ctx.source.text(declarator.start_byte, declarator.end_byte)
                if declarator.type == "identifier" and _sizes_shuffles(ctx, function, name):
                    yield short_name(name_text), name, index, parameter


def _sizes_shuffles(ctx: FileContext, function: tree_sitter.Node, name: str) -> bool:
    """A shuffle of width `name`, or one inside a ladder from `name / 2` (`name >> 1`) that takes the
    ladder's counter: looked for from the function's shuffles up, not through all its loops."""
    halves = (f"{name}/2", f"{name}>>1")
    for call_name_, call in ctx.device.calls_inside(function, SHUFFLE_CALLS):
        lane, width = shuffle_operands(call_name_, call)
        if width is not None and ctx.source.text(width.start_byte, width.end_byte).strip() == name:
            return True
        loop = enclosing(call, ("for_statement", "function_definition"))
        parts = for_parts(ctx, loop) if loop is not None and loop.type == "for_statement" else None
        start = ctx.source.text(parts[1].start_byte, parts[1].end_byte) if parts is not None else ""
        if lane is not None and "".join(start.split()).strip("()") in halves:
            if re.search(rf"\b{re.escape(parts[0])}\b", ctx.source.text(lane.start_byte, lane.end_byte)):
                return True
    return False


def _template_arguments(ctx: FileContext, template: str, index: int) -> Iterable[tree_sitter.Node]:
    """The `index`th template argument of each call of `template<…>(…)` in the file."""
    for _, call in ctx.device.calls:
        function = call.child_by_field_name("function")
        if function is not None and function.type == "qualified_identifier":
            function = function.child_by_field_name("name")
        if function is None or function.type != "template_function":
            continue
        name = function.child_by_field_name("name")
        if name is None or ctx.source.text(name.start_byte, name.end_byte) != template:
            continue
        arguments = function.child_by_field_name("arguments")
        listed = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
        if len(listed) > index:
            yield listed[index]


# -- WRP016 / WRP017: kernels whose warps are their block's 32-thread rows --------------------------


def _row_mask(ctx: FileContext, mask: tree_sitter.Node | None) -> bool:
    """All 32 lanes of a row: a 32-bit full mask, or the compat header's PORTER_ROW_MASK it becomes."""
    if mask is None:
        return False
    return is_full_mask_32(ctx, mask) or ctx.source.text(mask.start_byte, mask.end_byte).strip() == portable.ROW_MASK


def _logical_crossings(ctx: FileContext) -> Iterable[Finding]:
    """Shuffles without a width in functions whose lanes count the project's logical warp of 32
    (`lane = threadIdx.x % WARP_SIZE` with llama.cpp's WARP_SIZE, kept at 32): two such warps share
    a 64-lane wavefront, and `__shfl_sync(m, v, lane & ~1)` in the second reads the first's lanes.
    The width the project hands its other shuffles keeps each to its own 32."""
    names = logical_names(ctx)
    if not names or not mentions_any(ctx.source.data, names):
        return
    rows = block_rows(ctx)
    for name, call in ctx.device.calls_named(SHUFFLE_CALLS):
        if name.startswith("__shfl_xor") or rows.row_only_at(call.start_byte):
            continue  # a butterfly's offsets stay below 32; a row kernel's shuffles are _row_crossings'
        closing = _closing_without_width(name, call)
        logical = _logical_lane_of(ctx, call, names) if closing is not None else None
        if logical is None:
            continue
        yield ROW_SHUFFLE.finding(
            ctx, call.start_byte, closing.parent.start_byte,
            f"`{name}` where lanes count the project's logical warp (`{logical}`, 32): two such warps share a 64-lane wavefront, and without a width the shuffle reaches past its warp",
            edits=(Edit(closing.start_byte, closing.start_byte, f", {logical}".encode()),),
        )  # fmt: skip


def _closing_without_width(name: str, call: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `)` of a shuffle's arguments where it gives no width: a width is written before it."""
    arguments = call.child_by_field_name("arguments")
    if shuffle_operands(name, call)[1] is not None or arguments is None or arguments.child_count < 2:
        return None
    return arguments.children[-1]


def _logical_lane_of(ctx: FileContext, call: tree_sitter.Node, names: frozenset[str]) -> str | None:
    """The logical warp's name where the function around `call` takes its lanes modulo it (`% WARP_SIZE`,
    `& (WARP_SIZE - 1)`)."""
    function = ctx.device.function_of(call).node
    if function is None:
        return None
    text = ctx.source.data[function.start_byte : function.end_byte]
    return next((name for name in sorted(names) if _lane_modulo(name).search(text)), None)


@functools.cache
def _lane_modulo(name: str) -> re.Pattern[bytes]:
    word = re.escape(name.encode())
    return re.compile(rb"%\s*" + word + rb"\b|&\s*\(\s*" + word + rb"\s*-\s*1\s*\)")


_ROW_VOTES = (*VOTE_CALLS, "__any_sync", "__all_sync", "__any", "__all", "__match_all")


def _row_crossings(ctx: FileContext) -> Iterable[Finding]:
    rows = block_rows(ctx)
    if not rows.row_only:
        return
    for name, call in ctx.device.calls_named(SHUFFLE_CALLS):
        if name.startswith("__shfl_xor") or not rows.row_only_at(call.start_byte):
            continue  # a butterfly's offsets stay below 32: it never leaves a row
        closing = _closing_without_width(name, call)
        if closing is None:
            continue
        where = (
            "lanes 32-63 of its wavefront do not run"
            if rows.one_row_at(call.start_byte)
            else "two rows share a 64-lane wavefront"
        )
        yield ROW_SHUFFLE.finding(
            ctx, call.start_byte, closing.parent.start_byte,
            f"`{name}` in a kernel whose block is rows of 32 threads: {where}, and without a width the shuffle reaches past the row",
            edits=(Edit(closing.start_byte, closing.start_byte, f", {ROW}".encode()),),
        )  # fmt: skip
    for name, call in ctx.device.calls_named(_ROW_VOTES):
        if not rows.row_only_at(call.start_byte) or rows.one_row_at(call.start_byte):
            continue
        if name in ("__any_sync", "__all_sync") and _row_mask(ctx, next(iter(call_arguments(call)), None)):
            continue  # the row's lanes (MSK001 makes a 32-bit full mask so): HIP then answers for each row apart
        if name == "__activemask" and is_sync_mask(ctx, call):
            continue  # the mask of a `_sync` call: both rows' lanes take part in it, each in its own row
        function = call.child_by_field_name("function")
        row_vote = portable.ROW_VOTES.get(name)
        yield ROW_VOTE.finding(
            ctx, call.start_byte, function.end_byte,
            f"`{name}` in a kernel whose block is rows of 32 threads: two rows share a 64-lane wavefront, and the vote covers both",
            edits=(Edit(function.start_byte, function.end_byte, row_vote.encode()),) if row_vote else (),
            fix=FixKind.AUTO if row_vote else FixKind.MANUAL,
        )  # fmt: skip
    yield from _row_collectives(ctx, rows)
    yield from _row_warp_sizes(ctx, rows)


# CUB's warp collectives, by the position of their LOGICAL_WARP_THREADS parameter (hipCUB's alike)
_CUB_WARP_COLLECTIVES = {
    "WarpReduce": 1, "WarpScan": 1, "WarpExchange": 2, "WarpMergeSort": 2, "WarpLoad": 3, "WarpStore": 3,
}  # fmt: skip


def _row_collectives(ctx: FileContext, rows) -> Iterable[Finding]:
    """CUB warp collectives in row kernels that leave their width to CUB's default (ROW_COLLECTIVE):
    where the width is the next argument, it is written (`WarpReduce<float, 32>`, NVIDIA's default
    kept); where arguments before it are left to their defaults too, a person writes them."""
    for arguments, width_at in _cub_collectives(ctx):
        template = arguments.parent
        given = [a for a in arguments.named_children if a.type != "comment"]
        if len(given) > width_at:
            continue  # the width is written
        if rows.row_only_at(arguments.start_byte):
            row_uses, other_uses = [arguments], []
        else:  # `using WarpReduce = cub::WarpReduce<float>;` at namespace scope: where its name is used
            row_uses, other_uses = _alias_uses(ctx, rows, template)
        if not row_uses:
            continue
        closing = arguments.children[-1]
        where = (
            "the collective would read lanes 32-63, which do not run"
            if all(rows.one_row_at(use.start_byte) for use in row_uses)
            else "the collective would combine two rows"
        )
        if other_uses:  # one alias for both kinds of kernel: each needs its own width
            where += f"; kernels that are not rows of 32 use it too (line {other_uses[0].start_point[0] + 1}), and need the wavefront's width: give the row kernels an alias of their own"
        fixable = len(given) == width_at and not other_uses
        yield ROW_COLLECTIVE.finding(
            ctx, template.start_byte, template.end_byte,
            f"`{short_text(ctx, template)}` in a kernel whose block is rows of 32 threads: hipCUB's default width is the 64-lane wavefront, and {where}",
            edits=(Edit(closing.start_byte, closing.start_byte, f", {ROW}".encode()),) if fixable else (),
            fix=FixKind.AUTO if fixable else FixKind.MANUAL,
        )  # fmt: skip


_ALIASES = ("alias_declaration", "type_definition")


def _alias_uses(ctx: FileContext, rows, template: tree_sitter.Node) -> tuple[list, list]:
    """Where a namespace-scope alias of the collective (`using WarpReduce = cub::WarpReduce<float>;`,
    `typedef … WarpReduce;`) is used in device code: (uses in row kernels, uses elsewhere). Nothing
    where the template is not such an alias's whole type."""
    alias = template.parent
    while alias is not None and alias.type in ("qualified_identifier", "type_descriptor"):
        alias = alias.parent
    if alias is None or alias.type not in _ALIASES or ctx.device.function_of(alias).node is not None:
        return [], []
    name = alias.child_by_field_name("name" if alias.type == "alias_declaration" else "declarator")
    if name is None or name.type != "type_identifier":
        return [], []
    row_uses, other_uses = [], []
    alias_name = ctx.source.text(name.start_byte, name.end_byte)
    for use in identifiers_named(ctx.parsed.root, ctx.source.data, alias_name, _ALIAS_USES):
        if use.start_byte == name.start_byte or not ctx.device.is_device_code(use):
            continue
        (row_uses if rows.row_only_at(use.start_byte) else other_uses).append(use)
    return row_uses, other_uses


_ALIAS_USES = ("identifier", "type_identifier", "namespace_identifier")


def _row_warp_sizes(ctx: FileContext, rows) -> Iterable[Finding]:
    """`warpSize` in row kernels (ROW_WARPSIZE): the row's 32, which NVIDIA's warpSize is."""
    for node in identifiers_named(ctx.parsed.root, ctx.source.data, "warpSize", ("identifier", "type_identifier")):
        if rows.row_only_at(node.start_byte):
            yield ROW_WARPSIZE.finding(
                ctx, node.start_byte, node.end_byte,
                "`warpSize` in a kernel whose block is rows of 32 threads: the row is 32 threads, the wavefront 64",
                edits=_literal_edit(ctx, node, str(ROW)),
            )  # fmt: skip


# a lane compared with one of lanes 32-63 (`lane == 32`, `lane_id >= 48`): the ends of a 32-lane
# warp (`== 31`, `< 32`, `>= 32`) are is_last_lane_test's, and stay 32-lane assumptions
_UPPER_LANE_TESTS = {
    "==": range(32, 64), "!=": range(32, 64), ">": range(32, 63), "<=": range(32, 63), "<": range(33, 64), ">=": range(33, 64),
}  # fmt: skip


def _functions_naming_upper_lanes(ctx: FileContext) -> list:
    """The functions that test a lane against one of lanes 32-63: on a 32-lane warp no lane is
    there, so their author wrote them for 64-lane wavefronts, and their 32s are half-wavefronts
    (AMD's own kernels pair `__shfl_xor(v, 16)` halves and write from `lane == 0 or lane == 32`).
    Only comparisons with such a literal are looked at: most files have none."""
    if not _UPPER_LANE_LITERAL.search(ctx.source.data):
        return []
    found = {}
    for node, left, operator, right in ctx.device.binaries(tuple(_UPPER_LANE_TESTS), ordered=False):
        for lane, other, op in ((left, right, operator), (right, left, _MIRRORED.get(operator, operator))):
            if int_value(other, ctx.source) in _UPPER_LANE_TESTS[op] and _is_lane(ctx, unparenthesized(lane)):
                function = ctx.device.function_of(node).node
                if function is not None:
                    found[function.id] = function
    return list(found.values())


_UPPER_LANE_LITERAL = re.compile(rb"(?<![\w.])(?:3[2-9]|[45]\d|6[0-3])(?![\w.])")
_MIRRORED = {">": "<", "<": ">", ">=": "<=", "<=": ">="}


def warp_constant_names(ctx: FileContext) -> set[str]:
    """Constants of the file or its project that this file uses as the warp width (32) in device code."""
    return _width_names(ctx, [f for f in device_uses(ctx) if f.rule != HOST_WARPS_PER_BLOCK.id])


def _width_names(ctx: FileContext, findings: list[Finding]) -> set[str]:
    return {name for finding in findings for name in _cited(ctx, finding) if ctx.shared_constants.get(name) == 32}


def _with_host_fixes_applied(ctx: FileContext, uses: list[Finding]) -> list[Finding]:
    """Host warp counts are fixed automatically where the kernels' warp math is: both sides then agree.
    Where a kernel of the file keeps its 32s (block_rows), only a count that reaches a widened kernel
    is (block_rows.serves_a_widened_kernel): a count of a kept kernel's 32-thread groups
    (`blocks * (threads / 32)` slots, one partial sum a group) must stay as written, and one whose
    kernel is not read stays a suggestion."""
    kernels_fixed = any(f.rule != HOST_WARPS_PER_BLOCK.id and f.fix is FixKind.AUTO for f in uses)
    if not kernels_fixed:
        return uses
    rows_kept = bool(block_rows(ctx).row_only)
    return [
        dataclasses.replace(f, fix=FixKind.AUTO)
        if f.rule == HOST_WARPS_PER_BLOCK.id and f.edits and (not rows_kept or _count_serves_widened(ctx, f))
        else f
        for f in uses
    ]


def _count_serves_widened(ctx: FileContext, finding: Finding) -> bool:
    node = ctx.parsed.root.descendant_for_byte_range(finding.span.start_byte, finding.span.end_byte)
    return node is not None and serves_a_widened_kernel(ctx, node)


def _cited(ctx: FileContext, finding: Finding) -> list[str]:
    """The named constants whose value makes the finding's 32 (or 31, 16, 5): `WS`, `(kLanes - 1)`."""
    text = ctx.source.text(finding.span.start_byte, finding.span.end_byte)
    return [name for name in IDENT.findall(text) if ctx.shared_constants.get(name) in _WARP_CONSTANT_VALUES]


# -- WRP001 / WRP008: arithmetic ----------------------------------------------------------


def _arithmetic(ctx: FileContext) -> Iterable[Finding]:
    facts = ctx.device
    # `+`, `*`, `&&`, ...: no lane, warp or last-lane arithmetic
    for node, left, operator, right in facts.binaries(WARP_OPERATORS, ordered=False):  # each judged alone
        value = warp_value(ctx, right)
        if value is None and operator == "/" and _float_literal(ctx, right) == 32.0:
            value = 32  # blockDim.x / 32.f: a warp count in floating point
        if is_last_lane_test(operator, value) and _tests_a_lane(ctx, left) and facts.is_device_code(node):
            # `lane == 31`, `(lane + d) > 31`, `lane < 32`: the edge of a 32-lane warp (a scan's
            # total, a leader at the end, a neighbour past the end)
            replacement = f"({portable.WARP_SIZE} - 1)" if value == 31 else portable.WARP_SIZE
            yield _replaced(
                LANE_ARITHMETIC, ctx, right,
                f"`{short_text(ctx, left)} {operator} {short_text(ctx, right)}` tests the edge of a 32-lane warp; on wave64 the last lane is 63",
                replacement,
            )  # fmt: skip
            continue
        if (operator, value) not in ARITHMETIC:
            continue
        on_device = facts.is_device_code(node) or _reads_thread_builtins(ctx, left)
        if on_device and _widened_lane_arithmetic(ctx, node, left, operator, value):
            yield LANE_ARITHMETIC.finding(
                ctx,
                right.start_byte,
                right.end_byte,
                f"`{operator} {ctx.source.text(right.start_byte, right.end_byte)}` on `{short_text(ctx, left)}` assumes 32-lane warps",
                edits=_literal_edit(ctx, right, _replacement(ctx, right, operator, value)),
            )
        elif (
            not on_device
            and operator in ("/", ">>")
            and (_is_thread_count(ctx, left) or _counts_threads(ctx, node))
            and not _counts_rows(ctx, node)
            and not _counts_blocks(ctx, node, right)
            and not _counts_sibling_groups(ctx, node, value)
            and not _divides_by_a_kernels_tile(ctx, node, right)
        ):
            yield HOST_WARPS_PER_BLOCK.finding(
                ctx,
                right.start_byte,
                right.end_byte,
                f"`{short_text(ctx, left)} {operator} {value}` counts warps of 32 threads; on wave64 a warp has 64",
                edits=_rounding_edits(ctx, node, left, right, _host_warp_size(ctx, node)) if operator == "/" else (),
            )


def _widened_lane_arithmetic(
    ctx: FileContext, node: tree_sitter.Node, left: tree_sitter.Node, operator: str, value: int | None
) -> bool:
    """Does WRP001 widen `left operator value` (`threadIdx.x & 31`, `tid / 32`) on the device: a lane
    or warp id taken with a warp width's literal, not a bitset's word, a ladder's step, a width a
    constexpr test fixes or a value nothing reads?"""
    return (
        is_lane_arithmetic(ctx, node, left, operator)
        and not _bit_ladder_step(ctx, node, left)
        and not _fixed_by_constexpr_test(ctx, node, value)
        and not _never_read(ctx, node)
    )


def _tests_a_lane(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """Is the operand of a last-lane test (`== 31`, `< 32`) a lane: a lane id by dataflow
    (lane_valued), a lane taken in place that WRP001 widens, `(threadIdx.x & 31) == 31`, or one
    taken with the wavefront's own width, `(threadIdx.x % warpSize) == 31`? Widened to the
    wavefront's lanes and compared with 31, the test picks lane 31 of 64: the middle, whose value (a
    scan's running total) covers half the wavefront. Where WRP001 leaves the `& 31` as written, the
    31 it is compared with stays too."""
    inner = unparenthesized(node)
    parts = binary_parts(inner, ctx.source) if inner.type == "binary_expression" else None
    if parts is None:
        return lane_valued(ctx, inner)
    left, operator, right = parts
    if operator in ("+", "-"):  # `((threadIdx.x & 31) + d) > 31`: a neighbour past the last lane
        return _tests_a_lane(ctx, left)
    if operator not in ("&", "%"):
        return False
    value = warp_value(ctx, right)
    if (operator, value) in ARITHMETIC:
        return _widened_lane_arithmetic(ctx, inner, left, operator, value)
    return _is_lane(ctx, inner)  # `threadIdx.x % warpSize`: the wavefront's lane already


def _never_read(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """`int lane = d3 & 0x1f;` where the function's code never names `lane` again (its comments may;
    nor does a macro of the file): dead as written and as ported, so nothing assumes 32 lanes (DeepSpeed's transform.cu).
    Reads in a branch the project compiles for NVIDIA alone do not count: mmcv's filtered_lrelu
    computes `groupMask = 15 << ((threadIdx.x & 31) & ~3)` for its CUDA arm's `__shfl_xor_sync`,
    and its ROCm arm shuffles without a mask."""
    declarator = node.parent  # the value stored, whatever arithmetic it goes on through
    while declarator is not None and declarator.type in ("parenthesized_expression", "binary_expression"):
        declarator = declarator.parent
    target = (
        declarator.child_by_field_name("declarator") if declarator and declarator.type == "init_declarator" else None
    )
    function = ctx.device.function_of(node).node
    if target is None or target.type != "identifier" or function is None:
        return False
    word = ctx.source.data[target.start_byte : target.end_byte]
    # named once in the function's text (the declaration) is never read; named again, a read is
    # code (not a comment) in a branch the ROCm build compiles
    if _whole_words(ctx.source.data[function.start_byte : function.end_byte], word, 2) != 1 and any(
        _ported(ctx, at) for at in _reads(ctx, function, word)
    ):
        return False
    name = re.compile(rb"(?<![\w$])" + re.escape(word) + rb"(?![\w$])")
    return not any(name.search(text) for text in _macro_definitions(ctx))


def _reads(ctx: FileContext, function: tree_sitter.Node, word: bytes) -> list[int]:
    """Where the function's code names `word` other than to declare it (a kernel may declare a name
    once in each of its scopes); a comment's mention is no read."""
    found = []
    for node in identifiers_named(ctx.parsed.root, ctx.source.data, word.decode(), within=function):
        holder = node.parent
        if not (
            holder is not None and holder.type == "init_declarator" and node == holder.child_by_field_name("declarator")
        ):
            found.append(node.start_byte)
    return found


def _ported(ctx: FileContext, offset: int) -> bool:
    """Is the code at `offset` compiled for ROCm: not in a branch the project keeps for NVIDIA
    alone, nor in one no platform compiles?"""
    from porter.rules.branches import Side

    return ctx.branches.side_at(offset) not in (Side.CUDA_ONLY, Side.DEAD)


def _whole_words(data: bytes, word: bytes, enough: int) -> int:
    """How often `word` stands alone in `data`, counted up to `enough`: found by bytes.find, where a
    pattern led by a look-behind is tried at every byte (0.39 s over one generated 3.5 MB file's
    317 lane computations, each in a kernel of thousands of lines)."""
    count, at = 0, data.find(word)
    while at != -1 and count < enough:
        end = at + len(word)
        if stands_alone(data, at, end):
            count += 1
            at = data.find(word, end)
        else:
            at = data.find(word, at + 1)
    return count


def _macro_definitions(ctx: FileContext) -> list[bytes]:
    """The text of each of the file's `#define`s, in order, found once (from the node index):
    _never_read asks at each of a file's lane computations."""

    def find() -> list[bytes]:
        data, root = ctx.source.data, ctx.parsed.root
        found = [
            *captures("(preproc_def) @d", root).get("d", []),
            *captures("(preproc_function_def) @d", root).get("d", []),
        ]
        return [data[d.start_byte : d.end_byte] for d in sorted(found, key=lambda d: d.start_byte)]

    return ctx.once("macro definitions", find)


_EQUALS_LITERAL = re.compile(r"\b([A-Za-z_]\w*)\s*==\s*(\d+)\b")


def _fixed_by_constexpr_test(ctx: FileContext, node: tree_sitter.Node, value: int) -> bool:
    """Does an enclosing `if constexpr (I == 32 && J == 4)` fix a parameter to the divisor's value?
    `return threadIdx.x % 32;` there reads the row of a 32-row tile (ggml's MFMA layouts): the 32
    is I's, which a 64-lane wavefront does not change."""
    outer = node.parent
    while outer is not None:
        if outer.type == "if_statement" and is_constexpr_if(ctx.source, outer):
            condition, consequence = outer.child_by_field_name("condition"), outer.child_by_field_name("consequence")
            inside = consequence is not None and consequence.start_byte <= node.start_byte < consequence.end_byte
            if inside and condition is not None:
                text = ctx.source.text(condition.start_byte, condition.end_byte)
                if any(
                    int(number) == value and "thread" not in name.lower()
                    for name, number in _EQUALS_LITERAL.findall(text)
                ):
                    return True
        outer = outer.parent
    return False


_BIT_ONE = re.compile(r"\s*&\s*(?:1|0x1)[uU]?\b")


def _bit_ladder_step(ctx: FileContext, division: tree_sitter.Node, dividend: tree_sitter.Node) -> bool:
    """`(lane / 32) & 1` beside `(lane / 16) & 1`: one step of a ladder of bit tests (a bitonic
    sort's directions, stage by stage), bit 5 of the index as `/ 16` reads bit 4; not a warp's width,
    and a warp width written in would reorder the sort."""
    outer = division.parent
    while outer is not None and outer.type == "parenthesized_expression":
        outer = outer.parent
    if outer is None or outer.type != "binary_expression":
        return False
    after = ctx.source.data[division.end_byte : outer.end_byte].decode("utf-8", "replace")
    if not _BIT_ONE.fullmatch(after.lstrip(")")):
        return False
    function = ctx.device.function_of(division)
    scope = function.node if function.node is not None else ctx.parsed.root
    text = ctx.source.text(scope.start_byte, scope.end_byte)
    operand = re.escape(ctx.source.text(dividend.start_byte, dividend.end_byte))
    return re.search(rf"\(\s*{operand}\s*(?:/\s*16|>>\s*4)\s*\)\s*&\s*(?:1|0x1)[uU]?\b", text) is not None


def _rounding_edits(
    ctx: FileContext, division: tree_sitter.Node, dividend: tree_sitter.Node, divisor: tree_sitter.Node, width: str
) -> tuple[Edit, ...]:
    """The divisor's edit, with the rest of a round-up written around it: `(n + 31) / 32 * 32`
    becomes `(n + (W - 1)) / W * W`. Changing the divisor alone would round down to fewer threads."""
    edits = [Edit(divisor.start_byte, divisor.end_byte, width.encode())]
    addend = _operand(ctx, unparenthesized(dividend), "+", 31)
    if addend is not None:
        edits.append(Edit(addend.start_byte, addend.end_byte, f"({width} - 1)".encode()))
    outer = division.parent
    while outer is not None and outer.type == "parenthesized_expression":
        outer = outer.parent
    factor = _operand(ctx, outer, "*", 32) if outer is not None else None
    if factor is not None:
        edits.append(Edit(factor.start_byte, factor.end_byte, width.encode()))
    return tuple(sorted(edits))


def _operand(ctx: FileContext, node: tree_sitter.Node, operator: str, value: int) -> tree_sitter.Node | None:
    """The literal `value` on either side of `node` when it is a binary `operator` expression."""
    parts = binary_parts(node, ctx.source) if node.type == "binary_expression" else None
    if parts is None or parts[1] != operator:
        return None
    return next((side for side in (parts[2], parts[0]) if int_value(side, ctx.source) == value), None)


_THREAD_BUILTIN = re.compile(r"\b(threadIdx|blockIdx|blockDim|gridDim)\b")


def _reads_thread_builtins(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """Only device code reads `threadIdx` and its kin, wherever it stands (a member's initialiser)."""
    return _THREAD_BUILTIN.search(ctx.source.text(node.start_byte, node.end_byte)) is not None


# the operators of ARITHMETIC and of is_last_lane_test
WARP_OPERATORS = frozenset({"&", "%", "/", ">>", "==", "!=", ">", "<=", "<", ">="})


def is_last_lane_test(operator: str, value: int | None, lanes: int = 32) -> bool:
    """`== 31`, `> 31`, `< 32`, …: a test of the last lane of a `lanes`-wide warp."""
    return (operator in ("==", "!=", ">", "<=") and value == lanes - 1) or (operator in ("<", ">=") and value == lanes)


def lane_valued(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """A lane id, or a lane id plus or minus an offset (`(lane + d) > 31`: a neighbour past the last lane)."""
    node = unparenthesized(node)
    if node.type == "binary_expression":
        parts = binary_parts(node, ctx.source)
        return parts is not None and parts[1] in ("+", "-") and lane_valued(ctx, parts[0])
    return _is_lane(ctx, node)


def _is_lane(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """A lane id by dataflow: built from `& 31`, `% 32`, `% warpSize`, `__lane_id()` and the like."""
    return VarClass.LANE in ctx.device.expression_classes(node)


def short_text(ctx: FileContext, node: tree_sitter.Node) -> str:
    text = re.sub(r"\s+", " ", ctx.source.text(node.start_byte, node.end_byte))
    return text if len(text) <= 40 else text[:37] + "..."


_WARP_LEVEL = re.compile(
    rb"__shfl|__ballot|__any|__all|__activemask|__syncwarp|__match_|__reduce_\w+_sync|tiled_partition|thread_block_tile"
    rb"|__lane_id|%%laneid|\.shfl|\b\w*[Ww]arp\w*\s*(?:<[^;()]*>)?\s*\("  # or a call to a warp-level helper
)
_WARP_LEVEL_NEEDLES = (b"__shfl", b"__ballot", b"__any", b"__all", b"__activemask", b"__syncwarp", b"__match_",
                       b"tiled_partition", b"thread_block_tile", b"__lane_id", b"%%laneid", b".shfl")  # fmt: skip
_WARP_LEVEL_REST = (b"__reduce_", b"arp")  # what each of its other matches holds


def _warp_intent(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """Does the code treat 32 threads as a warp: warp-level operations, or a result named lane or warp?

    Without either, `threadIdx.x / 32` is only a 2-D mapping of a block (rows of 32), which
    means the same on any wavefront width.
    """
    if ctx.once(
        "warp-level operations",
        lambda: search_fast(ctx.source.data, _WARP_LEVEL_NEEDLES, _WARP_LEVEL, _WARP_LEVEL_REST),
    ):
        return True
    name = _stored_name(ctx, node)
    return name is not None and re.search(r"(?i)lane|warp|wid", name) is not None


def _stored_name(ctx: FileContext, node: tree_sitter.Node) -> str | None:
    """What the expression is stored into: the declared or assigned target's text (`warp` in
    `int warp = tid / 32;`), or None outside an initialiser or assignment."""
    owner = enclosing(node, ("init_declarator", "assignment_expression"))
    target = owner.child_by_field_name("declarator") or owner.child_by_field_name("left") if owner else None
    return ctx.source.text(target.start_byte, target.end_byte) if target is not None else None


_THREAD_POSITION = re.compile(r"threadIdx\s*\.\s*[xyz]|__lane_id\s*\(\s*\)")
_POSITIONS = frozenset({VarClass.THREAD, VarClass.GLOBAL, VarClass.LANE})


def thread_stride(ctx: FileContext, node: tree_sitter.Node, hops: int = 4) -> int | None:
    """The factor the thread's position enters the value with: 4 in llama.cpp's
    `iqs = i0 % (4*QK8_1)` after `i0 = (blockDim.x*blockIdx.y + threadIdx.x)*4` (each thread
    quantises four values), where `iqs % 32` picks one thread in 8, not a lane of a warp. 1 for
    the position itself; None where it does not follow (a name bound twice, a product of two
    thread-dependent values, an operator other than `+ - * << %`, a modulus the stride does not divide)."""
    node = unparenthesized(node)
    text = ctx.source.text(node.start_byte, node.end_byte)
    if _THREAD_POSITION.fullmatch(text.strip()):
        return 1
    if node.type == "cast_expression":
        value = node.child_by_field_name("value")
        return thread_stride(ctx, value, hops) if value is not None else None
    if node.type == "identifier":
        return _bound_stride(ctx, node, text, hops)
    if node.type != "binary_expression":
        return None
    parts = binary_parts(node, ctx.source)
    if parts is None:
        return None
    left, operator, right = parts
    strides = [_stride_or_zero(ctx, side, hops) for side in (left, right)]
    if None in strides:
        return None
    if operator in ("+", "-"):
        moving = [stride for stride in strides if stride]
        return moving[0] if len(moving) == 1 else None
    if operator in ("*", "<<", "%"):
        return _scaled(ctx, operator, left, right, strides)
    return None


def _stride_or_zero(ctx: FileContext, node: tree_sitter.Node, hops: int) -> int | None:
    """0 for a side that reads no thread position (`blockDim.x*blockIdx.y`), else its stride."""
    if not _THREAD_POSITION.search(ctx.source.text(node.start_byte, node.end_byte)) and not (
        ctx.device.expression_classes(node) & _POSITIONS
    ):
        return 0
    return thread_stride(ctx, node, hops)


def _scaled(ctx: FileContext, operator: str, left, right, strides: list[int]) -> int | None:
    """`position * k` (either way round), `position << s`, `position % m` (m a multiple of the
    stride: the stride stays); None for two thread-dependent sides or an unknown constant."""
    if all(strides) or not any(strides):
        return None
    stride = strides[0] or strides[1]
    constant = right if strides[0] else left
    if operator != "*" and constant is left:
        return None  # `k << position`, `k % position`
    if operator == "%":
        # any modulus keeps a stride of 1 (`threadIdx.x % WIDTH`, whatever WIDTH's value: a port's
        # `% PORTER_WARP_SIZE` must read as the original's `% 32` did)
        return stride if stride == 1 or _multiple_of(ctx, constant, stride) else None
    factor = ctx.value_of(constant)
    if factor is None or factor <= 0:
        return None
    if operator == "*":
        return stride * factor
    return stride << factor if factor < 16 else None


def _multiple_of(ctx: FileContext, node: tree_sitter.Node, factor: int) -> bool:
    """Is the value a multiple of `factor`: known to be, or a product with such a side (`4*QK8_1`)?"""
    node = unparenthesized(node)
    value = ctx.value_of(node)
    if value is not None:
        return value > 0 and value % factor == 0
    parts = binary_parts(node, ctx.source) if node.type == "binary_expression" else None
    return (
        parts is not None and parts[1] == "*" and any(_multiple_of(ctx, side, factor) for side in (parts[0], parts[2]))
    )


def _bound_stride(ctx: FileContext, name_node: tree_sitter.Node, name: str, hops: int) -> int | None:
    """A name's stride: that of the one value its function binds it to."""
    if hops == 0:
        return None
    values = ctx.device.values_bound(ctx.device.function_of(name_node), name)
    return thread_stride(ctx, values[0], hops - 1) if len(values) == 1 else None


def is_lane_arithmetic(
    ctx: FileContext, node: tree_sitter.Node, left: tree_sitter.Node, operator: str, is_bitset=None
) -> bool:
    """`left` (with `operator`) makes a lane or warp id in warp-level code; `is_bitset` tells a
    bitset's word and bit arithmetic apart (a 32-bit bitset's, `_is_bitset_math`, by default)."""
    if not _warp_intent(ctx, node):
        return False
    classes = ctx.device.expression_classes(left)
    text = ctx.source.text(left.start_byte, left.end_byte)
    if operator in ("/", ">>") and (re.search(r"\bblockDim\s*\.\s*x\b", text) or _is_thread_count(ctx, left)):
        return True  # warps per block
    if not classes & {VarClass.THREAD, VarClass.GLOBAL, VarClass.LANE, VarClass.WARP}:
        return False
    stride = thread_stride(ctx, left) if classes & {VarClass.THREAD, VarClass.GLOBAL} else None
    if stride is not None and stride > 1:
        return False  # `% 32` of four values a thread: a group of 8 threads, not a warp's lanes
    if stride is None and classes & {VarClass.THREAD, VarClass.GLOBAL} and _scaled_at_run_time(ctx, left):
        return False  # `bit = k * bits_per_index; bit >> 5`: a bit's offset, whose word and bit these are
    is_bitset = is_bitset or _is_bitset_math
    return not (VarClass.GLOBAL in classes and not classes & {VarClass.LANE, VarClass.WARP} and is_bitset(ctx, node))


def _scaled_at_run_time(ctx: FileContext, node: tree_sitter.Node, hops: int = 2) -> bool:
    """Is the value (or the one value its function binds the name to) a product of a thread's
    position and a factor known only at run time, which reads no position (`within_group *
    bits_per_index`, gptqmodel's VPTQ unpacking)? Its step from one thread to the next is that
    factor, not 1: `>> 5` and `& 31` of it pick a 32-bit word and a bit, not a warp and a lane."""
    node = unparenthesized(node)
    if node.type == "identifier" and hops > 0:
        name = ctx.source.text(node.start_byte, node.end_byte)
        values = ctx.device.values_bound(ctx.device.function_of(node), name)
        return len(values) == 1 and _scaled_at_run_time(ctx, values[0], hops - 1)
    parts = binary_parts(node, ctx.source) if node.type == "binary_expression" else None
    if parts is None or parts[1] != "*":
        return False
    moving = [bool(ctx.device.expression_classes(side) & _POSITIONS) for side in (parts[0], parts[2])]
    if moving.count(True) != 1:
        return False
    factor = parts[2] if moving[0] else parts[0]
    return ctx.value_of(factor) is None and not _THREAD_POSITION.search(
        ctx.source.text(factor.start_byte, factor.end_byte)
    )


def _is_bitset_math(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """`bits[i >> 5] & (1u << (i & 31))`: a 32-bit bitset indexed by a global id, not a lane."""
    statement = enclosing(node, ("expression_statement", "declaration", "return_statement", "if_statement"))
    if statement is None:
        return False
    text = spelled(ctx, statement)
    text = IDENT.sub(lambda m: _bit_number(ctx, m.group()), text)  # `i % WORD` reads as `i % 32`
    return bool(re.search(r"1[uUlL]*<<\(?\w+(&31|%32)", text)) or bool(re.search(r"\[\w+(>>5|/32)\]", text))


def _bit_number(ctx: FileContext, name: str) -> str:
    value = ctx.shared_constants.get(name)
    return str(value) if value in (5, 31, 32) else name


def _replacement(ctx: FileContext, literal: tree_sitter.Node, operator: str, value: int) -> str:
    """The warp-size expression for a literal, keeping a floating-point literal floating-point."""
    replacement = ARITHMETIC[(operator, value)]
    floating = int_value(literal, ctx.source) is None and _float_literal(ctx, literal) is not None
    return f"((float){replacement})" if floating else replacement


def _float_literal(ctx: FileContext, node: tree_sitter.Node) -> float | None:
    if node.type != "number_literal":
        return None
    try:
        return float(ctx.source.text(node.start_byte, node.end_byte).rstrip("fFlL"))
    except ValueError:
        return None


def _counts_rows(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """`num_warps = (d + 31) / 32` where a block is `dim3 nthrs(32, num_warps)`: rows of 32 threads."""
    names = row_count_names(ctx)
    return bool(names) and _stored_name(ctx, node) in names


def _counts_blocks(ctx: FileContext, node: tree_sitter.Node, divisor: tree_sitter.Node) -> bool:
    """`(n + BS - 1) / BS` where the launches take their block from BS, or stored where they take
    their grid from (llama.cpp's `block_num_x`, in `dim3 block_nums(nrows, block_num_x, 1)`): the
    blocks of a grid, whose width the block's is, not the warps of a block."""
    divisor = unparenthesized(divisor)
    if divisor.type == "identifier" and ctx.source.text(divisor.start_byte, divisor.end_byte) in _launch_block_names(
        ctx
    ):
        return True
    return _stored_name(ctx, node) in _launch_grid_names(ctx)


def _counts_sibling_groups(ctx: FileContext, node: tree_sitter.Node, divisor: int) -> bool:
    """`attn_softmax<32, (threads / 32), 32>` beside `<16, (threads / 16), 16>` (DeepSpeed's softmax
    launches): the quotient is a template argument whose sibling argument is the divisor itself, a
    group width the kernel is given, so it counts groups of that width, whatever a warp is."""
    outer = node.parent
    while outer is not None and outer.type == "parenthesized_expression":
        node, outer = outer, outer.parent
    if outer is None or outer.type != "template_argument_list":
        return False
    siblings = [child for child in outer.named_children if child.id != node.id]
    return any(int_value(unparenthesized(child), ctx.source) == divisor for child in siblings)


def _divides_by_a_kernels_tile(ctx: FileContext, node: tree_sitter.Node, divisor: tree_sitter.Node) -> bool:
    """`NUM_WARPS = (CTA_M / WARP_M) * (CTA_N / WARP_N)` beside `gemm<CTA_M, CTA_N, …, WARP_N, …>`
    (AWQ's GEMM launcher, WARP_N = 32, in a function or a launch macro): the divisor is a constant
    handed to a kernel as a template argument, and the kernel takes that parameter for a shape (a
    warp's tile of 32 columns), never for its lanes: no shuffle's width, no `threadIdx.x % P` or
    `/ P`. The quotient counts tiles, whatever a warp is."""
    if divisor.type != "identifier":
        return False
    name = ctx.source.text(divisor.start_byte, divisor.end_byte)
    kernels = {short_name(f.name): f.node for f in ctx.device.functions if f.is_kernel and f.node is not None}
    parameters = []
    for kernel_name, arguments in _INSTANTIATION.findall(_launching_text(ctx, node)) if kernels else ():
        given = [argument.strip() for argument in arguments.split(",")]
        kernel = kernels.get(kernel_name)
        if kernel is not None and name in given:
            declared = template_parameter_names(ctx, kernel)
            at = given.index(name)
            parameters.append((kernel, declared[at] if at < len(declared) else None))
    return bool(parameters) and all(p is not None and not _lane_width_in(ctx, k, p) for k, p in parameters)


# `gemm_w4a16_T1<CTA_M, CTA_N, WARP_N>`: a template's name and its arguments, one level deep
_INSTANTIATION = re.compile(r"\b(\w+)\s*<([^<>;(){}]*)>")


def _launching_text(ctx: FileContext, node: tree_sitter.Node) -> str:
    """The function around the node, or the `#define` whose continued lines hold it."""
    function = ctx.device.function_of(node).node
    if function is not None:
        return ctx.source.text(function.start_byte, function.end_byte)
    data = ctx.source.data
    start = data.rfind(b"#define", 0, node.start_byte)
    end = start
    while start >= 0:
        newline = data.find(b"\n", end)
        line_end = newline if newline >= 0 else len(data)
        if not data[end:line_end].rstrip().endswith(b"\\") or newline < 0:
            return ctx.source.text(start, line_end) if line_end >= node.end_byte else ""
        end = newline + 1
    return ""


def _lane_width_in(ctx: FileContext, kernel: tree_sitter.Node, parameter: str) -> bool:
    """Does the kernel take `parameter` as a warp's width: a shuffle's width, a CUB warp
    collective's or a tile's (`WarpReduce<float, P>`, `tiled_partition<P>`), or the divisor of a
    thread position (`threadIdx.x % P`, `tid / P`)?"""
    for name, call in ctx.device.calls_inside(kernel):
        if name in SHUFFLE_CALLS:
            width = shuffle_operands(name, call)[1]
            if width is not None and ctx.source.text(width.start_byte, width.end_byte).strip() == parameter:
                return True
    tiles = _templates_given_width(ctx, {"tiled_partition": 0}) if b"tiled_partition" in ctx.source.data else []
    for arguments, width_at in [*_cub_collectives(ctx), *tiles]:
        given = [ctx.source.text(a.start_byte, a.end_byte).strip() for a in arguments.named_children]
        inside = kernel.start_byte <= arguments.start_byte < kernel.end_byte
        if inside and len(given) > width_at and given[width_at] == parameter:
            return True
    for binary in captures("(binary_expression) @b", kernel).get("b", []):
        parts = binary_parts(binary, ctx.source)
        divisor = unparenthesized(parts[2]) if parts is not None else None
        if (
            divisor is None
            or parts[1] not in ("%", "/")
            or ctx.source.text(divisor.start_byte, divisor.end_byte) != parameter
        ):
            continue
        if ctx.device.expression_classes(parts[0]) & _POSITIONS:
            return True
    return False


def _counts_threads(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """`threads = ((cols + 31) / 32) * 32`: the result is stored as a thread or warp count."""
    name = _stored_name(ctx, node)
    return name is not None and bool(THREAD_COUNT_NAME.search(name) or re.search(r"(?i)warps", name))


def _is_thread_count(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """A count of threads: named as one, or a value a launch in the file takes its block size from."""
    text = ctx.source.text(node.start_byte, node.end_byte)
    if "sizeof" in text:
        return False
    return bool(THREAD_COUNT_NAME.search(text)) or not _launch_block_names(ctx).isdisjoint(IDENT.findall(text))


# `dim3 block(threads, 1)`, `dim3 block = dim3(threads)`, `dim3 block{threads}`
# `(?<!\w)`, `\b` before a word, as a look-behind: patterns.finditer finds the match from `dim3`
_DIM3_DECLARATION = re.compile(rb"(?<!\w)dim3\s+(\w+)\s*(?:=\s*dim3\s*)?[({]([^;]*?)[)}]\s*;")


def _launch_block_names(ctx: FileContext) -> frozenset[str]:
    """The names the file's `<<<grid, block>>>` launches take their block size from, through a
    `dim3` variable too: a value stored there counts threads, whatever it is called."""
    return ctx.once("launch block names", lambda: _find_launch_names(ctx, 1))


def _launch_grid_names(ctx: FileContext) -> frozenset[str]:
    """The names the file's launches take their grid from as they stand (`<<<blocks, …>>>`, or a
    `dim3 grid(rows, blocks_x)` so given): a value stored there counts blocks. A name the grid is
    computed from (`(rows + per_block - 1) / per_block`) is not one."""
    return ctx.once("launch grid names", lambda: _find_launch_names(ctx, 0, whole=True))


def _find_launch_names(ctx: FileContext, argument: int, whole: bool = False) -> frozenset[str]:
    """The names in the launches' configuration argument (0: the grid, 1: the block), and in the
    `dim3` declarations of those names; with `whole`, only names that are a whole argument or
    a whole `dim3` component."""
    if b"<<<" not in ctx.source.data:
        return frozenset()
    names_in = _whole_names if whole else IDENT.findall
    names: set[str] = set()
    for launch in kernel_launches(ctx.parsed.root):
        if len(launch.arguments) > argument:
            given = launch.arguments[argument]
            names |= set(names_in(ctx.source.text(given.start_byte, given.end_byte)))
    for match in finditer(_DIM3_DECLARATION, ctx.source.data):
        if match.group(1).decode() in names:
            names |= set(names_in(match.group(2).decode("utf-8", "replace")))
    return frozenset(names - {"dim3"})


def _whole_names(text: str) -> list[str]:
    """The comma-separated parts of `text` that are one name each (`dim3(rows, blocks_x, 1)`: both)."""
    inner = re.sub(r"^\s*dim3\s*[({]|[)}]\s*$", "", text)
    return [part.strip() for part in inner.split(",") if IDENT.fullmatch(part.strip())]


# -- WRP008 / WRP010: host uses of a warp width, guards ---------------------------------------


def _host_uses(ctx: FileContext, warp_names: set[str]) -> Iterable[Finding]:
    """`<<<blocks, WarpsPerBlock * WS>>>`, `smem = warps * WS`: host sizing from a device warp width.

    The kernel's own uses of the constant are fixed to the per-architecture width; the host
    must then size with the width of the device it launches on.
    """
    if not warp_names:
        return
    for parent, left, _, right in ctx.device.binaries(("*", "/")):
        for node in (left, right):
            name = ctx.source.text(node.start_byte, node.end_byte)
            if node.type != "identifier" or name not in warp_names:
                continue
            if ctx.device.is_device_code(node) or enclosing(node, ("static_assert_declaration",)):
                continue
            if _reads_thread_builtins(ctx, parent):
                continue  # `threadIdx.x / WS` in a member initialiser: device code outside a device function
            message = f"`{short_text(ctx, parent)}`: the host sizes with the 32 the kernel uses as its warp width"
            # `<<<n, kWarps * kWarp>>>` with both 32 (a launcher's own constants too): at 64 the block
            # would hold 2048 threads and the launch fail, where the original ran
            limit = _block_limits(ctx).get(name)
            yield HOST_WARPS_PER_BLOCK.finding(
                ctx, node.start_byte, node.end_byte, message + (f"; but {limit}" if limit else ""),
                edits=_literal_edit(ctx, node, _host_warp_size(ctx, node)),
                fix=FixKind.MANUAL if limit else FixKind.AUTO,
            )  # fmt: skip


def _block_limits(ctx: FileContext) -> dict[str, str]:
    """block_limits.widened_blocks, once per file."""
    return ctx.once("block limits", lambda: widened_blocks(ctx))


_WARP_SIZE_SOURCE = re.compile(r"(?:\.|->)\s*warpSize\b|\bwarpSize\b|DevAttrWarpSize|DeviceAttributeWarpSize")


def _guards(ctx: FileContext, warp_names: set[str]) -> Iterable[Finding]:
    """`if (warp_size != 32)`, `static_assert(WS == 32)`: comparisons of a warp size with 32."""
    if b"32" not in ctx.source.data:
        return
    for node, left, _, right in ctx.device.binaries(("==", "!=")):
        if int_value(right, ctx.source) != 32:
            continue
        if (
            not enclosing(
                node, ("if_statement", "static_assert_declaration", "conditional_expression", "while_statement")
            )
            and enclosing(node, ("argument_list",)) is None
        ):
            continue
        guard = WARP_SIZE_GUARD.finding(
            ctx,
            node.start_byte,
            node.end_byte,
            f"`{short_text(ctx, node)}`: the code this guards was written for 32-lane warps",
        )
        if _is_warp_size(ctx, left, warp_names):
            yield guard
        elif left.type == "identifier" and ctx.value_of(left) == 32:
            # `static_assert(WS == 32)` on a constant: a guard if some file uses WS as the warp width
            name = ctx.source.text(left.start_byte, left.end_byte)
            ctx.project.pending.append((_constant_key(ctx, name, left.start_byte), guard))


def _is_warp_size(ctx: FileContext, node: tree_sitter.Node, warp_names: set[str]) -> bool:
    text = ctx.source.text(node.start_byte, node.end_byte)
    if _WARP_SIZE_SOURCE.search(text):
        return True
    if node.type != "identifier":
        return False
    if text in warp_names:
        return True
    # a variable filled from the device: `ws = prop.warpSize`, `cudaDeviceGetAttribute(&ws, cudaDevAttrWarpSize, d)`
    if b"arpSize" not in ctx.source.data:
        return False  # neither form without `warpSize` or `…WarpSize`: no need to look per name
    # answered once per name: a file of many warp guards asked it for each, a search of the file each time
    answers = ctx.once("names filled from the device", dict)
    if text not in answers:
        answers[text] = _filled_from_device(ctx.source.data, text)
    return answers[text]


def _filled_from_device(data: bytes, text: str) -> bool:
    name = re.escape(text.encode())
    # `\b` as a look-behind: patterns.search then finds the name by a literal scan, where a leading
    # `\b` kept the regex engine trying every byte (15x slower over a 5 MB file)
    assigned = b"warpSize" in data and search(re.compile(rb"(?<!\w)" + name + rb"\s*=\s*[^;]*warpSize\b"), data)
    return bool(
        assigned
        or (b"DevAttrWarpSize" in data or b"DeviceAttributeWarpSize" in data)
        and re.search(rb"&\s*" + name + rb"\s*,\s*\w*(DevAttrWarpSize|DeviceAttributeWarpSize)", data)
    )


# -- WRP002 / WRP004: shuffles -------------------------------------------------------------


def _shuffles(ctx: FileContext) -> Iterable[Finding]:
    facts = ctx.device
    for calls in facts.shuffles_by_function.values():
        literal_offsets = []
        for call in calls:
            name = ctx.source.text(
                call.child_by_field_name("function").start_byte, call.child_by_field_name("function").end_byte
            )
            lane, width = shuffle_operands(name, call)
            if warp_value(ctx, width) == 32 and not _logical_width(ctx, width):
                yield SHUFFLE_WIDTH.finding(
                    ctx, width.start_byte, width.end_byte, f"`{name}` with width 32 splits a 64-lane wavefront in two",
                    edits=_literal_edit(ctx, width, portable.WARP_SIZE),
                )  # fmt: skip
            value = int_value(lane, ctx.source)
            if value is not None:
                literal_offsets.append((name, lane, value))
        widest = max(
            (v for n, _, v in literal_offsets if n.startswith(("__shfl_xor", "__shfl_down", "__shfl_up"))), default=0
        )
        for index, (name, lane, value) in enumerate(literal_offsets):
            if half_wave_guard(ctx, lane) is not None:
                continue  # threads 0-31 alone: offsets below 32 stay among them, as on NVIDIA
            if value == 16 and widest == 16 and name.startswith(("__shfl_xor", "__shfl_down")):
                following = next((entry for entry in literal_offsets[index + 1 :] if entry[0] == name), None)
                yield _unrolled_first_step(ctx, name, lane, following)
            elif value == 31 and name in ("__shfl_sync", "__shfl"):
                yield SHUFFLE_OFFSET.finding(
                    ctx, lane.start_byte, lane.end_byte, "lane 31 is not the last lane of a 64-wide wavefront",
                    edits=_literal_edit(ctx, lane, f"({portable.WARP_SIZE} - 1)"),
                )  # fmt: skip


_WIDER_STEPS = f"for (int porter_offset = {portable.WARP_SIZE} / 2; porter_offset >= 16; porter_offset /= 2)"


def _unrolled_first_step(ctx: FileContext, name: str, lane: tree_sitter.Node, following) -> Finding:
    """The finding on an unrolled butterfly's first step, `v += __shfl_xor_sync(m, v, 16);`, where
    `following` is the (name, offset node, value) of the function's next shuffle of that name.

    On wave64 the network needs a step of 32 before the 16, not in its place: steps 32, 8, 4, 2, 1
    never combine lanes that differ only in bit 4. Where the step folds its own operand back into
    itself (`v += …(v, 16)`, `v = fmaxf(v, …(v, 16))`) and the step of 8 follows it in the same
    block, repeating it is the wider network, so the fix runs it for offsets from half the
    wavefront down to 16 (32 and 16 on wave64, 16 alone on 32 lanes). Any other shape is left to
    a person: an exchange (`tmp = __shfl_xor_sync(m, x, 16)`, a swizzle's or a rotation's pair), a
    lone step, or steps that branch (flashinfer's Mamba update takes its 8 under `if constexpr`)."""
    message = f"butterfly starts at offset 16: on wave64 `{name}` then combines only half the wavefront"
    statement = _self_folding_statement(ctx, name, lane)
    after = _self_folding_statement(ctx, name, following[1]) if following and following[2] == 8 else None
    if statement is None or after is None or after.parent != statement.parent:
        return SHUFFLE_OFFSET.finding(
            ctx, lane.start_byte, lane.end_byte,
            f"{message}; if it reduces the wavefront, add a step of 32 before it where {portable.WARP_SIZE} > 32",
            fix=FixKind.MANUAL,
        )  # fmt: skip
    line_start = ctx.source.data.rfind(b"\n", 0, statement.start_byte) + 1
    indent = ctx.source.data[line_start : statement.start_byte]
    separator = b"\n" + indent + b"  " if not indent.strip() else b" "
    edits = (
        Edit(statement.start_byte, statement.start_byte, _WIDER_STEPS.encode() + separator),
        Edit(lane.start_byte, lane.end_byte, b"porter_offset"),
    )
    return SHUFFLE_OFFSET.finding(ctx, lane.start_byte, lane.end_byte, message, edits=edits)


def _self_folding_statement(ctx: FileContext, name: str, lane: tree_sitter.Node) -> tree_sitter.Node | None:
    """The expression statement `v op= …shuffle(v, …)…;` or `v = f(v, …shuffle(v, …)…);` whose
    shuffle takes `lane` and whose target is the shuffled value, or None."""
    call = lane.parent.parent if lane.parent is not None else None
    if call is None or call.type != "call_expression":
        return None
    arguments = call_arguments(call)
    value = arguments[1 if name.endswith("_sync") else 0] if len(arguments) > 1 else None
    node = call
    while node.parent is not None and node.parent.type in _INSIDE_A_STEP:
        node = node.parent
    statement = node.parent
    if value is None or node.type != "assignment_expression" or statement is None:
        return None
    target = node.child_by_field_name("left")
    if statement.type != "expression_statement" or target is None:
        return None
    return statement if spelled(ctx, target) == spelled(ctx, value) else None


# what lies between a step's shuffle and its assignment: `v = fmaxf(v, (float)__shfl_xor(v, 16))`
_INSIDE_A_STEP = (
    "binary_expression", "parenthesized_expression", "cast_expression", "argument_list", "call_expression",
    "assignment_expression",
)  # fmt: skip


def _lane_loops(ctx: FileContext) -> Iterable[Finding]:
    for loop in captures("(for_statement) @f", ctx.parsed.root).get("f", []):
        parts = for_parts(ctx, loop)
        if parts is None or not ctx.device.is_device_code(loop):
            continue
        counter, start, condition, body = parts
        guard = half_wave_guard(ctx, loop)
        if guard is not None:
            yield from _wide_ladder_under_guard(ctx, loop, counter, start, guard)
            continue  # threads 0-31 alone: a loop over 32 lanes covers them, as on NVIDIA
        stride = _lane_stride(ctx, loop, counter, start)
        if stride is not None:
            yield LANE_LOOP.finding(
                ctx, stride.start_byte, stride.end_byte,
                f"`{counter}` starts at a lane id and steps by {_stride_words(ctx, loop, counter, stride)}: on wave64 lanes 32-63 repeat the elements of lanes 0-31",
                edits=_literal_edit(ctx, stride, portable.WARP_SIZE),
            )  # fmt: skip
            continue
        if _shuffles_within_logical_warp(ctx, loop):
            continue  # every shuffle of the loop given the project's logical warp as its width
        start_value = warp_value(ctx, start)
        if (
            start_value == 16
            and shuffle_uses(ctx, loop, counter)
            and not _partial_butterfly(ctx, loop, condition, counter)
        ):
            yield SHUFFLE_OFFSET.finding(
                ctx, start.start_byte, start.end_byte,
                f"shuffle ladder starts at `{counter} = 16`: on wave64 it reduces each half-wavefront separately",
                edits=_literal_edit(ctx, start, f"({portable.WARP_SIZE} / 2)"),
            )  # fmt: skip
            continue
        bound = upper_bound(ctx, condition, counter)
        limit = warp_value(ctx, bound) if bound is not None else None
        inclusive = (
            condition.child_by_field_name("operator") is not None
            and ctx.source.text(
                condition.child_by_field_name("operator").start_byte, condition.child_by_field_name("operator").end_byte
            )
            == "<="
        )
        exponent_top = _exponent_ladder_top(ctx, loop, counter, start, bound, inclusive)
        if exponent_top is not None:
            yield _replaced(
                SHUFFLE_OFFSET, ctx, bound,
                f"shuffle ladder `1 << {counter}` stops at offset 16: lanes 32-63 of a wave64 wavefront are never reached",
                exponent_top,
            )  # fmt: skip
            continue
        # `< 32`, or `<= 16` in a doubling ladder (1, 2, 4, 8, 16): both stop short of 64 lanes
        ladder_top = inclusive and limit == 16 and start_value == 1
        if limit != 32 and not ladder_top:
            continue
        if shuffle_uses(ctx, loop, counter) or _compares_with_lane(ctx, body, counter):
            rule = SHUFFLE_OFFSET if start_value == 1 else LANE_LOOP
            replacement = f"({portable.WARP_SIZE} / 2)" if ladder_top else portable.WARP_SIZE
            yield rule.finding(
                ctx, bound.start_byte, bound.end_byte,
                "loop over lanes stops short of lane 63: lanes 32-63 of a wave64 wavefront are never reached",
                edits=_literal_edit(ctx, bound, replacement),
            )  # fmt: skip


def _exponent_ladder_top(ctx: FileContext, loop, counter: str, start, bound, inclusive: bool) -> str | None:
    """The bound's replacement where the loop counts a shuffle ladder's exponent from 0 to that of
    16 (`for (step = 0; step < 5; step++)` around `__shfl_up_sync(mask, v, 1 << step)`, flashinfer's
    generated MoE scans): the offsets 1-16 of a 32-lane warp. None for any other loop."""
    if bound is None or ctx.value_of(start) != 0 or ctx.value_of(bound) != (4 if inclusive else 5):
        return None
    if not _shuffles_by_power(ctx, loop, counter):
        return None
    return f"({portable.LOG2_WARP_SIZE} - 1)" if inclusive else portable.LOG2_WARP_SIZE


def _shuffles_by_power(ctx: FileContext, loop: tree_sitter.Node, counter: str) -> bool:
    """Does a shuffle in the loop take `1 << counter` as its offset or lane?"""
    power = re.compile(rf"\(*\s*1[uU]?\s*<<\s*\(*\s*{re.escape(counter)}\s*\)*")
    lanes = _shuffle_lane_operands(ctx, _loop_parts(loop), wrappers=False)
    return any(power.fullmatch(ctx.source.text(lane.start_byte, lane.end_byte).strip()) for lane in lanes)


def half_wave_guard(ctx: FileContext, node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `32` of an `if (tid < 32)` whose consequence holds the node, `tid` built on threadIdx
    (not a lane id): threads 0-31, the first half of a 64-lane wavefront."""
    for left, operator, right in _guarding_comparisons(ctx, node, ("if_statement",)):
        if (operator, warp_value(ctx, right)) not in (("<", 32), ("<=", 31)):
            continue
        classes = ctx.device.expression_classes(left)
        if VarClass.THREAD in classes and not classes & {VarClass.LANE, VarClass.WARP}:
            return right
    return None


# a ladder's first offset that follows the warp width: `warpSize / 2`, `WARP_SIZE >> 1`
_WIDTH_GENERIC_START = re.compile(r"warp|wave", re.I)


def _wide_ladder_under_guard(ctx: FileContext, loop, counter: str, start, guard) -> Iterable[Finding]:
    if not shuffle_uses(ctx, loop, counter):
        return
    start_text = ctx.source.text(start.start_byte, start.end_byte)
    if ctx.value_of(start) is not None or not _WIDTH_GENERIC_START.search(start_text):
        return
    yield HALF_WAVE_GUARD.finding(
        ctx, guard.start_byte, guard.end_byte,
        f"`< 32` keeps half of a 64-lane wavefront, and the ladder from `{counter} = {start_text}` reads lanes 32-63",
        edits=_literal_edit(ctx, guard, portable.WARP_SIZE),
    )  # fmt: skip


def _lane_stride(ctx: FileContext, loop, counter: str, start) -> tree_sitter.Node | None:
    """The `32` of `for (c = lane; ...; c += 32)`, where the start is a lane id by dataflow."""
    step = loop_step(ctx, loop, counter)
    if step is None:
        return None
    if warp_value(ctx, step) == 32 and starts_at_lane(ctx, start):
        return step
    return _lanes_of_scaled_step(ctx, unparenthesized(step), start)


def _stride_words(ctx: FileContext, loop, counter: str, stride: tree_sitter.Node) -> str:
    """`32`, or `32 * V`, 32 lanes' chunks, as the loop writes its step."""
    step = loop_step(ctx, loop, counter)
    return "32" if step is None or step == stride else f"`{short_text(ctx, step)}`, 32 lanes' chunks"


def _lanes_of_scaled_step(ctx: FileContext, step: tree_sitter.Node, start: tree_sitter.Node) -> tree_sitter.Node | None:
    """The `32` of `for (c = lane * V; ...; c += 32 * V)`: each lane takes V consecutive elements,
    the warp 32 * V of them a step (bitsandbytes' GEMV, `warp_lane * num_values_4bit` stepping by
    `32 * num_values_4bit`). Widened lanes with the 32 kept start lanes 32-63 on the elements
    lanes 0-31 take a step later. V is matched as written, on both sides."""
    factors = binary_parts(step, ctx.source) if step.type == "binary_expression" else None
    scale = _lane_scale(ctx, unparenthesized(start))
    if factors is None or factors[1] != "*" or scale is None:
        return None
    for count, other in ((factors[0], factors[2]), (factors[2], factors[0])):
        if warp_value(ctx, count) == 32 and spelled(ctx, other) == scale:
            return count
    return None


def _lane_scale(ctx: FileContext, start: tree_sitter.Node) -> str | None:
    """V, as written, of a loop start `lane * V` (either order), or of `base + lane * V`."""
    parts = binary_parts(start, ctx.source) if start.type == "binary_expression" else None
    if parts is None:
        return None
    left, operator, right = parts
    if operator == "+":
        return _lane_scale(ctx, unparenthesized(left)) or _lane_scale(ctx, unparenthesized(right))
    if operator != "*":
        return None
    for lane, scale in ((left, right), (right, left)):
        if VarClass.LANE in ctx.device.expression_classes(unparenthesized(lane)):
            return spelled(ctx, scale)
    return None


def starts_at_lane(ctx: FileContext, start: tree_sitter.Node) -> bool:
    """A lane id by dataflow, or a base plus one (`row_start + lane`): each lane's first element."""
    start = unparenthesized(start)
    if VarClass.LANE in ctx.device.expression_classes(start):
        return True
    parts = binary_parts(start, ctx.source) if start.type == "binary_expression" else None
    return parts is not None and parts[1] == "+" and any(starts_at_lane(ctx, side) for side in (parts[0], parts[2]))


def upper_bound(ctx: FileContext, condition: tree_sitter.Node, counter: str) -> tree_sitter.Node | None:
    parts = binary_parts(condition, ctx.source) if condition.type == "binary_expression" else None
    if parts is None:
        return None
    left, operator, right = parts
    if operator in ("<", "<=") and ctx.source.text(left.start_byte, left.end_byte) == counter:
        return right
    return None


# a shuffle, or a project's wrapper of one (`math::shfl_xor_sync(v, offset)`, `warp_shuffle_down`)
_SHUFFLE_LIKE = re.compile(r"(?i)shfl|shuffle")
_SHUFFLE_LIKE_BYTES = re.compile(rb"(?i)shfl|shuffle")  # on the file's bytes: no text decoded per loop


def shuffle_uses(ctx: FileContext, loop: tree_sitter.Node, counter: str) -> bool:
    """Does a shuffle in the loop take the counter as its lane or offset?"""
    return any(_shuffle_uses_in(ctx, part, counter) for part in _loop_parts(loop))


def _loop_parts(loop: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The loop, and the conditional that holds its body when the platforms' bodies differ:
    `for (…)` / `#ifdef USE_ROCM` / `v += __shfl_down(v, o);` / `#else` / … parses as a loop with
    an empty body followed by the conditional."""
    body = loop.child_by_field_name("body")
    after = loop.next_sibling
    if body is not None and body.start_byte == body.end_byte and after is not None and after.type in _CONDITIONALS:
        return [loop, after]
    return [loop]


_CONDITIONALS = ("preproc_ifdef", "preproc_if")


_NETWORK_SIZED = frozenset({LANE_ARITHMETIC.id, SHUFFLE_OFFSET.id, LANE_LOOP.id})


def _lane_networks(ctx: FileContext) -> list[tree_sitter.Node]:
    """The file's functions that run a 32-lane network (_is_lane_network), and those that call one:
    a Hadamard transform or a sorting network whose size is its data's (exllamav3's 128-value
    transform: 32 lanes x 4), not the warp's. On wave64 each half-wavefront runs its own network, as
    a warp does on NVIDIA: right as written, where widening the network's 32s (and the callers' lane
    math that feeds it) would transform twice the data as one."""

    def find() -> list[tree_sitter.Node]:
        if b"__shfl_xor" not in ctx.source.data:
            return []
        networks: dict[int, tree_sitter.Node] = {}
        for loop in captures("(for_statement) @f", ctx.parsed.root).get("f", []):
            if not _shuffles_only_by_xor(ctx, loop):
                continue  # most loops: no shuffle at all, found by a binary search over the file's calls
            parts = for_parts(ctx, loop)
            function = ctx.device.function_of(loop).node
            if parts is not None and function is not None and _is_lane_network(ctx, loop, parts[0]):
                networks[function.id] = function
        names = {
            short_name(info.name) for info in ctx.device.functions if info.node is not None and info.node.id in networks
        }
        for info in ctx.device.functions if names else ():
            if info.node is not None and any(
                short_name(name) in names for name, _ in ctx.device.calls_inside(info.node)
            ):
                networks.setdefault(info.node.id, info.node)
        return list(networks.values())

    return ctx.once("lane networks", find)


def _network_key(name: str) -> str:
    return f"lane-network:{short_name(name)}"


def _record_network_roles(ctx: FileContext, uses: list[Finding]) -> None:
    """Across files (porter.rules.project): the file's 32-lane networks and their callers are claimed
    by name; a use of 32 whose value feeds a call to a function the file does not define gives way,
    where that function is a network of the project's (a header's Hadamard transform called from a
    GEMM kernel's `threadIdx.x / 32` loop over 128-value chunks), to the same use suggested, not
    fixed: its 32 counts the network's lane groups, as the network's own 32s do."""
    networks = {node.id for node in _lane_networks(ctx)}
    for info in ctx.device.functions if networks else ():
        if info.node is not None and info.node.id in networks:
            ctx.project.claims.add(_network_key(info.name))
    for finding in uses:
        if finding.rule not in _NETWORK_SIZED or finding.fix is not FixKind.AUTO:
            continue
        for callee in _outside_calls_fed(ctx, finding.span.start_byte):
            key = _network_key(callee)
            ctx.project.withdrawals.append((key, finding.rule, finding.span.start_byte, finding.span.end_byte))
            ctx.project.pending.append((key, _fed_to_network(finding, callee)))


def _fed_to_network(finding: Finding, callee: str) -> Finding:
    return dataclasses.replace(
        finding,
        fix=FixKind.SUGGESTED,
        message=f"{finding.message}; but it feeds `{short_name(callee)}`, a 32-lane network of the project (xor shuffles combined by the lane's bit of the offset) that each half of a wave64 wavefront runs on its own as written: its 32 counts the network's lane groups, widen it only with the network and the data it transforms",
    )


def _outside_calls_fed(ctx: FileContext, at: int) -> list[str]:
    """The functions, defined outside the file, whose calls the lane math at `at` feeds: through a
    call's arguments or the header of a loop around it (the loop that hands each group its chunk)."""
    flow = _lane_flow(ctx, at)
    if flow is None:
        return []
    return sorted({callee for callee, region in _outside_calls(ctx, flow.function) if flow.reaches(region)})


def _outside_calls(ctx: FileContext, function) -> list[tuple[str, _Region]]:
    """(callee, region) of each call the function makes to a function the file does not define: the
    region is the call's arguments and the headers of the loops around it, with the names they read."""

    def find() -> list[tuple[str, _Region]]:
        defined = ctx.once("defined function names", lambda: {short_name(i.name) for i in ctx.device.functions})
        loops: dict[int, frozenset[str]] = {}  # a loop's header names, read once for the calls it holds
        found = []
        for name, call in ctx.device.calls_inside(function.node):
            callee = short_name(name)
            arguments = call.child_by_field_name("arguments")
            if not callee or callee.startswith("__") or callee in defined or arguments is None:
                continue  # `__` names are CUDA's own (the shuffles among them), never a project's network
            names = set(IDENT.findall(ctx.source.text(arguments.start_byte, arguments.end_byte)))
            for loop in _loops_around(call, function.node):
                if loop.id not in loops:
                    loops[loop.id] = frozenset(_header_names(ctx, loop))
                names |= loops[loop.id]
            found.append((callee, _Region(arguments.start_byte, arguments.end_byte, frozenset(names))))
        return found

    return ctx.once(f"outside calls {function.node.id}", find)


def _loops_around(node: tree_sitter.Node, function: tree_sitter.Node) -> Iterable[tree_sitter.Node]:
    loop = enclosing(node, ("for_statement", "while_statement"))
    while loop is not None and function.start_byte <= loop.start_byte:
        yield loop
        loop = enclosing(loop, ("for_statement", "while_statement"))


def _header_names(ctx: FileContext, loop: tree_sitter.Node) -> set[str]:
    body = loop.child_by_field_name("body")
    end = body.start_byte if body is not None else loop.end_byte
    return set(IDENT.findall(ctx.source.text(loop.start_byte, end)))


@dataclasses.dataclass(frozen=True)
class _Region:
    """Code a value may flow into, and the names it reads."""

    start: int
    end: int
    names: frozenset[str]

    @classmethod
    def of(cls, ctx: FileContext, node: tree_sitter.Node) -> _Region:
        text = ctx.source.text(node.start_byte, node.end_byte)
        return cls(node.start_byte, node.end_byte, frozenset(IDENT.findall(text)))


@dataclasses.dataclass(frozen=True)
class _LaneFlow:
    """Where the value of the lane math at `at` goes within its function: the name it is bound
    to and the names bound from those, visible within the block of its binding (a name two
    blocks each declare is two variables)."""

    function: FunctionInfo
    at: int
    names: frozenset[str]
    block: tuple[int, int]

    def reaches(self, region: _Region) -> bool:
        if region.start <= self.at < region.end:
            return True
        return self.block[0] <= region.start < self.block[1] and not self.names.isdisjoint(region.names)


def _lane_flow(ctx: FileContext, at: int) -> _LaneFlow | None:
    def find() -> _LaneFlow | None:
        node = ctx.parsed.root.descendant_for_byte_range(at, at + 1)
        function = ctx.device.function_of(node) if node is not None else None
        if function is None or function.node is None:
            return None
        name, binding = _bound_name(ctx, node)
        if name is None:
            return _LaneFlow(function, at, frozenset(), (at, at))
        readers = ctx.device.readers(function)
        reached, pending = {name}, [name]
        while pending:
            for reader in readers.get(pending.pop(), ()):
                if reader not in reached:
                    reached.add(reader)
                    pending.append(reader)
        block = enclosing(binding, ("compound_statement",)) or function.node
        return _LaneFlow(function, at, frozenset(reached), (block.start_byte, block.end_byte))

    return ctx.once(f"lane flow {at}", find)


_STATEMENTS = frozenset({
    "expression_statement", "compound_statement", "for_statement", "if_statement", "while_statement",
    "return_statement", "function_definition",
})  # fmt: skip


# the (name, value) fields of a binding: `int w = v`, `w = v`
_BINDING_FIELDS = {"init_declarator": ("declarator", "value"), "assignment_expression": ("left", "right")}


def _bound_name(ctx: FileContext, node: tree_sitter.Node) -> tuple[str | None, tree_sitter.Node | None]:
    """The variable whose initialiser or plain assignment holds `node`, and that binding."""
    child, parent = node, node.parent
    while parent is not None and parent.type not in _STATEMENTS:
        fields = _BINDING_FIELDS.get(parent.type)
        if fields is not None:
            target, value = (parent.child_by_field_name(field) for field in fields)
            if target is not None and target.type == "identifier" and value is not None and value.id == child.id:
                return ctx.source.text(target.start_byte, target.end_byte), parent
        child, parent = parent, parent.parent
    return None, None


def _shuffles_only_by_xor(ctx: FileContext, loop: tree_sitter.Node) -> bool:
    shuffles = [
        name for part in _loop_parts(loop) for name, _ in ctx.device.calls_inside(part) if name in SHUFFLE_CALLS
    ]
    return bool(shuffles) and all(name.startswith("__shfl_xor") for name in shuffles)


def _is_lane_network(ctx: FileContext, loop: tree_sitter.Node, counter: str) -> bool:
    """A loop of xor shuffles (_shuffles_only_by_xor) by its counter whose lanes combine what they
    receive by their own bit of the offset (`lane_id & i`): each lane keeps a different result (a butterfly, a bitonic step),
    not the warp's one sum of a reduction."""
    if not shuffle_uses(ctx, loop, counter):
        return False
    ands = ctx.once("bitwise ands", lambda: ctx.device.binaries(("&",)))  # in source order
    starts = ctx.once("bitwise and starts", lambda: [item[0].start_byte for item in ands])
    for part in _loop_parts(loop):
        low, high = bisect.bisect_left(starts, part.start_byte), bisect.bisect_left(starts, part.end_byte)
        for _, left, _, right in ands[low:high]:
            for mine, other in ((left, right), (right, left)):
                if ctx.source.text(mine.start_byte, mine.end_byte) == counter and lane_valued(ctx, other):
                    return True
    return False


def _partial_butterfly(ctx: FileContext, loop: tree_sitter.Node, condition: tree_sitter.Node, counter: str) -> bool:
    """A butterfly that stops above offset 1 (`offset >= 4`): it combines the lanes of a group
    spread over the warp (ggml: "values per column are spread across 8 threads"), not the warp,
    and its offsets below 32 keep each lane within its own half of a 64-lane wavefront, as meant."""
    parts = binary_parts(condition, ctx.source) if condition.type == "binary_expression" else None
    if parts is None or ctx.source.text(parts[0].start_byte, parts[0].end_byte) != counter:
        return False
    stop = int_value(parts[2], ctx.source)
    if stop is None or not ((parts[1] == ">=" and stop >= 2) or (parts[1] == ">" and stop >= 1)):
        return False
    names = [name for part in _loop_parts(loop) for name, _ in ctx.device.calls_inside(part) if name in SHUFFLE_CALLS]
    return bool(names) and all(name.startswith("__shfl_xor") for name in names)


def _logical_width(ctx: FileContext, width: tree_sitter.Node | None) -> bool:
    """A shuffle's width that is the project's logical warp: one of its names, or 32 written out
    in a project that keeps a warp of 32 on purpose (logical_warp)."""
    names = logical_names(ctx)
    if not names or width is None:
        return False
    text = re.sub(r"[\s()]", "", ctx.source.text(width.start_byte, width.end_byte))
    if text in names:
        return True
    # 32 written out, in a file that works with the logical warp: the same width
    return text == "32" and ctx.once("mentions logical warp", lambda: mentions_any(ctx.source.data, names))


def _shuffles_within_logical_warp(ctx: FileContext, loop: tree_sitter.Node) -> bool:
    """Does every shuffle in the loop take the logical warp as its width? A ladder or a loop over
    lanes then works within 32-lane groups, as on NVIDIA, whatever the wavefront."""
    if not logical_names(ctx):
        return False
    shuffles = [
        (name, call)
        for part in _loop_parts(loop)
        for name, call in ctx.device.calls_inside(part)
        if name in SHUFFLE_CALLS
    ]
    return bool(shuffles) and all(_logical_width(ctx, shuffle_operands(name, call)[1]) for name, call in shuffles)


def _shuffle_uses_in(ctx: FileContext, loop: tree_sitter.Node, counter: str) -> bool:
    if not _SHUFFLE_LIKE_BYTES.search(ctx.source.data, loop.start_byte, loop.end_byte):
        return False  # no shuffle's name in the loop's text: no call to look at
    mentions_counter = re.compile(rf"\b{re.escape(counter)}\b")
    operands = _shuffle_lane_operands(ctx, [loop], wrappers=True)
    return any(mentions_counter.search(ctx.source.text(o.start_byte, o.end_byte)) for o in operands)


def _shuffle_lane_operands(ctx: FileContext, parts, wrappers: bool) -> Iterable[tree_sitter.Node]:
    """The lane or offset operand of each shuffle in `parts`, and with `wrappers` every operand but
    the first of a call whose name says it shuffles (a wrapper's value comes first, its lane or
    offset after; a group's member, `tile.shfl_down(v, i)`, shuffles within the group's width, not
    the warp's, and is left out)."""
    for part in parts:
        for name, call in ctx.device.calls_inside(part):
            if name in SHUFFLE_CALLS:
                lane, _ = shuffle_operands(name, call)
                if lane is not None:
                    yield lane
            elif (
                wrappers
                and _SHUFFLE_LIKE.search(name)
                and call.child_by_field_name("function").type != "field_expression"
            ):
                yield from call_arguments(call)[1:]


def _compares_with_lane(ctx: FileContext, body: tree_sitter.Node | None, counter: str) -> bool:
    if body is None:
        return False
    for node in captures("(binary_expression) @b", body).get("b", []):
        parts = binary_parts(node, ctx.source)
        if parts is None or parts[1] not in ("==", "!="):
            continue
        names = {ctx.source.text(n.start_byte, n.end_byte) for n in (parts[0], parts[2])}
        if counter in names:
            other = parts[2] if ctx.source.text(parts[0].start_byte, parts[0].end_byte) == counter else parts[0]
            if VarClass.LANE in ctx.device.expression_classes(other):
                return True
    return False


# -- WRP003: shared arrays -----------------------------------------------------------------


def shared_arrays(ctx: FileContext) -> Iterator[tuple[tree_sitter.Node, tree_sitter.Node, tree_sitter.Node, str]]:
    """Each `__shared__` array the file declares by a plain name: (declaration, array declarator,
    size, name)."""
    for declaration in captures("(declaration) @d", ctx.parsed.root).get("d", []):
        if b"__shared__" not in ctx.source.data[declaration.start_byte : declaration.end_byte]:
            continue
        for array in captures("(array_declarator) @a", declaration).get("a", []):
            size = array.child_by_field_name("size")
            name_node = array.child_by_field_name("declarator")
            if size is not None and name_node is not None and name_node.type == "identifier":
                yield declaration, array, size, ctx.source.text(name_node.start_byte, name_node.end_byte)


def at_warp_ids(ctx: FileContext, indices: list[tree_sitter.Node]) -> bool:
    """Are there indices, each a warp id (an array's writes: one slot per warp)?"""
    return bool(indices) and all(VarClass.WARP in ctx.device.expression_classes(index) for index in indices)


def _shared_arrays(ctx: FileContext) -> Iterable[Finding]:
    for declaration, array, size, name in shared_arrays(ctx):
        size_text = spelled(ctx, size)
        divisor = _per_warp_divisor(ctx, size)
        if divisor is not None:
            yield PER_WARP_SHARED.finding(
                ctx, divisor.start_byte, divisor.end_byte, f"`{name}[{size_text}]` has one slot per 32-thread warp",
                edits=_literal_edit(ctx, divisor, portable.WARP_SIZE),
            )  # fmt: skip
        elif (counted := _warp_count_constant(ctx, declaration, name, size)) is not None:
            constant, divisor = counted
            yield PER_WARP_SHARED.finding(
                ctx, divisor.start_byte, divisor.end_byte,
                f"`{name}[{size_text}]` has one slot per warp, written at each warp's id: "
                f"`{constant}` counts 32-thread warps, and a read up to it takes slots no wavefront wrote",
                edits=_literal_edit(ctx, divisor, portable.WARP_SIZE),
            )  # fmt: skip
        elif warp_value(ctx, size) == 32 and _indexed_by_lane(ctx, declaration, name):
            yield PER_WARP_SHARED.finding(
                ctx, size.start_byte, size.end_byte, f"`{name}[32]` is indexed by lane id: lanes 32-63 of a wavefront index past its end",
                edits=_literal_edit(ctx, size, portable.WARP_SIZE),
            )  # fmt: skip
        elif array.parent is not None and array.parent.type != "array_declarator":
            yield from _slots_read_by_count(ctx, declaration, name, size_text, ctx.value_of(size))


def _per_warp_divisor(ctx: FileContext, size: tree_sitter.Node) -> tree_sitter.Node | None:
    nodes = [size] + captures("(binary_expression) @b", size).get("b", [])
    for node in nodes:
        if node.type != "binary_expression":
            continue
        parts = binary_parts(node, ctx.source)
        if parts and (parts[1], warp_value(ctx, parts[2])) in (("/", 32), (">>", 5)):
            return parts[2]
    return None


def _warp_count_constant(ctx: FileContext, declaration, name: str, size) -> tuple[str, tree_sitter.Node] | None:
    """`partial[NUM_WARPS]` with `constexpr int NUM_WARPS = BLOCK / 32;` in the same function, the
    array written at warp ids only: the constant is the block's count of 32-lane warps, and its
    divisor (not the array) carries the fix, for every read bounded by it."""
    if size.type != "identifier":
        return None
    scope = enclosing(declaration, ("function_definition",))
    if scope is None:
        return None
    constant = ctx.source.text(size.start_byte, size.end_byte)
    definition = next(
        (
            init
            for init in initializers(ctx.parsed.root, ctx.source.data)
            if init.name == constant and init.value is not None
            and scope.start_byte <= init.node.start_byte < declaration.start_byte
        ),
        None,
    )  # fmt: skip
    if definition is None or b"const" not in definition.qualifiers:
        return None
    divisor = _per_warp_divisor(ctx, definition.value)
    if divisor is None:
        return None
    _, writes = subscripts_of(ctx, scope, name)
    return (constant, divisor) if at_warp_ids(ctx, writes) else None


def _indexed_by_lane(ctx: FileContext, declaration: tree_sitter.Node, name: str) -> bool:
    """Is the array indexed by a lane id, which reaches 63 on wave64? A warp id does not outgrow
    32 slots: a block holds at most 1024 threads, 32 warps of 32 lanes or 16 wavefronts of 64."""
    scope = enclosing(declaration, ("function_definition",)) or ctx.parsed.root
    for subscript, index_nodes in _subscripts_named(ctx, scope, name):
        for index in index_nodes:
            text = spelled(ctx, index)
            by_lane = VarClass.LANE in ctx.device.expression_classes(index) or (
                re.search(r"(&31|%32)$", text) is not None and ctx.device.expression_is_thread_based(index)
            )
            if by_lane and not _bounded_above(ctx, subscript, text) and not _logical_lane(ctx, scope, index):
                return True
    return False


def _logical_lane(ctx: FileContext, scope: tree_sitter.Node, index: tree_sitter.Node) -> bool:
    """Is the index a lane of the project's logical warp (`lane_id = threadIdx.x % WARP_SIZE`, the
    32 kept on purpose: logical_warp), below 32 on any wavefront?"""
    names = logical_names(ctx)
    if not names or index.type != "identifier":
        return False
    name = ctx.source.text(index.start_byte, index.end_byte)
    values = [
        init.value
        for init in initializers(ctx.parsed.root, ctx.source.data)
        if init.name == name and init.value is not None and scope.start_byte <= init.node.start_byte < scope.end_byte
    ]
    return bool(values) and all(_modulo_logical(ctx, value, names) for value in values)


def _modulo_logical(ctx: FileContext, value: tree_sitter.Node, names: frozenset[str]) -> bool:
    """`x % W` or `x & (W - 1)` with W a logical warp."""
    parts = binary_parts(value, ctx.source) if value.type == "binary_expression" else None
    if not parts or parts[1] not in ("%", "&"):
        return False
    divisor = re.sub(r"[\s()]", "", ctx.source.text(parts[2].start_byte, parts[2].end_byte))
    return divisor in names if parts[1] == "%" else divisor.removesuffix("-1") in names


def _bounded_above(ctx: FileContext, node: tree_sitter.Node, index: str) -> bool:
    """Does an enclosing `if` or `?:` hold the index (or the thread id it comes from) below a bound?
    `lane < warps ? partial[lane] : 0` reads no slot past the block's warp count."""
    for left, operator, _ in _guarding_comparisons(ctx, node, ("if_statement", "conditional_expression")):
        if operator not in ("<", "<="):
            continue
        if spelled(ctx, left) == index:
            return True
        if ctx.device.expression_classes(left) & {VarClass.LANE, VarClass.THREAD}:
            return True
    return False


def _subscripts_named(ctx: FileContext, scope: tree_sitter.Node, name: str):
    """Each `name[…]` in `scope`: (the subscript, its index expressions)."""
    for subscript in captures("(subscript_expression) @s", scope).get("s", []):
        target = subscript.child_by_field_name("argument")
        if target is None or ctx.source.text(target.start_byte, target.end_byte) != name:
            continue
        indices = subscript.child_by_field_name("indices") or subscript.child_by_field_name("index")
        if indices is not None:
            yield subscript, (indices.named_children if indices.named_child_count else [indices])


# -- WRP012: per-warp slots read back by their count ---------------------------------------


def _slots_read_by_count(
    ctx: FileContext, declaration, name: str, size_text: str, slots: int | None
) -> Iterable[Finding]:
    """`partial[8]` written at each warp's id and read back under `lane < 8`: 8 is the block's
    count of 32-lane warps, and half the slots stay unwritten on wave64. Only where every write
    is at a warp id: an array the block fills otherwise (an initialising loop) is read safely."""
    if slots is None or not 2 <= slots < 32:
        return
    scope = enclosing(declaration, ("function_definition",))
    if scope is None:
        return
    reads, writes = subscripts_of(ctx, scope, name)
    if not at_warp_ids(ctx, writes):
        return
    kernel = ctx.device.function_of(declaration)
    threads = launched_threads(ctx, kernel)
    if threads is not None and threads != slots * 32:
        return  # not the launched block's count of 32-lane warps: 8 slots of a 512-thread block's 8 wavefronts
    # a kernel launched in no line of this file (a header's): unless a launch elsewhere makes the
    # slots its count of 64-lane wavefronts (record_launches)
    elsewhere = launched_nowhere_here(ctx, kernel)
    bounds = {}
    for index in reads:
        if ctx.device.expression_classes(index) & {VarClass.LANE, VarClass.THREAD}:
            bound, how = _count_guard(ctx, index, slots), "read back up to"
        elif not _below_own_warp(ctx, index):
            bound, how = _counting_loop_bound(ctx, index, slots), "read back by a loop up to"
        else:
            continue
        if bound is not None:
            bounds.setdefault(bound.start_byte, (bound, how))
    for bound, how in bounds.values():
        text = ctx.source.text(bound.start_byte, bound.end_byte)
        if elsewhere:
            _unless_launched_so(ctx)[PER_WARP_SLOTS_READ_BY_COUNT.id, bound.start_byte, bound.end_byte] = (
                launched_wavefronts_key(kernel.name, slots)
            )
        yield PER_WARP_SLOTS_READ_BY_COUNT.finding(
            ctx, bound.start_byte, bound.end_byte,
            f"`{name}[{size_text}]` holds one slot per 32-lane warp and is {how} `{text}`: "
            f"on wave64 the block has {slots // 2} wavefronts, and slots {slots // 2}-{slots - 1} are never written",
            edits=_literal_edit(ctx, bound, f"({text} * 32 / {portable.WARP_SIZE})"),
        )  # fmt: skip


def _unless_launched_so(ctx: FileContext) -> dict[tuple[str, int, int], str]:
    """(rule, start, end) → key: the file's findings on a kernel it does not launch that a launch
    elsewhere vetoes (the project reports them unless a file vetoes the key)."""
    return ctx.once("unless launched so", dict)


def subscripts_of(ctx: FileContext, scope, name: str) -> tuple[list, list]:
    """The index expressions of `name[…]` in the function: (read, written)."""
    reads, writes = [], []
    for subscript, index_nodes in _subscripts_named(ctx, scope, name):
        if len(index_nodes) != 1:
            continue
        parent = subscript.parent
        written = (
            parent is not None
            and parent.type == "assignment_expression"
            and parent.child_by_field_name("left") == subscript
        )
        (writes if written else reads).append(index_nodes[0])
    return reads, writes


def _count_guard(ctx: FileContext, index, slots: int):
    """The bound of a `index < slots` test that guards the read (a `?:` or an `if` around it)."""
    index_text = ctx.source.text(index.start_byte, index.end_byte)
    for left, operator, right in _guarding_comparisons(ctx, index, _GUARDS):
        if operator == "<" and ctx.source.text(left.start_byte, left.end_byte) == index_text:
            if ctx.value_of(right) == slots:
                return right
    return None


def _below_own_warp(ctx: FileContext, index) -> bool:
    """Is the read guarded by `index < warp`, the reading thread's own warp id? Only slots of
    wavefronts that exist are read then (a prefix over the warps before one's own)."""
    text = ctx.source.text(index.start_byte, index.end_byte)
    return any(
        operator in ("<", "<=") and spelled(ctx, left) == text and VarClass.WARP in ctx.device.expression_classes(right)
        for left, operator, right in _guarding_comparisons(ctx, index, _GUARDS)
    )


def _counting_loop_bound(ctx: FileContext, index, slots: int):
    """The bound of a `for (w = 0; w < slots; …)` around the read whose counter is the index: one
    thread (or each) summing every slot, `for (int w = 0; w < 8; ++w) total += partial[w]`."""
    if index.type != "identifier":
        return None
    counter = ctx.source.text(index.start_byte, index.end_byte)
    loop = index.parent
    while loop is not None and loop.type != "function_definition":
        parts = for_parts(ctx, loop) if loop.type == "for_statement" else None
        if parts is not None and parts[0] == counter:
            _, start, condition, _ = parts
            comparison = binary_parts(condition, ctx.source) if condition.type == "binary_expression" else None
            if comparison is None or ctx.value_of(start) != 0:
                return None
            left, operator, bound = comparison
            named = ctx.source.text(left.start_byte, left.end_byte) == counter
            return bound if named and operator == "<" and ctx.value_of(bound) == slots else None
        loop = loop.parent
    return None


_GUARDS = ("conditional_expression", "if_statement")  # the read in their consequence, not in an `else`


def _guarding_comparisons(ctx: FileContext, node: tree_sitter.Node, kinds: tuple[str, ...]):
    """(left, operator, right) of each comparison that guards the node, innermost first: the
    condition of an enclosing `if` or `?:` (of `kinds`) whose consequence holds it."""
    parent = node.parent
    while parent is not None and parent.type != "function_definition":
        consequence = parent.child_by_field_name("consequence") if parent.type in kinds else None
        condition = parent.child_by_field_name("condition") if consequence is not None else None
        if condition is not None and consequence.start_byte <= node.start_byte < consequence.end_byte:
            condition = unparenthesized(condition)
            if condition.type == "condition_clause":
                value = condition.child_by_field_name("value")
                condition = unparenthesized(value) if value is not None else condition
            parts = binary_parts(condition, ctx.source)
            if parts:
                yield parts
        parent = parent.parent


# -- WRP006: constants ---------------------------------------------------------------------
#
# A constant is a warp width by its uses, never by its name: `static const int WS = 32;` is one
# when some file shifts lanes or strides warps by it (a claim), unless some use shows it counting
# bits (a veto: `1u << (i % WS)`), where fixing the definition would change that other meaning
# and each warp use keeps its own fix. The uses may lie in other files than the definition, so
# porter.rules.project settles it across the scan.


def _constant_key(ctx: FileContext, name: str, at: int | None = None) -> str:
    """The constant a name means at byte `at`: one defined in the function around it is that
    function's alone (two headers' `constexpr int warp_size = 32` inside their own functions are two
    constants); a source file's own definition is seen by that file alone; a header's, or one the
    file does not define, by every file of the project."""
    for start, end in _local_definitions(ctx).get(name, ()) if at is not None else ():
        if start <= at < end:
            return f"warp-width:{name}@{ctx.source.rel}:{start}"
    if (
        any(defined == name for defined, _ in _own_definitions(ctx))
        and ctx.source.path.suffix.lower() not in HEADER_SUFFIXES
    ):
        return f"warp-width:{name}@{ctx.source.rel}"
    return f"warp-width:{name}"


def _keys_of(ctx: FileContext, name: str) -> set[str]:
    """Every key the name has in this file: its functions' own constants and the file's or project's."""
    return {_constant_key(ctx, name)} | {
        _constant_key(ctx, name, start) for start, _ in _local_definitions(ctx).get(name, ())
    }


def _local_definitions(ctx: FileContext) -> dict[str, list[tuple[int, int]]]:
    """Name → the spans of the functions that define it as a constant of their own."""

    def find() -> dict[str, list[tuple[int, int]]]:
        scopes: dict[str, list[tuple[int, int]]] = {}
        root = ctx.parsed.root
        for name, finding in _own_definitions(ctx):
            node = root.descendant_for_byte_range(finding.span.start_byte, finding.span.end_byte) if root else None
            function = ctx.device.function_of(node).node if node is not None else None
            if function is not None:
                scopes.setdefault(name, []).append((function.start_byte, function.end_byte))
        return scopes

    return ctx.once("function-local warp constants", find)


def _own_definitions(ctx: FileContext) -> list[tuple[str, Finding]]:
    return ctx.once("warp-width definitions", lambda: list(_definitions(ctx)))


def _record_constant_roles(ctx: FileContext, uses: list[Finding], others: list[Finding]) -> None:
    from porter.rules import on_ported_platform

    keys = {id(f): [_constant_key(ctx, name, f.span.start_byte) for name in _cited(ctx, f)] for f in uses + others}
    for finding in uses + others:  # withdrawn wherever a row kernel keeps the constant at 32
        ctx.project.citing += [
            (key, finding.rule, finding.span.start_byte, finding.span.end_byte) for key in keys[id(finding)]
        ]
    ctx.project.row_widths |= {key for name in row_path_widths(ctx) for key in _keys_of(ctx, name)}
    for finding in on_ported_platform(ctx, uses):  # a use in the project's NVIDIA-only code claims nothing
        if finding.rule == HOST_WARPS_PER_BLOCK.id:
            continue  # the host's fix differs from the definition's: it stays either way
        if finding.rule == PER_WARP_SHARED.id and _whole_extent(ctx, finding):
            continue  # `[MAX_WARPS]` indexed by lane: 32 slots, maybe warps per block; the use's own fix is safe
        for key in keys[id(finding)]:
            ctx.project.claims.add(key)
            ctx.project.withdrawals.append((key, finding.rule, finding.span.start_byte, finding.span.end_byte))
    other_roles = _bit_counting_constants(ctx) | _square_tile_constants(ctx) | _row_kernel_constants(ctx)
    ctx.project.vetoes |= {key for name in other_roles for key in _keys_of(ctx, name)}
    ctx.project.pending += [
        (_constant_key(ctx, name, finding.span.start_byte), finding) for name, finding in _own_definitions(ctx)
    ]
    ctx.project.block_limits.update({_constant_key(ctx, name): detail for name, detail in _block_limits(ctx).items()})


def _whole_extent(ctx: FileContext, finding: Finding) -> bool:
    """Is the finding's span a whole array extent (`[WS]`), not a divisor inside one (`[T / WS]`)?"""
    before, after = ctx.source.data[: finding.span.start_byte], ctx.source.data[finding.span.end_byte :]
    return before.rstrip().endswith(b"[") and after.lstrip().startswith(b"]")


# `[TILE][TILE + 1]`, `dim3 block(TILE, TILE)`: a constant that is both edges of a square (each
# pattern led by a literal, which the regex engine finds fast)
_SQUARE_ARRAY = re.compile(rb"\[[ \t]*(\w+)[ \t]*\][ \t]*\[[ \t]*\1[ \t]*(?:\+[ \t]*\d+[ \t]*)?\]")
_SQUARE_BLOCK = re.compile(rb"dim3[ \t]+\w+[ \t]*[({][ \t]*(\w+)[ \t]*,[ \t]*\1[ \t]*[,)}]")


def _square_tile_constants(ctx: FileContext) -> set[str]:
    """Constants that are both edges of a 2-D tile or block: a 32×32 tile keeps its edges when the
    warp is 64 wide (doubling them would quadruple the block), so the definition stays."""

    def find() -> set[str]:
        patterns = (_SQUARE_ARRAY, _SQUARE_BLOCK)
        names = {m.group(1).decode() for pattern in patterns for m in pattern.finditer(ctx.source.data)}
        return {name for name in names if ctx.shared_constants.get(name) in _WARP_CONSTANT_VALUES}

    return ctx.once("square-tile constants", find)


def _row_kernel_constants(ctx: FileContext) -> set[str]:
    """The file's own constants of a warp width's value that a kernel of 32-thread rows names
    (porter.rules.block_rows, `row_max<<<m, 32>>>` striding by `WARP`): there they are the row's,
    and widened at their definition they would take the row past its 32 threads, so the definition
    stays and each use in other kernels carries its own fix. Another file's constant only where the
    file launches the row kernel in blocks 32 threads wide: a group kernel of 32s that names a
    header's constant widens with it (FileContext.project_widened)."""
    rows = block_rows(ctx)
    named = {name for start, end in rows.row_only for name in warp_valued_names(ctx, start, end)}
    if not named:
        return set()
    vetoed = named & _constant_texts(ctx).keys()
    # another file's constant, where a kernel the file launches in blocks 32 threads wide names it:
    # those rows cannot widen with it, as a group kernel that only reads it can
    rows_of_32 = launched_32_wide(ctx)
    for info in ctx.device.functions:
        if info.is_kernel and info.node is not None and short_name(info.name) in rows_of_32:
            if rows.row_only_at(info.node.start_byte):
                vetoed |= named & warp_valued_names(ctx, info.node.start_byte, info.node.end_byte)
    return vetoed


def _bit_counting_constants(ctx: FileContext) -> set[str]:
    """Constants used to count bits: the divisor or mask of a shift amount (`1u << (i % BITS)`),
    or beside `sizeof`."""
    names = set()
    for node, _, _, right in ctx.device.binaries(("%", "&", "/", ">>")):
        name = ctx.source.text(right.start_byte, right.end_byte)
        if ctx.shared_constants.get(name) not in _WARP_CONSTANT_VALUES:
            continue
        statement = enclosing(node, ("expression_statement", "declaration", "return_statement", "if_statement"))
        if statement is None:
            continue
        text = spelled(ctx, statement)
        operation = spelled(ctx, node)
        if "sizeof" in text or "CHAR_BIT" in text or re.search(r"1[uUlL]*<<\(*" + re.escape(operation), text):
            names.add(name)
    return names


_CONSTANT_QUALIFIER = re.compile(rb"\b(const|constexpr|static)\b")


def _definitions(ctx: FileContext) -> Iterable[tuple[str, Finding]]:
    """Every constant the file defines as 32, 31, 16 or 5: WRP006 should its uses settle it a warp width."""
    root = ctx.parsed.root
    for define in define_names(root):
        value_node = define.parent.child_by_field_name("value")
        if value_node is not None:
            name = ctx.source.text(define.start_byte, define.end_byte)
            yield from _constant_finding(ctx, name, value_node, raw=True)
    for declared in initializers(root, ctx.source.data):
        qualifiers = declared.qualifiers
        if not (b"const" in qualifiers or b"static" in qualifiers) or not _CONSTANT_QUALIFIER.search(qualifiers):
            continue
        if declared.name is not None:
            yield from _constant_finding(ctx, declared.name, declared.value)
    for enumerator in captures("(enumerator) @e", root).get("e", []):
        name_node = enumerator.child_by_field_name("name")
        yield from _constant_finding(
            ctx, ctx.source.text(name_node.start_byte, name_node.end_byte), enumerator.child_by_field_name("value")
        )
    for parameter in captures("(optional_parameter_declaration) @p", root).get("p", []):
        name_node = parameter.child_by_field_name("declarator")
        if name_node is not None:
            name = ctx.source.text(name_node.start_byte, name_node.end_byte)
            yield from _constant_finding(ctx, name, parameter.child_by_field_name("default_value"))


def _constant_finding(
    ctx: FileContext, name: str, value: tree_sitter.Node | None, raw: bool = False
) -> Iterable[tuple[str, Finding]]:
    if value is None:
        return
    if raw:
        text = ctx.source.text(value.start_byte, value.end_byte)
        match = re.fullmatch(r"\s*\(?\s*(\d+)[uU]?\s*\)?\s*(//.*|/\*.*)?", text)
        if not match:
            yield from _derived_constant_finding(ctx, name, value)
            return
        start = value.start_byte + encoded_length(text[: match.start(1)])
        end = start + len(match.group(1))
        number = int(match.group(1))
    else:
        number = int_value(value, ctx.source)
        start, end = value.start_byte, value.end_byte
    if number not in _WARP_CONSTANT_VALUES:
        return
    yield name, WARP_CONSTANT.finding(
        ctx, start, end, f"`{name}` = {number} is used as {_ROLE[number]} of a 32-lane warp; CDNA wavefronts have 64 lanes",
        edits=(Edit(start, end, _WARP_CONSTANT_VALUES[number].encode()),),
    )  # fmt: skip


_ROLE = {32: "the width", 31: "the last lane", 16: "half the width", 5: "the log2 of the width"}


def _derived_constant_finding(ctx: FileContext, name: str, value: tree_sitter.Node) -> Iterable[tuple[str, Finding]]:
    """`#define WARP_THREADS CUB_WARP_THREADS(0)`: a warp-size macro defined from a library's 32."""
    text = ctx.source.text(value.start_byte, value.end_byte)
    body = re.sub(r"\s*(//.*|/\*.*)$", "", text)
    if not re.search(r"[A-Za-z_]", body) or ctx.value_of(value) != 32:
        return
    end = value.start_byte + encoded_length(body)
    yield name, WARP_CONSTANT.finding(
        ctx, value.start_byte, end, f"`{name}` is {body.strip()}, used as the width of a 32-lane warp; CDNA wavefronts have 64 lanes",
        edits=(Edit(value.start_byte, end, portable.WARP_SIZE.encode()),),
    )  # fmt: skip


# -- WRP007: tiles --------------------------------------------------------------------------


def _tile_uses(ctx: FileContext) -> list[Finding]:
    """The file's tiles as wide as a 32-lane warp (WRP007), worked out once: the rule reports them,
    and the constants they name are warp widths porter may widen (kept_value)."""
    return ctx.once("tile widths", lambda: list(_tiles(ctx)))


def _tiles(ctx: FileContext) -> Iterable[Finding]:
    if b"tiled_partition" not in ctx.source.data and b"thread_block_tile" not in ctx.source.data:
        return
    for arguments in captures("(template_argument_list) @t", ctx.parsed.root).get("t", []):
        owner = arguments.parent
        if owner is None:
            continue
        owner_text = ctx.source.text(owner.start_byte, arguments.start_byte)
        if not re.search(r"(tiled_partition|thread_block_tile)\s*$", owner_text):
            continue
        for argument in arguments.named_children:
            if _tile_width(ctx, argument) == 32:
                yield TILE_32.finding(
                    ctx,
                    argument.start_byte,
                    argument.end_byte,
                    f"`{owner_text.strip()}<{ctx.source.text(argument.start_byte, argument.end_byte)}>` is half a 64-lane wavefront",
                )


def _tile_width(ctx: FileContext, argument: tree_sitter.Node) -> int | None:
    """A tile's width: a literal, or a constant however qualified (`td_sort::warp_size`)."""
    text = ctx.source.text(argument.start_byte, argument.end_byte).strip()
    if text.isdigit():
        return int(text)
    name = re.fullmatch(r"(?:\w+\s*::\s*)*(\w+)", text)
    return ctx.shared_constants.get(name.group(1)) if name else None


# -- WRP009: warpSize as a constant ----------------------------------------------------------

_CONSTANT_CONTEXTS = (
    "template_argument_list",
    "array_declarator",
    "static_assert_declaration",
    "case_statement",
    "enumerator",
)


def _constexpr_warpsize(ctx: FileContext) -> Iterable[Finding]:
    writes_warpsize = b"warpSize" in ctx.source.data
    carried = _header_carriers_named(ctx)
    if not (writes_warpsize or carried) or _own_warpsize(ctx):
        return
    rows = block_rows(ctx) if ctx.wave64_targets else None
    _claim_header_carriers(ctx, carried, rows)
    if not writes_warpsize:
        return
    # `reduce<warpSize>(v)` parses its argument as a type: a type_identifier
    for node in identifiers_named(ctx.parsed.root, ctx.source.data, "warpSize", ("identifier", "type_identifier")):
        if rows and rows.row_only_at(node.start_byte):
            continue  # a row kernel's warpSize becomes the row's 32 (ROW_WARPSIZE), a constant
        if _in_constant_context(ctx, node):
            host = _read_by_host(ctx, node)  # `std::array<int, warpSize>` in a host function
            yield _warpsize_finding(ctx, node.start_byte, _NOT_CONSTANT, portable.WARP_SIZE, host=host)
        elif _read_by_host(ctx, node):
            yield _warpsize_finding(ctx, node.start_byte, _HOST_READ, _host_warp_size(ctx, node), host=True)
    yield from _warpsize_macros(ctx, rows)


def _own_warpsize(ctx: FileContext) -> bool:
    """Does the project define a name `warpSize` of its own (flashinfer's mamba headers: `constexpr
    unsigned warpSize = 32;` in their namespace)? Then that is the name's meaning, not HIP's, with
    whatever value: porter's port of it (`= PORTER_WARP_SIZE`) is no longer a number it evaluates."""
    return (
        "warpSize" in ctx.shared_constants
        or "warpSize" in ctx.project_defined
        or any(name == "warpSize" for _, name, _ in ctx.constant_definitions)
    )


_NOT_CONSTANT = "`warpSize` is not a constant expression under ROCm 7"
# what ROCm 7's hip-clang says of host code that reads it: "reference to device function 'operator
# int' in host function" (exllamav2's rms_norm.cu on gfx1201, its pull request 815)
_HOST_READ = "`warpSize` is a device variable under ROCm 7, which host code cannot read"


def _warpsize_finding(
    ctx: FileContext, at: int, what: str, replacement: str, how: str = "", host: bool = False, review: str = ""
) -> Finding:
    """`host`: the replacement is read by host code (the name itself, or a macro that carries it
    there). `review`: why the fix may change what the code means, which leaves it suggested."""
    rocm7 = ctx.config.rocm_version.release >= (7, 0)
    still = f" (ROCm {ctx.config.rocm_version} still allows it)"
    review = review or (_host_value_changed(ctx, replacement) if host and not rocm7 else None) or ""
    return CONSTEXPR_WARPSIZE.finding(
        ctx, at, at + len("warpSize"),
        what + how + ("" if rocm7 else still) + (f"; the fix is left to review: {review}" if review else ""),
        edits=(Edit(at, at + len("warpSize"), replacement.encode()),),
        severity=Severity.ERROR if rocm7 else Severity.WARNING,
        fix=FixKind.SUGGESTED if review else None,
    )  # fmt: skip


# HIP before ROCm 7 gives host code a `warpSize` of 64 whatever the targets (HIP 6.4's headers: a
# gfx1100-only build's host pass holds `static_assert(warpSize == 64)`, checked with clang 21)
_OLD_HOST_WARPSIZE = 64


def _host_value_changed(ctx: FileContext, replacement: str) -> str | None:
    """Where the code compiles as written (before ROCm 7), does the fix give host code a width
    other than the 64 it read? On RDNA the new width is the device's true one, yet code that
    relied on 64 changes meaning: the fix is then a suggestion, saying why (None: same value)."""
    if replacement == portable.HOST_WARP_SIZE:
        wave32 = ctx.wave32_targets
        if not wave32:
            return None
        return f"`{replacement}` is 32 on {', '.join(wave32)}, where host code read {_OLD_HOST_WARPSIZE}"
    width = host_warp_size(ctx.config.targets)
    if width == _OLD_HOST_WARPSIZE:
        return None
    return f"host code reads `{replacement}` as {width} for these targets, where it read {_OLD_HOST_WARPSIZE}"


def _read_by_host(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """Is the name read by a host function's code that the ROCm build compiles? (A CUDA host
    function cannot name `warpSize` at all: only HIP code and ROCm branches do.)"""
    function = ctx.device.function_of(node).node
    return (
        function is not None
        and not ctx.device.is_device_code(node)
        and _ported(ctx, node.start_byte)
        and not _declares_warpsize(ctx, function)
    )


def _declares_warpsize(ctx: FileContext, function: tree_sitter.Node) -> bool:
    """Does the function name its own `warpSize` (`template <int warpSize> void launch(…)`, a
    parameter, a local)? Then the name is not HIP's."""
    names = [p.child_by_field_name("declarator") for p in template_parameters(function)]
    if any(n is not None and ctx.source.text(n.start_byte, n.end_byte) == "warpSize" for n in names):
        return True
    return declared_type(ctx.source, function, "warpSize") is not None


def _warpsize_macros(ctx: FileContext, rows) -> Iterable[Finding]:
    """`#define NUM_WARPS (1024 / warpSize)`, then `__shared__ float sums[NUM_WARPS]` or a host
    function's `dim3 block(NUM_THREADS)` (`NUM_THREADS` made from it): the macro carries `warpSize`
    where it cannot stand under ROCm 7, as the name itself would. The file's own object-like
    macros are followed, through one another; the finding and its fix are on the `warpSize` the
    definition writes (a compile-time width serves every use)."""
    carriers = _macros_naming_warpsize(ctx)
    if not carriers:
        return
    reasons: dict[int, tuple[str, str]] = {}  # each `warpSize` written → why, from the first use that needs it
    host_read: set[int] = set()  # those a use carries into host code: the fix may change the host's value
    in_rows: dict[int, str] = {}  # those a use carries into a row kernel → why its fix is for review
    for macro, tokens in carriers.items():
        for use in identifiers_named(ctx.parsed.root, ctx.source.data, macro, ("identifier", "type_identifier")):
            line = use.start_point[0] + 1
            need = _carrier_need(ctx, use, rows)
            if need is None:
                continue
            constant, host, beside_row = need
            reason = (
                (_NOT_CONSTANT, f": `{macro}` carries it where a constant is required (line {line})")
                if constant
                else (_HOST_READ, f": `{macro}` carries it into host code (line {line})")
            )
            for at in tokens:
                reasons.setdefault(at, reason)
                if host:
                    host_read.add(at)
                if beside_row:
                    in_rows.setdefault(at, f"`{macro}` is read (line {line}) {_BESIDE_ROW}")
    for at, (what, how) in reasons.items():
        yield _warpsize_finding(
            ctx, at, what, portable.WARP_SIZE, how, host=at in host_read, review=in_rows.get(at, "")
        )
    if ctx.source.path.suffix.lower() in HEADER_SUFFIXES:
        written, _ = _macro_writes(ctx)
        _pend_for_other_files(
            ctx, {macro: [at for at in tokens if at not in reasons] for macro, tokens in written.items() if tokens}
        )


# WRP021 writes the row's 32 for a function's own `warpSize`s, where PORTER_WARP_SIZE in a macro is the
# wavefront: the two would disagree
_BESIDE_ROW = "beside `warpSize`s that become a 32-thread row's 32"


def _carrier_need(ctx: FileContext, use: tree_sitter.Node, rows) -> tuple[bool, bool, bool] | None:
    """Where a use of a macro that carries `warpSize` needs it to be what ROCm 7 no longer makes it:
    (in a constant context, read by host code, in a row kernel's function that writes `warpSize`
    itself), or None where neither."""
    host = _read_by_host(ctx, use)
    constant = _in_constant_context(ctx, use)
    if not (constant or host):
        return None
    return constant, host, bool(rows and rows.row_only_at(use.start_byte) and _names_warpsize_itself(ctx, use))


# -- the same across files: a header's macro carries `warpSize` into another file (porter.rules.project)
_CARRIER_NEEDS = ("constant", "host", "row")  # in settling, a later need's finding replaces an earlier's


def _carrier_key(need: str, macro: str) -> str:
    return f"warpsize-macro-{need}:{macro}"


def _header_carriers_named(ctx: FileContext) -> list[str]:
    """The project's header macros that carry `warpSize` (HeaderConstants.warpsize_carriers) which
    the file names without defining them itself."""
    data = ctx.source.data
    names = [name for name in ctx.project_warpsize_carriers if name.encode() in data]
    if not names:
        return []
    own = {
        ctx.source.text(name.start_byte, name.end_byte)
        for definition in _macro_definitions_of(ctx)
        if (name := definition.child_by_field_name("name")) is not None
    }
    return [name for name in names if name not in own]


def _claim_header_carriers(ctx: FileContext, carried: list[str], rows) -> None:
    """Each use of a header's carrier that needs a constant or is read by the host claims the
    `warpSize`s it reaches: those of the macros whose definitions write it, which carry the fix (as
    the file's own macros do)."""
    for macro in carried:
        for use in identifiers_named(ctx.parsed.root, ctx.source.data, macro, ("identifier", "type_identifier")):
            need = _carrier_need(ctx, use, rows) if _ported(ctx, use.start_byte) else None
            if need is not None:
                constant, host, beside_row = need
                chosen = "row" if beside_row else "host" if host else "constant"
                for writer in ctx.project_warpsize_carriers[macro]:
                    ctx.project.claims.add(_carrier_key(chosen, writer))


def _pend_for_other_files(ctx: FileContext, unreported: dict[str, list[int]]) -> None:
    """The `warpSize`s each of a header's macros writes in its own definition that no use in the
    header reported: pending findings, one per need, keyed by that macro, which the project's other
    files claim by their uses (_claim_header_carriers: a use claims the macros that write what it
    reaches)."""
    where = "in another of the project's files"
    for need in _CARRIER_NEEDS:
        for macro, tokens in unreported.items():
            for at in tokens:
                if need == "host":
                    finding = _warpsize_finding(
                        ctx,
                        at,
                        _HOST_READ,
                        portable.WARP_SIZE,
                        f": `{macro}` carries it into host code {where}",
                        host=True,
                    )
                else:
                    how = f": `{macro}` carries it where a constant is required {where}"
                    review = f"`{macro}` is read {where} {_BESIDE_ROW}" if need == "row" else ""
                    finding = _warpsize_finding(ctx, at, _NOT_CONSTANT, portable.WARP_SIZE, how, review=review)
                ctx.project.pending.append((_carrier_key(need, macro), finding))


def header_warpsize_carriers(macros: dict[str, set[str]], headers: list[bytes]) -> dict[str, frozenset[str]]:
    """The headers' macros whose definition (any of them) names HIP's `warpSize`, itself or through
    other such macros → those of them whose own definitions write it (where the fix goes: a
    header's `MAX_WARPS (1024 / WARP_SIZE)` reaches the `warpSize` of another's `WARP_SIZE`).
    `macros` is each object-like macro → the bodies the headers define it with; the function-like
    ones are read from the `headers` here."""
    bodies = {name: [body.split("//")[0].encode() for body in texts] for name, texts in macros.items()}
    for data in headers:
        for match in _FUNCTION_MACRO.finditer(data) if b"warpSize" in data else ():
            if b"warpSize" not in IDENT_BYTES.findall(match.group(2)):  # `LANES(warpSize)`: a parameter
                body = b"\n".join(line.split(b"//")[0] for line in match.group(3).splitlines())
                bodies.setdefault(match.group(1).decode(), []).append(body)
    # each macro "writes" itself where its own definition names warpSize; NUM_WARPS (1024 / WARP_SIZE)
    # then reaches what WARP_SIZE warpSize writes
    writes = {name: [name] if any(_WARPSIZE_WORD.search(t) for t in texts) else [] for name, texts in bodies.items()}
    if not any(writes.values()):
        return {}  # most projects: no macro writes warpSize, and nothing to follow
    named = {
        name: {w.decode() for t in texts for w in IDENT_BYTES.findall(t)} & bodies.keys() - {name}
        for name, texts in bodies.items()
    }
    reached = {name: frozenset(_written_through(name, writes, named)) for name in bodies}
    return {name: writers for name, writers in reached.items() if writers}


# `#define WARPS(n) ((n) / warpSize)`, its body over continued lines
_FUNCTION_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)\n]*)\)((?:[^\n]*\\\r?\n)*[^\n]*)", re.M)


def _names_warpsize_itself(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """Does the function around the node write `warpSize` itself (outside its macros)?"""
    function = ctx.device.function_of(node).node
    return (
        function is not None
        and _WARPSIZE_WORD.search(ctx.source.data, function.start_byte, function.end_byte) is not None
    )


def _macros_naming_warpsize(ctx: FileContext) -> dict[str, list[int]]:
    """Each macro of the file whose definition names `warpSize`, itself or through another such
    macro → the offsets of the `warpSize`s those definitions write (in the arms the ROCm build
    compiles). Function-like macros too: `WARPS(1024)` carries what `#define WARPS(n) ((n) / warpSize)` writes."""
    written, named = _macro_writes(ctx)
    carriers = {macro: sorted(_written_through(macro, written, named)) for macro in written}
    return {macro: tokens for macro, tokens in carriers.items() if tokens}


def _macro_writes(ctx: FileContext) -> tuple[dict[str, list[int]], dict[str, set[str]]]:
    """The file's macros (in the arms the ROCm build compiles): each → the offsets of the `warpSize`s
    its own definitions write, and each → the file's other macros they name. Once per file."""
    return ctx.once("macro writes", lambda: _read_macro_writes(ctx))


def _read_macro_writes(ctx: FileContext) -> tuple[dict[str, list[int]], dict[str, set[str]]]:
    bodies: dict[str, list[tuple[int, bytes]]] = {}
    for definition in _macro_definitions_of(ctx):
        name, value = definition.child_by_field_name("name"), definition.child_by_field_name("value")
        if name is not None and value is not None and _ported(ctx, definition.start_byte):
            if _takes_warpsize(ctx, definition):
                continue  # `#define LANES(warpSize) …`: the parameter's name, not HIP's
            text = ctx.source.data[value.start_byte : value.end_byte]
            bodies.setdefault(ctx.source.text(name.start_byte, name.end_byte), []).append((value.start_byte, text))
    written = {
        macro: [start + m.start() for start, text in arms for m in _WARPSIZE_WORD.finditer(text)]
        for macro, arms in bodies.items()
    }
    # the file's other macros each definition names: NUM_THREADS (NUM_WARPS * WARP_SIZE)
    named = {
        macro: {word.decode() for _, text in arms for word in IDENT_BYTES.findall(text)} & bodies.keys() - {macro}
        for macro, arms in bodies.items()
    }
    return written, named


def _macro_definitions_of(ctx: FileContext) -> list[tree_sitter.Node]:
    """The file's `#define`s, object-like and function-like, in source order."""
    found = captures("(preproc_def) @d", ctx.parsed.root).get("d", [])
    found += captures("(preproc_function_def) @d", ctx.parsed.root).get("d", [])
    return sorted(found, key=lambda node: node.start_byte)


def _takes_warpsize(ctx: FileContext, definition: tree_sitter.Node) -> bool:
    parameters = definition.child_by_field_name("parameters")
    return parameters is not None and any(
        ctx.source.text(p.start_byte, p.end_byte) == "warpSize" for p in parameters.named_children
    )


def _written_through(macro: str, written: dict[str, list], named: dict[str, set[str]]) -> set:
    """What the macro's definition writes (`written`: the offsets of its `warpSize`s, or the names of
    the macros that write one), and what every macro it names writes, however deep."""
    found: set = set()
    seen, pending = set(), [macro]
    while pending:
        current = pending.pop()
        if current not in seen:
            seen.add(current)
            found.update(written[current])
            pending.extend(named[current])
    return found


# not a member: `props.warpSize`, `props->warpSize` are hipDeviceProp_t's, read on the host
_WARPSIZE_WORD = re.compile(rb"(?<![\w$.])(?<!->)warpSize(?![\w$])")


def _in_constant_context(ctx: FileContext, node: tree_sitter.Node) -> bool:
    parent = node.parent
    while parent is not None and parent.type not in ("compound_statement", "function_definition", "translation_unit"):
        if parent.type in _CONSTANT_CONTEXTS:
            return parent.type != "array_declarator" or _is_array_size(parent, node)
        if parent.type == "init_declarator":
            declaration = parent.parent
            prefix = ctx.source.data[declaration.start_byte : parent.start_byte] if declaration else b""
            return b"constexpr" in prefix
        parent = parent.parent
    return False


def _in_constant_expression(ctx: FileContext, node: tree_sitter.Node) -> bool:
    """A template argument, array bound, static_assert, case label, or a constexpr or static const
    initialiser (members too): where `porter_warp_size()`, a run-time call, cannot stand."""
    if _in_constant_context(ctx, node):
        return True
    owner = enclosing(node, ("init_declarator", "field_declaration"))
    if owner is None:
        return False
    declaration = owner.parent if owner.type == "init_declarator" else owner
    prefix = ctx.source.data[declaration.start_byte : node.start_byte]
    return b"constexpr" in prefix or (b"static" in prefix and b"const" in prefix)


def _host_warp_size(ctx: FileContext, node: tree_sitter.Node) -> str:
    """The host's warp width: asked of the device, or the compat header's compile-time value where
    a constant expression needs one."""
    return portable.WARP_SIZE if _in_constant_expression(ctx, node) else portable.HOST_WARP_SIZE


def _is_array_size(array: tree_sitter.Node, node: tree_sitter.Node) -> bool:
    size = array.child_by_field_name("size")
    return size is not None and size.start_byte <= node.start_byte and node.end_byte <= size.end_byte


# -- WRP011: the ROCm side's wavefront width, left to the build system ----------------------


def _wavefront_from_build(ctx: FileContext) -> Iterable[Finding]:
    """A constant whose NVIDIA arm is the warp width and whose ROCm arm is a macro defined nowhere.

    The two arms of one platform branch define the same name; the NVIDIA arm's value is 32, so the
    ROCm arm's bare macro holds the wavefront width. A macro with no definition in the file or the
    project's headers comes from the build script, which a port built any other way lacks.
    """
    from porter.rules.branches import Side, constant_definition_matches

    if not ctx.branches.regions:
        return
    data = ctx.source.data
    nvidia_arms: list[tuple[bytes, bytes]] = []
    rocm_arms: list[tuple[int, bytes, bytes]] = []
    for match in constant_definition_matches(data):
        group = 1 if match.group(1) else 3
        name, value = match.group(group), match.group(group + 1)
        side = ctx.branches.side_at(match.start())
        if side is Side.CUDA_ONLY:
            nvidia_arms.append((name, value))
        elif side is Side.ROCM and re.fullmatch(rb"[A-Za-z_]\w*", value):
            rocm_arms.append((match.start(group + 1), name, value))
    # only a name both sides define can be such a constant: the NVIDIA values of others go unread
    # (flashinfer's generated kernels hold thousands of constants in their NVIDIA-only PTX arms)
    rocm_names = {name for _, name, _ in rocm_arms}
    nvidia_widths = {name for name, value in nvidia_arms if name in rocm_names and _evaluates_to(ctx, value, 32)}
    for start, name, macro in rocm_arms:
        if name not in nvidia_widths or not _defined_nowhere(ctx, macro.decode()):
            continue
        line_start = data.rfind(b"\n", 0, start) + 1
        text = macro.decode()
        guard = f"#ifndef {text}  // porter: the build script's -D{text}, else this architecture's wavefront\n"
        guard += f"#define {text} {portable.WARP_SIZE}\n#endif\n"
        yield ROCM_WAVEFRONT_FROM_BUILD.finding(
            ctx,
            start,
            start + len(macro),
            f"`{name.decode()}` is the warp width (32) on NVIDIA and `{text}` on ROCm, a macro no source defines: "
            "only the project's build script passes it",
            edits=(Edit(line_start, line_start, guard.encode()),),
        )


def _evaluates_to(ctx: FileContext, text: bytes, expected: int) -> bool:
    from porter.rules.consteval import evaluate

    return evaluate(text.decode("utf-8", "replace"), ctx.shared_constants) == expected


def _defined_nowhere(ctx: FileContext, macro: str) -> bool:
    """No value for it in the file or the project's headers, no #define of it in the file, and not a
    name the compilers or HIP define."""
    from porter.rules.consteval import named_value

    if named_value(macro, ctx.shared_constants) is not None or macro in ("warpSize", "__AMDGCN_WAVEFRONT_SIZE"):
        return False
    return re.search(rb"#[ \t]*define[ \t]+" + re.escape(macro.encode()) + rb"\b", ctx.source.data) is None


# -- WRP013: a warp width the host pass reads otherwise ----------------------------------------


def _width_split_on_host(ctx: FileContext) -> Iterable[Finding]:
    """Host uses of a name that PassSplit found split, in the file or the project's headers."""
    project = ctx.project_width_splits
    splits = {**project, **ctx.branches.pass_splits(ctx.shared_constants, project)}
    for name, split in splits.items():
        target = _target_of_width(ctx, split)
        if target is None:
            continue  # no target the scan is for runs that wavefront
        for node in identifiers_named(ctx.parsed.root, ctx.source.data, name, ("identifier", "type_identifier")):
            function = ctx.device.function_of(node)
            if function.node is None or ctx.device.is_device_code(node):
                continue  # device code reads the device pass's value; a file-scope use is either's
            yield WIDTH_SPLIT_BY_PASS.finding(
                ctx, node.start_byte, node.end_byte,
                f"`{name}` is {split.device} in {target}'s device pass but {split.host} in the host pass, "
                f"where the device pass's warp width is not seen: `{function.name}` plans with the host's value",
            )  # fmt: skip


def _target_of_width(ctx: FileContext, split) -> str | None:
    from porter.targets import known

    wave = next((t.wavefront for t in known([split.target])), None)
    return next((t.id for t in known(ctx.config.targets) if t.is_amd and t.wavefront == wave), None)


# -- WRP018: a wavefront's lane where a 32-thread row's is meant ----------------------------------
#
# The lane helpers (`get_lane_id()` around `mov.u32 %0, %%laneid`) are often a header's, and the row
# kernels that call them another file's: the helper's file claims its name (`lane-id:NAME`), and a
# call in a row kernel is a pending finding, reported where some file of the scan claims the name.


def _lane_key(name: str) -> str:
    return f"lane-id:{short_name(name)}"


def _row_lanes(ctx: FileContext) -> Iterable[Finding]:
    rows = block_rows(ctx)
    _claim_lane_helpers(ctx, rows)
    if not rows.row_only:
        return
    for name, call in ctx.device.calls:
        if not rows.two_rows_at(call.start_byte) or call_arguments(call) or _taken_within_row(ctx, call):
            continue
        if name == "__lane_id":
            yield _row_lane(ctx, name, call)
        elif not name.startswith("__") and not rows.two_rows_at(_definition_start(ctx, name)):
            # a helper that only two-row kernels reach reads its lane as the row's already (ASM001)
            ctx.project.pending.append((_lane_key(name), _row_lane(ctx, name, call)))


def _row_lane(ctx: FileContext, name: str, call: tree_sitter.Node) -> Finding:
    text = ctx.source.data[call.start_byte : call.end_byte]
    return ROW_LANE.finding(
        ctx, call.start_byte, call.end_byte,
        f"`{name}()` counts a 64-lane wavefront's lanes in a kernel whose block is rows of 32 threads, two to a wavefront: the second row reads lanes 32-63",
        edits=(Edit(call.start_byte, call.end_byte, b"(" + text + b" % 32)"),),
    )  # fmt: skip


def _claim_lane_helpers(ctx: FileContext, rows) -> None:
    """Claim the name of each device function (not a kernel) whose inline PTX reads the wavefront's
    lane: not one that only two-row kernels reach, whose asm ASM001 makes read the row's."""
    for statement in ctx.asm_statements:
        if rows.two_rows_at(statement.start) or not any(
            entry is not None and entry.row_template for _, entry in statement.entries()
        ):
            continue
        node = ctx.parsed.root.descendant_for_byte_range(statement.start, statement.end)
        function = ctx.device.function_of(node) if node is not None else None
        if function is not None and function.node is not None and function.is_device and not function.is_kernel:
            ctx.project.claims.add(_lane_key(function.name))


def _definition_start(ctx: FileContext, name: str) -> int:
    """Where the file defines the function `name` (-1: not here)."""
    wanted = short_name(name)
    return next(
        (
            info.node.start_byte
            for info in ctx.device.functions
            if info.node is not None and short_name(info.name) == wanted
        ),
        -1,
    )


def _taken_within_row(ctx: FileContext, call: tree_sitter.Node) -> bool:
    """`lane() % 32`, `lane() & 31` (or 0x1f): the row's lane already."""
    node = call
    while node.parent is not None and node.parent.type == "parenthesized_expression":
        node = node.parent
    parent = node.parent
    if parent is None or parent.type != "binary_expression" or parent.child_by_field_name("left") != node:
        return False
    parts = binary_parts(parent, ctx.source)
    return parts is not None and (parts[1], int_value(parts[2], ctx.source)) in (("%", ROW), ("&", ROW - 1))
