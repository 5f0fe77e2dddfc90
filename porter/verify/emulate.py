"""Verify cases on porter's CPU device (porter/verify/emulator), with the warp width as the variable under test.

Without a GPU (or with `--emulate`) each kernel case runs as `emu-original`, the CUDA source at 32
lanes, and as `emu-port`, porter's portable conversion (or the case's hand-written port) at the
width of each target: 64 lanes for gfx90a/gfx942/gfx950, 32 for RDNA and NVIDIA. The port's
outputs are compared with the original's under the case's tolerances. A kernel that deadlocks is
`hang`, one the emulator stops (a lane outside its `_sync` mask, lanes at different collectives,
a shared array indexed out of bounds) is `error`, each with the emulator's message; a construct the
emulator lacks (inline PTX but `%laneid`, tensor-core and TMA code, library calls) is `not-run` with its name,
found by the scan before anything is compiled. Emulated timings are never reported.
"""

from __future__ import annotations

import atexit
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from porter.embedded import VIEW_SUFFIX, device_code
from porter.parse import captures, parse
from porter.rules.consteval import stand_ins
from porter.source import FileKind, SourceFile, is_python

EMULATOR = Path(__file__).resolve().parent / "emulator"
SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".inl", ".cpp", ".cc", VIEW_SUFFIX)
# `extern __shared__ T name[];` has no C++ spelling as a per-block thread_local: it becomes a
# pointer to the block's dynamic shared memory
EXTERN_SHARED = re.compile(
    rb"extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s*)?([\w:<>,\s*]+?)\s*(?:__align__\s*\(\s*\d+\s*\)\s*)?(\w+)\s*\[\s*\]\s*;"
)
# `static __shared__` (block-local shared memory CUDA lets a function say is static, as cupy's kernels
# do): the CPU device's `__shared__` is already `static thread_local`, and C++ takes `static` once
STATIC_SHARED = re.compile(rb"\bstatic\s+__shared__\b|\b__shared__\s+static\b")
# PTX's lane reads, `asm("mov.u32 %0, %%laneid;" : "=r"(lane))` and the lane masks (`%%lanemask_lt`,
# …), are the inline PTX the CPU device runs: as `lane = __lane_id()` and `below =
# porter_emu_lanemask_lt()`, the lane and mask as its warp (of the run's width) counts them
LANE_ID_ASM = re.compile(
    rb'\basm\s*(?:volatile\s*|__volatile__\s*)?\(\s*"mov\.[usb]32\s+%0\s*,\s*%%(laneid|lanemask_(?:lt|le|gt|ge|eq))\s*;?"\s*:\s*"=r"\s*\(\s*([^()]+?)\s*\)\s*\)'
)


def _lane_read(match: re.Match[bytes]) -> bytes:
    register, target = match.group(1), match.group(2)
    read = b"__lane_id()" if register == b"laneid" else b"porter_emu_" + register + b"()"
    return b"(" + target + b") = " + read


# what the CPU device cannot run, as it appears in a source (the scan names the line)
UNSUPPORTED = {
    "inline PTX (asm)": re.compile(rb"\basm\s*(?:volatile\s*)?\("),
    # WMMA of 16x16x16 half/bfloat16 runs (mma.h, porter_emu_mfma.h); the rest has no emulation
    "WMMA shapes or types other than 16x16x16 half/bfloat16": re.compile(
        rb"\bbmma_sync\b|\bprecision::|fragment\s*<[^<>;]*?,\s*(?:32|8)\s*,\s*(?:8|32)\s*,"
    ),
    "cuBLAS/cuDNN/cuRAND library calls": re.compile(rb"\b(?:cublas|cudnn|curand|cusparse|cufft)\w*\s*\("),
    "TMA, clusters and wgmma": re.compile(rb"\bcp\.async\.bulk|\bcluster_dims|\bwgmma"),
    "grid-wide cooperative groups (grid sync, cluster groups)": re.compile(rb"this_grid\s*\(|grid_group|cluster_group"),
}
EXIT_HANG = 124  # the emulator's exit status for a hang; any other failure (125 for its own stops) is an error
TIMEOUT_SECONDS = 60


