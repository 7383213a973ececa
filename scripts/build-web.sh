#!/usr/bin/env bash
# Builds the engine in WebAssembly into target/web/: mulino.wasm and the
# JavaScript around it (mulino.mjs, `node target/web/mulino.mjs` being
# the engine on stdin and stdout; mulino-engine.mjs and mulino-worker.mjs
# for a page), and beside them the web board as static files: the page
# of `mulino gui` (src/web/assets/: index.html, the scripts board.js,
# engine.js, turns.js, panel.js, practice.js and app.js, style.css, sw.js,
# its service worker, and endgames/, the sets of endgame practice), which plays there against
# the engine in WebAssembly. Any static host serves the folder, e.g.
# `python3 -m http.server -d target/web 8000`, then http://localhost:8000/.
# protocol.md, section 13, says what differs from the binary.
#
#   scripts/build-web.sh
#
# The toolchain is Debian trixie's (rustc 1.85 with the wasm32 standard
# library and rust-lld: packages rustc, cargo, libstd-rust-dev-wasm32,
# rust-llvm, lld-19), in a chroot
# made once by debootstrap and kept outside the repository, in
# $MULINO_WASM_CHROOT (default ~/.cache/mulino-wasm-chroot). The first run
# needs root (debootstrap, chroot, mount; through sudo if not root) and
# the network (a Debian mirror, $MULINO_DEBIAN_MIRROR, default
# deb.debian.org; crates.io); later ones only crates.io, for crates not
# yet in the chroot's cargo cache. The repository is bind-mounted into the
# chroot in a mount namespace of the build's own (so that no mount
# outlives it), and built with CARGO_TARGET_DIR=target/wasm-build.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    exec sudo -E "$0" "$@"
  fi
  echo "build-web: needs root (debootstrap, chroot, mount)" >&2
  exit 1
fi
home=$HOME
if [ -n "${SUDO_USER:-}" ]; then
  home=$(getent passwd "$SUDO_USER" | cut -d: -f6)
fi
chroot_dir=${MULINO_WASM_CHROOT:-$home/.cache/mulino-wasm-chroot}
mirror=${MULINO_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# rust-llvm and lld-19 give rust-lld, the linker (the wasm32 library only
# recommends them; without the recommends the chroot stays small).
packages="rustc cargo libstd-rust-dev-wasm32 rust-llvm lld-19"
ready="$chroot_dir/.mulino-ready"
start=$(date +%s)

# The chroot, once: debootstrap into a fresh folder, the packages, then
# the mark that it is complete (an interrupted run starts over).
if [ "$(cat "$ready" 2>/dev/null)" != "$packages" ]; then
  if ! command -v debootstrap >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
  fi
  if [ ! -x "$chroot_dir/usr/bin/apt-get" ]; then
    rm -rf "$chroot_dir.tmp"
    mkdir -p "$(dirname "$chroot_dir")"
    echo "build-web: debootstrap trixie into $chroot_dir"
    debootstrap --variant=minbase trixie "$chroot_dir.tmp" "$mirror" >/dev/null
    rm -rf "$chroot_dir"
    mv "$chroot_dir.tmp" "$chroot_dir"
  fi
  cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
  echo "build-web: apt-get install $packages"
  chroot "$chroot_dir" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends $packages >/dev/null"
  echo "$packages" >"$ready"
fi
echo "build-web: chroot ready after $(($(date +%s) - start)) s"

# crates.io from inside: the host's name servers and certificates.
mkdir -p "$chroot_dir/etc/ssl/certs" "$chroot_dir/src"
cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
for certs in /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt; do
  if [ -f "$certs" ]; then
    cp "$certs" "$chroot_dir/etc/ssl/certs/ca-certificates.crt"
    break
  fi
done

# The build: the lib crate as a cdylib (no `_start`: the host calls its
# exports), with the wasm profile (Cargo.toml).
build='cd /src && cargo rustc --lib --crate-type cdylib --target wasm32-wasip1 --profile wasm --locked'
inner="mount --bind '$root' '$chroot_dir/src' && chroot '$chroot_dir' env HOME=/root CARGO_TARGET_DIR=/src/target/wasm-build sh -c '$build'"
if unshare --mount --propagation private true 2>/dev/null; then
  # The mount dies with the namespace, whatever happens to the build.
  unshare --mount --propagation private sh -c "$inner"
else
  trap 'umount "$chroot_dir/src" 2>/dev/null || true' EXIT
  sh -c "$inner"
  umount "$chroot_dir/src"
  trap - EXIT
fi

web="$root/target/web"
mkdir -p "$web"
cp "$root/target/wasm-build/wasm32-wasip1/wasm/mulino.wasm" "$web/mulino.wasm"
cp "$root"/src/wasm/*.mjs "$web/"
# The page, the same files `mulino gui` serves (its <meta name=
# "mulino-engine"> says `wasm` here; the server says `server`).
assets="index.html board.js engine.js turns.js panel.js practice.js databases.js app.js style.css sw.js"
for f in $assets; do
  cp "$root/src/web/assets/$f" "$web/"
done
# The endgame practice's sets, fetched when practice is chosen.
rm -rf "$web/endgames"
cp -r "$root/src/web/assets/endgames" "$web/endgames"
if [ -n "${SUDO_UID:-}" ]; then
  chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$web" "$root/target/wasm-build"
fi
raw=$(wc -c <"$web/mulino.wasm")
gz=$(gzip -9 -c "$web/mulino.wasm" | wc -c)
# Every file the page loads (mulino.mjs is Node's only), and gzipped one
# by one, as a host that compresses would send them.
page=0
page_gz=0
for f in $assets mulino-engine.mjs mulino-worker.mjs mulino.wasm; do
  page=$((page + $(wc -c <"$web/$f")))
  page_gz=$((page_gz + $(gzip -9 -c "$web/$f" | wc -c)))
done
echo "build-web: $web/mulino.wasm: $raw bytes, $gz gzipped; the page with it: $page bytes, $page_gz gzipped; $(($(date +%s) - start)) s in all"
