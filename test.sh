#!/usr/bin/env bash
# Runs every test: the host's Rust tests and every example game's Luau
# tests. On Debian it first installs what the picture and window tests
# need: Mesa's software Vulkan (lavapipe), Xvfb, xdotool, xprop and
# ImageMagick (to drive a window and look at it), openbox (a window
# manager, which fullscreen asks), and ALSA's library (its `null`
# device takes the sound tests' output; no sound card is needed).
set -euo pipefail
cd "$(dirname "$0")"

asound=libasound2
# Debian 13 renamed it in the 64-bit time_t transition.
apt-cache show libasound2t64 >/dev/null 2>&1 && asound=libasound2t64
packages="mesa-vulkan-drivers libvulkan1 libegl1 xvfb xdotool x11-utils imagemagick openbox $asound"
if command -v dpkg >/dev/null && ! dpkg -s $packages >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq $packages >/dev/null
fi

# The headless host (rule B1): no window, GPU, sound device, pads, network
# or file watcher in its tree. Built first, into target/headless/, for
# tests/headless_build.rs to hold against the default build; the rest of
# the build is shared with the tests'.
cargo build --no-default-features --bin moonloop
if cargo tree --no-default-features -e normal -p moonloop --prefix none |
    grep -E '^(winit|wgpu|softbuffer|notify|ggrs|libloading) '; then
    echo "test.sh: the headless build's tree holds a platform door (above)" >&2
    exit 1
fi
# The layers beneath the host (ARCHITECTURE.md): core holds none of the
# Luau binding, the GPU, the window, the watcher, physics, online play,
# sound or text; assets, draw, scene, render, platform and sound none of
# the first eight (render holds wgpu, the door it is).
layer_tree() { cargo tree -e normal -p "$1" --prefix none; }
above='mlua|wgpu|winit|softbuffer|notify|rapier2d|rapier3d|ggrs'
if layer_tree moonloop-core | grep -E "^($above|symphonia|cosmic-text) "; then
    echo "test.sh: core's tree holds a crate of a layer above it (above)" >&2
    exit 1
fi
for layer in moonloop-assets moonloop-draw moonloop-scene moonloop-render moonloop-platform moonloop-sound; do
    # The renderer is the GPU's door: wgpu is its own.
    allowed="$above"
    [ "$layer" = moonloop-render ] && allowed='mlua|winit|softbuffer|notify|rapier2d|rapier3d|ggrs'
    if layer_tree $layer | grep -E "^($allowed) "; then
        echo "test.sh: $layer's tree holds a crate of a layer above it (above)" >&2
        exit 1
    fi
done
mkdir -p target/headless
cp target/debug/moonloop target/headless/moonloop
export MOONLOOP_TEST_SH=1

# The type checker, a binary of its own beside moonloop: the tests that
# run `moonloop check` on a game they make (a new 3D game, strict physics
# types) need it built.
cargo build -p moonloop-check

# The benchmarks' own tests (crates/bench, a development tool beside the
# host: the default members leave it out).
cargo test -p moonloop-bench
cargo test "$@"
