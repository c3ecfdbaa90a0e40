#!/usr/bin/env bash
# Builds the WebAssembly engine: crates/web/pkg/ for pages (wasm-bindgen --target web),
# crates/web/pkg-node/ for node (--target nodejs), from the same .wasm, and the offline
# page: a static folder (default crates/web/dist/, or the folder given) that any static
# host serves (GitHub Pages...): the page of `fanorona serve` with the engine in a Web
# Worker, a web app manifest and a service worker, so that it installs and plays with
# no network.
#
#   crates/web/build.sh [SITE_DIR]
#
# Needs the wasm32-unknown-unknown standard library and wasm-bindgen-cli at the version
# of the workspace's wasm-bindgen (0.2.130):
#   with rustup:  rustup target add wasm32-unknown-unknown
#   without it:   apt-get install rustc-web cargo-web rust-web-src lld-22 (Debian; the
#                 standard library is then built from source, -Zbuild-std)
#   and:          cargo install wasm-bindgen-cli --version 0.2.130
set -euo pipefail
cd "$(dirname "$0")/../.."
target=wasm32-unknown-unknown
# Its own target folder: the wasm toolchain may be another rustc than the workspace's.
export CARGO_TARGET_DIR="$PWD/target/wasm"
# Small and fast: whole-program optimisation, no unwinding, no debug information.
export CARGO_PROFILE_RELEASE_LTO=true CARGO_PROFILE_RELEASE_PANIC=abort CARGO_PROFILE_RELEASE_DEBUG=0
# 128-bit SIMD (every current browser and node since 16): the evaluation vectorises.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128"
if rustup target list --installed 2>/dev/null | grep -qx "$target"; then
    cargo build --release -p fanorona-web --lib --target "$target"
elif [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust ]; then
    RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 /usr/bin/cargo build \
        --release -p fanorona-web --lib --target "$target" -Zbuild-std=std,panic_abort
else
    echo "error: no wasm32-unknown-unknown standard library: rustup target add $target" >&2
    echo "       (or on Debian: apt-get install rustc-web cargo-web rust-web-src lld-22)" >&2
    exit 2
fi
if ! command -v wasm-bindgen >/dev/null 2>&1; then
    echo "error: wasm-bindgen missing: cargo install wasm-bindgen-cli --version 0.2.130" >&2
    exit 2
fi
wasm="$CARGO_TARGET_DIR/$target/release/fanorona_web.wasm"
wasm-bindgen --target web --out-dir crates/web/pkg "$wasm"
wasm-bindgen --target nodejs --out-dir crates/web/pkg-node "$wasm"
echo "crates/web/pkg/fanorona_web_bg.wasm: $(wc -c < crates/web/pkg/fanorona_web_bg.wasm) bytes"

site=${1:-crates/web/dist}
mkdir -p "$site"
cp crates/web/pkg/fanorona_web.js crates/web/pkg/fanorona_web_bg.wasm crates/web/static/worker.js \
    crates/web/static/manifest.webmanifest crates/web/static/icon.svg "$site/"
# The server's page, switched to its Worker, with the manifest.
sed -e 's|^const OFFLINE = false;$|const OFFLINE = true;|' \
    -e 's|^<head>$|<head>\n<link rel="manifest" href="manifest.webmanifest">|' \
    crates/cli/web/index.html > "$site/index.html"
grep -q '^const OFFLINE = true;$' "$site/index.html" || { echo "error: index.html has no OFFLINE switch" >&2; exit 1; }
# The cache's name: the files' own hash, so that a new build replaces the old cache.
version=$(cat "$site"/index.html "$site"/worker.js "$site"/fanorona_web.js "$site"/fanorona_web_bg.wasm | sha256sum | cut -c1-16)
sed "s|^const VERSION = \"BUILD\";$|const VERSION = \"fanorona-$version\";|" crates/web/static/sw.js > "$site/sw.js"
echo "the offline page: $site/ (serve it, e.g. python3 -m http.server -d $site)"
