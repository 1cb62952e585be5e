//! Tests of `record`.

use super::*;

#[test]
fn frames_are_written_straight_and_opaque_ones_as_they_are() {
    let mut pixmap = Pixmap::new(2, 1).unwrap();
    pixmap.fill(tiny_skia::Color::from_rgba8(200, 100, 50, 255));
    assert!(is_opaque(&pixmap));
    let mut out = vec![9; 3];
    straight_rgba(&pixmap, &mut out);
    assert_eq!(out, pixmap.data());
    // Premultiplied (50, 25, 12, 128) is straight (100, 50, 24, 128).
    pixmap.data_mut()[4..].copy_from_slice(&[50, 25, 12, 128]);
    assert!(!is_opaque(&pixmap));
    straight_rgba(&pixmap, &mut out);
    assert_eq!(out, [200, 100, 50, 255, 100, 50, 24, 128]);
}

// rule: H4
#[test]
fn an_apng_frame_blends_over_the_last_only_where_it_is_opaque() {
    let old = [[1, 2, 3, 255], [4, 5, 6, 255]].concat();
    let mut area = Vec::new();
    let opaque = [[1, 2, 3, 255], [9, 9, 9, 255]].concat();
    let op = difference(&old, &opaque, 2, [0, 0, 2, 1], &mut area);
    assert_eq!(op, png::BlendOp::Over);
    assert_eq!(
        area,
        [[0, 0, 0, 0], [9, 9, 9, 255]].concat(),
        "unchanged is clear"
    );
    let translucent = [[1, 2, 3, 255], [9, 9, 9, 128]].concat();
    let op = difference(&old, &translucent, 2, [0, 0, 2, 1], &mut area);
    assert_eq!(op, png::BlendOp::Source);
    assert_eq!(
        area, translucent,
        "a translucent area replaces what was there"
    );
}

#[test]
fn delays_become_exact_fractions() {
    assert_eq!(rational(1.0 / 60.0), (1, 60));
    assert_eq!(rational(1.0 / 30.0), (1, 30));
    assert_eq!(rational(0.25), (1, 4));
    assert_eq!(rational(1.0 / 144.0), (1, 144));
    assert_eq!(rational(0.0), (0, 1));
}

fn frame(shade: u8) -> Pixmap {
    let mut p = Pixmap::new(8, 6).unwrap();
    p.fill(tiny_skia::Color::from_rgba8(shade, 0, 255 - shade, 255));
    p
}

// rule: H4
#[test]
fn every_format_writes_every_frame() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["frames", "out.gif", "out.png"] {
        let path = dir.path().join(name);
        let mut recorder = Recorder::start(&path, true).unwrap();
        for i in 0..12 {
            recorder.push(frame(i * 20), 1.0 / 60.0);
        }
        let summary = recorder.finish().unwrap();
        assert_eq!((summary.frames, summary.dropped), (12, 0), "{name}");
    }
    assert!(dir.path().join("frames/frame-00012.png").is_file());
    // The APNG says 12 frames of exactly 1/60 s.
    let decoder = png::Decoder::new(std::io::BufReader::new(
        File::open(dir.path().join("out.png")).unwrap(),
    ));
    let reader = decoder.read_info().unwrap();
    let info = reader.info();
    assert_eq!(info.animation_control.unwrap().num_frames, 12);
    let control = info.frame_control.unwrap();
    assert_eq!((control.delay_num, control.delay_den), (1, 60));
    // The GIF's centisecond delays add up to the real 0.2 s.
    let mut decoder = gif::DecodeOptions::new()
        .read_info(File::open(dir.path().join("out.gif")).unwrap())
        .unwrap();
    let mut total = 0;
    while let Some(f) = decoder.read_next_frame().unwrap() {
        total += f.delay as u32;
    }
    assert_eq!(total, 20);
}

// rule: H4
#[test]
fn a_dropped_frame_s_time_goes_to_the_next_and_other_sizes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.gif");
    let mut recorder = Recorder::start(&path, false).unwrap();
    let big = || Pixmap::new(400, 300).unwrap();
    // A window's recorder drops frames when the encoder falls behind;
    // whatever is dropped, the recording lasts as long as the play.
    for _ in 0..58 {
        recorder.push(big(), 1.0 / 60.0);
    }
    // Another size is refused and counted, and its time kept too.
    let before = recorder.dropped();
    recorder.push(Pixmap::new(40, 30).unwrap(), 1.0 / 60.0);
    assert_eq!(
        recorder.dropped(),
        before + 1,
        "a frame of another size is dropped"
    );
    assert_eq!(
        recorder.size(),
        Some((400, 300)),
        "the first frame's size holds"
    );
    // The last frame waits for room, as a headless one would.
    recorder.blocking = true;
    recorder.push(big(), 1.0 / 60.0);
    let summary = recorder.finish().unwrap();
    assert_eq!(summary.frames + summary.dropped, 60);
    let mut decoder = gif::DecodeOptions::new()
        .read_info(File::open(&path).unwrap())
        .unwrap();
    let (mut total, mut first) = (0, true);
    while let Some(f) = decoder.read_next_frame().unwrap() {
        // The first frame is whole; the rest, unchanged, are a pixel.
        let size = if first { (400, 300) } else { (1, 1) };
        assert_eq!((f.width, f.height), size);
        first = false;
        total += f.delay as u32;
    }
    assert_eq!(total, 100, "60 frames of 1/60 s are one second of GIF");
}

#[test]
fn an_unwritable_path_is_named() {
    let err = Recorder::start(Path::new("/proc/nope/out.gif"), true)
        .unwrap_err()
        .chain();
    assert!(
        err.starts_with("recording to /proc/nope/out.gif failed: "),
        "{err}"
    );
}
