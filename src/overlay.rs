//! Overlay: the diagnostics panel a key toggles (rule H5), drawn in device
//! pixels after the recorder took its picture (frame step 9), so it is
//! never in a recording.

use tiny_skia::{Paint, PathBuilder, Pixmap, Rect, Transform};

use crate::color::Rgba;
use crate::text::{TextStyle, Typesetter};

/// How many frame times the graph shows.
pub const HISTORY: usize = 120;

/// How many characters fit on one of the panel's lines.
const WIDTH: usize = 46;

/// How many lines an error may take.
const ERROR_LINES: usize = 5;

/// Where the panel sits on the window (F4 moves it on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Corner {
    /// The default.
    #[default]
    TopLeft,
    /// Clockwise from there.
    TopRight,
    /// Then this.
    BottomRight,
    /// And this.
    BottomLeft,
}

impl Corner {
    /// The next corner, clockwise.
    pub fn next(self) -> Corner {
        match self {
            Corner::TopLeft => Corner::TopRight,
            Corner::TopRight => Corner::BottomRight,
            Corner::BottomRight => Corner::BottomLeft,
            Corner::BottomLeft => Corner::TopLeft,
        }
    }

    /// Where a panel of `panel` pixels goes on a surface of `surface`,
    /// 8 pixels from the edges.
    pub fn place(self, panel: (u32, u32), surface: (u32, u32)) -> (i32, i32) {
        let right = surface.0 as i32 - panel.0 as i32 - 8;
        let bottom = surface.1 as i32 - panel.1 as i32 - 8;
        match self {
            Corner::TopLeft => (8, 8),
            Corner::TopRight => (right, 8),
            Corner::BottomRight => (right, bottom),
            Corner::BottomLeft => (8, bottom),
        }
    }
}

/// Breaks `text` into lines of at most `width` characters at spaces
/// (a word longer than a line is cut), at most `max` of them; the last
/// ends in "..." when text was left out.
pub fn wrap(text: &str, width: usize, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in text.split(' ') {
        let mut word: &str = word;
        loop {
            let room = width - current.chars().count().min(width);
            let len = word.chars().count();
            let sep = usize::from(!current.is_empty());
            if len + sep <= room {
                if sep == 1 {
                    current.push(' ');
                }
                current.push_str(word);
                break;
            }
            if current.is_empty() {
                // A word longer than a whole line: cut it.
                let cut: String = word.chars().take(width).collect();
                word = &word[cut.len()..];
                lines.push(cut);
                if word.is_empty() {
                    break;
                }
            } else {
                lines.push(std::mem::take(&mut current));
            }
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    if lines.len() > max {
        lines.truncate(max);
        let last = lines.last_mut().expect("max is at least 1");
        let kept: String = last.chars().take(width.saturating_sub(3)).collect();
        *last = format!("{kept}...");
    }
    lines
}

/// What the overlay shows about one frame.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Wall time the frame took to run and draw, in seconds.
    pub frame_secs: f64,
    /// The delta the clock delivered.
    pub dt: f64,
    /// The frame number.
    pub frame: u64,
    /// Simulated seconds.
    pub simulated: f64,
    /// Wall seconds since the run started.
    pub wall: f64,
    /// The recording in progress, if any, and its dropped frames.
    pub recording: Option<(String, u64)>,
    /// Paused, or running at a time scale other than 1.
    pub speed: Option<String>,
    /// Where cues are heard ("ALSA default"), or why they are not.
    pub sound: Option<String>,
    /// The last error: a failed frame or reload.
    pub error: Option<String>,
    /// The history the window keeps, when it keeps one (R2).
    pub timeline: Option<Timeline>,
    /// Online play's lines: ping, rollbacks, predictions, hash checks (N3).
    pub net: Vec<String>,
}

/// The frames history holds, as the overlay's timeline shows them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timeline {
    /// The oldest frame history can rebuild.
    pub first: u64,
    /// The last frame recorded.
    pub last: u64,
    /// The frame shown.
    pub shown: u64,
    /// The first frame the last run from the past changed (R3).
    pub changed: Option<u64>,
}

/// The timeline bar's place on the panel: left, top, width and height in
/// the panel's pixels.
const fn timeline_bar(text_height: f32, scale: f32) -> (f32, f32, f32, f32) {
    (
        6.0 * scale,
        (text_height + 50.0) * scale,
        288.0 * scale,
        10.0 * scale,
    )
}

/// The overlay's state: whether it shows, and the frame-time history.
#[derive(Debug)]
pub struct Overlay {
    /// Whether it is drawn.
    pub visible: bool,
    times: [f32; HISTORY],
    next: usize,
    fps: f64,
    font: Typesetter,
    pixmap: Option<Pixmap>,
    /// Where the last drawn panel put its timeline bar, and the frames
    /// it spans.
    bar: Option<((f32, f32, f32, f32), Timeline)>,
}

