#!/usr/bin/env bash
# Builds the local test image without any registry: a root filesystem holding
# mlb, the spin plugin and the shared libraries they need (from ldd), a
# minimal /etc and /tmp, laid out as in every mlb image (/opt/mlb/bin/mlb,
# /opt/mlb/lib/mlb/plugins/), then `docker import`ed.
#   scripts/build-test-image.sh [BIN_DIR [TAG]]
# BIN_DIR: folder holding mlb and libmlb_spin.so (default: the release folder
# of `cargo xtask build`). TAG: default mlb-test:latest.
# Idempotent: the image carries a hash of its files and is rebuilt only when
# they changed. Prints the tag on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
bin_dir=${1:-${CARGO_TARGET_DIR:-target}/release}
tag=${2:-mlb-test:latest}

if [ ! -x "$bin_dir/mlb" ] || [ ! -f "$bin_dir/libmlb_spin.so" ]; then
    echo "build-test-image: $bin_dir/mlb or $bin_dir/libmlb_spin.so is missing: build them first (cargo xtask build)" >&2
    exit 1
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
install -D -m 755 "$bin_dir/mlb" "$root/opt/mlb/bin/mlb"
install -D -m 644 "$bin_dir/libmlb_spin.so" "$root/opt/mlb/lib/mlb/plugins/libmlb_spin.so"

# Every library the binaries load, and the dynamic loader itself (the line
# of ldd's output without "=>"), at the path where they are looked for.
libs=$(ldd "$bin_dir/mlb" "$bin_dir/libmlb_spin.so" | awk '/=> \// { print $3 } /^[ \t]*\/[^ ]+ \(/ { print $1 }' | sort -u)
for lib in $libs; do
    install -D -m 755 "$(readlink -f "$lib")" "$root$lib"
done

mkdir -p "$root/etc" "$root/tmp" "$root/proc" "$root/sys" "$root/dev" "$root/out"
chmod 1777 "$root/tmp"
printf 'root:x:0:0:root:/root:/bin/false\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' > "$root/etc/passwd"
printf 'root:x:0:\nvideo:x:44:\nnogroup:x:65534:\n' > "$root/etc/group"
touch "$root/etc/hosts" "$root/etc/resolv.conf"

hash=$(cd "$root" && find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
current=$(docker image inspect --format '{{ index .Config.Labels "org.mlb.test-hash" }}' "$tag" 2>/dev/null || true)
if [ "$current" = "$hash" ]; then
    echo "build-test-image: $tag is up to date ($hash)" >&2
else
    tar -C "$root" --numeric-owner --owner=0 --group=0 -c . |
        docker import \
            --change "LABEL org.mlb.test-hash=$hash" \
            --change 'ENV PATH=/opt/mlb/bin:/usr/bin:/bin' \
            --change 'CMD ["/opt/mlb/bin/mlb", "plugins", "list"]' \
            - "$tag" >&2
    echo "build-test-image: imported $tag ($hash)" >&2
fi
echo "$tag"
