//! The web page (rule B3): a game built with `moonloop build --target
//! web`, served from 127.0.0.1 and opened in headless Chromium with
//! `?frames=N&clock=SPEC`, says `frame N: HASH` in `#moonloop-status`:
//! the hash the same game reaches on Linux.
//!
//! Played in the page (rule B4): keys sent to the page at the frames an
//! input script names reach the hash Linux reaches for that script, and
//! keys pressed through the browser's own input move the game; what they
//! type is the game's text, its save outlasts the page, and see-through
//! pixels show as drawn.
//!
//! Needs the runtime `tools/cross.sh web` builds, and Debian's chromium;
//! `MOONLOOP_CROSS_WEB=1` makes a missing one a failure, elsewhere these
//! rows say they were skipped.

mod common;

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Says whether the runtime and chromium are here; when asked for and
/// one is not, fails saying which.
fn ready() -> bool {
    let runtime = repo().join("target/cross/web/moonloop.wasm");
    let chromium = Command::new("chromium").arg("--version").output().is_ok();
    common::cross_ready(
        &[
            (runtime.is_file(), runtime.display().to_string()),
            (chromium, "chromium".to_string()),
        ],
        "MOONLOOP_CROSS_WEB",
        "tools/cross.sh web makes the runtime; apt-get install chromium",
    )
}

/// Builds `game` as a page into a new folder.
fn site(game: &str) -> tempfile::TempDir {
    let site = tempfile::tempdir().unwrap();
    let built = common::moonloop(
        &[
            "build",
            game,
            "--target",
            "web",
            "-o",
            site.path().to_str().unwrap(),
        ],
        repo(),
    );
    assert_eq!(built.code, 0, "{}", built.stderr);
    site
}

/// Serves the files of `root` on 127.0.0.1 until the test ends; returns
/// the address. The bench's static server (the page's own files).
fn serve(root: PathBuf) -> String {
    let (address, _) = common::site::serve(&root).unwrap();
    address.to_string()
}

/// How every test runs Chromium: as the bench does.
const HEADLESS: [&str; 7] = common::site::HEADLESS;