impl Default for Overlay {
    fn default() -> Self {
        Overlay {
            visible: false,
            times: [0.0; HISTORY],
            next: 0,
            fps: 0.0,
            font: Typesetter::new(),
            pixmap: None,
            bar: None,
        }
    }
}

impl Overlay {
    /// Records one frame's time (call every frame, shown or not).
    pub fn sample(&mut self, frame_secs: f64) {
        self.times[self.next] = frame_secs as f32;
        self.next = (self.next + 1) % HISTORY;
        if frame_secs > 0.0 {
            let rate = 1.0 / frame_secs;
            // Smoothed over about half a second at 60 fps.
            self.fps = if self.fps == 0.0 {
                rate
            } else {
                self.fps + (rate - self.fps) * 0.06
            };
        }
    }

    /// Returns the smoothed frames per second.
    pub fn fps(&self) -> f64 {
        self.fps
    }

    /// Draws the panel at `scale` device pixels per point; `None` when hidden.
    pub fn draw(&mut self, stats: &Stats, scale: f32) -> Option<&Pixmap> {
        if !self.visible {
            return None;
        }
        let scale = scale.clamp(0.5, 4.0);
        let mut lines = vec![
            format!(
                "{:5.1} fps   frame {:5.2} ms",
                self.fps,
                stats.frame_secs * 1000.0
            ),
            format!("frame #{}   dt {:.4} s", stats.frame, stats.dt),
            format!(
                "simulated {:.2} s   wall {:.2} s",
                stats.simulated, stats.wall
            ),
        ];
        if let Some(speed) = &stats.speed {
            lines.push(speed.clone());
        }
        if let Some((path, dropped)) = &stats.recording {
            lines.extend(wrap(&format!("REC {path}   dropped {dropped}"), WIDTH, 2));
        }
        for line in &stats.net {
            lines.extend(wrap(line, WIDTH, 2));
        }
        if let Some(sound) = &stats.sound {
            lines.extend(wrap(&format!("sound: {sound}"), WIDTH, 2));
        }
        if let Some(t) = &stats.timeline {
            lines.push(format!(
                "history {}-{}  at {}{}",
                t.first,
                t.last,
                t.shown,
                t.changed
                    .map(|f| format!("   changed at {f}"))
                    .unwrap_or_default()
            ));
        }
        let first_error = lines.len();
        if let Some(error) = &stats.error {
            lines.extend(wrap(error, WIDTH, ERROR_LINES));
        }
        let text_height = 4.0 + lines.len() as f32 * 15.0;
        let bar_room = if stats.timeline.is_some() { 16.0 } else { 0.0 };
        let (w, h) = (
            (300.0 * scale) as u32,
            ((text_height + 50.0 + bar_room) * scale) as u32,
        );
        if self
            .pixmap
            .as_ref()
            .is_none_or(|p| (p.width(), p.height()) != (w, h))
        {
            self.pixmap = Pixmap::new(w, h);
        }
        let pixmap = self.pixmap.as_mut()?;
        pixmap.fill(tiny_skia::Color::from_rgba8(10, 12, 16, 200));
        self.font.begin_frame();
        let mut paint = Paint {
            anti_alias: true,
            ..Paint::default()
        };
        for (i, line) in lines.iter().enumerate() {
            let color = if i >= first_error {
                (255, 120, 120)
            } else {
                (230, 230, 230)
            };
            let color = Rgba::rgb8(color.0, color.1, color.2);
            if let Ok(layout) = self.font.layout(line, &TextStyle::plain(12.0)) {
                let mut pixmap = pixmap.as_mut();
                let t = Transform::from_scale(scale, scale);
                self.font.draw(
                    &mut pixmap,
                    layout,
                    [6.0, 4.0 + i as f32 * 15.0],
                    color,
                    true,
                    t,
                    None,
                );
            }
        }
        // The frame-time graph: one bar a frame, 33 ms tall at full height,
        // with a line at 16.7 ms.
        let (gx, gy, gh) = (6.0 * scale, text_height * scale, 44.0 * scale);
        let bar = (288.0 * scale) / HISTORY as f32;
        paint.set_color_rgba8(120, 200, 120, 255);
        for k in 0..HISTORY {
            let t = self.times[(self.next + k) % HISTORY];
            let height = (t / 0.0333).min(1.0) * gh;
            if let Some(r) = Rect::from_xywh(
                gx + k as f32 * bar,
                gy + gh - height,
                bar.max(1.0),
                height.max(0.5),
            ) {
                pixmap.fill_rect(r, &paint, Transform::identity(), None);
            }
        }
        paint.set_color_rgba8(255, 255, 255, 120);
        let mut line = PathBuilder::new();
        line.move_to(gx, gy + gh / 2.0);
        line.line_to(gx + 288.0 * scale, gy + gh / 2.0);
        if let Some(path) = line.finish() {
            pixmap.stroke_path(
                &path,
                &paint,
                &tiny_skia::Stroke::default(),
                Transform::identity(),
                None,
            );
        }
        self.bar = None;
        if let Some(t) = stats.timeline {
            self.bar = Some((timeline_bar(text_height, scale), t));
            draw_timeline(pixmap, timeline_bar(text_height, scale), &t);
        }
        self.pixmap.as_ref()
    }

