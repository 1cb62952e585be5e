//! Text by pictures (rule H14): fonts from the game folder, wrapping and
//! alignment, shaping beyond Latin, pixel fonts drawn crisp. Each case
//! renders headlessly and compares, exactly, with a PNG in
//! tests/images/screen/ (`MOONLOOP_BLESS=1` writes them; look at each).
//!
//! The fonts are in tests/fonts/: DejaVu Serif (Bitstream Vera license),
//! Lohit Devanagari (OFL) and moonloop Pixel 5x7, which
//! tools/pixel_font.py builds.

mod common;

use common::{assert_golden, picture};
use moonloop::assets::Store;
use moonloop::screen::{Screen, TextSpec};
use moonloop::viewport::Viewport;

fn font(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fonts")
            .join(name),
    )
    .unwrap()
}

// rule: H14
#[test]
fn wrapped_text_in_each_alignment() {
    let pic = picture(
        r##"
    local words = "The quick brown fox jumps over the lazy dog."
    for i, align in ipairs({ "left", "center", "right" }) do
        local style = { size = 10, width = 70, align = align, color = "#f0f0a0" }
        local x, y = 6 + (i - 1) % 2 * 80, 6 + (i - 1) // 2 * 60
        local w, h = screen:measure(words, style)
        screen:rect(x, y, 70, h, { stroke = "#4080c0" })
        screen:text(words, x, y, style)
    end
    screen:text("line\nheight 1.6", 86, 66, { size = 10, line_height = 1.6 })
"##,
        (160, 120),
        &[],
    );
    assert_golden("text-wrapped", &pic);
}

// rule: H14
#[test]
fn a_font_from_the_game_folder() {
    let serif = font("DejaVuSerif.ttf");
    let pic = picture(
        r##"
    screen:text("Serif 20", 6, 4, { font = "serif.ttf", size = 20 })
    screen:text("beside the default", 6, 34, { size = 12 })
    screen:text("and serif at 12", 6, 52, { font = "serif.ttf", size = 12, color = "#a0e0ff" })
    screen:push()
    screen:translate(100, 100)
    screen:rotate(-0.4)
    screen:text("turned", 0, 0, { font = "serif.ttf", size = 14, color = "orange" })
    screen:pop()
"##,
        (160, 120),
        &[("serif.ttf", &serif)],
    );
    assert_golden("text-custom-font", &pic);
}

// rule: H14
#[test]
fn a_pixel_font_at_8_px_is_crisp() {
    let pixel = font("pixel5x7.ttf");
    let pic = picture(
        r##"
    screen:text("SCORE 012345", 4, 4, { font = "pixel.ttf", size = 8, smooth = false, color = "#ffffff" })
    screen:text("Hi, pixels!", 4, 16, { font = "pixel.ttf", size = 16, smooth = false, color = "#ffffff" })
    screen:text("wrapped pixel text in a box", 4, 40, { font = "pixel.ttf", size = 8, width = 80, smooth = false, color = "#ffffff" })
"##,
        (160, 120),
        &[("pixel.ttf", &pixel)],
    );
    // Every pixel is the background or the text's color: no smoothing.
    let (bg, ink) = ([0x20, 0x28, 0x30, 0xff], [0xff, 0xff, 0xff, 0xff]);
    let mut inked = 0;
    for px in pic.data().chunks_exact(4) {
        assert!(px == bg || px == ink, "a pixel between the two: {px:?}");
        inked += usize::from(px == ink);
    }
    assert!(inked > 300, "the text drew: {inked} pixels");
    assert_golden("text-pixel-font", &pic);
}

// rule: H14
#[test]
fn right_to_left_and_shaped_scripts() {
    let deva = font("Lohit-Devanagari.ttf");
    let pic = picture(
        r##"
    screen:text("שלום עולם", 154, 6, { size = 16, align = "right" })
    screen:text("مرحبا بالعالم", 154, 34, { size = 16, align = "right", color = "#a0ffa0" })
    screen:text("नमस्ते दुनिया", 6, 64, { font = "deva.ttf", size = 18, color = "#ffd080" })
    screen:text("FALLBACK: é ß", 6, 104, { font = "pixel.ttf", size = 8 })
"##,
        (160, 120),
        &[("deva.ttf", &deva), ("pixel.ttf", &font("pixel5x7.ttf"))],
    );
    assert_golden("text-scripts", &pic);
}

// rule: H14
#[test]
fn shaping_joins_arabic_and_forms_devanagari_conjuncts() {
    // Shaped, "نص" is two joined forms and "स्ते" fewer glyphs than its
    // four code points; laid out letter by letter they would not be.
    let dir = common::game(&[("main.luau", "return {}")]);
    std::fs::write(dir.path().join("deva.ttf"), font("Lohit-Devanagari.ttf")).unwrap();
    let mut store = Store::new(Some(dir.path().to_path_buf()));
    let mut screen = Screen::new((160, 120));
    let spec = TextSpec::default();
    let joined = screen.measure(&mut store, "نص", &spec).unwrap().0;
    let apart = screen.measure(&mut store, "ن", &spec).unwrap().0
        + screen.measure(&mut store, "ص", &spec).unwrap().0;
    assert!(
        joined < apart - 1.0,
        "joined forms are narrower: {joined} vs {apart}"
    );
    let deva = TextSpec {
        font: Some("deva.ttf"),
        ..TextSpec::default()
    };
    let conjunct = screen.measure(&mut store, "स्त", &deva).unwrap().0;
    let letters = screen.measure(&mut store, "स", &deva).unwrap().0
        + screen.measure(&mut store, "्", &deva).unwrap().0
        + screen.measure(&mut store, "त", &deva).unwrap().0;
    assert!(
        conjunct < letters - 1.0,
        "the conjunct is one cluster: {conjunct} vs {letters}"
    );
}

// rule: H14
#[test]
fn each_glyph_is_rasterized_once_per_font_and_size() {
    let dir = common::game(&[("main.luau", "return {}")]);
    let mut store = Store::new(Some(dir.path().to_path_buf()));
    let mut screen = Screen::new((320, 60));
    let mut pixmap = tiny_skia::Pixmap::new(320, 60).unwrap();
    let view = Viewport::fit((320, 60), (320, 60));
    let mut frame = |screen: &mut Screen, text: &str| {
        screen.clear((320, 60));
        for i in 0..10 {
            let spec = TextSpec::default();
            screen
                .text(
                    &mut store,
                    text,
                    4.0,
                    f64::from(i) * 5.0,
                    &spec,
                    moonloop::Rgba::WHITE,
                )
                .unwrap();
        }
        screen.rasterize(&mut pixmap.as_mut(), &view, &store);
        screen.glyphs_rasterized()
    };
    let first = frame(&mut screen, "abcabc");
    assert!(first >= 3, "a, b and c were rasterized: {first}");
    assert_eq!(
        frame(&mut screen, "abcabc"),
        first,
        "the next frame rasterizes nothing"
    );
    assert_eq!(
        frame(&mut screen, "cab"),
        first,
        "the same glyphs in another text neither"
    );
    assert!(
        frame(&mut screen, "abcd") > first,
        "a new glyph is rasterized"
    );
}
