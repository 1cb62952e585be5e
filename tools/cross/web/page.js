// moonloop's web page: loads the runtime and the game beside it (game.zip)
// and plays it in the page: a canvas, the keyboard (keys and typed text),
// the pointer and touch, one frame each time the browser draws
// (requestAnimationFrame).
//
// ?frames=N&clock=SPEC (and &input=FILE, a file beside the page) runs the
// game headless instead and says `frame N: HASH` in #moonloop-status and
// in the title, as `moonloop run GAME --headless --state-hash` does on a
// desktop. ?clock=SPEC alone plays under that clock (constant:1/60 steps
// a fixed delta a frame) rather than the page's own time.
//
// Sound goes through Web Audio: the game's mixer runs in the runtime and
// the page's audio callback pulls its samples. A browser lets a page make
// sound only after a person's key, click or touch: the first one starts it,
// and until then the line under the canvas says so.
//
// Saves outlast the page: the browser's storage (IndexedDB) is mounted
// where the runtime keeps saves (/saves), read in before the game starts,
// and written back each second the game plays and when the page is hidden.
//
// ?bench=N (`moonloop-bench --only web`) plays N frames as a player
// would see them, then asks the page's server for
// `bench-result?first=MS&work=MS&interval=MS`: when the first frame was
// on the canvas (since the page was asked for), the median time one
// frame took to run and draw, and the median time between frames.
//
// While it plays, window.moonloopPage is { frames(), hash(), stop(),
// level(), synced() }: the frames delivered, the state hash (as
// --state-hash prints it), an end to the loop, the loudest sample of the
// last block of sound played (0 before sound starts), and how many times
// saves were written back to the browser's storage, for a page that
// embeds the game.
"use strict";

// The browser's key codes (KeyboardEvent.code) by moonloop's key names.
const KEYS = (() => {
  const keys = {
    Space: "space", Enter: "enter", NumpadEnter: "enter", Escape: "escape", Tab: "tab",
    Backspace: "backspace", ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up",
    ArrowDown: "down", ShiftLeft: "shift", ShiftRight: "shift", ControlLeft: "ctrl",
    ControlRight: "ctrl", AltLeft: "alt", AltRight: "alt", Minus: "minus", Equal: "equals",
    Comma: "comma", Period: "period", Slash: "slash", Semicolon: "semicolon", Quote: "quote",
    BracketLeft: "lbracket", BracketRight: "rbracket", Backslash: "backslash",
    Backquote: "backquote", Home: "home", End: "end", PageUp: "pageup", PageDown: "pagedown",
    Insert: "insert", Delete: "delete",
  };
  for (let c = 65; c <= 90; c++) {
    const letter = String.fromCharCode(c);
    keys[`Key${letter}`] = letter.toLowerCase();
  }
  for (let d = 0; d <= 9; d++) keys[`Digit${d}`] = `${d}`;
  for (let f = 1; f <= 12; f++) keys[`F${f}`] = `f${f}`;
  return keys;
})();

// Mouse buttons (PointerEvent.button) by moonloop's names; a touch is the
// left button.
const BUTTONS = { 0: "mouse_left", 1: "mouse_middle", 2: "mouse_right" };

// A pad's buttons in the browser's standard layout (Gamepad.buttons, by
// index) and its sticks (Gamepad.axes), by moonloop's names; the triggers
// are buttons with a value, read as axes too.
const PAD_BUTTONS = [
  "south", "east", "west", "north", "leftshoulder", "rightshoulder", "lefttrigger",
  "righttrigger", "back", "start", "leftstick", "rightstick", "dpad_up", "dpad_down",
  "dpad_left", "dpad_right", "guide",
];
const PAD_STICKS = ["leftx", "lefty", "rightx", "righty"];
const PADS = 4;

