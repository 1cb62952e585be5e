//! Input: the frame's keys, buttons, pointer and actions, with edges that
//! close at frame step 11 (rule H6), and the scripted input files that feed
//! it in headless runs.
//!
//! Live input (a window), a script and a replay all arrive as the same
//! [`InputEvent`]s, queued until the next *delivered* frame: a declined tick
//! applies nothing, so an edge is never lost and never seen twice.

use std::fmt;
use std::path::Path;

use crate::error::{Error, Result};

/// Every key and button name the host knows, sorted so lookups can bisect.
///
/// Letters and digits are their own names; mouse buttons are `mouse_left`,
/// `mouse_right` and `mouse_middle`.
pub const KEY_NAMES: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "a",
    "alt",
    "b",
    "backquote",
    "backslash",
    "backspace",
    "c",
    "comma",
    "ctrl",
    "d",
    "delete",
    "down",
    "e",
    "end",
    "enter",
    "equals",
    "escape",
    "f",
    "f1",
    "f10",
    "f11",
    "f12",
    "f2",
    "f3",
    "f4",
    "f5",
    "f6",
    "f7",
    "f8",
    "f9",
    "g",
    "h",
    "home",
    "i",
    "insert",
    "j",
    "k",
    "l",
    "lbracket",
    "left",
    "m",
    "minus",
    "mouse_left",
    "mouse_middle",
    "mouse_right",
    "n",
    "o",
    "p",
    "pagedown",
    "pageup",
    "period",
    "q",
    "quote",
    "r",
    "rbracket",
    "right",
    "s",
    "semicolon",
    "shift",
    "slash",
    "space",
    "t",
    "tab",
    "u",
    "up",
    "v",
    "w",
    "x",
    "y",
    "z",
];

/// A key or mouse button, by its index in [`KEY_NAMES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key(u8);

impl Key {
    /// Finds the key called `name` (`"left"`, `"a"`, `"mouse_left"`).
    pub fn from_name(name: &str) -> Option<Key> {
        KEY_NAMES.binary_search(&name).ok().map(|i| Key(i as u8))
    }

    /// Returns the key's name.
    pub fn name(self) -> &'static str {
        KEY_NAMES[self.0 as usize]
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of keys, one bit each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct KeySet(u128);

impl KeySet {
    fn has(self, key: Key) -> bool {
        self.0 & (1 << key.0) != 0
    }
    fn set(&mut self, key: Key, on: bool) {
        if on {
            self.0 |= 1 << key.0;
        } else {
            self.0 &= !(1 << key.0);
        }
    }
}

/// One thing that happened to the input devices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InputEvent {
    /// A key or button went down.
    Press(Key),
    /// A key or button came up.
    Release(Key),
    /// Press now, release on the next delivered frame (scripts only).
    Tap(Key),
    /// The pointer moved to `x`, `y` in logical coordinates.
    Move(f64, f64),
    /// The wheel turned by `dx`, `dy` lines.
    Wheel(f64, f64),
    /// The pointer left the game's area (a letterbox bar, or the window).
    Leave,
}

impl fmt::Display for InputEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputEvent::Press(key) => write!(f, "press {key}"),
            InputEvent::Release(key) => write!(f, "release {key}"),
            InputEvent::Tap(key) => write!(f, "tap {key}"),
            InputEvent::Move(x, y) => write!(f, "move {x} {y}"),
            InputEvent::Wheel(dx, dy) => write!(f, "wheel {dx} {dy}"),
            InputEvent::Leave => write!(f, "leave"),
        }
    }
}

