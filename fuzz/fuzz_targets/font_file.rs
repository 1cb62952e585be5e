//! Any bytes as a game's font file are refused with a line or lay out and
//! draw text, in every script and wrapped, straight or turned, without a
//! panic the host does not contain (rules H10, H14).
#![no_main]

use libfuzzer_sys::fuzz_target;
use moonloop::color::Rgba;
use moonloop::screen::Align;
use moonloop::assets::faces::count_faces;
use moonloop::text::{TextStyle, Typesetter};
use tiny_skia::{Pixmap, Transform};

const TEXTS: [&str; 4] = [
    "Hello, fuzz! 0123",
    "مرحبا بالعالم שלום",
    "नमस्ते दुनिया",
    "wrapped words\nand lines ﬁ é",
];

fuzz_target!(|bytes: &[u8]| {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(moonloop::error::forward_uncontained_panics);
    if count_faces(bytes) == 0 {
        return;
    }
    let mut t = Typesetter::new();
    let Ok(face) = t.face_from_bytes(bytes.to_vec()) else {
        return;
    };
    let mut pixmap = Pixmap::new(64, 32).unwrap();
    for (i, text) in TEXTS.iter().enumerate() {
        let style = TextStyle {
            face,
            size: [8.0, 13.5, 40.0, 300.0][i],
            width: (i % 2 == 1).then_some(30.0),
            line_height: None,
            align: [Align::Left, Align::Center, Align::Right, Align::Left][i],
        };
        let Ok(layout) = t.layout(text, &style) else {
            continue;
        };
        let (w, h) = t.size_of(layout);
        assert!(w.is_finite() && h.is_finite(), "{w} x {h}");
        for transform in [Transform::identity(), Transform::from_rotate(20.0)] {
            t.draw(&mut pixmap.as_mut(), layout, [2.0, 2.0], Rgba::WHITE, i != 2, transform, None);
        }
    }
});
