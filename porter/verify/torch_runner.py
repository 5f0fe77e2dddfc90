"""Run one PyTorch-extension case in its own process: build, call on seeded inputs, save, time.

`python -m porter.verify.torch_runner SPEC.json` (written by porter.verify.torch_cases). It writes
`status.json` ({"status": "ran" | "not-run" | "build-failed" | "failed", "reason", "device", "reused":
whether the extension came from porter's cache}),
one .npy per returned tensor, `timings.txt` (milliseconds, one per repetition) and, when the case
names a CPU reference, `reference/*.npy`. Inputs come from numpy's PCG64 seeded per argument, so
every variant (and every machine) gets the same bits.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

NUMPY_TYPES = {
    "f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": np.float32,
    "i64": np.int64, "i32": np.int32, "i16": np.int16, "i8": np.int8, "u64": np.uint64, "u32": np.uint32, "u8": np.uint8,
}  # fmt: skip


def _status(outputs: Path, status: str, reason: str | None = None, device: str | None = None, reused=False) -> int:
    outputs.mkdir(parents=True, exist_ok=True)
    report = {"status": status, "reason": reason, "device": device, "reused": reused}
    (outputs / "status.json").write_text(json.dumps(report))
    return 0


BUILD_ENVIRONMENT = ("CXX", "CC", "TORCH_CUDA_ARCH_LIST", "PYTORCH_ROCM_ARCH", "CUDA_HOME", "ROCM_PATH")


def _extension(torch, cpp_extension, spec: dict):
    """(the extension module, whether it came from porter's cache): a build of the same digest
    (porter.verify.extension.build_digest) by the same torch, Python and compiler is imported as
    it is; anything else is built by cpp_extension, and recorded for the next run."""
    build = Path(spec["build"])
    record = build / "porter-build.json"
    made_by = {"torch": torch.__version__, "torch_at": str(Path(torch.__file__).parent), "python": sys.version}
    # the compiler, and the GPU architectures cpp_extension builds device code for
    made_by |= {name: os.environ.get(name) for name in BUILD_ENVIRONMENT}
    reusable = _recorded_build(record, made_by)
    if reusable is not None:
        try:
            module = _import_library(*reusable)
        except (ImportError, OSError):
            pass  # a library damaged since it was built: built again below
        else:
            os.utime(record)  # when it was last used: porter.verify.extension prunes builds long unused
            return module, True
    build.mkdir(parents=True, exist_ok=True)
    module = cpp_extension.load(
        name=spec["module"],
        sources=spec["sources"],
        extra_include_paths=spec["include"],
        build_directory=str(build),
        verbose=False,
    )
    # written whole or not at all: a run that reads it half-written would import nothing
    partial = record.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps({"name": module.__name__, "library": module.__file__, "made_by": made_by}))
    os.replace(partial, record)
    return module, False


def _recorded_build(record: Path, made_by: dict) -> tuple[str, Path] | None:
    """(module name, library) of the build the record describes, where the same torch, Python and
    build environment made it and its library is still there. A record that cannot be read (edited
    by hand, or written by another porter) counts as none: the extension is built again."""
    try:
        recorded = json.loads(record.read_text())
        name, library = recorded["name"], Path(recorded["library"])
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return (name, library) if recorded.get("made_by") == made_by and library.is_file() else None


def _import_library(name: str, library: Path):
    """The module a file holds (a built extension, or a case's Python reference), imported as `name`."""
    loaded = importlib.util.spec_from_file_location(name, library)
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    return module


def generate(arg: dict) -> np.ndarray:
    rng = np.random.Generator(np.random.PCG64(arg["seed"]))
    size, init, values = arg["size"], arg["init"], arg["init_args"]
    if init == "randn":
        data = rng.standard_normal(size)
    elif init == "uniform":
        data = rng.uniform(values[0], values[1], size)
    elif init == "range":
        data = rng.integers(int(values[0]), int(values[1]), size, endpoint=False)
    elif init == "arange":
        data = values[0] + values[1] * np.arange(size)
    elif init == "const":
        data = np.full(size, values[0])
    else:
        data = np.zeros(size)
    return data.astype(NUMPY_TYPES[arg["dtype"]])


def _torch_dtype(torch, dtype: str):
    return {"bf16": torch.bfloat16, "f16": torch.float16}.get(dtype) or getattr(
        torch, np.dtype(NUMPY_TYPES[dtype]).name
    )


def _inputs(torch, spec: dict, device: str) -> list:
    values = []
    for arg in spec["args"]:
        if arg["size"] is None:
            value = arg["init_args"][0]
            values.append(value if arg["dtype"] in ("f64", "f32", "f16", "bf16") else int(value))
        else:
            values.append(torch.from_numpy(generate(arg)).to(_torch_dtype(torch, arg["dtype"])).to(device))
    return values


def _save(torch, results, returns: list[dict], into: Path) -> None:
    results = results if isinstance(results, (tuple, list)) else (results,)
    if len(results) != len(returns):
        raise ValueError(f"the op returned {len(results)} tensor(s); the case names {len(returns)}")
    into.mkdir(parents=True, exist_ok=True)
    for tensor, declared in zip(results, returns, strict=True):
        tensor = tensor.detach().to("cpu")
        if declared["dtype"] == "bf16":  # stored as its 16 bits, as the kernel harness stores it
            array = tensor.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
        else:
            array = tensor.to(_torch_dtype(torch, declared["dtype"])).numpy()
        np.save(into / f"{declared['name']}.npy", array)


def _time(torch, call, device: str, warmup: int, reps: int) -> list[float]:
    for _ in range(warmup):
        call()
    times = []
    for _ in range(reps):
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            call()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        else:
            started = time.perf_counter()
            call()
            times.append((time.perf_counter() - started) * 1e3)
    return times


def _reference(torch, spec: dict, outputs: Path) -> None:
    path, function = spec["reference"].rsplit(":", 1)
    module = _import_library("porter_reference", Path(path))
    _save(torch, getattr(module, function)(*_inputs(torch, spec, "cpu")), spec["returns"], outputs / "reference")


def run(spec: dict) -> int:
    outputs = Path(spec["outputs"])
    try:
        import torch
        from torch.utils import cpp_extension
    except ImportError:
        return _status(outputs, "not-run", "torch is not installed")
    device = spec["device"]
    if device == "cuda" and not torch.cuda.is_available():
        build = torch.version.hip and f"ROCm {torch.version.hip}" or torch.version.cuda and f"CUDA {torch.version.cuda}"
        why = f"torch {torch.__version__} sees no GPU" if build else f"torch {torch.__version__} is a CPU-only build"
        return _status(outputs, "not-run", f"not run: {why}; a CUDA case needs a CUDA or ROCm torch and its GPU")
    try:
        module, reused = _extension(torch, cpp_extension, spec)
    except Exception as exc:  # noqa: BLE001 - any build failure is reported, with its message
        return _status(outputs, "build-failed", f"{type(exc).__name__}: {str(exc).strip()[-600:]}")
    name = torch.cuda.get_device_name() if device == "cuda" else "cpu"
    try:
        function = getattr(module, spec["function"])
        inputs = _inputs(torch, spec, device)
        _save(torch, function(*inputs), spec["returns"], outputs)
        times = _time(torch, lambda: function(*inputs), device, spec["warmup"], spec["reps"])
        (outputs / "timings.txt").write_text("".join(f"{t}\n" for t in times))
        if spec.get("reference"):
            _reference(torch, spec, outputs)
    except Exception as exc:  # noqa: BLE001 - the op or the reference raised: a failed run, not a crash
        return _status(outputs, "failed", f"{type(exc).__name__}: {exc}", name, reused)
    return _status(outputs, "ran", None, name, reused)


if __name__ == "__main__":
    raise SystemExit(run(json.loads(Path(sys.argv[1]).read_text())))
