//! `moonloop new NAME --template 2d`: a small 2D game that uses each thing
//! a second game reaches for once: a sprite sheet, a sound, a pixel font,
//! a save, a scenario for check-dt, whole-pixel scaling and tests of each.

/// `main.luau`.
pub const MAIN: &str = r##"--!strict
-- GAME_TITLE: fly the ship with the arrow keys (or WASD) and collect the
-- orbs. Each is worth a point; the best score is saved.

local random = require("@moonloop/random")

export type State = {
	x: number,
	y: number,
	orb: { x: number, y: number },
	rng: random.Generator,
	score: number,
	best: number,
	time: number,
}

local WIDTH, HEIGHT = 320, 180
local SPEED = 90 -- pixels a second
local REACH = 12 -- how close the ship's center must come to an orb's

-- The sheet cuts sprites.png into 16x16 frames, numbered from 1.
local sheet = { image = "sprites.png", width = 16, height = 16 }
local SHIP, ORB_FRAMES, SPARK = 1, { 2, 3, 4, 5 }, 7
local HUD = { font = "fonts/pixel5x7.ttf", size = 8, smooth = false, color = "#f0f0f0" }

local function place_orb(rng: random.Generator): (random.Generator, { x: number, y: number })
	local g, x = random.int(rng, 16, WIDTH - 16)
	local h, y = random.int(g, 24, HEIGHT - 16)
	return h, { x = x, y = y }
end

local function init(saved: any?): State
	local rng, orb = place_orb(random.new(1))
	return {
		x = WIDTH / 2,
		y = HEIGHT / 2,
		orb = orb,
		rng = rng,
		score = 0,
		best = if saved then saved.best else 0,
		time = 0,
	}
end

local function update(state: State, input: Input, dt: number): State
	local dx = (if input:down("right") then 1 else 0) - (if input:down("left") then 1 else 0)
	local dy = (if input:down("down") then 1 else 0) - (if input:down("up") then 1 else 0)
	local x = math.clamp(state.x + dx * SPEED * dt, 8, WIDTH - 8)
	local y = math.clamp(state.y + dy * SPEED * dt, 8, HEIGHT - 8)
	local rng, orb, score, best = state.rng, state.orb, state.score, state.best
	if math.abs(x - orb.x) < REACH and math.abs(y - orb.y) < REACH then
		score += 1
		input:cue("pickup", { pitch = 1 + score % 5 * 0.1 })
		rng, orb = place_orb(rng)
		if score > best then
			best = score
			input:save({ best = best })
		end
	end
	return { x = x, y = y, orb = orb, rng = rng, score = score, best = best, time = state.time + dt }
end

