"""Provisioning the compile-only toolchain pieces into porter's cache, never into the system.

- The ROCm sysroot: Debian 13 (trixie) packages of HIP 5.7 and its libraries, fetched with
  `apt-get download` through a private sources list and lists directory (the system's apt
  state is untouched) and unpacked with `dpkg -x`.
- The CUDA 12.9 headers that libclang parses against, unpacked from NVIDIA's PyPI wheels.
- The headers of the CUDA 13.0 libraries (cuBLAS, cuSPARSE, cuSOLVER, cuDNN, cuRAND) that torch's CUDA headers
  include, read by range requests out of NVIDIA's PyPI wheels (the wheels themselves are ~1 GB).

Both land in a temporary directory first and are renamed into place when complete, so an
interrupted setup never leaves a half-provisioned tree behind.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from porter.errors import PorterError
from porter.targets import toolchains

SYSROOT_PACKAGES = (
    "libamdhip64-dev",
    "rocm-device-libs-17",
    "libhipcub-dev",
    "librocprim-dev",
    "librocthrust-dev",
    "libhipblas-dev",
    "libhipsparse-dev",
    "libhiprand-dev",
    "librocrand-dev",
    "librocblas-dev",
    "librccl-dev",
    "libhipfft-dev",
    "libhipsolver-dev",
)

CUDA_HEADER_WHEELS = (
    "nvidia-cuda-runtime-cu12==12.9.79",
    "nvidia-cuda-nvcc-cu12==12.9.86",
    "nvidia-curand-cu12==10.3.10.19",
    "nvidia-cuda-cccl-cu12==12.9.27",
    "nvidia-cuda-profiler-api-cu12==12.9.79",  # the HIP headers' nvidia_detail layer includes it
)

# torch's ATen/cuda headers include cublas_v2.h, cublasLt.h, cusparse.h and cusolverDn.h, ATen/cudnn
# cudnn.h, and extensions curand.h (nvcc 13's own tree has none of them); these are the CUDA 13.0
# releases of those libraries, matching nvcc 13.0.
_PYPI = "https://files.pythonhosted.org/packages"
CUDA_LIBRARY_WHEELS = (
    f"{_PYPI}/5a/99/210e113dde53955e97042bd76dc4ad927eca04c5b4645ec157cc59f4f3ae/nvidia_cublas-13.0.0.19-py3-none-manylinux_2_27_x86_64.whl",
    f"{_PYPI}/ba/e8/b3f7a87cc719dca926c7baee92f2544de8909573a4126c85a9f1625431e8/nvidia_cusparse-12.6.2.49-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
    f"{_PYPI}/a5/87/e3c9ee227b750e5b61572e7509f586cc8d494a4f7874b5163e734ed852c2/nvidia_cusolver-12.0.3.29-py3-none-manylinux_2_27_x86_64.whl",
    f"{_PYPI}/af/75/96ea5c5368eb595c39d629cde08a66227a864e71ccb0e593add2612bb952/nvidia_cudnn_cu13-9.27.0.42-py3-none-manylinux_2_27_x86_64.whl",
    f"{_PYPI}/a5/9f/be0a41ca4a4917abf5cb9ae0daff1a6060cc5de950aec0396de9f3b52bc5/nvidia_curand-10.4.0.35-py3-none-manylinux_2_27_x86_64.whl",
)  # fmt: skip

DEBIAN_KEYRINGS = {
    "trixie": "/usr/share/keyrings/debian-archive-trixie-stable.gpg",
    "sid": "/usr/share/keyrings/debian-archive-keyring.gpg",
    "experimental": "/usr/share/keyrings/debian-archive-keyring.gpg",
}


class ProvisionError(PorterError):
    """A toolchain piece could not be provisioned; the message says why and what to do."""


@dataclass(frozen=True)
class PrivateApt:
    """apt-get pointed at its own sources list, lists and cache under `state`."""

    state: Path
    suite: str

    def options(self) -> list[str]:
        return [
            "-o", f"Dir::Etc::SourceList={self.state / 'sources.list'}",
            "-o", "Dir::Etc::SourceParts=/dev/null",
            "-o", f"Dir::State::Lists={self.state / 'lists'}",
            "-o", f"Dir::Cache={self.state / 'cache'}",
            "-o", "Dir::State::Status=/dev/null",
            "-o", "Debug::NoLocking=1",
            "-o", "APT::Sandbox::User=root",
        ]  # fmt: skip

    def prepare(self) -> None:
        keyring = DEBIAN_KEYRINGS.get(self.suite, DEBIAN_KEYRINGS["sid"])
        if not Path(keyring).is_file():
            raise ProvisionError(
                f"the Debian archive key for {self.suite} is missing ({keyring}); install debian-archive-keyring"
            )
        for sub in ("lists/partial", "cache/archives/partial"):
            (self.state / sub).mkdir(parents=True, exist_ok=True)
        line = f"deb [signed-by={keyring}] http://deb.debian.org/debian {self.suite} main\n"
        (self.state / "sources.list").write_text(line)
        self._apt(["update"], cwd=self.state)

    def download(self, packages: tuple[str, ...], into: Path) -> list[Path]:
        into.mkdir(parents=True, exist_ok=True)
        names = [f"{p}/{self.suite}" if self.suite == "experimental" else p for p in packages]
        self._apt(["download", *names], cwd=into)
        return sorted(into.glob("*.deb"))

    def _apt(self, arguments: list[str], cwd: Path) -> None:
        if shutil.which("apt-get") is None:
            raise ProvisionError("apt-get is not available: the ROCm sysroot is built from Debian packages")
        result = subprocess.run(["apt-get", *self.options(), *arguments], cwd=cwd, capture_output=True, text=True)
        if result.returncode != 0:
            tail = (result.stderr or result.stdout).strip().splitlines()[-3:]
            raise ProvisionError(f"apt-get {arguments[0]} ({self.suite}) failed: {' | '.join(tail)}")


def _extract_debs(debs: list[Path], into: Path) -> None:
    if shutil.which("dpkg") is None:
        raise ProvisionError("dpkg is not available: it unpacks the Debian packages of the sysroot")
    for deb in debs:
        result = subprocess.run(["dpkg", "-x", str(deb), str(into)], capture_output=True, text=True)
        if result.returncode != 0:
            raise ProvisionError(f"dpkg -x {deb.name} failed: {result.stderr.strip()}")


def install_atomically(final: Path, build) -> Path:
    """Run build(tmpdir) and rename the result into place; a failure leaves nothing behind."""
    final.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=final.name + ".", dir=final.parent))
    try:
        build(work)
        (work / ".complete").write_text("ok\n")
        if final.exists():
            shutil.rmtree(final)
        work.rename(final)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return final


def provision_header_set(suite: str, packages: tuple[str, ...], final: Path, force: bool = False) -> Path:
    """Debian packages of one suite, unpacked under `final`."""
    if (final / ".complete").is_file() and not force:
        return final

    def build(work: Path) -> None:
        apt = PrivateApt(work / "apt", suite)
        apt.prepare()
        debs = apt.download(packages, work / "debs")
        _extract_debs(debs, work)
        (work / "packages.txt").write_text("".join(d.name + "\n" for d in debs))
        shutil.rmtree(work / "apt")
        shutil.rmtree(work / "debs")

    return install_atomically(final, build)


def provision_sysroot(force: bool = False) -> Path:
    return provision_header_set("trixie", SYSROOT_PACKAGES, toolchains.sysroot_dir(), force)


def provision_cuda_headers(force: bool = False) -> Path:
    final = toolchains.cuda_headers_path()
    if toolchains.cuda_headers_dir() and toolchains.cuda12_device_toolkit() and not force:
        return final

    def build(work: Path) -> None:
        wheels = work / "wheels"
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-d", str(wheels)]
        result = subprocess.run([*command, *CUDA_HEADER_WHEELS], capture_output=True, text=True)
        if result.returncode != 0:
            tail = result.stderr.strip().splitlines()[-2:]
            raise ProvisionError(f"pip could not download the CUDA 12.9 header wheels: {' | '.join(tail)}")
        for wheel in sorted(wheels.glob("*.whl")):
            _extract_wheel(wheel, work)
        (work / "bin").mkdir(exist_ok=True)
        shutil.rmtree(wheels)

    return install_atomically(final, build)


def provision_cuda_libraries(force: bool = False) -> Path:
    from porter.targets.remote_wheel import RemoteFileError, read_members

    final = toolchains.cuda_libraries_path()
    if toolchains.cuda_libraries_dir() and not force:
        return final

    def build(work: Path) -> None:
        for url in CUDA_LIBRARY_WHEELS:
            try:
                members = read_members(url, lambda name: _wheel_member_target(name) is not None)
            except RemoteFileError as exc:
                raise ProvisionError(f"could not read the headers of {url.rsplit('/', 1)[-1]}: {exc}") from exc
            for name, data in members.items():
                target = work / _wheel_member_target(name)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)

    return install_atomically(final, build)


def _wheel_member_target(name: str) -> Path | None:
    """Where a wheel member goes in the CUDA 12.9 tree, or None to leave it out.

    Every wheel's nvidia/<component>/include/ merges into one include/; from the nvcc wheel (it has
    no nvcc driver) ptxas and libdevice too, enough for clang to compile CUDA, and so HIP-on-NVIDIA.
    """
    parts = name.split("/")
    if len(parts) >= 4 and parts[0] == "nvidia" and parts[2] == "include":
        return Path("include", *parts[3:])
    if name == "nvidia/cuda_nvcc/bin/ptxas" or name.startswith("nvidia/cuda_nvcc/nvvm/libdevice/"):
        return Path(*parts[2:])
    return None


def _extract_wheel(wheel: Path, into: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.infolist():
            relative = None if member.is_dir() else _wheel_member_target(member.filename)
            if relative is None:
                continue
            target = into / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
            if relative.parts[0] == "bin":
                target.chmod(0o755)
