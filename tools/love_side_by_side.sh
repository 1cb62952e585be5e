#!/usr/bin/env bash
# The same 2D scene in moonloop and in LÖVE 11.4, each in a 1280x720
# window under Xvfb on this machine, one after the other in one run, each
# drawing as fast as it can (#35):
#
#   tools/love_side_by_side.sh [BINARY] [SECONDS]
#
# The scene is the bench's: 2,000 16x16 sprites from one sheet and 100
# lines of text. LÖVE draws its sprites with one SpriteBatch and its text
# with love.graphics.print, vsync off; moonloop with screen:sprites and
# screen:text, on a 1000 Hz paced clock, so its window ticks as fast as
# its frames allow (its wall clock would pace it to the display's 60 Hz).
# Without a GPU, LÖVE draws through Mesa's software OpenGL (llvmpipe) and
# moonloop presents CPU pixels (docs/troubleshooting.md). Prints each
# one's frames a second. Installs love from the distribution when it is
# missing (apt-get, as root or with sudo).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$root/target/release/moonloop}"
seconds="${2:-10}"
if ! command -v love >/dev/null; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq love >/dev/null
fi
work="$(mktemp -d)"
display=":$(( 90 + RANDOM % 100 ))"
Xvfb "$display" -screen 0 1920x1080x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true; rm -rf "$work"' EXIT
sleep 1

# moonloop: the scene, counting frames in its state.
mkdir -p "$work/moonloop"
cp "$root/docs/assets/sheet.png" "$work/moonloop/"
cat > "$work/moonloop/main.luau" <<'EOF'
local SHEET = { image = "sheet.png", width = 16, height = 16 }
local SPRITES = {}
for i = 1, 2000 do
	SPRITES[i] = { x = (i * 37) % 1264, y = (i * 53) % 704, frame = 1 + i % 16, flip_x = i % 5 == 0 }
end
local LINES = {}
for i = 1, 100 do
	LINES[i] = string.format("%3d  the quick brown fox jumps over the lazy dog", i)
end
return {
	config = { title = "side by side", width = 1280, height = 720, vsync = false, pause_on_blur = false },
	init = function() return { n = 0 } end,
	update = function(state) return { n = state.n + 1 } end,
	render = function(state, scene, screen)
		screen:sprites(SHEET, SPRITES)
		for i = 1, 100 do
			screen:text(LINES[i], 20 + (i - 1) // 50 * 640, ((i - 1) % 50) * 14, { size = 12, color = "#ffff80" })
		end
	end,
}
EOF
DISPLAY="$display" timeout -s INT "$seconds" "$bin" run "$work/moonloop" --no-watch --audio off \
	--clock paced:1000 --print-state >"$work/moonloop.out" 2>/dev/null || true
moonloop_frames=$(grep '"n"' "$work/moonloop.out" | tr -dc 0-9)

# LÖVE 11.4: the same scene, a SpriteBatch of 2,000 quads.
mkdir -p "$work/love"
cp "$root/docs/assets/sheet.png" "$work/love/"
cat > "$work/love/conf.lua" <<'EOF'
function love.conf(t)
	t.window.title = "side by side"
	t.window.width = 1280
	t.window.height = 720
	t.window.vsync = 0
	t.audio.mixwithsystem = true
	t.modules.audio = false
	t.modules.sound = false
end
EOF
cat > "$work/love/main.lua" <<EOF
local batch, lines, frames, started
function love.load()
	local sheet = love.graphics.newImage("sheet.png")
	sheet:setFilter("nearest", "nearest")
	local quads = {}
	local columns = sheet:getWidth() / 16
	for f = 0, 15 do
		quads[f + 1] = love.graphics.newQuad((f % columns) * 16, math.floor(f / columns) * 16, 16, 16, sheet:getDimensions())
	end
	batch = love.graphics.newSpriteBatch(sheet, 2000, "static")
	for i = 1, 2000 do
		local flip = (i % 5 == 0) and -1 or 1
		local x = (i * 37) % 1264
		batch:add(quads[1 + i % 16], flip == 1 and x or x + 16, (i * 53) % 704, 0, flip, 1)
	end
	lines = {}
	for i = 1, 100 do
		lines[i] = string.format("%3d  the quick brown fox jumps over the lazy dog", i)
	end
	love.graphics.setNewFont(12)
	frames, started = 0, love.timer.getTime()
end
function love.update() end
function love.draw()
	love.graphics.setColor(1, 1, 1)
	love.graphics.draw(batch)
	love.graphics.setColor(1, 1, 0.5)
	for i = 1, 100 do
		love.graphics.print(lines[i], 20 + math.floor((i - 1) / 50) * 640, ((i - 1) % 50) * 14)
	end
	frames = frames + 1
	if love.timer.getTime() - started >= $seconds then
		print(frames)
		love.event.quit()
	end
end
EOF
love_frames=$(DISPLAY="$display" SDL_AUDIODRIVER=dummy love "$work/love" 2>/dev/null | tail -1 | tr -dc 0-9)

awk -v m="$moonloop_frames" -v l="$love_frames" -v s="$seconds" 'BEGIN {
	printf "moonloop: %d frames in about %d s, %.0f frames a second\n", m, s, m / s
	printf "LÖVE 11.4: %d frames in %d s, %.0f frames a second\n", l, s, l / s
	if (l > 0) printf "moonloop / LÖVE: %.2fx\n", m / l
}'
