//! Sound actions (rule H13): looping, stopped, paused, faded sounds and
//! buses from `update`, each logged with its frame; `--audio FILE.wav`
//! renders the mix in step with simulated time, the same bytes for the
//! same run; music streams from its file.

mod common;

use std::path::Path;

use common::{game, headless};

const SOUNDS: &str = r#"
return {
    init = function() return { t = 0 } end,
    update = function(state, input, dt)
        local t = state.t + 1
        if t == 1 then
            input:play("hum", { sound = "blip", loop = true, volume = 0.5, fade = 0.1 })
            input:play("theme", { sound = "music/theme.wav", bus = "music", loop = true })
            input:bus("effects", 0.8)
        elseif t == 10 then
            input:pause("theme")
        elseif t == 15 then
            input:resume("theme")
        elseif t == 20 then
            input:set("hum", { pitch = 2, fade = 0.05 })
        elseif t == 30 then
            input:bus("music", 0.25, { fade = 0.1 })
        elseif t == 40 then
            input:stop("hum", { fade = 0.2 })
            input:cue("coin")
        end
        return { t = t }
    end,
}
"#;

/// A WAV of `seconds` of a 220 Hz square wave at 8 kHz, mono 8-bit: small
/// on disk however long.
fn square(seconds: f64) -> Vec<u8> {
    let n = (seconds * 8000.0) as usize;
    let samples: Vec<i32> = (0..n)
        .map(|i| if (i / 18) % 2 == 0 { 40 } else { -40 })
        .collect();
    wav(1, 8000, 8, &samples)
}

fn wav(channels: u16, rate: u32, bits: u16, samples: &[i32]) -> Vec<u8> {
    moonloop::sound::wav::encode(channels, rate, bits, samples)
}

fn sound_game() -> tempfile::TempDir {
    let dir = game(&[("g/main.luau", SOUNDS)]);
    std::fs::create_dir_all(dir.path().join("g/music")).unwrap();
    std::fs::write(dir.path().join("g/music/theme.wav"), square(0.5)).unwrap();
    dir
}

// rule: H13
#[test]
fn every_sound_action_is_logged_with_its_frame() {
    let dir = sound_game();
    let mut e = common::session(&dir.path().join("g"));
    e.advance(45).unwrap();
    let log: Vec<(u64, &str, &str)> = e
        .engine()
        .cues()
        .cues()
        .iter()
        .map(|c| (c.frame, c.action.name(), &*c.name))
        .collect();
    assert_eq!(
        log,
        [
            (1, "play", "hum"),
            (1, "play", "theme"),
            (1, "bus", "effects"),
            (10, "pause", "theme"),
            (15, "resume", "theme"),
            (20, "set", "hum"),
            (30, "bus", "music"),
            (40, "stop", "hum"),
            (40, "cue", "coin"),
        ]
    );
    let set = &e.engine().cues().cues()[5];
    assert_eq!(
        (set.volume, set.pitch, set.fade),
        (0.5, 2.0, 0.05),
        "a set keeps what it does not change"
    );
}

fn render(dir: &Path, out: &str, frames: u64) -> Vec<u8> {
    let run = headless(dir, "g", "constant:1/60", frames, &["--audio", out]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("rendered {:.2} s of sound", frames as f64 / 60.0)),
        "{}",
        run.stderr
    );
    std::fs::read(dir.join(out)).unwrap()
}

// rule: H13
#[test]
fn the_same_run_renders_the_same_bytes_and_they_match_the_expectation() {
    let dir = sound_game();
    let first = render(dir.path(), "a.wav", 60);
    let second = render(dir.path(), "b.wav", 60);
    assert_eq!(first, second, "same run, same bytes");
    // 1 s of 48 kHz 16-bit stereo after a 44-byte header: the length is
    // the clock's, not the machine's.
    assert_eq!(first.len(), 44 + 48_000 * 4);
    let expected = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sounds/actions-mix.wav");
    if std::env::var_os("MOONLOOP_BLESS").is_some() {
        std::fs::write(&expected, &first).unwrap();
    }
    let want = std::fs::read(&expected).expect("the expected mix (bless with MOONLOOP_BLESS=1)");
    assert!(first == want, "the mix differs from {}", expected.display());
}

fn left_peaks(bytes: &[u8], window: usize) -> Vec<i32> {
    let samples: Vec<i16> = bytes[44..]
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect();
    samples
        .chunks(window * 2)
        .map(|w| {
            w.iter()
                .step_by(2)
                .map(|s| i32::from(*s).abs())
                .max()
                .unwrap_or(0)
        })
        .collect()
}

