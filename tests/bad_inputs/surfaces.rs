//! The walls on the surfaces added since the first walls (rules H4, H10,
//! H11, H12): saves, packages, fonts, recordings, replays and the state
//! decoder. Each row is a hostile game, file or command line of a class
//! the second hostile round broke, built so that the promise holds where
//! every surface passes (the file door, the decoders, the writers), not
//! on this one surface. Rows run as the first walls' rows do.

use std::path::Path;

use super::walls::{Row, forged_png, run_rows, small_png, test_file};

/// A game with a save id, that saves `{ n = N }` every frame.
const SAVING: &str = "return {\n  config = { id = \"saver\" },\n  init = function(saved) return { n = saved and saved.n or 0 } end,\n  update = function(state, input) input:save({ n = state.n + 1 }) return { n = state.n + 1 } end,\n}\n";

/// A game whose every frame differs all over, so each GIF or PNG frame
/// is large.
const NOISY: &str = "return {\n  config = { width = 256, height = 256 },\n  init = function() return { n = 0 } end,\n  update = function(state) return { n = state.n + 1 } end,\n  render = function(state, scene, screen)\n    for i = 0, 255, 4 do\n      local v = ((i * 7919 + state.n * 104729) % 255) / 255\n      screen:rect(0, i, 256, 4, { fill = { v, 1 - v, (v * 3) % 1, 1 } })\n    end\n  end,\n}\n";

/// Runs with a recording of `path`, under a file-size cap.
fn recording(path: &str) -> Vec<String> {
    [
        "run",
        "g",
        "--headless",
        "--clock",
        "constant:1/60",
        "--frames",
        "120",
        "--record",
        path,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn a_gif_that_decodes(dir: &Path) -> Result<(), String> {
    let path = dir.join("out.gif");
    if !path.exists() {
        return Ok(());
    }
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let file = std::fs::File::open(&path).map_err(|e| e.to_string())?;
    let mut decoder = options
        .read_info(file)
        .map_err(|e| format!("out.gif: {e}"))?;
    let mut frames = 0;
    while decoder
        .read_next_frame()
        .map_err(|e| format!("out.gif, frame {}: {e}", frames + 1))?
        .is_some()
    {
        frames += 1;
    }
    // The trailer is the last byte: a viewer knows the file is whole.
    let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
    if bytes.last() != Some(&b';') {
        return Err("out.gif has no trailer".into());
    }
    if frames == 0 || frames >= 120 {
        return Err(format!("out.gif holds {frames} frames"));
    }
    Ok(())
}

fn an_apng_that_decodes_or_none(dir: &Path) -> Result<(), String> {
    let path = dir.join("out.png");
    if path.exists() {
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(&path).map_err(|e| e.to_string())?,
        ));
        let mut reader = decoder.read_info().map_err(|e| format!("out.png: {e}"))?;
        let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
        reader
            .next_frame(&mut buf)
            .map_err(|e| format!("out.png: {e}"))?;
    }
    if dir.join("out.png.frames").exists() {
        return Err("the spool was left behind".into());
    }
    Ok(())
}

fn frames_each_whole(dir: &Path) -> Result<(), String> {
    let mut whole = 0;
    for entry in std::fs::read_dir(dir.join("frames")).map_err(|e| e.to_string())? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("frame-") {
            return Err(format!("a half-written file is left: {name}"));
        }
        tiny_skia::Pixmap::load_png(&path).map_err(|e| format!("{name}: {e}"))?;
        whole += 1;
    }
    if whole >= 120 {
        return Err(format!("{whole} frames"));
    }
    Ok(())
}

fn a_log_that_plays_to_where_it_stopped(dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join("r.replay")).map_err(|e| e.to_string())?;
    let replay = moonloop::replay::Replay::parse(&text).map_err(|e| format!("{e:?}"))?;
    if replay.cut.is_none() || replay.deltas.len() < 100 {
        return Err(format!(
            "{} frames, cut {:?}",
            replay.deltas.len(),
            replay.cut
        ));
    }
    Ok(())
}

