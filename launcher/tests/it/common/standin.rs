//! A STAND-IN for `apptainer`: Apptainer cannot be installed on the machines
//! that run the tests, so the tests write this script, which honours the
//! `exec` contract mlb relies on:
//!
//! - `--bind SRC:DST[:ro]`: real bind mounts in a private mount namespace
//!   (`unshare --mount`), read-only ones remounted read-only;
//! - `--cleanenv`: the host environment is dropped; only `APPTAINERENV_*`
//!   variables enter, without their prefix;
//! - `--pwd DIR`: the working directory;
//! - `--nv` / `--rocm`: accepted and recorded (no GPU here).
//!
//! It does not swap the root filesystem for the image's: the command runs
//! on the host's. With `STANDIN_IMAGE_BIN=DIR` set (a folder holding `mlb`
//! and `libmlb_spin.so`), it lays those out where an mlb image has them
//! (`/opt/mlb`), visible only inside its namespace. The image file must exist.

/// The stand-in for `apptainer` (bash, run as root for the mounts).
pub const STAND_IN: &str = r#"#!/usr/bin/env bash
# STAND-IN for `apptainer exec` in mlb's tests: binds, clean environment,
# working directory; the command runs on the host's root filesystem.
set -euo pipefail
if [ -z "${STANDIN_NS:-}" ]; then
    STANDIN_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi
[ "${1:-}" = exec ] || { echo "stand-in: only exec is supported" >&2; exit 90; }
shift
binds=() pwd_dir= clean=0 gpu=none
while [ $# -gt 0 ]; do
    case "$1" in
        --cleanenv) clean=1; shift ;;
        --nv) gpu=nvidia; shift ;;
        --rocm) gpu=rocm; shift ;;
        --bind) binds+=("$2"); shift 2 ;;
        --pwd) pwd_dir=$2; shift 2 ;;
        -*) echo "stand-in: unknown option $1" >&2; exit 91 ;;
        *) break ;;
    esac
done
image=$1; shift
[ -f "$image" ] || { echo "stand-in: no image file $image" >&2; exit 92; }
[ "$clean" = 1 ] || { echo "stand-in: mlb must pass --cleanenv" >&2; exit 93; }
echo "stand-in: gpu=$gpu image=$image" >&2
if [ -n "${STANDIN_IMAGE_BIN:-}" ]; then
    # Stands for the image's content: mlb and the spin plugin in the image
    # layout (/opt/mlb), over a private tmpfs.
    mount -t tmpfs -o mode=755 standin-image /opt
    mkdir -p /opt/mlb/bin /opt/mlb/lib/mlb/plugins
    touch /opt/mlb/bin/mlb /opt/mlb/lib/mlb/plugins/libmlb_spin.so
    mount --bind "$STANDIN_IMAGE_BIN/mlb" /opt/mlb/bin/mlb
    mount --bind "$STANDIN_IMAGE_BIN/libmlb_spin.so" /opt/mlb/lib/mlb/plugins/libmlb_spin.so
fi
for bind in "${binds[@]}"; do
    IFS=: read -r src dst mode <<<"$bind"
    mkdir -p "$dst"
    mount --bind "$src" "$dst"
    # Each bind takes the host's view of its source, as Apptainer's do (a
    # source inside an earlier read-only bind is still writable).
    if [ "${mode:-rw}" = ro ]; then mount -o remount,bind,ro "$dst"; else mount -o remount,bind,rw "$dst"; fi
done
envs=(PATH=/usr/local/bin:/usr/bin:/bin)
while IFS= read -r -d '' kv; do
    case "$kv" in APPTAINERENV_*) envs+=("${kv#APPTAINERENV_}") ;; esac
done < <(env -0)
[ -z "$pwd_dir" ] || cd "$pwd_dir"
exec env -i "${envs[@]}" "$@"
"#;
