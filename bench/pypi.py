"""Fetching real packages from PyPI at test or bench time: pinned, checked by SHA-256, cached.

No third-party code is committed to porter; it is downloaded into a cache outside the repo.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from porter.targets import toolchains


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    sha256: str
    subdir: str = ""  # the part of the tree that is scanned
    url: str = ""  # the sdist itself, where pip cannot fetch it (its metadata step needs a CUDA toolkit)

    @property
    def archive_stem(self) -> str:
        return f"{self.name.replace('-', '_')}-{self.version}"


PACKAGES = {
    "torch-scatter": Package(
        "torch-scatter", "2.1.2", "69b3aa435f2424ac6a1bfb6ff702da6eb73b33ca0db38fb26989c74159258e47", "csrc"
    ),
    "causal-conv1d": Package(
        "causal-conv1d", "1.6.0", "4eae3220d08e1e88238f3a0a88783147cbdf47f612cc610add75127c7a37ca3e", "csrc"
    ),
    "mmcv": Package(
        "mmcv", "2.2.0", "ac479247e808d8802f89eadf04d4118de86bdfe81361ec5aed0cc1bf731c67c9", "mmcv/ops/csrc"
    ),
    "deepspeed": Package(
        "deepspeed", "0.19.8", "9e491abd0827ea5c389dd702e15e11e13d83d904bac4a20d6c2a4cb37207a9af", "csrc"
    ),
    "nerfacc": Package(
        "nerfacc", "0.5.3", "01850cbbd71b6aeab059cbfb695755f8b6604f3fdfe48c44925b4b97c0c324db", "nerfacc/cuda/csrc"
    ),
    # LLM-serving kernels of the shapes a serving project holds (GPTQ/AWQ/Marlin/exllama), and a
    # project already ported to ROCm (llama.cpp's ggml-cuda, vendored by llama-cpp-python)
    "gptqmodel": Package(
        "gptqmodel", "7.7.0", "039874c39fb56ba75b750dd4870968e7fe83b6ca28890a53e94ad3c46be699d0", "gptqmodel_ext"
    ),
    "llama-cpp-python": Package(
        "llama-cpp-python",
        "0.3.16",
        "34ed0f9bd9431af045bb63d9324ae620ad0536653740e9bb163a2e1fcb973be6",
        "vendor/llama.cpp/ggml/src/ggml-cuda",
        # pip's metadata step needs scikit-build-core, which nothing else here does
        "https://files.pythonhosted.org/packages/e4/b4/c8cd17629ced0b9644a71d399a91145aedef109c0333443bef015e45b704/llama_cpp_python-0.3.16.tar.gz",
    ),
    "flashinfer-python": Package(
        "flashinfer-python",
        "0.7.2.post1",
        "af60319898dcfd552ba12a34165b9dd46c0bbd83d48ce665b1df6bd6ae77e9f1",
        "include/flashinfer",
    ),
    # the same sdist's generated MoE kernels: fourteen files of ~20,000 lines each, where an analysis
    # that grows faster than its file shows (bench/speed.py)
    "flashinfer-generated": Package(
        "flashinfer-python",
        "0.7.2.post1",
        "af60319898dcfd552ba12a34165b9dd46c0bbd83d48ce665b1df6bd6ae77e9f1",
        "csrc/cake_bgmv_moe",
    ),
    # PyTorch extensions built as their authors ship them (bench/build_realworld.py)
    "torch-cluster": Package(
        "torch-cluster", "1.6.3", "78d5a930a5bbd0d8788df8c6d66addd68d6dd292fe3edb401e3dacba26308152"
    ),
    "torch-spline-conv": Package(
        "torch-spline-conv", "1.2.2", "ed45a81da29f774665dbdd4709d7e534cdf16d2e7006dbd06957f35bd09661b2"
    ),
    "megablocks": Package("megablocks", "0.10.0", "956fd9880fa869f7468da125da230733d5f84e10a9f8c2991e5e16523c6fe1e0"),
    # before its ROCm fixes: the RMS norm's 32 warps of WARP_SIZE threads (turboderp-org/exllamav2#137),
    # a block that widening WARP_SIZE takes past 1024 threads (porter.rules.block_limits)
    "exllamav2": Package(
        "exllamav2",
        "0.0.4",
        "c9eeba99d817c79a6271c3efb0e54f1c5f046a4cab874210fd3745d46b465f56",
        "exllamav2/exllamav2_ext",
        "https://files.pythonhosted.org/packages/2a/95/ca716fd734582f9abc06bdf51860de9e393ce106d81431d650a60557e45d/exllamav2-0.0.4.tar.gz",
    ),
}


class FetchError(Exception):
    pass


def cache_root() -> Path:
    return toolchains.cache_dir() / "pypi"


def fetch(package: Package) -> Path:
    """The unpacked source tree of a pinned sdist (downloaded once, then cached)."""
    unpacked = cache_root() / package.archive_stem
    if (unpacked / ".complete").is_file():
        return unpacked / package.subdir if package.subdir else unpacked
    archive = _download(package)
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != package.sha256:
        raise FetchError(f"{archive.name}: SHA-256 {digest} does not match the pinned {package.sha256}")
    work = Path(tempfile.mkdtemp(prefix=package.archive_stem + ".", dir=cache_root()))
    with tarfile.open(archive) as tar:
        tar.extractall(work, filter="data")
    (top,) = list(work.iterdir())
    (top / ".complete").write_text("ok\n")
    if unpacked.exists():
        shutil.rmtree(unpacked)
    top.rename(unpacked)
    shutil.rmtree(work, ignore_errors=True)
    return unpacked / package.subdir if package.subdir else unpacked


def _download(package: Package) -> Path:
    downloads = cache_root() / "archives"
    downloads.mkdir(parents=True, exist_ok=True)
    existing = sorted(downloads.glob(f"{package.archive_stem}.tar.gz"))
    if existing:
        return existing[0]
    if package.url:
        target = downloads / f"{package.archive_stem}.tar.gz"
        try:
            with urllib.request.urlopen(package.url, timeout=600) as response:  # noqa: S310 - a pinned https URL
                target.write_bytes(response.read())
        except OSError as exc:
            raise FetchError(f"cannot download {package.url}: {exc}") from None
        return target
    env = dict(
        os.environ, CUDA_HOME="/usr/local/cuda", BUILD_NO_CUDA="1", FORCE_CUDA="0", CAUSAL_CONV1D_SKIP_CUDA_BUILD="TRUE"
    )
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "--no-build-isolation",
        "--no-clean", "-d", str(downloads), f"{package.name}=={package.version}",
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    found = sorted(downloads.glob(f"{package.archive_stem}.tar.gz"))
    if not found:
        tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
        raise FetchError(f"pip could not download {package.name}=={package.version}: {' | '.join(tail)}")
    return found[0]
