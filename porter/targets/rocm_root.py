"""The HIP 6.4 toolchain: clang-21 and ROCm 6.4 headers from Debian's unstable suite, in a root of their own.

Debian unstable's clang-21 needs a newer glibc than the host's, so it runs inside a minimal
Debian root (`debootstrap --variant=minbase`), entered with chroot in a private mount namespace
(`unshare --mount`) where the directories of the tree being built are bind-mounted at their own
paths: diagnostics name the user's files. The root is compile-only: clang, lld and the device
libraries are installed; the ROCm libraries contribute their -dev headers only (`dpkg -x`),
never their multi-gigabyte device-code runtime packages.

Needs root (debootstrap, chroot, mount). An unprivileged user is told so, and keeps the HIP 5.7
sysroot.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

from porter.targets import toolchains
from porter.targets.provision import ProvisionError, install_atomically

SUITE = "sid"
MIRROR = "http://deb.debian.org/debian"
LLVM_MAJOR = 21
HIP_VERSION = "6.4"
# compilers and device libraries, installed with their dependencies
COMPILER_PACKAGES = (
    f"clang-{LLVM_MAJOR}", f"lld-{LLVM_MAJOR}", f"llvm-{LLVM_MAJOR}", f"clang-tools-{LLVM_MAJOR}",
    f"rocm-device-libs-{LLVM_MAJOR}",
)  # fmt: skip
# library headers, unpacked without their runtime packages
HEADER_PACKAGES = (
    "libamdhip64-dev", "libhsa-runtime-dev", "libhipblas-dev", "libhipblas-common-dev", "libhipblaslt-dev",
    "libhipcub-dev", "librocprim-dev", "librocthrust-dev", "libhiprand-dev", "librocrand-dev",
    "libhipsparse-dev", "librocsparse-dev", "librocblas-dev", "libhipfft-dev", "libhipsolver-dev", "librccl-dev",
)  # fmt: skip
APT = ("apt-get", "-o", "Acquire::Check-Valid-Until=false", "-o", "APT::Sandbox::User=root", "-q", "-y")
INSIDE_PATH = f"/usr/lib/llvm-{LLVM_MAJOR}/bin:/usr/bin:/bin"
DEVICE_LIBS = Path(f"/usr/lib/llvm-{LLVM_MAJOR}/lib/clang/{LLVM_MAJOR}/amdgcn/bitcode")
# the root's own system directories: never hidden behind a bind mount of the host's
_SYSTEM_DIRS = frozenset({"usr", "lib", "lib64", "bin", "sbin", "etc", "var", "proc", "sys", "dev", "run", "boot"})


def root_dir() -> Path:
    return toolchains.cache_dir() / f"rocm-root-{HIP_VERSION}"


def why_not_possible() -> str | None:
    """What keeps this machine from making or entering the root, or None."""
    if os.geteuid() != 0:
        return "the HIP 6.4 root needs root (debootstrap, chroot and mount); run `porter setup rocm` as root"
    for tool in ("debootstrap", "unshare", "chroot", "mount"):
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed (apt-get install debootstrap util-linux)"
    return None


def provision(force: bool = False) -> Path:
    """Make the root (idempotent); staged in a temporary folder and renamed into place when complete."""
    final = root_dir()
    if (final / ".complete").is_file() and not force:
        return final
    reason = why_not_possible()
    if reason is not None:
        raise ProvisionError(reason)
    return install_atomically(final, _build)


def _build(work: Path) -> None:
    _run(["debootstrap", "--variant=minbase", SUITE, str(work), MIRROR], "debootstrap of Debian unstable")
    _inside(work, [*APT, "update"], "apt-get update in the root")
    _inside(work, [*APT, "install", "--no-install-recommends", *COMPILER_PACKAGES], "installing clang-21")
    debs = work / "tmp" / "porter-debs"
    debs.mkdir(parents=True, exist_ok=True)
    _inside(work, ["sh", "-c", 'cd /tmp/porter-debs && exec "$@"', "apt", *APT, "download", *HEADER_PACKAGES], "apt-get download of the ROCm headers")  # fmt: skip
    for deb in sorted(debs.glob("*.deb")):
        _run(["dpkg", "-x", str(deb), str(work)], f"dpkg -x {deb.name}")
    (work / "porter-packages.txt").write_text("".join(d.name + "\n" for d in sorted(debs.glob("*.deb"))))
    shutil.rmtree(debs)
    _inside(work, [*APT, "clean"], "apt-get clean")
    shutil.rmtree(work / "var" / "lib" / "apt" / "lists", ignore_errors=True)


def _inside(root: Path, command: list[str], what: str) -> None:
    env = {"PATH": INSIDE_PATH, "DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C"}
    _run([shutil.which("chroot") or "/usr/sbin/chroot", str(root), *command], what, env=env)


def _run(command: list[str], what: str, env: dict | None = None) -> None:
    try:
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ProvisionError(f"{what} failed: {exc}") from exc
    if result.returncode != 0:
        tail = " | ".join((result.stderr or result.stdout).strip().splitlines()[-3:])
        unreachable = re.search(r"(Could not resolve|Failed to fetch|Temporary failure|Couldn't download)", tail)
        hint = f" (the Debian archive {MIRROR} could not be reached)" if unreachable else ""
        raise ProvisionError(f"{what} failed{hint}: {tail}")


# -- running the compiler inside ------------------------------------------------------------

# A fixed script: the bind mounts and the command arrive as positional parameters, never as code.
# chroot starts in the new root's `/`: the working directory is mounted too (unless a mount above
# already shows it) and entered again inside, so relative paths mean what they meant outside.
_ENTER = """set -e
root=$1; shift
here=$PWD
while [ "$1" != "--" ]; do mkdir -p "$root$1"; mount --bind "$1" "$root$1"; shift; done
shift
[ "$root$here" -ef "$here" ] || { mkdir -p "$root$here"; mount --bind "$here" "$root$here"; }
exec chroot "$root" /bin/sh -c 'cd "$1"; shift; exec /usr/bin/env PATH=INSIDE_PATH "$@"' porter-in-root "$here" "$@"
""".replace("INSIDE_PATH", INSIDE_PATH)


@cache
def can_enter(root: Path) -> bool:
    """Can this process make a mount namespace and chroot (a container may forbid either)? Asked once."""
    try:
        result = subprocess.run(wrap(["/bin/true"], root), capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0


def wrap(command: list[str], root: Path) -> list[str]:
    """The command, run inside the root with the host directories it names mounted at their own paths."""
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", _ENTER, "porter-rocm-root", str(root),
            *host_dirs(command), "--", *command]  # fmt: skip


def version_command(command: list[str]) -> list[str]:
    """The command that prints the version of the compiler `command` runs, entered as `command` is."""
    if command[:1] == ["unshare"] and "--" in command:  # made by `wrap`: compiler right after `--`
        return [*command[: command.index("--") + 2], "--version"]
    return [command[0], "--version"]


def host_dirs(command: list[str]) -> list[str]:
    """Top-level host directories named in the command's paths (`/work`, `/tmp`, `/root`), system ones left out."""
    found: list[str] = []
    for argument in command:
        for match in re.finditer(r"(?:^|=|^-I|^-isystem|^-L|^-include)(/[^/\s=]+)", argument):
            top = match.group(1)
            if top.strip("/") not in _SYSTEM_DIRS and top not in found and Path(top).is_dir():
                found.append(top)
    return found
