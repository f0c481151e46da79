#!/usr/bin/env bash
# The libtorch build environment of mlb's workload plugins.
#
# Creates (once) a Python virtual environment outside the repository with the
# PyTorch release that tch expects (and, for its CUDA build, the CUDA headers
# NCCL's process group compiles against), then prints the variables a build
# needs.
# Installs the system tools the build and tests need when they are missing
# (python3-venv, g++ for libtch, readelf), with apt-get when run as root.
# Idempotent: a second call only checks the tools and the installed version.
#
#   eval "$(scripts/torch-env.sh)"      # set up and export into this shell
#   scripts/torch-env.sh --check        # set up, print nothing
#
# Environment:
#   MLB_CACHE      cache folder (default: $HOME/.cache/mlb); the venv is $MLB_CACHE/venv
#   MLB_TORCH_PIP  pip requirement (default: torch==2.11.0, the version tch 0.24 expects)
#   PYTHON         interpreter used to create the venv (default: python3)
set -euo pipefail

cache="${MLB_CACHE:-$HOME/.cache/mlb}"
venv="$cache/venv"
requirement="${MLB_TORCH_PIP:-torch==2.11.0}"
want="${requirement#*==}"
python="${PYTHON:-python3}"

# System tools: the venv module, a C++ compiler (torch-sys compiles libtch),
# readelf (the linking test).
missing=()
"$python" -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
command -v g++ >/dev/null || missing+=(g++)
command -v readelf >/dev/null || missing+=(binutils)
if ((${#missing[@]})); then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
        echo "torch-env: installing ${missing[*]}" >&2
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
    else
        echo "torch-env: missing ${missing[*]}: install them (apt-get install ${missing[*]})" >&2
        exit 1
    fi
fi

installed_version() {
    "$venv/bin/python" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null || true
}

if [[ "$(installed_version)" != "$want" ]]; then
    echo "torch-env: installing $requirement into $venv (once)" >&2
    mkdir -p "$cache"
    if [[ ! -x "$venv/bin/python" ]]; then
        "$python" -m venv "$venv" >&2
    fi
    "$venv/bin/python" -m pip install --quiet --upgrade pip >&2
    "$venv/bin/python" -m pip install --quiet "$requirement" >&2
    got="$(installed_version)"
    if [[ "$got" != "$want" ]]; then
        echo "torch-env: expected torch $want in $venv, found '${got:-none}'" >&2
        exit 1
    fi
fi

# NCCL in mlb's process group (plugins/mlb-torch/build.rs) compiles against
# CUDA's headers, of which PyTorch's CUDA wheel installs the runtime's but not
# the compiler's (crt/) nor CCCL's (nv/target): add those two header-only
# wheels, of the runtime's CUDA version. Nothing for a CPU-only PyTorch.
cuda_headers() {
    "$venv/bin/python" - <<'PY' 2>/dev/null || true
import importlib.metadata as m
try:
    cuda = ".".join(m.version("nvidia-cuda-runtime").split(".")[:2])
except m.PackageNotFoundError:
    raise SystemExit
for name in ("nvidia-cuda-cccl", "nvidia-cuda-crt"):
    try:
        if m.version(name).startswith(cuda + "."):
            continue
    except m.PackageNotFoundError:
        pass
    print(f"{name}=={cuda}.*")
PY
}
mapfile -t headers < <(cuda_headers)
if ((${#headers[@]})); then
    echo "torch-env: installing CUDA's headers for NCCL: ${headers[*]} (once)" >&2
    "$venv/bin/python" -m pip install --quiet --no-deps "${headers[@]}" >&2
fi

# libtorch's library folder, and its version: `mlb --version` names it
# (launcher/build.rs).
{ read -r libdir; read -r libtorch; } < <("$venv/bin/python" -c \
    'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib")); print(torch.__version__)' 2>/dev/null)

if [[ "${1:-}" == "--check" ]]; then
    exit 0
fi

cat <<VARS
export VIRTUAL_ENV='$venv'
export PATH='$venv/bin':"\$PATH"
export LIBTORCH_USE_PYTORCH=1
export MLB_LIBTORCH_LIB='$libdir'
export MLB_LIBTORCH_VERSION='$libtorch'
VARS