    /// Returns the frame of the timeline under `(x, y)`, a point in the
    /// panel's pixels, when the last panel drawn had a timeline there.
    pub fn timeline_frame(&self, x: f32, y: f32) -> Option<u64> {
        let ((left, top, width, height), t) = self.bar?;
        let within_y = y >= top - height && y <= top + 2.0 * height;
        if !within_y || x < left - height || x > left + width + height {
            return None;
        }
        let along = ((x - left) / width).clamp(0.0, 1.0) as f64;
        Some(t.first + (along * (t.last - t.first) as f64).round() as u64)
    }
}

/// Draws the timeline: the frames history holds as a bar, the frame shown
/// as a white mark, and the first changed frame as a red one.
fn draw_timeline(pixmap: &mut Pixmap, bar: (f32, f32, f32, f32), t: &Timeline) {
    let (left, top, width, height) = bar;
    let mut paint = Paint::default();
    paint.set_color_rgba8(70, 90, 130, 255);
    if let Some(r) = Rect::from_xywh(left, top, width, height) {
        pixmap.fill_rect(r, &paint, Transform::identity(), None);
    }
    let span = (t.last - t.first).max(1) as f32;
    let at = |frame: u64| left + (frame.saturating_sub(t.first) as f32 / span).min(1.0) * width;
    let mut mark = |frame: u64, color: (u8, u8, u8)| {
        paint.set_color_rgba8(color.0, color.1, color.2, 255);
        let x = at(frame);
        if let Some(r) = Rect::from_xywh(x - 1.5, top - 2.0, 3.0, height + 4.0) {
            pixmap.fill_rect(r, &paint, Transform::identity(), None);
        }
    };
    if let Some(changed) = t.changed {
        mark(changed, (255, 90, 90));
    }
    mark(t.shown, (255, 255, 255));
}

#[cfg(test)]
mod tests {
    use super::*;

    // rule: H5
    #[test]
    fn the_overlay_draws_only_when_shown_and_smooths_the_rate() {
        let mut overlay = Overlay::default();
        for _ in 0..200 {
            overlay.sample(1.0 / 60.0);
        }
        assert!((overlay.fps() - 60.0).abs() < 0.01, "{}", overlay.fps());
        let stats = Stats {
            error: Some("main.luau:3: S4: update returned nil".into()),
            ..Stats::default()
        };
        assert!(overlay.draw(&stats, 1.0).is_none(), "hidden by default");
        overlay.visible = true;
        let pixmap = overlay.draw(&stats, 2.0).unwrap();
        assert_eq!(
            (pixmap.width(), pixmap.height()),
            (600, (4 + 4 * 15 + 50) * 2),
            "device pixels at 2x, four lines of text and the graph"
        );
    }

    // rule: H5
    #[test]
    fn long_errors_wrap_at_words_and_stop_after_five_lines() {
        let error = "g/main.luau:12: update returned a state where state.enemies[3].think is a function (S5: a state is plain data)";
        let lines = wrap(error, 46, 5);
        assert_eq!(
            lines,
            [
                "g/main.luau:12: update returned a state where",
                "state.enemies[3].think is a function (S5: a",
                "state is plain data)"
            ]
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 46));
        let long = "word ".repeat(200);
        let lines = wrap(&long, 46, 5);
        assert_eq!(lines.len(), 5);
        assert!(lines[4].ends_with("..."), "{lines:?}");
        assert_eq!(wrap(&"x".repeat(100), 46, 5).len(), 3, "a long word is cut");
    }

    #[test]
    fn the_panel_goes_in_each_corner_in_turn() {
        let mut corner = Corner::default();
        let places: Vec<(i32, i32)> = (0..4)
            .map(|_| {
                let place = corner.place((100, 50), (400, 300));
                corner = corner.next();
                place
            })
            .collect();
        assert_eq!(places, [(8, 8), (292, 8), (292, 242), (8, 242)]);
        assert_eq!(corner, Corner::TopLeft);
    }
}