/// A WAV whose header gives exactly the whole stereo samples that
/// follow it, and that the host's own decoder reads.
fn a_wav_that_reads(dir: &Path) -> Result<(), String> {
    let bytes = std::fs::read(dir.join("out.wav")).map_err(|e| e.to_string())?;
    let data = bytes
        .get(40..44)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()) as usize)
        .ok_or("no header")?;
    if data == 0 || data % 4 != 0 || data != bytes.len() - 44 {
        return Err(format!(
            "the header gives {data} bytes of sound, the file holds {}",
            bytes.len() - 44
        ));
    }
    moonloop::sound::Clip::decode(&bytes, "wav")
        .map(drop)
        .map_err(String::from)
}

fn no_report_left(dir: &Path) -> Result<(), String> {
    let left: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("out.xml"))
        .collect();
    if left.is_empty() {
        Ok(())
    } else {
        Err(format!("a cut report is left: {left:?}"))
    }
}

fn nothing_left_in_tmp(dir: &Path) -> Result<(), String> {
    let left: Vec<_> = std::fs::read_dir(dir.join("tmp"))
        .map_err(|e| e.to_string())?
        .map(|e| e.unwrap().file_name())
        // Made for the graphics libraries' sake, shared by every run.
        .filter(|n| !n.to_string_lossy().starts_with("moonloop-runtime-"))
        .collect();
    if left.is_empty() {
        Ok(())
    } else {
        Err(format!("left in the temporary folder: {left:?}"))
    }
}

fn both_corrupt_saves_kept(dir: &Path) -> Result<(), String> {
    let folder = dir.join("saves/saver");
    let first = std::fs::read(folder.join("save.json.corrupt")).map_err(|e| e.to_string())?;
    let second = std::fs::read(folder.join("save.json.corrupt.2")).map_err(|e| e.to_string())?;
    if first != b"\xff first" || second != b"\xfe second" {
        return Err(format!("kept {first:?} and {second:?}"));
    }
    Ok(())
}

/// A stored zip of `entries` whose names may be patched afterwards.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write as _;
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, bytes) in entries {
        writer.start_file(*name, options).unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

fn zip_claiming_entries() -> Vec<u8> {
    let mut zip = zip_of(&[("main.luau", b"return {}")]);
    let end = zip.len() - 22;
    zip[end + 8..end + 12].copy_from_slice(&[0xff; 4]);
    zip
}

fn zip_with_main_twice() -> Vec<u8> {
    let mut zip = zip_of(&[
        (
            "main.luau",
            b"return { init = function() return { which = 1 } end }",
        ),
        (
            "main.luaX",
            b"return { init = function() return { which = 2 } end }",
        ),
    ]);
    for _ in 0..2 {
        let at = zip.windows(9).position(|w| w == b"main.luaX").unwrap();
        zip[at + 8] = b'u';
    }
    zip
}

fn a_long_game_zip() -> Vec<u8> {
    zip_of(&[(
        "main.luau",
        b"return { init = function() return { n = 0 } end, update = function(s) return { n = s.n + 1 } end }",
    )])
}

fn decoders() -> Vec<Row> {
    vec![
        Row::new("a save whose $bytes cuts a character in two (panicked the host)")
            .file("g/main.luau", SAVING)
            .file("saves/saver/save.json", "{\"n\": {\"$bytes\": \"a\u{e9}a\"}}")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "3", "--save-dir", "saves", "--print-state"])
            .first("$bytes takes hex digits", 0)
            .survives("\"n\": 3"),
        Row::new("a replay whose saved line cuts a character in two")
            .file("g/main.luau", SAVING)
            .file(
                "g/run.replay",
                "moonloop-replay 2\nseed 0\nsaved {\"n\": {\"$bytes\": \"\u{e9}\u{e9}\"}}\nframe 1 0.016666666666666666\n",
            )
            .args(&["run", "g", "--headless", "--replay", "g/run.replay"])
            .first("g/run.replay:3: ", 2),
        Row::new("a replay whose saved line gives a key twice (read without a VM)")
            .file("g/main.luau", SAVING)
            .file(
                "g/run.replay",
                "moonloop-replay 2\nseed 0\nsaved {\"n\": 1, \"n\": 2}\nframe 1 0.016666666666666666\n",
            )
            .args(&["run", "g", "--headless", "--replay", "g/run.replay"])
            .first(
                "g/run.replay:3: the saved line is not a save (line 1, column 10: a key appears twice)",
                2,
            ),
        Row::new("a zip whose end record claims 65535 entries (read whole before the cap)")
            .file("game.zip", zip_claiming_entries())
            .args(&["run", "game.zip", "--headless", "--frames", "1"])
            .first("game.zip: 65535 entries; a game holds at most 10000 files", 2)
            .after(nothing_left_in_tmp),
        Row::new("a zip holding main.luau twice (the second ran)")
            .file("game.zip", zip_with_main_twice())
            .args(&["run", "game.zip", "--headless", "--frames", "1", "--print-state"])
            .first("game.zip: `main.luau` is in the archive twice", 2)
            .after(nothing_left_in_tmp),
        Row::new("a font collection claiming 5 million faces (each was set up)")
            .file("g/main.luau", "return {\n  config = { budget = 0.2, memory = 64 },\n  init = function() return { n = 0 } end,\n  update = function(state) return { n = state.n + 1 } end,\n  render = function(state, scene, screen)\n    if state.n >= 2 then\n      screen:text('x', 0, 0, { font = 'many.ttc' })\n    end\n  end,\n}\n")
            .file("g/many.ttc", {
                let mut b = b"ttcf\0\x01\0\0".to_vec();
                b.extend_from_slice(&5_000_000u32.to_be_bytes());
                b.extend_from_slice(&[0; 64]);
                b
            })
            .first("claims 5000000 faces; a font file holds at most 16 (H10)", 1)
            .survives("\"n\": 3"),
    ]
}