def host_compiler() -> str | None:
    return shutil.which("g++") or shutil.which("clang++")


def stage(tree: Path, into: Path) -> Path:
    """A copy of `tree` the host compiler can take: dynamic shared arrays become per-block pointers."""
    shutil.copytree(tree, into, symlinks=True, ignore=shutil.ignore_patterns(".git", "__pycache__"))
    for path in into.rglob("*"):
        if path.is_file() and not path.is_symlink() and path.suffix in SOURCE_SUFFIXES:
            data = path.read_bytes()
            rewritten = EXTERN_SHARED.sub(
                lambda m: m.group(1).strip() + b"* " + m.group(2) + b" = reinterpret_cast<" + m.group(1).strip()
                + b"*>(porter_emu::dynamic_shared());",
                data,
            )  # fmt: skip
            rewritten = STATIC_SHARED.sub(b"__shared__", rewritten)
            rewritten = LANE_ID_ASM.sub(_lane_read, rewritten)
            rewritten = _poisoned_shared(path, rewritten)
            if rewritten != data:
                path.write_bytes(rewritten)
    return into


def _poisoned_shared(path: Path, data: bytes) -> bytes:
    """`data` with a call after each block-local `__shared__` declaration that fills the variable
    with the emulator's poison once per block (porter_emu::poison_shared): a read of a slot no
    thread wrote then shows in the outputs, as garbage would on a GPU, instead of reading zeros."""
    if b"__shared__" not in data:
        return data
    parsed = parse(SourceFile(path=path, rel=path.name, data=data, kind=FileKind.CUDA), stand_ins(data))
    calls = []
    for declaration in captures("(declaration) @d", parsed.root).get("d", []):
        if declaration.parent is None or declaration.parent.type != "compound_statement":
            continue  # at namespace scope a statement cannot follow
        if b"__shared__" not in data[declaration.start_byte : declaration.end_byte]:
            continue
        names = [_declared_name(d, data) for d in declaration.children_by_field_name("declarator")]
        if names and None not in names:
            call = b"".join(b" porter_emu::poison_shared(&%s, sizeof(%s));" % (name, name) for name in names)
            calls.append((declaration.end_byte, call))
    for offset, call in reversed(calls):
        data = data[:offset] + call + data[offset:]
    return data


def _declared_name(declarator, data: bytes) -> bytes | None:
    """`tile` of `tile[32][33]` or `flag`; None for an initialised declarator (CUDA allows none)."""
    while declarator is not None and declarator.type == "array_declarator":
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None or declarator.type != "identifier":
        return None
    return data[declarator.start_byte : declarator.end_byte]


def unsupported(source: Path, string: str | None = None) -> str | None:
    """The first construct the CPU device cannot run in the kernel's source, with its line (of a
    Python file, in its strings that hold device code: those given to `string`, where named)."""
    data = source.read_bytes()
    if is_python(source):
        data = device_code(data, string)
    data = LANE_ID_ASM.sub(b"", data)  # stage() rewrites it
    for what, pattern in UNSUPPORTED.items():
        match = pattern.search(data)
        if match:
            line = data.count(b"\n", 0, match.start()) + 1
            return f"the emulator lacks {what} ({source.name}:{line})"
    return None


def hip_rtc_defines(target_id: str, width: int) -> tuple[str, ...]:
    """The macros hipRTC defines as it compiles a string for an AMD target. A kernel that a Python
    file holds is compiled there by hipRTC (cupy on ROCm), and picks its HIP branches by them
    (`#ifdef __HIP_DEVICE_COMPILE__`)."""
    return (
        "__HIP_PLATFORM_AMD__=1", "__HIP__=1", "__HIPCC_RTC__=1", "__HIP_DEVICE_COMPILE__=1",
        f"__{target_id}__=1", f"__AMDGCN_WAVEFRONT_SIZE={width}",
    )  # fmt: skip


