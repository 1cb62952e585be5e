//! Scripted input: events by frame or by simulated time, for headless
//! runs and tests, fed into the input frame as they fall due.

use super::{Action, InputEvent, InputFrame};

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
/// KEY`, `move X Y`, `wheel DX DY`, `leave` (the pointer left the
/// game) or `text "..."` (typed text, with `\"` and `\\` escaped). `KEY` may be an action of the game's config, which presses the
/// first key it binds. `#` starts a comment. Times are absolute, not
/// delays; events with the same time apply in file order.
///
/// ```text
/// # hold right from the first frame until 0.5 s, then jump at 0.75 s
/// 1      press right
/// 0.5s   release right
/// 0.75s  tap space
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
    /// Returns the frame-timed events, in order, each with its frame.
    pub fn frame_events(&self) -> impl Iterator<Item = (u64, InputEvent)> + '_ {
        self.by_frame
            .iter()
            .map(|(frame, _, event)| (*frame, *event))
    }

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

    /// Reads a script from `text` whose keys are all keys; an error gives
    /// the line and the reason.
    pub fn parse(text: &str) -> std::result::Result<Script, (usize, String)> {
        Script::parse_with(text, &[])
    }

    /// Reads a script from `text` whose keys may also name `actions`.
    pub fn parse_with(
        text: &str,
        actions: &[Action],
    ) -> std::result::Result<Script, (usize, String)> {
        let mut events = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = super::strip_comment(line).trim();
            let Some(first) = line.split_whitespace().next() else {
                continue;
            };
            let when = parse_when(first).map_err(|r| (i + 1, r))?;
            let line = &line[first.len()..];
            for event in InputEvent::parse_line(line, actions).map_err(|r| (i + 1, r.into()))? {
                events.push((when, event));
            }
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
    use crate::input::Key;

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
    fn scripts_may_press_an_action_by_its_first_key() {
        let x = Key::from_name("x").unwrap();
        let actions = [Action::new("fire", &[x, Key::from_name("space").unwrap()])];
        let script = Script::parse_with("1 press fire\n2 release fire\n", &actions).unwrap();
        let events: Vec<_> = script.frame_events().collect();
        assert_eq!(
            events,
            [(1, InputEvent::Press(x)), (2, InputEvent::Release(x))]
        );
        assert_eq!(
            Script::parse_with("1 tap jump", &actions).unwrap_err(),
            (
                1,
                "unknown key `jump` (keys are named like a, 1, space, left, mouse_left, pad1:south, pad:start; \
                 this game's actions are fire)"
                    .to_string()
            )
        );
    }

    #[test]
    fn script_errors_name_the_line() {
        let cases = [
            ("1 press\n", (1, "`press` takes one key")),
            (
                "\n\n1 press spcae\n",
                (
                    3,
                    "unknown key `spcae` (keys are named like a, 1, space, left, mouse_left, pad1:south, pad:start)",
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
                    "unknown event `jump`; use press, release, tap, move, wheel, leave, text or axis",
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