fn files() -> Vec<Row> {
    vec![
        Row::new("a save.json that is a pipe (the game stopped before init)")
            .file("g/main.luau", SAVING)
            .fifo("saves/saver/save.json")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "3", "--save-dir", "saves", "--print-state"])
            .first("it is a pipe, not a file", 0)
            .survives("\"n\": 3"),
        Row::new("a save.json that is a link to a file outside")
            .file("g/main.luau", SAVING)
            .file("saves/saver/keep", "")
            .link("../saves/saver/save.json", "../../outside/secret.txt")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "3", "--save-dir", "saves", "--print-state"])
            .first("it is a link, not a file", 0)
            .survives("\"n\": 3"),
        Row::new("a second corrupt save (it overwrote the first save.json.corrupt)")
            .file("g/main.luau", SAVING)
            .file("saves/saver/save.json.corrupt", b"\xff first".to_vec())
            .file("saves/saver/save.json", b"\xfe second".to_vec())
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "1", "--save-dir", "saves"])
            .first("moved to saves/saver/save.json.corrupt.2", 0)
            .after(both_corrupt_saves_kept),
        Row::new("a game's sound that is a pipe, streamed")
            .file("g/main.luau", "return {\n  config = { budget = 0.2, memory = 64 },\n  init = function() return { n = 0 } end,\n  update = function(state, input)\n    if state.n == 1 then input:play('song', { sound = 'song.ogg', bus = 'music' }) end\n    return { n = state.n + 1 }\n  end,\n}\n")
            .fifo("g/song.ogg")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "3", "--audio", "out.wav", "--print-state"])
            .first("frame 2: sound `song.ogg`: no sound `song.ogg` in the game folder", 1)
            .survives("\"n\": 3"),
        Row::new("a streamed WAV cut short (it played silence, and said nothing)")
            .file("g/main.luau", "return {\n  init = function() return { n = 0 } end,\n  update = function(state, input)\n    if state.n == 1 then input:play('song', { sound = 'song.wav', bus = 'music' }) end\n    return { n = state.n + 1 }\n  end,\n}\n")
            .file("g/song.wav", cut_wav())
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "30", "--audio", "out.wav", "--print-state"])
            .first("sound `song.wav`: the file ends at 0.00 s, before the 0.15 s its header gives (cut short?)", 1)
            .survives("\"n\": 30"),
    ]
}

/// A WAV whose header says 0.15 s of stereo and whose data ends after
/// 100 bytes: a copy cut short.
fn cut_wav() -> Vec<u8> {
    let data: Vec<u8> = (0..25_600u32).map(|i| i as u8).collect();
    let mut wav = b"RIFF".to_vec();
    wav.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    for field in [
        16u32.to_le_bytes().to_vec(),
        1u16.to_le_bytes().to_vec(),
        2u16.to_le_bytes().to_vec(),
        44_100u32.to_le_bytes().to_vec(),
        (44_100u32 * 4).to_le_bytes().to_vec(),
        4u16.to_le_bytes().to_vec(),
        16u16.to_le_bytes().to_vec(),
    ] {
        wav.extend_from_slice(&field);
    }
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(data.len() as u32).to_le_bytes());
    wav.extend_from_slice(&data[..100]);
    wav
}

