//! The web page (rule B3): a game built with `moonloop build --target
//! web`, served from 127.0.0.1 and opened in headless Chromium with
//! `?frames=N&clock=SPEC`, says `frame N: HASH` in `#moonloop-status`:
//! the hash the same game reaches on Linux.
//!
//! Needs the runtime `tools/cross.sh web` builds, and Debian's chromium;
//! `MOONLOOP_CROSS_WEB=1` makes a missing one a failure, elsewhere these
//! rows say they were skipped.

mod common;

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Says whether the runtime and chromium are here; when asked for and
/// one is not, fails saying which.
fn ready() -> bool {
    let runtime = repo().join("target/cross/web/moonloop.wasm");
    let chromium = Command::new("chromium").arg("--version").output().is_ok();
    common::cross_ready(
        &[
            (runtime.is_file(), runtime.display().to_string()),
            (chromium, "chromium".to_string()),
        ],
        "MOONLOOP_CROSS_WEB",
        "tools/cross.sh web makes the runtime; apt-get install chromium",
    )
}

/// Builds `game` as a page into a new folder.
fn site(game: &str) -> tempfile::TempDir {
    let site = tempfile::tempdir().unwrap();
    let built = common::moonloop(
        &[
            "build",
            game,
            "--target",
            "web",
            "-o",
            site.path().to_str().unwrap(),
        ],
        repo(),
    );
    assert_eq!(built.code, 0, "{}", built.stderr);
    site
}

/// Serves the files of `root` on 127.0.0.1 until the test ends; returns
/// the address. A plain static server: GET of a file beside the page.
fn serve(root: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(10_000) {
            let Ok(mut stream) = stream else { continue };
            let mut request = String::new();
            if BufReader::new(&stream).read_line(&mut request).is_err() {
                continue;
            }
            let path = request.split_whitespace().nth(1).unwrap_or("/");
            let name = path.split('?').next().unwrap_or("").trim_start_matches('/');
            let name = if name.is_empty() { "index.html" } else { name };
            let file = (!name.contains("..") && !name.contains('/'))
                .then(|| std::fs::read(root.join(name)).ok())
                .flatten();
            let kind = match name.rsplit('.').next() {
                Some("html") => "text/html",
                Some("js") => "text/javascript",
                Some("wasm") => "application/wasm",
                _ => "application/octet-stream",
            };
            let _ = match file {
                Some(body) => stream
                    .write_all(
                        format!(
                            "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                            body.len()
                        )
                        .as_bytes(),
                    )
                    .and_then(|()| stream.write_all(&body)),
                None => stream.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                ),
            };
        }
    });
    address
}

/// Opens `url` in headless Chromium and returns the page's DOM once its
/// scripts have run.
fn dump_dom(url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--virtual-time-budget=120000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--dump-dom", url])
        .output()
        .expect("chromium runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What `#moonloop-status` says in `dom`.
fn status(dom: &str) -> String {
    let at = dom
        .find("id=\"moonloop-status\">")
        .expect("the status element");
    let rest = &dom[at + "id=\"moonloop-status\">".len()..];
    rest[..rest.find('<').unwrap_or(rest.len())].to_string()
}

// rule: B3
#[test]
fn a_page_says_the_hash_linux_reaches() {
    if !ready() {
        return;
    }
    for (game, title) in [("games/pong", "Pong"), ("games/plinko", "Plinko")] {
        let site = site(game);
        let page = std::fs::read_to_string(site.path().join("index.html")).unwrap();
        assert!(
            page.contains(&format!("<title>{title}</title>")),
            "the page is titled for the game: {page}"
        );
        let address = serve(site.path().to_path_buf());
        for frames in ["120", "600"] {
            let linux = common::headless(
                repo(),
                game,
                "constant:1/60",
                frames.parse().unwrap(),
                &["--state-hash"],
            );
            assert_eq!(linux.code, 0, "{}", linux.stderr);
            let dom = dump_dom(&format!(
                "http://{address}/index.html?frames={frames}&clock=constant:1/60"
            ));
            assert_eq!(
                status(&dom),
                format!("frame {frames}: {}", linux.stdout.trim()),
                "{game}: {dom}"
            );
        }
    }
}

// rule: B3
#[test]
fn a_page_runs_an_input_script_beside_it() {
    if !ready() {
        return;
    }
    let site = site("games/pong");
    let script = "0.5s press w\n1.5s release w\n2s press down\n3s release down\n";
    std::fs::write(site.path().join("moves.txt"), script).unwrap();
    let input = site.path().join("moves.txt");
    let linux = common::headless(
        repo(),
        "games/pong",
        "constant:1/60",
        300,
        &["--input", input.to_str().unwrap(), "--state-hash"],
    );
    assert_eq!(linux.code, 0, "{}", linux.stderr);
    let still = common::headless(
        repo(),
        "games/pong",
        "constant:1/60",
        300,
        &["--state-hash"],
    );
    assert_ne!(linux.stdout, still.stdout, "the script moves a paddle");
    let address = serve(site.path().to_path_buf());
    let dom = dump_dom(&format!(
        "http://{address}/index.html?frames=300&clock=constant:1/60&input=moves.txt"
    ));
    assert_eq!(
        status(&dom),
        format!("frame 300: {}", linux.stdout.trim()),
        "{dom}"
    );
    // A name that is not a file beside the page is refused, in the status.
    let dom = dump_dom(&format!(
        "http://{address}/index.html?frames=3&input=../../etc/passwd"
    ));
    assert!(
        status(&dom).contains("name a file beside the page"),
        "{dom}"
    );
}
