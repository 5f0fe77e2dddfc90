#!/usr/bin/env bash
# Idempotent set-up on a fresh Debian 12 machine: system packages (apt), a virtual environment
# with porter and its test and torch extras (pip), then porter's own toolchain provisioning
# (the compile-only ROCm sysroot and the CUDA 12.9 headers, into ~/.cache/porter).
# Each step checks first and does nothing when its result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[bootstrap] %s\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

apt_packages=(clang-19 lld-19 libclang1-19 chromium ninja-build debootstrap)  # ninja: torch.utils.cpp_extension (verify's torch cases); debootstrap: the HIP 6.4 root
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt: installing ${missing[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}" >/dev/null
else
  log "apt: ${apt_packages[*]} already installed"
fi

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "porter needs Python >= 3.11; set PYTHON to one" >&2
  exit 2
fi
if [ ! -x .venv/bin/python ]; then
  log "venv: creating .venv"
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.porter-installed
want="$(sha256sum pyproject.toml | cut -d' ' -f1) compat"  # the install mode too: a change reinstalls
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  log "pip: installing porter with its test, torch and bench extras"
  # compat mode puts the checkout on sys.path through a .pth file; setuptools' default import hook
  # costs every porter command ~17 ms at start-up (`python -X importtime`: site)
  .venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test,torch,bench]' \
    --config-settings editable_mode=compat 2>&1 | grep -v "is ignored: it is neither a file nor a directory" || true
  .venv/bin/python -c 'import porter, tree_sitter_cuda, clang.cindex, typer' 
  echo "$want" > "$stamp"
else
  log "pip: porter already installed in .venv"
fi

# pip compiles an installed package's modules; an editable install is left to compile at each
# start, which PYTHONDONTWRITEBYTECODE=1 makes permanent: compile them once here
log "bytecode: compiling porter's modules"
.venv/bin/python -m compileall -q porter >/dev/null

log "porter setup: ROCm sysroot, CUDA headers and (as root) the HIP 6.4 root"
PORTER_SETUP_ROCM=1 .venv/bin/porter setup all