impl InputEvent {
    /// Reads an event as scripts write it: `press KEY`, `release KEY`,
    /// `tap KEY`, `move X Y`, `wheel DX DY`.
    pub fn parse(words: &[&str]) -> std::result::Result<InputEvent, String> {
        let key = |name: &str| {
            Key::from_name(name).ok_or_else(|| {
                format!("unknown key `{name}` (keys are named like a, 1, space, left, mouse_left)")
            })
        };
        let number = |text: &str| {
            text.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("`{text}` is not a finite number"))
        };
        match words {
            ["press", k] => Ok(InputEvent::Press(key(k)?)),
            ["release", k] => Ok(InputEvent::Release(key(k)?)),
            ["tap", k] => Ok(InputEvent::Tap(key(k)?)),
            ["move", x, y] => Ok(InputEvent::Move(number(x)?, number(y)?)),
            ["wheel", x, y] => Ok(InputEvent::Wheel(number(x)?, number(y)?)),
            ["leave"] => Ok(InputEvent::Leave),
            [verb @ ("press" | "release" | "tap"), ..] => Err(format!("`{verb}` takes one key")),
            [verb @ ("move" | "wheel"), ..] => Err(format!("`{verb}` takes two numbers")),
            [other, ..] => Err(format!(
                "unknown event `{other}`; use press, release, tap, move, wheel or leave"
            )),
            [] => Err("missing event after the time".to_string()),
        }
    }
}

/// A named action bound to keys in the game's config (`actions = { jump =
/// {"space", "w"} }`): it is down when any of its keys is.
#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    /// The action's name.
    pub name: String,
    keys: KeySet,
}

impl Action {
    /// Binds `name` to `keys`.
    pub fn new(name: impl Into<String>, keys: &[Key]) -> Self {
        let mut set = KeySet::default();
        for &key in keys {
            set.set(key, true);
        }
        Action {
            name: name.into(),
            keys: set,
        }
    }
}

/// What an input query names: one key, or an action over several.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// A single key.
    Key(Key),
    /// An action, by index in the frame's action list.
    Action(usize),
}

/// The input the current frame sees.
///
/// `pressed` and `released` are edges: seen by exactly one delivered frame,
/// then cleared by [`InputFrame::close`].
#[derive(Debug, Clone)]
pub struct InputFrame {
    down: KeySet,
    pressed: KeySet,
    released: KeySet,
    release_next: KeySet,
    pointer: Option<(f64, f64)>,
    wheel: (f64, f64),
    pending: Vec<InputEvent>,
    actions: Vec<Action>,
    ray: Option<([f32; 3], [f32; 3])>,
}

impl Default for InputFrame {
    fn default() -> Self {
        InputFrame {
            down: KeySet::default(),
            pressed: KeySet::default(),
            released: KeySet::default(),
            release_next: KeySet::default(),
            pointer: None,
            wheel: (0.0, 0.0),
            // Room for a burst of events, so steady play never allocates.
            pending: Vec::with_capacity(64),
            actions: Vec::new(),
            ray: None,
        }
    }
}

impl InputFrame {
    /// Creates an input frame with the game's `actions`.
    pub fn new(actions: Vec<Action>) -> Self {
        InputFrame {
            actions,
            ..Default::default()
        }
    }

    /// Replaces the actions (after a reload changed the config).
    pub fn set_actions(&mut self, actions: Vec<Action>) {
        self.actions = actions;
    }

    /// Returns the actions bound in the game's config.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// Finds what `name` means: an action of the game, else a key.
    pub fn binding(&self, name: &str) -> Option<Binding> {
        if let Some(i) = self.actions.iter().position(|a| a.name == name) {
            return Some(Binding::Action(i));
        }
        Key::from_name(name).map(Binding::Key)
    }

    fn query(&self, set: KeySet, binding: Binding) -> bool {
        match binding {
            Binding::Key(key) => set.has(key),
            Binding::Action(i) => set.0 & self.actions[i].keys.0 != 0,
        }
    }

    /// Says whether the key or action is held this frame.
    pub fn down(&self, binding: Binding) -> bool {
        self.query(self.down, binding)
    }

    /// Says whether the key or action went down this frame (an edge).
    pub fn pressed(&self, binding: Binding) -> bool {
        self.query(self.pressed, binding)
    }

    /// Says whether the key or action came up this frame (an edge).
    pub fn released(&self, binding: Binding) -> bool {
        self.query(self.released, binding)
    }

    /// Returns the pointer's position in logical coordinates, or `None`
    /// when it is outside the game's area.
    pub fn pointer(&self) -> Option<(f64, f64)> {
        self.pointer
    }

