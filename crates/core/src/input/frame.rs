//! The input frame: what `update` reads (keys, buttons, the pointer,
//! actions), with edges seen by exactly one delivered frame (step 11).

use super::event::InputEvent;
use super::keys::{Action, Axis, DEAD_ZONE, Key, KeySet, PADS};

/// What an input query names: one key, or an action over several.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// A single key.
    Key(Key),
    /// An action, by index in the frame's action list.
    Action(usize),
    /// Any of several keys: a button on any pad (`pad:south`).
    Any(KeySet),
    /// One player's action (N2): the player from 0, the action by index
    /// in their list.
    Player(u8, u16),
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
    /// Each player's actions (N2), first player first.
    players: Vec<Vec<Action>>,
    ray: Option<([f32; 3], [f32; 3])>,
    /// What was typed this frame, at most [`MAX_TEXT`] bytes.
    text: String,
    /// Each pad's axes as they last moved, before the dead zone.
    axes: [[f64; 6]; PADS],
}

/// The most text one frame holds, in bytes; more typed before the frame
/// is delivered is dropped (no one types that fast, H10).
pub const MAX_TEXT: usize = 256;

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
            players: Vec::new(),
            ray: None,
            text: String::with_capacity(MAX_TEXT),
            axes: [[0.0; 6]; PADS],
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

    /// Returns the events queued for the next delivered frame, as they
    /// were pushed (and merged), for history to keep (R1).
    pub fn queued(&self) -> &[InputEvent] {
        &self.pending
    }

    /// Returns what history keeps of this frame (R1): the held keys, the
    /// pointer, the pads and the edges; not the actions (the game's, kept
    /// by the live frame) nor the queue.
    pub fn for_history(&self) -> InputFrame {
        InputFrame {
            down: self.down,
            pressed: self.pressed,
            released: self.released,
            release_next: self.release_next,
            pointer: self.pointer,
            wheel: self.wheel,
            pending: Vec::new(),
            actions: Vec::new(),
            players: Vec::new(),
            ray: self.ray,
            text: self.text.clone(),
            axes: self.axes,
        }
    }

    /// Takes the queued events out, for frames run again to have their own.
    pub fn take_queue(&mut self) -> Vec<InputEvent> {
        std::mem::replace(&mut self.pending, Vec::with_capacity(64))
    }

    /// Takes `past` (an input frame history kept) as this one: its held
    /// keys, pointer and pads; the queue and the actions stay this one's.
    pub fn restore(&mut self, mut past: InputFrame) {
        std::mem::swap(&mut past.pending, &mut self.pending);
        past.actions = std::mem::take(&mut self.actions);
        past.players = std::mem::take(&mut self.players);
        *self = past;
    }

    /// Replaces the actions and each player's (after a reload changed the
    /// config).
    pub fn set_actions(&mut self, actions: Vec<Action>, players: Vec<Vec<Action>>) {
        self.actions = actions;
        self.players = players;
    }

    /// Returns each player's actions (N2), first player first.
    pub fn players(&self) -> &[Vec<Action>] {
        &self.players
    }

    /// Finds player `player`'s (from 0) action `name`.
    pub fn player_binding(&self, player: usize, name: &str) -> Option<Binding> {
        let i = self
            .players
            .get(player)?
            .iter()
            .position(|a| a.name == name)?;
        Some(Binding::Player(player as u8, i as u16))
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
        if let Some(key) = Key::from_name(name) {
            return Some(Binding::Key(key));
        }
        let mut any = KeySet::default();
        for key in Key::any_pad(name)? {
            any.set(key, true);
        }
        Some(Binding::Any(any))
    }

    fn query(&self, set: KeySet, binding: Binding) -> bool {
        match binding {
            Binding::Key(key) => set.has(key),
            Binding::Action(i) => set.meets(self.actions[i].set()),
            Binding::Any(keys) => set.meets(keys),
            Binding::Player(player, i) => {
                set.meets(self.players[player as usize][i as usize].set())
            }
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

    /// Returns the text typed this frame (without Enter, Tab, Backspace or
    /// other control characters, which are keys).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Returns how far `axis` is pushed, after the dead zone: a stick's
    /// two axes together (a radial dead zone, so diagonals stay true),
    /// from -1 to 1; a trigger from 0 to 1. `pad:` reads the pad pushed
    /// furthest.
    pub fn axis(&self, axis: Axis) -> f64 {
        let read = |pad: usize| -> f64 {
            let axes = &self.axes[pad];
            if axis.axis >= 4 {
                let v = axes[axis.axis].clamp(0.0, 1.0);
                return if v <= DEAD_ZONE {
                    0.0
                } else {
                    (v - DEAD_ZONE) / (1.0 - DEAD_ZONE)
                };
            }
            let stick = axis.axis / 2 * 2;
            let (x, y) = (axes[stick], axes[stick + 1]);
            let length = x.hypot(y);
            if length <= DEAD_ZONE {
                return 0.0;
            }
            let scale = ((length - DEAD_ZONE) / (1.0 - DEAD_ZONE)).min(1.0) / length;
            axes[axis.axis] * scale
        };
        match axis.pad {
            Some(pad) => read(pad - 1),
            None => {
                (0..PADS)
                    .map(|pad| {
                        let stick = Axis {
                            pad: Some(pad + 1),
                            axis: axis.axis / 2 * 2,
                        };
                        let other = Axis {
                            axis: stick.axis + 1,
                            ..stick
                        };
                        let push = if axis.axis >= 4 {
                            read(pad).abs()
                        } else {
                            self.axis(stick).hypot(self.axis(other))
                        };
                        (push, read(pad))
                    })
                    .fold(
                        (0.0, 0.0),
                        |best, next| if next.0 > best.0 { next } else { best },
                    )
                    .1
            }
        }
    }

    /// Queues `event` for the next delivered frame.
    ///
    /// What a frame keeps of the pointer, an axis, the wheel and typed
    /// text is where they ended up (nothing reads the steps between), so
    /// the queue keeps one pointer event, one event an axis and one wheel
    /// total, and no more text than a frame holds: a paused window fed a
    /// pad's every twitch and a mouse's every move queues a few dozen
    /// events, not a stream.
    pub fn push(&mut self, event: InputEvent) {
        let same = |queued: &InputEvent| match (queued, &event) {
            (
                InputEvent::Move(..) | InputEvent::Leave,
                InputEvent::Move(..) | InputEvent::Leave,
            ) => true,
            (InputEvent::Axis(a, _), InputEvent::Axis(b, _)) => a == b,
            (InputEvent::Wheel(..), InputEvent::Wheel(..)) => true,
            _ => false,
        };
        match event {
            InputEvent::Text(piece) => {
                let queued: usize = self
                    .pending
                    .iter()
                    .map(|e| {
                        if let InputEvent::Text(p) = e {
                            p.as_str().len()
                        } else {
                            0
                        }
                    })
                    .sum();
                if queued + piece.as_str().len() > MAX_TEXT {
                    return;
                }
            }
            InputEvent::Move(..)
            | InputEvent::Leave
            | InputEvent::Axis(..)
            | InputEvent::Wheel(..) => {
                if let Some(queued) = self.pending.iter_mut().rev().find(|e| same(e)) {
                    *queued = match (*queued, event) {
                        (InputEvent::Wheel(x0, y0), InputEvent::Wheel(x1, y1)) => {
                            InputEvent::Wheel(x0 + x1, y0 + y1)
                        }
                        _ => event,
                    };
                    return;
                }
            }
            _ => {}
        }
        self.pending.push(event);
    }

    /// Applies everything queued since the last delivered frame, in order,
    /// calling `applied` with each event as the frame sees it (taps become a
    /// press now and a release next frame).
    ///
    /// The engine calls this once per delivered frame, before `update`.
    pub fn begin(&mut self, mut applied: impl FnMut(InputEvent)) {
        let mut releases = std::mem::take(&mut self.release_next);
        while let Some(key) = releases.pop() {
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
            InputEvent::Axis(axis, value) => {
                if let Some(pad) = axis.pad {
                    self.axes[pad - 1][axis.axis] = value;
                }
            }
            InputEvent::Text(piece) => {
                if self.text.len() + piece.as_str().len() <= MAX_TEXT {
                    self.text.push_str(piece.as_str());
                }
            }
        }
    }

    /// Closes the frame (step 11): edges and the wheel are cleared; held
    /// keys and the pointer stay.
    pub fn close(&mut self) {
        self.pressed = KeySet::default();
        self.released = KeySet::default();
        self.wheel = (0.0, 0.0);
        self.text.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{TextPiece, strip_comment};

    fn key(name: &str) -> Binding {
        Binding::Key(Key::from_name(name).unwrap())
    }

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
    fn typed_text_is_seen_by_one_frame_and_reads_back_from_its_line() {
        let mut input = InputFrame::default();
        let events =
            InputEvent::parse_line(r#"text "Ada \"the\" \\ Lovelace — ünïcode""#, &[]).unwrap();
        assert!(events.len() > 1, "long text travels in pieces");
        let lines: Vec<String> = events.iter().map(|e| e.to_string()).collect();
        for (event, line) in events.iter().zip(&lines) {
            let again = InputEvent::parse_line(line.strip_prefix("").unwrap(), &[]).unwrap();
            assert_eq!(again, [*event], "{line} reads back");
            input.push(*event);
        }
        input.push(InputEvent::Text(
            TextPiece::split("\u{8}\r!").next().unwrap(),
        ));
        input.begin(|_| {});
        assert_eq!(input.text(), "Ada \"the\" \\ Lovelace — ünïcode!");
        input.close();
        input.begin(|_| {});
        assert_eq!(input.text(), "", "the next frame has typed nothing");
        for bad in [
            "text",
            "text Ada",
            "text \"Ada",
            "text \"a\" b",
            "text \"\\n\"",
            "text \"\"",
        ] {
            assert!(InputEvent::parse_line(bad, &[]).is_err(), "{bad}");
        }
        assert_eq!(strip_comment(r#"text "a#b" # typed"#), r#"text "a#b" "#);
    }

    // rule: H10
    #[test]
    fn a_stream_of_moves_queues_only_where_it_ended() {
        let mut input = InputFrame::default();
        let stick = Axis {
            pad: Some(1),
            axis: 0,
        };
        let a = Key::from_name("a").unwrap();
        for i in 0..10_000 {
            input.push(InputEvent::Axis(stick, (i % 200) as f64 / 200.0));
            input.push(InputEvent::Move(i as f64, 0.0));
            input.push(InputEvent::Wheel(0.0, 1.0));
            input.push(InputEvent::Text(TextPiece::split("xyz").next().unwrap()));
            if i == 5_000 {
                input.push(InputEvent::Press(a));
                input.push(InputEvent::Leave);
            }
        }
        input.push(InputEvent::Move(3.0, 4.0));
        // One axis, one pointer, one wheel, a frame's text, the press.
        assert_eq!(
            input.pending.len(),
            3 + MAX_TEXT / 3 + 1,
            "{:?}",
            &input.pending[..8]
        );
        input.begin(|_| {});
        assert_eq!(input.pointer(), Some((3.0, 4.0)));
        assert_eq!(input.wheel(), (0.0, 10_000.0));
        assert!(input.pressed(Binding::Key(a)));
        assert_eq!(input.text().len(), MAX_TEXT / 3 * 3);
        assert_eq!(
            input.axis(stick),
            (199.0 / 200.0 - DEAD_ZONE) / (1.0 - DEAD_ZONE)
        );
    }

    // rule: H10
    #[test]
    fn a_frame_holds_a_bounded_amount_of_text() {
        let mut input = InputFrame::default();
        for piece in TextPiece::split(&"x".repeat(4 * MAX_TEXT)) {
            input.push(InputEvent::Text(piece));
        }
        input.begin(|_| {});
        assert!(
            input.text().len() <= MAX_TEXT && input.text().len() > MAX_TEXT - TextPiece::CAPACITY
        );
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
}