fn drawing() -> Vec<Row> {
    vec![Row::new("two hundred turned full-screen images on a 2000x2000 screen (19 s a frame, within every count)")
        .file("g/main.luau", "return {\n  config = { width = 2000, height = 2000 },\n  init = function() return { n = 0 } end,\n  update = function(s) return { n = s.n + 1 } end,\n  render = function(s, scene, screen)\n    for i = 1, 200 do\n      screen:image('p.png', 0, 0, { width = 2000, height = 2000, rotation = i * 0.01, alpha = 0.5 })\n    end\n  end,\n}\n")
        .file("g/p.png", small_png())
        .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "1", "--record", "out.gif"])
        .first("frame 1: H9: the frame's drawing ran past 1 s and was cut short", 1)]
}

// rule: H9, H10
#[test]
fn a_frames_drawing_runs_under_a_time_bound_too() {
    run_rows(drawing());
}

fn writes() -> Vec<Row> {
    vec![
        Row::new(
            "a GIF whose file-size limit is reached (SIGXFSZ killed the run; the GIF was cut)",
        )
        .file("g/main.luau", NOISY)
        .args(
            &recording("out.gif")
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        )
        .file_size(300_000)
        .first("the recording ends after the", 3)
        .after(a_gif_that_decodes),
        Row::new("an animated PNG whose file-size limit is reached")
            .file("g/main.luau", NOISY)
            .args(
                &recording("out.png")
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>(),
            )
            .file_size(300_000)
            .first("recording to out.png failed", 3)
            .after(an_apng_that_decodes_or_none),
        Row::new(
            "numbered PNGs whose file-size limit is reached mid-frame (no frame file is left cut)",
        )
        .file("g/main.luau", NOISY)
        .args(
            &recording("frames/")
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        )
        .file_size(1000)
        .first("recording to frames/ failed", 3)
        .after(frames_each_whole),
        Row::new("an input log whose file-size limit is reached (cut mid-line, it did not play)")
            .file("g/main.luau", COUNTING)
            .args(&[
                "run",
                "g",
                "--headless",
                "--clock",
                "constant:1/60",
                "--frames",
                "3000",
                "--record-input",
                "r.replay",
            ])
            .file_size(8192)
            .first(": r.replay: File too large", 3)
            .after(a_log_that_plays_to_where_it_stopped),
        Row::new("a rendered sound whose file-size limit is reached (exit 2, said twice, a header over nothing)")
            .file("g/main.luau", COUNTING)
            .args(&[
                "run", "g", "--headless", "--clock", "constant:1/60", "--frames", "300", "--audio",
                "out.wav",
            ])
            .file_size(100_000)
            .first(": cannot write out.wav: File too large (os error 27); the sound file stops at", 3)
            .after(a_wav_that_reads),
        Row::new("a save the disk refuses (a new line every frame, each naming a temporary file by its whole path)")
            .file("g/main.luau", SAVING)
            .args(&[
                "run", "g", "--headless", "--clock", "constant:1/60", "--frames", "5", "--save-dir",
                "saves", "--print-state",
            ])
            .file_size(5)
            .first("frame 1: the save could not be written to saves/saver/save.json; the last save is kept: File too large (os error 27)", 1)
            .survives("\"n\": 5"),
        Row::new("a search's report whose file-size limit is reached (the XML was cut)")
            .file("g/main.luau", COUNTING)
            .args(&[
                "explore", "g", "--runs", "1", "--frames", "2", "--report", "out.xml",
            ])
            .file_size(100)
            .first("moonloop: cannot write out.xml: File too large", 3)
            .after(no_report_left),
        Row::new("SIGHUP while a zipped game runs (its folder was left behind)")
            .file("game.zip", a_long_game_zip())
            .args(&[
                "run",
                "game.zip",
                "--headless",
                "--clock",
                "paced:60",
                "--frames",
                "100000",
            ])
            .signal("HUP", 5.0)
            .first("moonloop: interrupted after frame", 130)
            .after(nothing_left_in_tmp),
        Row::new("SIGTERM while a zipped game runs")
            .file("game.zip", a_long_game_zip())
            .args(&[
                "run",
                "game.zip",
                "--headless",
                "--clock",
                "paced:60",
                "--frames",
                "100000",
            ])
            .signal("TERM", 5.0)
            .first("moonloop: interrupted after frame", 130)
            .after(nothing_left_in_tmp),
    ]
}