    /// Returns the ray under the pointer (origin, direction) through the
    /// camera the player saw last frame, if there is one.
    pub fn ray(&self) -> Option<([f32; 3], [f32; 3])> {
        self.ray
    }

    /// Sets the ray under the pointer for this frame (the engine casts it;
    /// what it hits is found only when `update` asks).
    pub fn set_ray(&mut self, ray: Option<([f32; 3], [f32; 3])>) {
        self.ray = ray;
    }

    /// Returns how far the wheel turned this frame.
    pub fn wheel(&self) -> (f64, f64) {
        self.wheel
    }

    /// Queues `event` for the next delivered frame.
    pub fn push(&mut self, event: InputEvent) {
        self.pending.push(event);
    }

    /// Applies everything queued since the last delivered frame, in order,
    /// calling `applied` with each event as the frame sees it (taps become a
    /// press now and a release next frame).
    ///
    /// The engine calls this once per delivered frame, before `update`.
    pub fn begin(&mut self, mut applied: impl FnMut(InputEvent)) {
        let mut releases = std::mem::take(&mut self.release_next).0;
        while releases != 0 {
            let key = Key(releases.trailing_zeros() as u8);
            releases &= releases - 1;
            self.apply(InputEvent::Release(key));
            applied(InputEvent::Release(key));
        }
        for i in 0..self.pending.len() {
            let event = self.pending[i];
            match event {
                InputEvent::Tap(key) => {
                    self.apply(InputEvent::Press(key));
                    self.release_next.set(key, true);
                    applied(InputEvent::Press(key));
                }
                _ => {
                    self.apply(event);
                    applied(event);
                }
            }
        }
        self.pending.clear();
    }

    fn apply(&mut self, event: InputEvent) {
        match event {
            InputEvent::Press(key) | InputEvent::Tap(key) => {
                if !self.down.has(key) {
                    self.pressed.set(key, true);
                }
                self.down.set(key, true);
            }
            InputEvent::Release(key) => {
                if self.down.has(key) {
                    self.released.set(key, true);
                }
                self.down.set(key, false);
            }
            InputEvent::Move(x, y) => self.pointer = Some((x, y)),
            InputEvent::Leave => self.pointer = None,
            InputEvent::Wheel(dx, dy) => {
                self.wheel.0 += dx;
                self.wheel.1 += dy;
            }
        }
    }

    /// Closes the frame (step 11): edges and the wheel are cleared; held
    /// keys and the pointer stay.
    pub fn close(&mut self) {
        self.pressed = KeySet::default();
        self.released = KeySet::default();
        self.wheel = (0.0, 0.0);
    }
}

/// When a scripted event happens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum When {
    /// On delivered frame N (the first frame is 1).
    Frame(u64),
    /// On the first delivered frame whose simulated time is at or after
    /// this many seconds.
    Time(f64),
}

/// The largest input script the host reads from a game folder, in bytes.
pub const MAX_SCRIPT: u64 = 16 << 20;

/// A scripted input file: events by frame or by simulated time.
///
/// One event a line, `WHEN EVENT`: `WHEN` is a frame number (`12`) or
/// simulated seconds (`1.5s`); `EVENT` is `press KEY`, `release KEY`, `tap
/// KEY`, `move X Y`, `wheel DX DY` or `leave` (the pointer left the game). `#` starts a comment. Events with the
/// same time apply in file order.
///
/// ```text
/// # hold right for half a second, then jump
/// 1     press right
/// 0.5s  release right
/// 0.5s  tap space
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Script {
    // Frame-timed and time-timed events are kept apart, each sorted, each
    // with its own cursor; the file index orders events due together.
    by_frame: Vec<(u64, usize, InputEvent)>,
    by_time: Vec<(f64, usize, InputEvent)>,
    next_frame: usize,
    next_time: usize,
}

/// Slack when comparing simulated time with a script's seconds, so that 90
/// frames of 1/60 reach `1.5s` despite float rounding.
const TIME_SLACK_SECS: f64 = 1e-9;

