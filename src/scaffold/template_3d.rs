//! `moonloop new NAME --template 3d`: a small 3D game that uses what a
//! first 3D game reaches for: a camera, a sky and fog, a sun that casts
//! shadows, a glTF model placed many times, pointer picking, a screen-layer
//! HUD over the scene, and tests of each.

/// `main.luau`.
pub const MAIN: &str = r##"--!strict
-- GAME_TITLE: roll the ball with the arrow keys (or WASD) and click the
-- trees to find them all.

export type State = {
	x: number,
	z: number,
	found: { [string]: boolean },
	count: number,
	hover: string,
}

local SPEED = 3 -- units a second
local FIELD = 5 -- the ball stays within this many units of the middle
local RADIUS = 0.35

-- Where the trees stand: tree1 in the middle, where the camera looks.
local TREES = {
	vector.create(0, 0, 0),
	vector.create(-3, 0, -1.5),
	vector.create(2.5, 0, -2.5),
	vector.create(-2, 0, 2.5),
	vector.create(3.5, 0, 1.5),
}

local function init(): State
	return { x = 0, z = 3, found = {}, count = 0, hover = "" }
end

local function update(state: State, input: Input, dt: number): State
	local dx = (if input:down("right") then 1 else 0) - (if input:down("left") then 1 else 0)
	local dz = (if input:down("down") then 1 else 0) - (if input:down("up") then 1 else 0)
	local x = math.clamp(state.x + dx * SPEED * dt, -FIELD, FIELD)
	local z = math.clamp(state.z + dz * SPEED * dt, -FIELD, FIELD)
	-- What the pointer is over, through the camera the player saw.
	local hover = input:hover() or ""
	local found, count = state.found, state.count
	if input:pressed("mouse_left") and string.sub(hover, 1, 4) == "tree" and not found[hover] then
		found = table.clone(found)
		found[hover] = true
		count += 1
		input:cue("found", { pitch = 1 + count * 0.1 })
	end
	return { x = x, z = z, found = found, count = count, hover = hover }
end

local function render(state: State, scene: Scene, screen: Screen)
	scene:camera({ position = vector.create(0, 6, 8), target = vector.create(0, 1, 0), fov = math.rad(50) })
	scene:sky({ top = "#3a6cc0", bottom = "#cfe0f0" })
	scene:fog({ color = "#cfe0f0", near = 12, far = 32 })
	scene:light("sky", { kind = "ambient", intensity = 0.35 })
	-- The sun casts shadows (a directional light does unless `shadows = false`).
	scene:light("sun", { kind = "directional", direction = vector.create(-0.5, -1, -0.6), intensity = 0.9 })
	scene:object("ground", { mesh = "plane", color = "#6a9a58", scale = vector.create(40, 1, 40) })
	for i, at in TREES do
		local name = `tree{i}`
		scene:object(name, {
			mesh = "models/tree.gltf",
			position = at,
			scale = 1.4,
			-- The object's color multiplies the model's own colors.
			color = if state.found[name] then "#ffd070" elseif name == state.hover then "#c0e0ff" else "white",
		})
	end
	scene:object("ball", {
		mesh = "sphere",
		color = "#d04030",
		roughness = 0.3,
		position = vector.create(state.x, RADIUS, state.z),
		scale = RADIUS * 2,
	})
	screen:rect(8, 8, 220, 30, { fill = "#00000080", radius = 6 })
	screen:text(`found {state.count} of {#TREES} trees`, 18, 14, { size = 16, color = "#f0f0f0" })
end

local game: Game<State> = {
	config = {
		id = "GAME_ID",
		title = "GAME_TITLE",
		width = 640,
		height = 360,
		sounds = { found = "blip" },
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

test("the ball rolls at its speed, whatever the frame rate", function()
	for _, clock in { "constant:1/60", "constant:1/144" } do
		local e = engine.new({ clock = clock })
		e:press("right")
		while e.time < 0.5 do
			e:advance(1)
		end
		expect(e.state.x).near(3 * e.time, 1e-6)
	end
end)

test("clicking the tree under the pointer finds it, once", function()
	local e = engine.new()
	-- The camera looks at the middle tree: the middle of the screen.
	e:move(320, 180)
	e:advance(2) -- the camera is read at the end of frame 1; frame 2 picks through it
	expect(e.state.hover).equals("tree1")
	e:tap("mouse_left")
	e:advance(1)
	expect(e.state.count).equals(1)
	expect(e.state.found.tree1).equals(true)
	expect(e.cues[#e.cues].name).equals("found")
	e:tap("mouse_left")
	e:advance(1)
	expect(e.state.count).equals(1)
end)

test("the scene is drawn: sky, the middle tree, and shadows", function()
	local e = engine.new()
	e:advance(1)
	local p = e:picture()
	expect({ p.width, p.height }).equals({ 640, 360 })
	-- Sky blue at the top.
	local r, g, b = p:pixel(320, 2)
	expect(b > r and b > 150).is_true()
	-- The middle tree's leaves.
	r, g, b = p:pixel(320, 180)
	expect(g > r and g > b).is_true()
	-- The sun shines from the right and behind the camera: the ground just
	-- left of the ball and of the middle tree lies in their shadows, and is
	-- darker than the ground right of them.
	local function green(x: number, y: number): number
		local _, g = p:pixel(x, y)
		return g
	end
	expect(green(300, 288) < green(350, 300) * 0.8).is_true()
	expect(green(288, 203) < green(365, 205) * 0.8).is_true()
end)
"##;

/// `README.md`.
pub const README: &str = r##"# GAME_TITLE

Roll the ball with the arrow keys or WASD and click the trees to find them
all.

## Running

```sh
moonloop run GAME_DIR
```

## Testing and checking

```sh
moonloop test GAME_DIR
moonloop check GAME_DIR
```

## What is in it

- `models/tree.gltf`: a low-poly tree (a trunk and a crown, each a node
  with its own material), placed five times; the object's `color` tints
  it.
- A sky and fog, an ambient light and a sun that casts shadows.
- Picking: `input:hover()` names the object under the pointer, through the
  camera the player saw.
- `tests/main.luau`: the ball's speed under two clocks, a tree found by a
  click, and the picture (sky, tree, shadow).

`moonloop check` type-checks every `.luau` file against the moonloop API.
For an editor that checks as you type, install luau-lsp: `.luaurc` and
`.vscode/settings.json` already point it at the API's definitions in
`.moonloop/`.
"##;

/// The model.
pub const FILES: &[(&str, &[u8])] = &[("models/tree.gltf", include_bytes!("tree.gltf"))];