(async () => {
  const status = document.getElementById("moonloop-status");
  const say = (text) => {
    status.textContent = text;
  };
  try {
    const asked = new URLSearchParams(location.search);
    const fetched = async (name) => {
      const response = await fetch(name);
      if (!response.ok) {
        throw new Error(`${name}: ${response.status} ${response.statusText}`);
      }
      return new Uint8Array(await response.arrayBuffer());
    };
    const printed = [];
    const errors = [];
    const runtime = await moonloop({
      noInitialRun: true,
      print: (line) => printed.push(line),
      printErr: (line) => {
        errors.push(line);
        say(line);
      },
    });
    runtime.FS.writeFile("/game.zip", await fetched("game.zip"));
    if (asked.has("frames")) {
      await headless(runtime, asked, fetched, printed, errors, say);
    } else {
      const saves = await mountSaves(runtime);
      play(runtime, asked.get("clock") || "", say, saves, Number(asked.get("bench")) || 0);
    }
  } catch (failed) {
    say(`moonloop: ${failed.message || failed}`);
  }
})();

// Runs the game headless to a frame and says its state hash.
async function headless(runtime, asked, fetched, printed, errors, say) {
  const frames = asked.get("frames");
  const clock = asked.get("clock") || "constant:1/60";
  const input = asked.get("input");
  const args = ["run", "/game.zip", "--headless", "--clock", clock, "--frames", frames, "--state-hash"];
  if (input) {
    if (!/^[A-Za-z0-9_.-]+$/.test(input)) {
      throw new Error(`input=${input}: name a file beside the page`);
    }
    runtime.FS.writeFile("/input.txt", await fetched(input));
    args.push("--input", "/input.txt");
  }
  let code = 0;
  try {
    code = runtime.callMain(args);
  } catch (thrown) {
    code = thrown && thrown.status !== undefined ? thrown.status : 1;
  }
  const hash = printed.filter((line) => /^[0-9a-f]{16}$/.test(line)).pop();
  const line = code === 0 && hash
    ? `frame ${frames}: ${hash}`
    : errors.join(" ") || `moonloop: the run ended with code ${code}`;
  say(line);
  document.title = line;
}

// Mounts the browser's storage at /saves and reads it in. Returns what
// writes it back: write() (once at a time; a write asked meanwhile runs
// after) and synced(), the writes done. A browser without IndexedDB (or
// that refuses it, as some private windows do) saves for the page's life.
async function mountSaves(runtime) {
  const saves = { write: () => {}, synced: () => 0 };
  const { FS } = runtime;
  const IDBFS = FS.filesystems && FS.filesystems.IDBFS;
  if (!IDBFS || !window.indexedDB) return saves;
  try {
    FS.mkdir("/saves");
    FS.mount(IDBFS, {}, "/saves");
    await new Promise((done, failed) => FS.syncfs(true, (e) => (e ? failed(e) : done())));
  } catch (refused) {
    console.warn("moonloop: saves last while the page is open:", refused);
    return saves;
  }
  let writing = false;
  let again = false;
  let done = 0;
  saves.write = () => {
    if (writing) {
      again = true;
      return;
    }
    writing = true;
    FS.syncfs(false, (failed) => {
      writing = false;
      if (failed) console.warn("moonloop: saves were not written:", failed);
      else done += 1;
      if (again) {
        again = false;
        saves.write();
      }
    });
  };
  saves.synced = () => done;
  return saves;
}