local function render(state: State, scene: Scene, screen: Screen)
	local frame = ORB_FRAMES[math.floor(state.time * 8) % #ORB_FRAMES + 1]
	screen:sprite(sheet, SPARK, state.orb.x - 8, state.orb.y - 8, { alpha = 0.4 })
	screen:sprite(sheet, frame, state.orb.x - 8, state.orb.y - 8)
	screen:sprite(sheet, SHIP, state.x - 8, state.y - 8)
	screen:text(`SCORE {state.score}`, 6, 6, HUD)
	screen:text(`BEST {state.best}`, WIDTH - 6, 6, { font = HUD.font, size = 8, smooth = false, align = "right" })
end

local game: Game<State> = {
	config = {
		id = "GAME_ID",
		title = "GAME_TITLE",
		width = WIDTH,
		height = HEIGHT,
		-- Whole pixels at 3x: each of the game's pixels a 3x3 square.
		scaling = "whole",
		scale = 3,
		background = "#101018",
		sounds = { pickup = "sounds/pickup.wav" },
		actions = {
			left = { "left", "a" },
			right = { "right", "d" },
			up = { "up", "w" },
			down = { "down", "s" },
		},
	},
	init = init,
	update = update,
	render = render,
}

return game
"##;

/// `tests/main.luau`.
pub const TEST: &str = r##"-- GAME_TITLE's tests: `moonloop test GAME_DIR` runs them headlessly.

test("the ship flies at its speed, whatever the frame rate", function()
	for _, clock in { "constant:1/60", "constant:1/144" } do
		local e = engine.new({ clock = clock })
		e:press("right")
		while e.time < 0.5 do
			e:advance(1)
		end
		expect(e.state.x).near(160 + 90 * e.time, 1e-6)
	end
end)

test("flying into an orb scores, plays the pickup and saves the best", function()
	local e = engine.new()
	e:advance(1)
	local orb = e.state.orb
	-- Put the ship on the orb, as a transition between frames.
	e:apply(function(state)
		return {
			x = orb.x,
			y = orb.y,
			orb = state.orb,
			rng = state.rng,
			score = state.score,
			best = state.best,
			time = state.time,
		}
	end)
	e:advance(1)
	expect(e.state.score).equals(1)
	expect(e.cues[#e.cues].name).equals("pickup")
	expect(e.saved).equals({ best = 1 })
	expect(e.state.orb.x ~= orb.x or e.state.orb.y ~= orb.y).is_true()
end)

test("the best score comes back from the save", function()
	local e = engine.new({ save = { best = 7 } })
	expect(e.state.best).equals(7)
	expect(e.state.score).equals(0)
end)

test("the HUD and the sprites are drawn", function()
	local e = engine.new()
	e:advance(1)
	local picture = e:picture()
	expect({ picture.width, picture.height }).equals({ 320, 180 })
	-- The ship's white hull at the center, and the background in a corner.
	local r, g, b = picture:pixel(160, 90)
	expect(r + g + b > 600).is_true()
	expect({ picture:pixel(2, 176) }).equals({ 0x10, 0x10, 0x18, 255 })
end)
"##;

/// `fly.scenario.luau`: what `moonloop check-dt` compares across clocks.
pub const SCENARIO: &str = r##"-- moonloop check-dt GAME_DIR --scenario fly.scenario.luau
-- Four seconds holding right and down: the ship flies into the corner and
-- stops there, and what it ends at must not depend on the clock.
return {
	seconds = 4,
	input = { "0s press right", "0s press down" },
	outcome = function(state: any, cues: { any })
		return { x = state.x, y = state.y, score = state.score, pickups = #cues }
	end,
}
"##;

/// `README.md`.
pub const README: &str = r##"# GAME_TITLE

Fly the ship with the arrow keys or WASD and collect the orbs. The best
score is saved between runs.

## Running

```sh
moonloop run GAME_DIR
```

## Testing and checking

```sh
moonloop test GAME_DIR
moonloop check GAME_DIR
moonloop check-dt GAME_DIR --scenario fly.scenario.luau
```

## What is in it

- `sprites.png`: the sprite sheet, 16x16 frames (the ship, four frames of
  an orb, a spark).
- `sounds/pickup.wav`: the sound `input:cue("pickup")` plays.
- `fonts/pixel5x7.ttf`: the HUD's pixel font, drawn with `smooth = false`.
- `tests/main.luau`: the ship's speed under two clocks, a pickup (score,
  cue and save), the save read back, and the picture.
- `fly.scenario.luau`: a scenario `moonloop check-dt` runs under several
  clocks.

`moonloop check` type-checks every `.luau` file against the moonloop API.
For an editor that checks as you type, install luau-lsp: `.luaurc` and
`.vscode/settings.json` already point it at the API's definitions in
`.moonloop/`.
"##;

/// The binary files: the sheet, the sound and the font.
pub const FILES: &[(&str, &[u8])] = &[
    ("sprites.png", include_bytes!("../../docs/assets/sheet.png")),
    (
        "sounds/pickup.wav",
        include_bytes!("../../games/pong/sounds/rally.wav"),
    ),
    (
        "fonts/pixel5x7.ttf",
        include_bytes!("../../games/pong/fonts/pixel5x7.ttf"),
    ),
];