# the flags of every harness build, and of the system headers' precompiled copy, which the compiler
# takes only where they match. Unoptimised: a harness's build is nearly all of its case's time
# (corpus/emulate's 318 builds took 458 s of compiler time at -O1, 373 s at -O0; their runs 13 s
# in all at -O1, 16 s at -O0, none over 1.5 s)
BUILD_FLAGS = (
    "-std=c++17", "-O0", "-pthread",
    "-fsanitize=bounds", "-fno-sanitize-recover=bounds",  # shared arrays indexed out of bounds stop the run
)  # fmt: skip
SYSTEM_HEADERS = EMULATOR / "porter_emu_std.h"
_precompiled: dict[str, list[str]] = {}
_precompiling = threading.Lock()


def precompiled_system_headers(compiler: str) -> list[str]:
    """`-include` flags that give a harness build the emulator's system headers precompiled (they are
    half of each build's time), built once per process for `compiler`; none where it cannot build them."""
    with _precompiling:
        if compiler not in _precompiled:
            _precompiled[compiler] = _precompile(compiler)
        return _precompiled[compiler]


def _precompile(compiler: str) -> list[str]:
    folder = Path(tempfile.mkdtemp(prefix="porter-emu-pch-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    header = folder / SYSTEM_HEADERS.name
    shutil.copyfile(SYSTEM_HEADERS, header)
    # g++ finds `header.gch` beside an -include'd header, clang `header.pch`
    suffix = ".pch" if "clang" in Path(compiler).name else ".gch"
    command = [compiler, *BUILD_FLAGS, "-x", "c++-header", str(header), "-o", f"{header}{suffix}"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    return ["-include", str(header)] if done.returncode == 0 else []


def compile_harness(
    harness: Path, tree: Path, width: int, executable: Path, defines: tuple[str, ...] = ()
) -> tuple[bool, str]:
    """Build one harness for the CPU device at `width` lanes: (ok, the compiler's log)."""
    compiler = host_compiler()
    if compiler is None:
        return False, "no host C++ compiler (g++ or clang++) to build the CPU device"
    command = [
        compiler, *BUILD_FLAGS, "-x", "c++", *precompiled_system_headers(compiler),
        f"-DPORTER_EMULATOR={width}", *(f"-D{d}" for d in defines),
        f"-I{EMULATOR / 'include'}", f"-I{tree}", f"-I{harness.parent}", "-w", str(harness), "-o", str(executable),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    return done.returncode == 0, (done.stderr + done.stdout).strip()


def run_harness(
    executable: Path,
    outputs: Path,
    tree: Path | None = None,
    timeout: float = TIMEOUT_SECONDS,
    descending: bool = False,
) -> tuple[str, str]:
    """(status, message): `ran`, or `hang` / `error` with the emulator's own words (paths relative to `tree`).
    `descending` runs each block's ready threads in reverse order (porter_emu.h lanes_descending)."""
    outputs.mkdir(parents=True, exist_ok=True)
    environment = {"PORTER_EMU_TIMEOUT": str(timeout), "PATH": "/usr/bin:/bin"}
    if descending:
        environment["PORTER_EMU_ORDER"] = "descending"
    try:
        done = subprocess.run(
            [str(executable), str(outputs)], capture_output=True, text=True, timeout=timeout + 30, env=environment
        )
    except subprocess.TimeoutExpired:
        return "hang", f"the emulated kernel did not finish within {timeout + 30:.0f} s"
    log = done.stderr + done.stdout
    message = _emulator_message(log.replace(f"{tree}/", "") if tree is not None else log)
    if done.returncode == 0:
        return "ran", ""
    if done.returncode == EXIT_HANG:
        return "hang", message
    return "error", message or f"the emulated harness exited with status {done.returncode}"


def _emulator_message(log: str) -> str:
    for line in log.splitlines():
        if line.startswith(("porter-emu:", "porter-harness:")) or "runtime error" in line:
            return line.strip()[:400]
    return log.strip()[-400:]
