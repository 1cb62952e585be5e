//! The Windows executable (rule B2): a game built with `moonloop build
//! --target windows` runs headless under wine to the state hash the same
//! game reaches on Linux, and verifies a replay recorded on Linux.
//!
//! Needs the runtime `tools/cross.sh windows --wine` builds (and wine):
//! CI builds it first and sets `MOONLOOP_CROSS=1`, which makes a missing
//! one a failure; elsewhere these rows say they were skipped.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The folder tools/cross.sh builds into.
fn cross() -> PathBuf {
    repo().join("target/cross/windows")
}

/// Says whether the runtime, the wine stand-in and wine are all here;
/// when CI asked for them and one is not, fails saying which.
fn ready() -> bool {
    let runtime = cross().join("moonloop.exe");
    let prng = cross().join("wine/bcryptprimitives.dll");
    let wine = Command::new("wine").arg("--version").output().is_ok();
    common::cross_ready(
        &[
            (runtime.is_file(), runtime.display().to_string()),
            (prng.is_file(), prng.display().to_string()),
            (wine, "wine".to_string()),
        ],
        "MOONLOOP_CROSS",
        "tools/cross.sh windows --wine makes them",
    )
}

/// Builds `game` for Windows into `dir` (beside the stand-in DLL).
fn build(game: &str, dir: &Path) -> PathBuf {
    let exe = dir.join(format!("{}.exe", game.rsplit('/').next().unwrap()));
    let out = common::moonloop(
        &[
            "build",
            game,
            "--target",
            "windows",
            "-o",
            exe.to_str().unwrap(),
        ],
        repo(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    std::fs::copy(
        cross().join("wine/bcryptprimitives.dll"),
        dir.join("bcryptprimitives.dll"),
    )
    .unwrap();
    exe
}

/// Runs `exe` under wine in `dir` with `args`; returns its stdout.
fn wine(exe: &Path, dir: &Path, args: &[&str]) -> String {
    let prefix = cross().join("wine/prefix");
    std::fs::create_dir_all(&prefix).unwrap();
    let out = Command::new("wine")
        .arg(exe)
        .args(args)
        .current_dir(dir)
        .env("WINEPREFIX", &prefix)
        .env("WINEDEBUG", "-all")
        .env("WINEDLLOVERRIDES", "bcryptprimitives=n,b;mscoree,mshtml=")
        .output()
        .expect("wine runs");
    let stdout = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    assert!(
        out.status.success(),
        "{} {args:?}: {:?}\n{stdout}\n{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn linux_hash(game: &str, frames: &str) -> String {
    let out = common::headless(
        repo(),
        game,
        "constant:1/60",
        frames.parse().unwrap(),
        &["--state-hash"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout.trim().to_string()
}

// rule: B2
#[test]
fn built_games_reach_the_linux_hash_under_wine() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for game in ["games/pong", "games/plinko"] {
        let exe = build(game, dir.path());
        let args = [
            "--headless",
            "--clock",
            "constant:1/60",
            "--frames",
            "600",
            "--state-hash",
        ];
        let windows = wine(&exe, dir.path(), &args);
        assert_eq!(windows.trim(), linux_hash(game, "600"), "{game}");
    }
}

// rule: B2
#[test]
fn a_replay_recorded_on_linux_verifies_on_windows() {
    if !ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("plinko.replay");
    let recorded = common::headless(
        repo(),
        "games/plinko",
        "constant:1/60",
        300,
        &["--record-input", log.to_str().unwrap()],
    );
    assert_eq!(recorded.code, 0, "{}", recorded.stderr);
    let linux = common::replay(
        repo(),
        "games/plinko",
        log.to_str().unwrap(),
        "--state-hash",
    );
    assert_eq!(linux.code, 0, "{}", linux.stderr);
    let exe = build("games/plinko", dir.path());
    // A replay whose hashes differ fails the run (H11); the last state's
    // hash is Linux's too.
    let windows = wine(
        &exe,
        dir.path(),
        &["--headless", "--replay", "plinko.replay", "--state-hash"],
    );
    assert_eq!(windows.trim(), linux.stdout.trim());
}

// rule: H7
#[test]
fn a_built_game_in_a_window_is_heard_through_wasapi() {
    if !ready() {
        return;
    }
    // Wine's WASAPI plays through ALSA; ALSA's default device here is a
    // file, so what the game played can be read back.
    let game = common::game(&[("main.luau", common::HUMMING)]);
    let dir = tempfile::tempdir().unwrap();
    let heard = dir.path().join("heard.raw");
    let conf = dir.path().join("asound.conf");
    std::fs::write(
        &conf,
        format!(
            "pcm.!default {{ type file\n slave.pcm \"null\"\n file \"{}\"\n format \"raw\" }}\n",
            heard.display()
        ),
    )
    .unwrap();
    let exe = build(game.path().to_str().unwrap(), dir.path());
    let x = common::Xvfb::start();
    let prefix = cross().join("wine/prefix");
    std::fs::create_dir_all(&prefix).unwrap();
    let out = x
        .command("wine")
        .arg(&exe)
        .args(["--no-watch", "--clock", "paced:60", "--frames", "120"])
        .current_dir(dir.path())
        .env("WINEPREFIX", &prefix)
        .env("WINEDEBUG", "-all")
        .env("WINEDLLOVERRIDES", "bcryptprimitives=n,b;mscoree,mshtml=")
        .env(
            "ALSA_CONFIG_PATH",
            format!("/usr/share/alsa/alsa.conf:{}", conf.display()),
        )
        .output()
        .expect("wine runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}\n{stderr}", out.status);
    assert!(!stderr.contains("no sound"), "{stderr}");
    let bytes = std::fs::read(&heard).unwrap_or_default();
    let sounding = bytes.iter().filter(|b| **b != 0).count();
    // Two seconds at 60 frames a second; the blip, looped, all along.
    assert!(
        bytes.len() > 48_000 && sounding > bytes.len() / 4,
        "{} bytes heard, {sounding} not silent\n{stderr}",
        bytes.len()
    );
}
