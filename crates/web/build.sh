#!/usr/bin/env bash
# Builds the WebAssembly engine: crates/web/pkg/ for pages (wasm-bindgen --target web)
# and crates/web/pkg-node/ for node (--target nodejs), from the same .wasm.
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