// Plays the game in a canvas, a frame each time the page is drawn.
function play(runtime, clock, say, saves, bench) {
  if (runtime.ccall("moonloop_page_start", "number", ["string", "string"], ["/game.zip", clock]) !== 0) {
    return; // the reason was printed, and shown
  }
  // A browser lets a page sound only after a person's gesture: say so
  // until the first one (an error said meanwhile stays).
  const hint = "Sound plays after the first key, click or touch.";
  say(hint);
  const canvas = document.createElement("canvas");
  canvas.id = "moonloop-canvas";
  canvas.tabIndex = 0;
  document.getElementById("moonloop-game").appendChild(canvas);
  canvas.focus();
  const context = canvas.getContext("2d");
  const input = (line) => runtime.ccall("moonloop_page_input", "number", ["string"], [line]);
  const sound = startSound(runtime, () => {
    const status = document.getElementById("moonloop-status");
    if (status.textContent === hint) say("");
  });

  window.addEventListener("keydown", (event) => {
    sound.start();
    // What the key types, as a window's typed text (input:text()): one
    // character, with the keyboard's layout and Shift, repeats included;
    // not while Ctrl, Alt or Meta make it a shortcut.
    const typed = [...event.key].length === 1 && !event.ctrlKey && !event.altKey && !event.metaKey;
    if (typed) input(`text "${event.key.replace(/[\\"]/g, (c) => `\\${c}`)}"`);
    const key = KEYS[event.code];
    if (!key) {
      if (typed) event.preventDefault();
      return;
    }
    event.preventDefault(); // arrows and space would scroll the page
    if (!event.repeat) input(`press ${key}`);
  });
  window.addEventListener("keyup", (event) => {
    const key = KEYS[event.code];
    if (!key) return;
    event.preventDefault();
    input(`release ${key}`);
  });
  // Where the pointer is, in the picture's pixels (the canvas may be
  // shown larger or smaller than it is).
  const at = (event) => {
    const box = canvas.getBoundingClientRect();
    const x = ((event.clientX - box.left) * canvas.width) / Math.max(box.width, 1);
    const y = ((event.clientY - box.top) * canvas.height) / Math.max(box.height, 1);
    return `move ${x} ${y}`;
  };
  canvas.addEventListener("pointermove", (event) => input(at(event)));
  canvas.addEventListener("pointerdown", (event) => {
    sound.start();
    canvas.focus();
    canvas.setPointerCapture(event.pointerId);
    input(at(event));
    const button = BUTTONS[event.button];
    if (button) input(`press ${button}`);
    event.preventDefault();
  });
  canvas.addEventListener("pointerup", (event) => {
    input(at(event));
    const button = BUTTONS[event.button];
    if (button) input(`release ${button}`);
  });
  canvas.addEventListener("pointerleave", () => input("leave"));
  canvas.addEventListener("contextmenu", (event) => event.preventDefault());

  const pads = gamepads(input);

  let running = true;
  window.moonloopPage = {
    frames: () => runtime._moonloop_page_frames(),
    hash: () => runtime.UTF8ToString(runtime._moonloop_page_hash()),
    stop: () => {
      running = false;
    },
    level: () => sound.level,
    synced: () => saves.synced(),
  };
  setInterval(() => {
    if (running) saves.write();
  }, 1000);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") saves.write();
  });
  const benched = { work: [], at: [] };
  const measure = (began) => {
    const now = performance.now();
    benched.work.push(now - began);
    benched.at.push(now);
    if (benched.at.length < bench) return;
    running = false;
    const median = (values) => values.slice().sort((a, b) => a - b)[values.length >> 1];
    const gaps = benched.at.slice(1).map((t, i) => t - benched.at[i]);
    const query = `first=${benched.at[0]}&work=${median(benched.work)}&interval=${median(gaps)}`;
    fetch(`bench-result?${query}`).catch(() => {});
  };
  const frame = () => {
    if (!running) return;
    const began = performance.now();
    pads.poll();
    const ended = runtime._moonloop_page_frame();
    const width = runtime._moonloop_page_width();
    const height = runtime._moonloop_page_height();
    const pixels = runtime._moonloop_page_pixels();
    if (width > 0 && height > 0 && pixels !== 0) {
      if (canvas.width !== width || canvas.height !== height) {
        canvas.width = width;
        canvas.height = height;
      }
      const bytes = new Uint8ClampedArray(runtime.HEAPU8.buffer, pixels, width * height * 4);
      context.putImageData(new ImageData(bytes.slice(), width, height), 0, 0);
    }
    if (ended !== 0) {
      running = false;
      say("the game ended");
      return;
    }
    if (bench > 0) measure(began);
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

// The browser's gamepads as moonloop's pads: up to four, numbered as they
// are first seen (pad1 the first) and keeping their number while they
// stay connected; each poll (once a frame, before it runs) hands the game
// what changed since the last as input lines: `press pad1:south`,
// `axis pad1:leftx 0.5`. A pad that goes releases what it held and
// centres its sticks. Only pads the browser lays out in its standard
// layout are read: another layout's buttons mean nothing by index.
function gamepads(input) {
  const slots = new Array(PADS).fill(null); // { index, held: Set, axes: [] }
  const said = new Set();
  const forget = (n) => {
    const slot = slots[n];
    for (const name of slot.held) input(`release pad${n + 1}:${name}`);
    slot.axes.forEach((value, i) => {
      if (value !== 0) input(`axis pad${n + 1}:${slot.names[i]} 0`);
    });
    slots[n] = null;
  };
  const poll = () => {
    const seen = navigator.getGamepads ? [...navigator.getGamepads()].filter((p) => p && p.connected) : [];
    slots.forEach((slot, n) => {
      if (slot && !seen.some((p) => p.index === slot.index)) forget(n);
    });
    for (const pad of seen) {
      if (pad.mapping !== "standard") {
        if (!said.has(pad.id)) {
          said.add(pad.id);
          console.warn(`moonloop: the pad "${pad.id}" has no standard layout; it is not read`);
        }
        continue;
      }
      let n = slots.findIndex((slot) => slot && slot.index === pad.index);
      if (n < 0) {
        n = slots.indexOf(null);
        if (n < 0) continue; // four pads are played already
        slots[n] = {
          index: pad.index,
          held: new Set(),
          names: [...PAD_STICKS, "lefttrigger", "righttrigger"],
          axes: [0, 0, 0, 0, 0, 0],
        };
      }
      const slot = slots[n];
      PAD_BUTTONS.forEach((name, i) => {
        const button = pad.buttons[i];
        const down = !!button && (button.pressed || button.value > 0.5);
        if (down && !slot.held.has(name)) {
          slot.held.add(name);
          input(`press pad${n + 1}:${name}`);
        } else if (!down && slot.held.has(name)) {
          slot.held.delete(name);
          input(`release pad${n + 1}:${name}`);
        }
      });
      const values = [
        ...PAD_STICKS.map((_, i) => pad.axes[i] || 0),
        (pad.buttons[6] && pad.buttons[6].value) || 0,
        (pad.buttons[7] && pad.buttons[7].value) || 0,
      ];
      values.forEach((raw, i) => {
        const value = Math.max(-1, Math.min(1, Number.isFinite(raw) ? raw : 0));
        if (value !== slot.axes[i]) {
          slot.axes[i] = value;
          input(`axis pad${n + 1}:${slot.names[i]} ${value}`);
        }
      });
    }
  };
  return { poll };
}

// The page's sound: a Web Audio graph of one node whose callback mixes the
// next block of the game's sound in the runtime. Started by start(), from
// a person's gesture (which calls `started`); `level` is the loudest
// sample of the last block.
function startSound(runtime, started) {
  const sound = { level: 0, context: null, start: () => {} };
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return sound; // a browser without Web Audio: silence
  sound.start = () => {
    started();
    if (sound.context) {
      if (sound.context.state === "suspended") sound.context.resume();
      return;
    }
    const context = new Context({ sampleRate: runtime._moonloop_page_sound_rate() });
    const node = context.createScriptProcessor(2048, 0, 2);
    node.onaudioprocess = (event) => {
      const out = event.outputBuffer;
      const frames = out.length;
      const at = runtime._moonloop_page_sound(frames);
      const left = out.getChannelData(0);
      const right = out.getChannelData(1);
      if (at === 0) {
        left.fill(0);
        right.fill(0);
        return;
      }
      const samples = new Float32Array(runtime.HEAPU8.buffer, at, frames * 2);
      let level = 0;
      for (let i = 0; i < frames; i++) {
        left[i] = samples[2 * i];
        right[i] = samples[2 * i + 1];
        level = Math.max(level, Math.abs(left[i]), Math.abs(right[i]));
      }
      sound.level = level;
    };
    node.connect(context.destination);
    sound.context = context;
  };
  return sound;
}