impl Script {
    /// Creates a script from events in the order they should apply when due
    /// on the same frame.
    pub fn new(events: Vec<(When, InputEvent)>) -> Self {
        let mut script = Script::default();
        for (index, (when, event)) in events.into_iter().enumerate() {
            match when {
                When::Frame(n) => script.by_frame.push((n, index, event)),
                When::Time(t) => script.by_time.push((t, index, event)),
            }
        }
        // Stable sorts keep file order among events of the same moment.
        script.by_frame.sort_by_key(|e| e.0);
        script.by_time.sort_by(|a, b| a.0.total_cmp(&b.0));
        script
    }

    /// Reads a script file.
    ///
    /// # Errors
    /// The file cannot be read, or a line is malformed: the error names the
    /// file and line.
    pub fn load(path: &Path) -> Result<Script> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Script::parse(&text).map_err(|(line, reason)| Error::Input {
            path: path.to_path_buf(),
            line,
            reason,
        })
    }

    /// Reads the script file `name` that game content names (a test's
    /// `input`, a scenario's), through the asset door of the game folder
    /// `root` (H10).
    ///
    /// # Errors
    /// The door refuses the name, or a line is malformed.
    pub fn load_in(root: &Path, name: &str) -> Result<Script> {
        let bytes = crate::assets::read(Some(root), name, "input file", MAX_SCRIPT)
            .map_err(Error::Script)?;
        Script::parse(&String::from_utf8_lossy(&bytes)).map_err(|(line, reason)| Error::Input {
            path: root.join(name),
            line,
            reason,
        })
    }

    /// Reads a script from `text`; an error gives the line and the reason.
    pub fn parse(text: &str) -> std::result::Result<Script, (usize, String)> {
        let mut events = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let when = parse_when(words[0]).map_err(|r| (i + 1, r))?;
            let event = InputEvent::parse(&words[1..]).map_err(|r| (i + 1, r))?;
            events.push((when, event));
        }
        Ok(Script::new(events))
    }

    /// Queues on `input` every event due on delivered frame `frame` at
    /// simulated time `time`, in file order.
    pub fn feed(&mut self, frame: u64, time: f64, input: &mut InputFrame) {
        loop {
            let by_frame = self.by_frame.get(self.next_frame).filter(|e| e.0 <= frame);
            let by_time = self
                .by_time
                .get(self.next_time)
                .filter(|e| e.0 <= time + TIME_SLACK_SECS);
            match (by_frame, by_time) {
                (Some(f), Some(t)) if f.1 < t.1 => {
                    input.push(f.2);
                    self.next_frame += 1;
                }
                (_, Some(t)) => {
                    input.push(t.2);
                    self.next_time += 1;
                }
                (Some(f), None) => {
                    input.push(f.2);
                    self.next_frame += 1;
                }
                (None, None) => break,
            }
        }
    }

    /// Says whether every event has been fed.
    pub fn is_done(&self) -> bool {
        self.next_frame == self.by_frame.len() && self.next_time == self.by_time.len()
    }
}

