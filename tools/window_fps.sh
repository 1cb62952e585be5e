#!/usr/bin/env bash
# The window's frame rate and CPU cost at a size, under Xvfb on whatever
# Vulkan the machine has (lavapipe without a GPU):
#
#   tools/window_fps.sh [BINARY] [whole|fit] [WIDTHxHEIGHT]
#
# Plays a 320x180 game of 300 sprites and a line of text, scaled to fill
# the screen (vsync off), for 4 s to settle and 10 s measured, and prints
# the frames delivered in all and the CPU seconds the process used in the
# measured 10 s (every thread: on a software adapter the GPU is threads
# too). Needs Xvfb (./test.sh installs it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/target/release/moonloop}"
scaling="${2:-whole}"
size="${3:-1920x1080}"
scale=$(( ${size%x*} / 320 ))
game="$(mktemp -d)"
trap 'rm -rf "$game"' EXIT
cp "$root/docs/assets/sheet.png" "$game/"
cat > "$game/main.luau" <<EOF
local sheet = { image = "sheet.png", width = 16, height = 16 }
local batch = {}
for i = 1, 300 do
	batch[i] = { frame = 1 + i % 6, x = 0, y = 0 }
end
return {
	config = { width = 320, height = 180, scale = $scale, vsync = false, pause_on_blur = false },
	init = function() return { n = 0, t = 0 } end,
	update = function(state, input, dt) return { n = state.n + 1, t = state.t + dt } end,
	render = function(state, scene, screen)
		for i, s in batch do
			s.x = (i * 37 + state.t * 40) % 320
			s.y = (i * 53) % 180
		end
		screen:sprites(sheet, batch)
		screen:text("SCORE " .. state.n, 4, 4, { size = 8, color = "white" })
	end,
}
EOF
display=":$(( 90 + RANDOM % 100 ))"
Xvfb "$display" -screen 0 "${size}x24" >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$game"' EXIT
sleep 1
DISPLAY="$display" "$bin" run "$game" --audio off --no-watch --scaling "$scaling" --print-state \
	>"$game/out" 2>"$game/err" &
run=$!
sleep 4
ticks() { awk '{print $14 + $15}' "/proc/$run/stat"; }
before=$(ticks)
sleep 10
after=$(ticks)
kill -INT "$run"
wait "$run" || true
frames=$(grep '"n"' "$game/out" | tr -dc 0-9)
cpu=$(awk -v t=$(( after - before )) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t / hz }')
echo "$size $scaling: $frames frames in about 14 s; $cpu CPU seconds in the measured 10 s"
