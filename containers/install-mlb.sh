#!/bin/sh
# Installs mlb and its workload plugins under ${MLB_PREFIX:-/opt/mlb}
# (bin/mlb, lib/mlb/plugins/*.so, share/mlb/configs/: the suites and target
# tables), from either
#   - a release tarball (`cargo xtask dist`, docs/install.md), unpacked as
#     it is: no compiler, nothing fetched;
#   - the source tree SRC (default: the current folder): mlb and every
#     plugin built, the libtorch ones against the image's own PyTorch; SRC
#     is deleted afterwards. MLB_COMMIT names the commit of a tree without
#     .git (`mlb --version`).
# Used by containers/*/Dockerfile and the %post of the Singularity.* files:
#   sh containers/install-mlb.sh [SRC | mlb-VERSION-ARCH-linux.tar.gz]
set -eu
prefix=${MLB_PREFIX:-/opt/mlb}
torch=$(python3 -c 'import torch; print(torch.__version__)' 2>/dev/null || echo none)

if [ -f "${1:-}" ]; then
    mkdir -p "$prefix"
    tar -xzf "$1" -C "$prefix" --strip-components=1
else
    src=$(cd "${1:-.}" && pwd)
    cd "$src"

    if ! command -v cargo >/dev/null 2>&1; then
        # Rust from rustup (python3 fetches it: every PyTorch image has python3).
        export RUSTUP_HOME=${RUSTUP_HOME:-/opt/rust/rustup} CARGO_HOME=${CARGO_HOME:-/opt/rust/cargo}
        python3 -c 'import urllib.request,sys; sys.stdout.buffer.write(urllib.request.urlopen("https://sh.rustup.rs").read())' \
            > /tmp/rustup-init.sh
        sh /tmp/rustup-init.sh -y --profile minimal --default-toolchain "${RUST_VERSION:-stable}"
        rm /tmp/rustup-init.sh
        PATH=$CARGO_HOME/bin:$PATH
    fi

    # The charting library of the HTML report is vendored at build time from
    # the npm registry (crates/judge/build.rs, docs/charts.md), with npm or curl. In
    # an image with neither, python3 fetches the pinned tarball by its registry
    # URL, and the build checks it.
    fetched=
    if [ -z "${MLB_ECHARTS_TARBALL:-}" ] && ! command -v npm >/dev/null 2>&1 && ! command -v curl >/dev/null 2>&1; then
        set -- $(grep -v '^#' crates/judge/src/charts/library.pin)
        fetched=/tmp/$1-$2.tgz
        python3 -c 'import urllib.request,sys; sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1]).read())' \
            "https://registry.npmjs.org/$1/-/$1-$2.tgz" > "$fetched"
        export MLB_ECHARTS_TARBALL=$fetched
    fi

    # tch: use the PyTorch installed in this image, whatever its version;
    # `mlb --version` names it.
    export LIBTORCH_USE_PYTORCH=1 LIBTORCH_BYPASS_VERSION_CHECK=1 MLB_LIBTORCH_VERSION="$torch"
    cargo build --release --workspace
    [ -z "$fetched" ] || rm -f "$fetched"

    install -D -m 755 target/release/mlb "$prefix/bin/mlb"
    install -d "$prefix/lib/mlb/plugins"
    install -m 644 target/release/lib*.so "$prefix/lib/mlb/plugins/"
    install -d "$prefix/share/mlb/configs"
    cp -R configs/. "$prefix/share/mlb/configs/"
    cd /
    rm -rf "$src"
fi

# Versions, for `docker inspect` / `apptainer inspect`.
mlb=$("$prefix/bin/mlb" --version | cut -d' ' -f2)
echo "mlb $mlb, torch $torch" > "$prefix/VERSIONS"
for labels in "${APPTAINER_LABELS:-}" "${SINGULARITY_LABELS:-}"; do
    if [ -n "$labels" ]; then
        printf 'org.mlb.version %s\norg.mlb.torch %s\n' "$mlb" "$torch" >> "$labels"
    fi
done
"$prefix/bin/mlb" plugins list