// rule: H13
#[test]
fn a_paused_stream_is_silent_and_a_stopped_loop_fades_out() {
    let dir = game(&[(
        "g/main.luau",
        r#"
        return {
            init = function() return { t = 0 } end,
            update = function(state, input, dt)
                local t = state.t + 1
                if t == 1 then input:play("m", { sound = "m.wav", bus = "music", loop = true }) end
                if t == 20 then input:pause("m") end
                if t == 40 then input:resume("m") end
                if t == 60 then input:stop("m", { fade = 0.25 }) end
                return { t = t }
            end,
        }
        "#,
    )]);
    std::fs::write(dir.path().join("g/m.wav"), square(0.1)).unwrap();
    let bytes = render(dir.path(), "out.wav", 90);
    // Peaks per 1/60 s (800 frames): frames 1-19 sound (the 0.1 s file
    // looping), 20-39 are silent, 40-59 sound, then a quarter-second fade.
    let peaks = left_peaks(&bytes, 800);
    assert!(peaks[2..18].iter().all(|&p| p > 9000), "looping: {peaks:?}");
    assert!(peaks[21..38].iter().all(|&p| p == 0), "paused: {peaks:?}");
    assert!(
        peaks[41..58].iter().all(|&p| p > 9000),
        "resumed: {peaks:?}"
    );
    assert!(
        peaks[62] > peaks[70] && peaks[70] > peaks[74],
        "fading: {peaks:?}"
    );
    assert!(peaks[76..].iter().all(|&p| p == 0), "stopped: {peaks:?}");
}

// rule: H13
#[test]
fn music_streams_from_its_file_whatever_its_length() {
    // Eleven minutes: decoded whole, it would be refused (sounds are at
    // most ten); streamed, it plays, holding a second or two at a time.
    let dir = game(&[(
        "g/main.luau",
        r#"
        return {
            update = function(state, input, dt)
                if not state.on then
                    input:play("m", { sound = "long.wav", bus = "music" })
                    input:play("fx", { sound = "long.wav" })
                end
                return { on = true }
            end,
        }
        "#,
    )]);
    std::fs::write(dir.path().join("g/long.wav"), square(660.0)).unwrap();
    let run = headless(
        dir.path(),
        "g",
        "constant:1/60",
        30,
        &["--audio", "out.wav"],
    );
    // A sound longer than 30 s streams on any bus: the effect plays too,
    // never decoded whole on the frame it starts.
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("long.wav"), "{}", run.stderr);
    let peaks = left_peaks(&std::fs::read(dir.path().join("out.wav")).unwrap(), 800);
    assert!(
        peaks[1..29].iter().all(|&p| p > 9000),
        "the music plays: {peaks:?}"
    );
}

// rule: H10, H13
#[test]
fn a_frame_decodes_a_bounded_length_of_new_sounds_whole() {
    // Forty 25-second sounds first played on one frame: before, each was
    // decoded whole on that frame. Two fit the frame's 60 s; the rest are
    // refused by name, and play once the frame's room comes back.
    let mut main =
        String::from("return {\n  update = function(state, input, dt)\n    if not state.on then\n");
    for i in 0..40 {
        main += &format!("      input:play('s{i}', {{ sound = 's{i}.wav' }})\n");
    }
    main += "    end\n    return { on = true }\n  end,\n}\n";
    let dir = game(&[("g/main.luau", &main)]);
    for i in 0..40 {
        std::fs::write(dir.path().join(format!("g/s{i}.wav")), square(25.0)).unwrap();
    }
    let run = headless(dir.path(), "g", "constant:1/60", 3, &["--audio", "out.wav"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("frame 1: sound `s2.wav`: a frame decodes at most 60 s of new sounds (H10)"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("`s1.wav`"),
        "the first two play: {}",
        run.stderr
    );
}

// rule: H8, H13
#[test]
fn a_reload_forgets_the_sounds_it_changed_whoever_runs_the_game() {
    // Headless `--watch --audio` reloaded without telling the sound bank,
    // so a sound removed (or edited) played on as it was. The session
    // reloads for every runner, and the bank forgets.
    use moonloop::sound::{Bank, Player};
    let dir = game(&[(
        "main.luau",
        "return { update = function(s, input) input:cue('zap') return {} end }",
    )]);
    std::fs::create_dir_all(dir.path().join("sounds")).unwrap();
    std::fs::write(dir.path().join("sounds/zap.wav"), square(0.1)).unwrap();
    let session = common::session(dir.path());
    let bank = Bank::new(session.engine().config().sounds.clone());
    let player = Player::to_file(&dir.path().join("out.wav"), bank).unwrap();
    let mut session = session.sound(Some(player));
    let now = std::time::Instant::now();
    let turn = session.tick(now, false);
    assert!(
        turn.delivered && turn.trouble.is_none(),
        "{:?}",
        turn.trouble
    );
    std::fs::remove_file(dir.path().join("sounds/zap.wav")).unwrap();
    session
        .reload(&[std::path::PathBuf::from("sounds/zap.wav")])
        .unwrap();
    let turn = session.tick(now, false);
    let trouble = turn.trouble.unwrap_or_default();
    assert!(trouble.contains("no sounds/zap.wav"), "{trouble}");
}