fn parse_when(word: &str) -> std::result::Result<When, String> {
    if let Some(secs) = word.strip_suffix('s') {
        match secs.parse::<f64>() {
            Ok(t) if t >= 0.0 && t.is_finite() => Ok(When::Time(t)),
            _ => Err(format!("`{word}` is not a time; write seconds like 1.5s")),
        }
    } else {
        match word.parse::<u64>() {
            Ok(n) if n >= 1 => Ok(When::Frame(n)),
            _ => Err(format!(
                "`{word}` is not a frame number (1 or more) or a time like 1.5s"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str) -> Binding {
        Binding::Key(Key::from_name(name).unwrap())
    }

    #[test]
    fn key_names_are_sorted_and_fit_the_set() {
        assert!(
            KEY_NAMES.windows(2).all(|w| w[0] < w[1]),
            "KEY_NAMES must stay sorted"
        );
        assert!(KEY_NAMES.len() <= 128);
        assert_eq!(Key::from_name("space").unwrap().name(), "space");
        assert_eq!(Key::from_name("Space"), None);
    }

    // rule: H6
    #[test]
    fn edges_are_seen_by_exactly_one_frame() {
        let mut input = InputFrame::default();
        input.push(InputEvent::Press(Key::from_name("space").unwrap()));
        // frame 1
        input.begin(|_| {});
        assert!(
            input.pressed(key("space")) && input.down(key("space")),
            "frame 1 sees the press"
        );
        input.close();
        // frame 2
        input.begin(|_| {});
        assert!(
            !input.pressed(key("space")),
            "frame 2 no longer sees the edge"
        );
        assert!(input.down(key("space")), "but the key is still held");
        input.close();
    }

    // rule: H6
    #[test]
    fn press_and_release_in_one_frame_show_both_edges() {
        let mut input = InputFrame::default();
        let space = Key::from_name("space").unwrap();
        input.push(InputEvent::Press(space));
        input.push(InputEvent::Release(space));
        input.begin(|_| {});
        assert!(input.pressed(key("space")) && input.released(key("space")));
        assert!(!input.down(key("space")));
    }

    // rule: H6
    #[test]
    fn taps_release_on_the_next_frame() {
        let mut input = InputFrame::default();
        input.push(InputEvent::Tap(Key::from_name("a").unwrap()));
        let mut seen = Vec::new();
        input.begin(|e| seen.push(e.to_string()));
        assert!(input.pressed(key("a")));
        input.close();
        input.begin(|e| seen.push(e.to_string()));
        assert!(input.released(key("a")) && !input.down(key("a")));
        assert_eq!(seen, ["press a", "release a"]);
    }

    // rule: H6
    #[test]
    fn actions_are_down_when_any_key_is() {
        let w = Key::from_name("w").unwrap();
        let up = Key::from_name("up").unwrap();
        let mut input = InputFrame::new(vec![Action::new("jump", &[w, up])]);
        let jump = input.binding("jump").unwrap();
        assert_eq!(jump, Binding::Action(0));
        input.push(InputEvent::Press(up));
        input.begin(|_| {});
        assert!(input.down(jump) && input.pressed(jump));
        assert!(!input.down(key("w")));
    }

    #[test]
    fn scripts_parse_frames_and_times() {
        let script = Script::parse(
            "# comment\n1 press right\n0.5s release right  # trailing\n\n2 move 10 20.5\n",
        )
        .unwrap();
        let right = Key::from_name("right").unwrap();
        assert_eq!(
            script.by_frame,
            vec![
                (1, 0, InputEvent::Press(right)),
                (2, 2, InputEvent::Move(10.0, 20.5))
            ]
        );
        assert_eq!(script.by_time, vec![(0.5, 1, InputEvent::Release(right))]);
    }

    #[test]
    fn script_errors_name_the_line() {
        let cases = [
            ("1 press\n", (1, "`press` takes one key")),
            (
                "\n\n1 press spcae\n",
                (
                    3,
                    "unknown key `spcae` (keys are named like a, 1, space, left, mouse_left)",
                ),
            ),
            (
                "0 press a\n",
                (
                    1,
                    "`0` is not a frame number (1 or more) or a time like 1.5s",
                ),
            ),
            (
                "-1s press a\n",
                (1, "`-1s` is not a time; write seconds like 1.5s"),
            ),
            (
                "1 jump a\n",
                (
                    1,
                    "unknown event `jump`; use press, release, tap, move, wheel or leave",
                ),
            ),
            ("1 move 1 nan\n", (1, "`nan` is not a finite number")),
            ("1s\n", (1, "missing event after the time")),
        ];
        for (text, (line, reason)) in cases {
            assert_eq!(
                Script::parse(text).unwrap_err(),
                (line, reason.to_string()),
                "{text:?}"
            );
        }
    }

    // rule: H6
    #[test]
    fn script_feeds_events_when_due() {
        let mut script = Script::parse("2 press a\n0.05s press b\n").unwrap();
        let mut input = InputFrame::default();
        let dt = 1.0 / 60.0;
        let mut fed = Vec::new();
        for frame in 1..=4u64 {
            script.feed(frame, frame as f64 * dt, &mut input);
            input.begin(|e| fed.push((frame, e.to_string())));
            input.close();
        }
        // 3 frames of 1/60 reach 0.05 s despite rounding.
        assert_eq!(
            fed,
            [(2, "press a".to_string()), (3, "press b".to_string())]
        );
        assert!(script.is_done());
    }
}