/// Opens `url` in headless Chromium and returns the page's DOM once its
/// scripts have run.
fn dump_dom(url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new("chromium")
        .args(HEADLESS)
        .arg("--virtual-time-budget=120000")
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--dump-dom", url])
        .output()
        .expect("chromium runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What the line under the canvas says until a person's gesture lets the
/// page sound.
const SOUND_HINT: &str = "Sound plays after the first key, click or touch.";

/// What `#moonloop-status` says in `dom`.
fn status(dom: &str) -> String {
    let at = dom
        .find("id=\"moonloop-status\">")
        .expect("the status element");
    let rest = &dom[at + "id=\"moonloop-status\">".len()..];
    rest[..rest.find('<').unwrap_or(rest.len())].to_string()
}

/// The state hash pong reaches on Linux after `frames` frames of
/// `constant:1/60` with nothing pressed.
fn untouched_pong(frames: u64) -> String {
    let run = common::headless(
        repo(),
        "games/pong",
        "constant:1/60",
        frames,
        &["--state-hash"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout.trim().to_string()
}

/// The state hash pong reaches on Linux after `frames` frames of
/// `constant:1/60` under the input script `script`, written beside the
/// page in `site` as moves.txt; the script must move the game.
fn pong_on_linux(site: &Path, script: &str, frames: u64) -> String {
    let input = site.join("moves.txt");
    std::fs::write(&input, script).unwrap();
    let run = common::headless(
        repo(),
        "games/pong",
        "constant:1/60",
        frames,
        &["--input", input.to_str().unwrap(), "--state-hash"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let hash = run.stdout.trim().to_string();
    assert_ne!(hash, untouched_pong(frames), "the script moves a paddle");
    hash
}

// rule: B3
#[test]
fn a_page_says_the_hash_linux_reaches() {
    if !ready() {
        return;
    }
    for (game, title) in [("games/pong", "Pong"), ("games/plinko", "Plinko")] {
        let site = site(game);
        let page = std::fs::read_to_string(site.path().join("index.html")).unwrap();
        assert!(
            page.contains(&format!("<title>{title}</title>")),
            "the page is titled for the game: {page}"
        );
        let address = serve(site.path().to_path_buf());
        for frames in ["120", "600"] {
            let linux = common::headless(
                repo(),
                game,
                "constant:1/60",
                frames.parse().unwrap(),
                &["--state-hash"],
            );
            assert_eq!(linux.code, 0, "{}", linux.stderr);
            let dom = dump_dom(&format!(
                "http://{address}/index.html?frames={frames}&clock=constant:1/60"
            ));
            assert_eq!(
                status(&dom),
                format!("frame {frames}: {}", linux.stdout.trim()),
                "{game}: {dom}"
            );
        }
    }
}

// rule: B3
#[test]
fn a_page_runs_an_input_script_beside_it() {
    if !ready() {
        return;
    }
    let site = site("games/pong");
    let script = "0.5s press w\n1.5s release w\n2s press down\n3s release down\n";
    let linux = pong_on_linux(site.path(), script, 300);
    let address = serve(site.path().to_path_buf());
    let dom = dump_dom(&format!(
        "http://{address}/index.html?frames=300&clock=constant:1/60&input=moves.txt"
    ));
    assert_eq!(status(&dom), format!("frame 300: {linux}"), "{dom}");
    // A name that is not a file beside the page is refused, in the status.
    let dom = dump_dom(&format!(
        "http://{address}/index.html?frames=3&input=../../etc/passwd"
    ));
    assert!(
        status(&dom).contains("name a file beside the page"),
        "{dom}"
    );
}

/// A page beside the game's that plays it in a frame and, at the frames
/// `plan` names, sends the browser's key events to it (`keydown` or
/// `keyup`, a `KeyboardEvent.code`), as a keyboard would; at frame `stop`
/// it ends the loop and writes `frame N: HASH` into its own status.
fn driver(plan: &[(u64, &str, &str)], stop: u64) -> String {
    let plan: Vec<String> = plan
        .iter()
        .map(|(frame, kind, code)| format!("[{frame}, \"{kind}\", \"{code}\"]"))
        .collect();
    let plan = plan.join(", ");
    format!(
        r#"<!doctype html>
<html><body>
<iframe id="game" src="index.html?clock=constant:1/60" width="400" height="300"></iframe>
<p id="moonloop-status">driving</p>
<script>
"use strict";
const plan = [{plan}];
const stop = {stop};
const frame = document.getElementById("game");
const status = document.getElementById("moonloop-status");
function step() {{
  const inner = frame.contentWindow;
  const page = inner && inner.moonloopPage;
  if (!page) {{
    const said = inner && inner.document.getElementById("moonloop-status");
    if (said && said.textContent.startsWith("moonloop:")) {{
      status.textContent = said.textContent;
      return;
    }}
    requestAnimationFrame(step);
    return;
  }}
  const at = page.frames();
  while (plan.length > 0 && plan[0][0] <= at) {{
    const [, kind, code] = plan.shift();
    inner.dispatchEvent(new inner.KeyboardEvent(kind, {{ code, bubbles: true }}));
  }}
  if (at >= stop) {{
    page.stop();
    status.textContent = `frame ${{at}}: ${{page.hash()}}`;
    return;
  }}
  requestAnimationFrame(step);
}}
requestAnimationFrame(step);
</script>
</body></html>
"#
    )
}

// rule: B4
#[test]
fn a_page_plays_the_game_with_the_keys_a_person_presses() {
    if !ready() {
        return;
    }
    let site = site("games/pong");
    // Keys sent before frame N+1 runs are the frame's, as an input
    // script's `N+1 press w` is.
    let plan = [
        (30, "keydown", "KeyW"),
        (90, "keyup", "KeyW"),
        (120, "keydown", "ArrowDown"),
        (200, "keyup", "ArrowDown"),
    ];
    std::fs::write(site.path().join("drive.html"), driver(&plan, 240)).unwrap();
    let script = "31 press w\n91 release w\n121 press down\n201 release down\n";
    let linux = pong_on_linux(site.path(), script, 240);
    let address = serve(site.path().to_path_buf());
    let mut browser = Browser::open(&format!("http://{address}/drive.html"));
    let said = browser.wait_for(
        "(() => { const s = document.getElementById('moonloop-status').textContent; \
         return s === 'driving' ? '' : s; })()",
    );
    assert_eq!(said, format!("frame 240: {linux}"));
}

// rule: B4
#[test]
fn keys_pressed_in_the_browser_reach_the_game_its_sound_plays_and_the_canvas_shows_it() {
    if !ready() {
        return;
    }
    let site = site("games/pong");
    let address = serve(site.path().to_path_buf());
    let mut browser = Browser::open(&format!("http://{address}/index.html?clock=constant:1/60"));
    browser.wait_for("window.moonloopPage && moonloopPage.frames() >= 10 ? 'yes' : ''");
    // Before a person's gesture the page may not sound, and says so.
    assert_eq!(
        browser.eval("document.getElementById('moonloop-status').textContent"),
        SOUND_HINT
    );
    // Pressed as a keyboard presses it: through the browser's input, to
    // the page's listeners, to the game.
    browser.key("keyDown", "KeyW", "w", 87);
    // The key was a person's gesture, which lets the page start its sound
    // (Web Audio): pong's theme plays from its first frame, and the page's
    // audio callback mixes it in the runtime.
    browser.wait_for("moonloopPage.level() > 0.01 ? 'yes' : ''");
    let until = browser.eval("moonloopPage.frames() + 60");
    browser.wait_for(&format!("moonloopPage.frames() >= {until} ? 'yes' : ''"));
    browser.key("keyUp", "KeyW", "w", 87);
    let hash = browser.wait_for("(moonloopPage.stop(), moonloopPage.hash())");
    let frames = browser.eval("moonloopPage.frames()");
    let frames = frames.as_f64().expect("a number of frames") as u64;
    assert_ne!(
        hash,
        untouched_pong(frames),
        "frame {frames}: holding w moved the paddle, so the state is not the untouched game's"
    );
    // The picture is the game's: the page's canvas holds more than its
    // background, and the line under it is empty (the key let sound
    // start, and no error came).
    assert_eq!(
        browser.eval("document.getElementById('moonloop-status').textContent"),
        ""
    );
    let shot = browser.screenshot();
    let out = repo().join("target/web-page.png");
    std::fs::write(&out, &shot).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(shot));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    let step = info.color_type.samples();
    let colours: std::collections::HashSet<&[u8]> =
        pixels[..info.buffer_size()].chunks(step).collect();
    assert!(
        colours.len() > 3,
        "the page shows the game's picture ({}): {} colours",
        out.display(),
        colours.len()
    );
}

/// A game that keeps what was typed in its save, and draws a see-through
/// red square, and a green one once "ab" was typed.
const TYPIST: &str = r##"
return {
    config = { id = "web-typist", width = 40, height = 20, background = "#00000000" },
    init = function(saved) return { name = if saved then saved.name else "" } end,
    update = function(state, input, dt)
        local typed = input:text()
        if typed == "" then
            return state
        end
        local name = state.name .. typed
        input:save({ name = name })
        return { name = name }
    end,
    render = function(state, scene, screen)
        screen:rect(0, 0, 20, 20, { fill = "#ff000080" })
        if state.name == "ab" then
            screen:rect(20, 0, 20, 20, { fill = "#00ff00" })
        end
    end,
}
"##;

/// The game whose `main.luau` is `main`, built as a page, served and
/// playing in a new Chromium (`script` run in it first) for five frames;
/// with the page's folder, which lasts as long as it is held.
fn playing(main: &str, script: &str) -> (Browser, tempfile::TempDir) {
    let game = tempfile::tempdir().unwrap();
    std::fs::write(game.path().join("main.luau"), main).unwrap();
    let site = site(game.path().to_str().unwrap());
    let address = serve(site.path().to_path_buf());
    let mut browser = Browser::open_with(&format!("http://{address}/index.html"), script);
    browser.wait_for("window.moonloopPage && moonloopPage.frames() >= 5 ? 'yes' : ''");
    (browser, site)
}

/// The canvas's pixel at `(x, y)` as `r,g,b,a`, as the page drew it.
fn canvas_pixel(x: u32, y: u32) -> String {
    format!(
        "(() => {{ const c = document.getElementById('moonloop-canvas'); \
         return c && c.width > 0 ? Array.from(c.getContext('2d').getImageData({x} * c.width / 40, \
         {y} * c.height / 20, 1, 1).data).join(',') : ''; }})()"
    )
}

// rule: B4, H12
#[test]
fn a_page_keeps_its_save_takes_typed_text_and_shows_see_through_pixels_as_drawn() {
    if !ready() {
        return;
    }
    let (mut browser, _site) = playing(TYPIST, "");
    // A half-see-through red over nothing is shown as drawn: red at half
    // alpha, not the darker red premultiplied pixels would show.
    let red = browser.wait_for(&canvas_pixel(5, 5));
    let red: Vec<i32> = red.split(',').map(|c| c.parse().unwrap()).collect();
    assert!(
        red[0] >= 250 && red[1] == 0 && red[2] == 0 && (126..=130).contains(&red[3]),
        "{red:?}"
    );
    assert_eq!(browser.wait_for(&canvas_pixel(25, 5)), "0,0,0,0");
    // Typed through the browser's keyboard: the game's text, saved.
    for (code, key, windows) in [("KeyA", "a", 65), ("KeyB", "b", 66)] {
        browser.key("keyDown", code, key, windows);
        browser.key("keyUp", code, key, windows);
    }
    let green = format!("{} === '0,255,0,255' ? 'yes' : ''", canvas_pixel(25, 5));
    browser.wait_for(&green);
    // Written back to the browser's storage within a second or two.
    let synced = browser.eval("moonloopPage.synced()").as_f64().unwrap();
    browser.wait_for(&format!("moonloopPage.synced() > {synced} ? 'yes' : ''"));
    // The page opened again starts from the save: "ab", green at once.
    browser.eval("window.before = true");
    browser.call("Page.reload", serde_json::json!({}));
    browser.wait_for(
        "!window.before && window.moonloopPage && moonloopPage.frames() >= 2 ? 'yes' : ''",
    );
    browser.wait_for(&green);
    // No error under it: only the sound's hint, as no key was pressed
    // since the reload.
    assert_eq!(
        browser.eval("document.getElementById('moonloop-status').textContent"),
        SOUND_HINT
    );
}

/// A game that shows pad 1's south button (a green square) and its left
/// stick pushed right (a blue one).
const PADDED: &str = r##"
return {
    config = { width = 40, height = 20, background = "#000000" },
    init = function() return { south = false, x = 0 } end,
    update = function(state, input, dt)
        return { south = input:down("pad1:south"), x = input:axis("pad1:leftx") }
    end,
    render = function(state, scene, screen)
        if state.south then
            screen:rect(0, 0, 20, 20, { fill = "#00ff00" })
        end
        if state.x > 0.5 then
            screen:rect(20, 0, 20, 20, { fill = "#0000ff" })
        end
    end,
}
"##;

/// Stands in for the browser's gamepads: `window.pads` is what
/// `navigator.getGamepads()` answers, and `window.pad(south, x)` one
/// standard pad with its south button and left stick so.
const FAKE_PADS: &str = "window.pads = []; \
    Object.defineProperty(navigator, 'getGamepads', { value: () => window.pads }); \
    window.pad = (south, x) => ({ index: 0, id: 'test pad', connected: true, \
      mapping: 'standard', axes: [x, 0, 0, 0], \
      buttons: Array.from({ length: 17 }, (_, i) => ({ pressed: i === 0 && south, \
        value: i === 0 && south ? 1 : 0 })) });";

// rule: B4
#[test]
fn a_pad_in_the_browser_is_the_game_s_pad() {
    if !ready() {
        return;
    }
    let (mut browser, _site) = playing(PADDED, FAKE_PADS);
    let shows = |x, colour: &str| format!("{} === '{colour}' ? 'yes' : ''", canvas_pixel(x, 5));
    browser.wait_for(&shows(5, "0,0,0,255"));
    // Plugged in with south held and the stick pushed right.
    browser.eval("window.pads = [window.pad(true, 0.9)]");
    browser.wait_for(&shows(5, "0,255,0,255"));
    browser.wait_for(&shows(25, "0,0,255,255"));
    // South let go, the stick inside the dead zone.
    browser.eval("window.pads = [window.pad(false, 0.1)]");
    browser.wait_for(&shows(5, "0,0,0,255"));
    browser.wait_for(&shows(25, "0,0,0,255"));
    // Pulled out while held: what it held is let go.
    browser.eval("window.pads = [window.pad(true, 0.9)]");
    browser.wait_for(&shows(5, "0,255,0,255"));
    browser.eval("window.pads = []");
    browser.wait_for(&shows(5, "0,0,0,255"));
    browser.wait_for(&shows(25, "0,0,0,255"));
}

/// Headless Chromium, driven through its DevTools protocol (JSON over a
/// WebSocket on 127.0.0.1): the page runs in real time, as a person's
/// does, and the test reads values from it, presses keys into it and
/// takes its picture. Closed when dropped.
struct Browser {
    chromium: std::process::Child,
    socket: tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<std::net::TcpStream>>,
    next: u64,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Opens `url` in a new headless Chromium.
    fn open(url: &str) -> Browser {
        Browser::open_with(url, "")
    }

    /// Opens `url` in a new headless Chromium, running `script` in every
    /// document it loads before the document's own scripts.
    fn open_with(url: &str, script: &str) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let mut chromium = Command::new("chromium")
            .args(HEADLESS)
            .args([
                "--window-size=800,600",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("chromium runs");
        let mut lines = BufReader::new(chromium.stderr.take().unwrap()).lines();
        let endpoint = lines
            .by_ref()
            .take(200)
            .find_map(|line| {
                let line = line.ok()?;
                Some(
                    line.split("DevTools listening on ")
                        .nth(1)?
                        .trim()
                        .to_string(),
                )
            })
            .expect("chromium says where its DevTools listen");
        // The rest of what it says is read and dropped, so it never waits
        // on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        let (socket, _) = tungstenite::connect(endpoint.as_str()).expect("DevTools answer");
        let mut browser = Browser {
            chromium,
            socket,
            next: 0,
            session: String::new(),
            _profile: profile,
        };
        let target = browser.call(
            "Target.createTarget",
            serde_json::json!({ "url": "about:blank" }),
        );
        let target = target["targetId"].clone();
        let attached = browser.call(
            "Target.attachToTarget",
            serde_json::json!({ "targetId": target, "flatten": true }),
        );
        browser.session = attached["sessionId"].as_str().unwrap().to_string();
        if !script.is_empty() {
            browser.call("Page.enable", serde_json::json!({}));
            browser.call(
                "Page.addScriptToEvaluateOnNewDocument",
                serde_json::json!({ "source": script }),
            );
        }
        browser.call("Page.navigate", serde_json::json!({ "url": url }));
        browser
    }

    /// Sends one command (to the page once attached) and returns its
    /// result, skipping the events that come between.
    fn call(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        self.next += 1;
        let id = self.next;
        let mut message = serde_json::json!({ "id": id, "method": method, "params": params });
        if !self.session.is_empty() {
            message["sessionId"] = self.session.clone().into();
        }
        self.socket
            .send(tungstenite::Message::Text(message.to_string().into()))
            .unwrap();
        loop {
            let tungstenite::Message::Text(text) = self.socket.read().unwrap() else {
                continue;
            };
            let answer: serde_json::Value = serde_json::from_str(&text).unwrap();
            if answer["id"] == id {
                assert!(answer.get("error").is_none(), "{method}: {answer}");
                return answer["result"].clone();
            }
        }
    }

    /// The value of the JavaScript expression `expression` in the page.
    fn eval(&mut self, expression: &str) -> serde_json::Value {
        let result = self.call(
            "Runtime.evaluate",
            serde_json::json!({ "expression": expression, "returnByValue": true }),
        );
        result["result"]["value"].clone()
    }

    /// Asks `expression` until it is a string other than empty (at most a
    /// minute), and returns it.
    fn wait_for(&mut self, expression: &str) -> String {
        for _ in 0..1200 {
            if let Some(said) = self.eval(expression).as_str()
                && !said.is_empty()
            {
                return said.to_string();
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("the page never answered `{expression}`");
    }

    /// Presses or lets go of a key (`keyDown`, `keyUp`) as the keyboard
    /// would: `code` as KeyboardEvent.code says it.
    fn key(&mut self, kind: &str, code: &str, key: &str, windows_code: u32) {
        self.call(
            "Input.dispatchKeyEvent",
            serde_json::json!({
                "type": kind,
                "code": code,
                "key": key,
                "windowsVirtualKeyCode": windows_code,
            }),
        );
    }

    /// The page's picture, as a PNG.
    fn screenshot(&mut self) -> Vec<u8> {
        use base64::Engine as _;
        let shot = self.call(
            "Page.captureScreenshot",
            serde_json::json!({ "format": "png" }),
        );
        base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap())
            .unwrap()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.chromium.kill();
        let _ = self.chromium.wait();
    }
}