/// A game that counts, for tests to drive.
const COUNTING: &str = "return {\n  init = function() return { n = 0 } end,\n  update = function(state) return { n = state.n + 1 } end,\n}\n";

/// A game whose every frame takes some milliseconds.
const SLOW: &str = "return {\n  init = function() return { n = 0 } end,\n  update = function(state)\n    local x = 0\n    for i = 1, 300000 do x += i % 7 end\n    return { n = state.n + 1, x = x }\n  end,\n}\n";

fn test_api() -> Vec<Row> {
    vec![
        Row::new("a test reading the past again and again (state_at ran past the test's budget: 31 s of 10)")
            .file("g/main.luau", SLOW)
            .file("g/tests/t.luau", test_file("local e = engine.new() e:advance(30) for i = 1, 1000 do e:state_at(29) end"))
            .args(&["test", "g", "--budget", "2"])
            .first("H9: the test ran past its time budget of 2 s", 1),
        Row::new("a test running the past again through new code again and again")
            .file("g/main.luau", SLOW)
            .file("g/tests/t.luau", test_file("local e = engine.new() e:advance(30) for i = 1, 1000 do e:reload(nil, { from = 0 }) end"))
            .args(&["test", "g", "--budget", "2"])
            .first("H9: the test ran past its time budget of 2 s", 1),
        Row::new("a test recording into a pipe in its folder (the test hung, past every budget)")
            .file("g/main.luau", COUNTING)
            .fifo("g/x.gif")
            .file("g/tests/t.luau", test_file("local e = engine.new({ record = 'x.gif' }) e:advance(2) e:finish()"))
            .args(&["test", "g"])
            .first("g/tests/t.luau:2: engine.new: record: `x.gif`: it is a device or a pipe, not a file", 1),
        Row::new("a test's recording whose file-size limit is reached (named by its whole path on disk)")
            .file("g/main.luau", NOISY)
            .file("g/tests/t.luau", test_file("local e = engine.new({ record = 'x.gif' }) e:advance(60) e:finish()"))
            .args(&["test", "g"])
            .file_size(20_000)
            .first(": recording to x.gif failed: File too large", 1),
        Row::new("engine.new{bogus = 1} (accepted silently)")
            .file("g/main.luau", COUNTING)
            .file("g/tests/t.luau", test_file("engine.new({ clock = 'constant:1/60', bogus = 1 })"))
            .args(&["test", "g"])
            .first("engine.new: no option `bogus` (it takes game, clock, save, budget, input, record, synctest)", 1),
        Row::new("e:move(nan) (accepted, and the pointer went nowhere)")
            .file("g/main.luau", COUNTING)
            .file("g/tests/t.luau", test_file("engine.new():move(0/0, 1)"))
            .args(&["test", "g"])
            .first("move(nan, 1): the pointer moves to a finite place", 1),
        Row::new("e:axis with an infinity")
            .file("g/main.luau", COUNTING)
            .file("g/tests/t.luau", test_file("engine.new():axis('x', math.huge)"))
            .args(&["test", "g"])
            .first("axis: inf is not a number from -1 to 1", 1),
        Row::new("e:picture({ colliders = 1 }) (a number taken as true)")
            .file("g/main.luau", COUNTING)
            .file("g/tests/t.luau", test_file("engine.new():picture({ colliders = 1 })"))
            .args(&["test", "g"])
            .first("picture: colliders is true or false, not a number", 1),
        Row::new("a golden whose header claims 60000x60000 (decoded whole first: 14.4 GB asked for, an abort)")
            .file("g/main.luau", COUNTING)
            .file("g/tests/huge.png", forged_png(60_000, 60_000))
            .file("g/tests/t.luau", test_file("engine.new():picture():matches('tests/huge.png')"))
            .args(&["test", "g"])
            .first("matches: the picture is 1280x720, the golden 60000x60000", 1),
        Row::new("e:rewind(2.5) (\"error converting Lua number to i64\")")
            .file("g/main.luau", COUNTING)
            .file("g/tests/t.luau", test_file("local e = engine.new() e:advance(5) e:rewind(2.5)"))
            .args(&["test", "g"])
            .first("rewind(2.5): the number of frames is a whole number, 0 or more", 1),
        Row::new("e:state_at(-1)")
            .file("g/main.luau", COUNTING)
            .file("g/tests/t.luau", test_file("local e = engine.new() e:advance(5) e:state_at(-1)"))
            .args(&["test", "g"])
            .first("state_at(-1): frames are whole numbers, from 0", 1),
        Row::new("several {find, replace} pairs for one file (\"error converting Lua table to String\")")
            .file("g/main.luau", COUNTING)
            .file(
                "g/tests/t.luau",
                test_file("local e = engine.new() e:advance(2) e:reload({ ['main.luau'] = { { 'n + 1', 'n + 10' }, { 'n = 0', 'n = 5' } } }) e:advance(1) assert(e.state.n == 12, tostring(e.state.n))"),
            )
            .args(&["test", "g"])
            .first("ok ", 0),
        Row::new("a seeded save just past 1 MiB (\"1.0 MiB; a save is at most 1 MiB\")")
            .file("g/main.luau", COUNTING)
            .file("g/tests/t.luau", test_file("engine.new({ save = { s = string.rep('x', 1048570) } })"))
            .args(&["test", "g"])
            .first("its JSON is 1048583 bytes; a save is at most 1048576 bytes (H12)", 1),
        Row::new("a test's edits of new files, 1 MiB each, without end (each kept its copy in the host)")
            .file("g/main.luau", COUNTING)
            .file("g/tests/t.luau", test_file("local e = engine.new() local text = '--' .. string.rep('x', 1000000) for i = 1, 100 do e:reload({ ['m' .. i .. '.luau'] = text }) end"))
            .args(&["test", "g"])
            .first("reload: a test's edits hold at most 16 MiB of text in all (H10)", 1),
        Row::new("a reload from the files after an edit that did not load (the refused edit stayed, and failed again)")
            .file("g/main.luau", COUNTING)
            .file("g/tests/t.luau", test_file("local e = engine.new() e:advance(1) assert(not pcall(function() e:reload({ ['main.luau'] = 'return {' }) end)) assert(e:reload() == true) e:advance(1) assert(e.state.n == 2, tostring(e.state.n))"))
            .args(&["test", "g"])
            .first("ok ", 0),
        Row::new("an edit that is neither text nor {find, replace}")
            .file("g/main.luau", COUNTING)
            .file("g/tests/t.luau", test_file("engine.new():reload({ ['main.luau'] = { 1, 2 } })"))
            .args(&["test", "g"])
            .first("reload: the edit of main.luau is {find, replace} (two strings), or a list of them", 1),
    ]
}

