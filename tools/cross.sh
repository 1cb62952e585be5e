#!/usr/bin/env bash
# Builds the moonloop runtime for another platform, from this Linux
# machine, into target/cross/<platform>/ (docs/shipping.md):
#
#   tools/cross.sh windows   target/cross/windows/moonloop.exe, which
#                            `moonloop build GAME --target windows` carries
#   tools/cross.sh web       target/cross/web/ (moonloop.wasm and .js, and
#                            the page), which `--target web` copies
#
# Two routes to the compiler, whichever is here:
# - rustup, with the target added (`rustup target add x86_64-pc-windows-gnu`)
#   and mingw-w64 installed: the normal route;
# - Debian's own Rust for other targets (rustc-web, cargo-web and the
#   standard library's source, rust-web-src), which builds the standard
#   library for the target from that source (build-std). Installed with
#   apt when rustup has no such target: no download but Debian's.
#
# The C and C++ in the tree (Luau) are built with mingw-w64's POSIX-thread
# compilers (Luau's code generator needs std::mutex) and linked statically,
# so the .exe needs no DLL that Windows does not have.
#
# `tools/cross.sh windows --wine` also makes what running the exe under
# Debian's wine 8 needs (tests only; Windows 10 and later have it): a
# stand-in bcryptprimitives.dll with ProcessPrng, which Rust's standard
# library imports and wine 8 lacks, in target/cross/windows/wine/.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"

platform="${1:-}"
shift || true
wine_too=""
[ "${1:-}" = "--wine" ] && wine_too=1

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
apt_install() {
    local missing=()
    for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "cross: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

case "$platform" in
windows)
    triple=x86_64-pc-windows-gnu
    out="target/cross/windows"
    apt_install mingw-w64 gcc-mingw-w64-x86-64-posix g++-mingw-w64-x86-64-posix
    export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc-posix
    export CXX_x86_64_pc_windows_gnu=x86_64-w64-mingw32-g++-posix
    export AR_x86_64_pc_windows_gnu=x86_64-w64-mingw32-ar
    export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc-posix
    export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS="-C link-arg=-static"
    # The exe carries libstdc++ (Luau is C++) rather than needing its DLL.
    export CXXSTDLIB_x86_64_pc_windows_gnu="static:-bundle=stdc++"
    if command -v rustup >/dev/null && rustup target list --installed 2>/dev/null | grep -qx "$triple"; then
        echo "cross: rustup's $triple" >&2
        cargo build --release --locked --target "$triple" --target-dir "$out/build" --bin moonloop
    else
        apt_install rustc-web cargo-web rust-web-src lld-22
        echo "cross: Debian's rustc-web, building the standard library for $triple" >&2
        # By full path: rustup's shims come first on PATH. The standard
        # library's source is Debian's, of the same version as its rustc.
        RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 /usr/bin/cargo build --release --locked \
            -Zbuild-std=std,panic_abort --target "$triple" --target-dir "$out/build" --bin moonloop
    fi
    # Symbols off: a third of the file, and no player reads them.
    x86_64-w64-mingw32-strip -o "$out/moonloop.exe" "$out/build/$triple/release/moonloop.exe"
    echo "cross: $out/moonloop.exe ($(du -h "$out/moonloop.exe" | cut -f1))" >&2
    if [ -n "$wine_too" ]; then
        apt_install wine wine64
        mkdir -p "$out/wine"
        x86_64-w64-mingw32-gcc-posix -shared -O2 -o "$out/wine/bcryptprimitives.dll" \
            tools/cross/process_prng.c tools/cross/process_prng.def -ladvapi32
        echo "cross: $out/wine/bcryptprimitives.dll (for wine 8 only)" >&2
    fi
    ;;
web)
    # wasm32-unknown-emscripten, with Debian's emscripten as the C++
    # compiler and linker; Luau's C++ exceptions as wasm exceptions. The
    # headless host (no default features), whose page door
    # (src/platform/page.rs) the page's script plays the game through
    # (docs/shipping.md says what it does and does not do yet).
    triple=wasm32-unknown-emscripten
    out="target/cross/web"
    apt_install emscripten
    export NODE_PATH=/usr/share/nodejs
    export CC_wasm32_unknown_emscripten=emcc
    export CXX_wasm32_unknown_emscripten=em++
    export AR_wasm32_unknown_emscripten=emar
    export CFLAGS_wasm32_unknown_emscripten="-fwasm-exceptions"
    export CXXFLAGS_wasm32_unknown_emscripten="-fwasm-exceptions"
    link=""
    for arg in -fwasm-exceptions -sMODULARIZE=1 -sEXPORT_NAME=moonloop -sINVOKE_RUN=0 \
        -sEXPORTED_RUNTIME_METHODS=callMain,FS,ccall,UTF8ToString,HEAPU8 -sALLOW_MEMORY_GROWTH=1 -sTOTAL_STACK=8388608 \
        -sENVIRONMENT=web,node -lidbfs.js; do
        link="$link -C link-arg=$arg"
    done
    export CARGO_TARGET_WASM32_UNKNOWN_EMSCRIPTEN_RUSTFLAGS="$link"
    if command -v rustup >/dev/null && rustup target list --installed 2>/dev/null | grep -qx "$triple"; then
        echo "cross: rustup's $triple" >&2
        cargo build --release --locked --no-default-features --target "$triple" \
            --target-dir "$out/build" --bin moonloop
    else
        apt_install rustc-web cargo-web rust-web-src lld-22
        echo "cross: Debian's rustc-web, building the standard library for $triple" >&2
        RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 /usr/bin/cargo build --release --locked \
            --no-default-features -Zbuild-std --target "$triple" --target-dir "$out/build" \
            --bin moonloop
    fi
    cp "$out/build/$triple/release/moonloop.wasm" "$out/build/$triple/release/moonloop.js" "$out/"
    cp tools/cross/web/index.html tools/cross/web/page.js "$out/"
    echo "cross: $out/moonloop.wasm ($(du -h "$out/moonloop.wasm" | cut -f1)), moonloop.js and the page" >&2
    ;;
*)
    echo "usage: tools/cross.sh windows [--wine] | web" >&2
    exit 2
    ;;
esac