// rule: H10
#[test]
fn the_test_api_refuses_what_it_cannot_do_by_name() {
    run_rows(test_api());
}

// rule: H10, S7
#[test]
fn every_decoder_counts_before_it_allocates() {
    run_rows(decoders());
}

// rule: H10, H12
#[test]
fn every_file_is_read_through_one_door() {
    run_rows(files());
}

// rule: H4, H12
#[test]
fn writes_end_as_valid_files_or_none() {
    run_rows(writes());
}

// rule: H11
#[test]
fn a_caught_host_error_reads_alike_however_the_folder_is_named() {
    // Before: `runtime error: /abs/g/main.luau:4: require(...)` and a
    // whole traceback, so the state (and its hash) followed the path.
    let main = "return {\n  init = function()\n    local out = {}\n    local function try(f, ...) local _, e = pcall(f, ...) table.insert(out, e) end\n    try(require, './nope')\n    try(function() require('./bad') end)\n    return { e = out }\n  end,\n  update = function(s, input)\n    local _, e = pcall(function() input:save(function() end) end)\n    return { e = s.e, q = e }\n  end,\n}\n";
    let dir = super::common::game(&[("g/main.luau", main), ("g/bad.luau", "return {")]);
    let whole = dir.path().join("g");
    let run = |game: &str| {
        super::common::headless(dir.path(), game, "constant:1/60", 1, &["--print-state"]).stdout
    };
    let state = run("g");
    assert!(
        state.contains(
            "\"main.luau:4: require(\\\"./nope\\\"): no file nope.luau or nope.lua there\""
        ) && state.contains("\"bad.luau:1: Expected")
            && state.contains("\"q\": \"main.luau:10: input:save: the game has no config.id"),
        "{state}"
    );
    assert!(!state.contains("traceback"), "{state}");
    assert_eq!(run("./g"), state);
    assert_eq!(run(whole.to_str().unwrap()), state);
}
