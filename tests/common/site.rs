//! A page's own files served on the loopback, and headless Chromium's
//! flags: what the web tests (tests/web.rs) and the bench's web rows
//! (crates/bench) open a built page with. Plain std, no host code.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

/// How Chromium is run headless: on no GPU, asking nothing of the
/// network but the page (the web tests run it so too).
pub const HEADLESS: [&str; 7] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
];

/// Serves the files of `site` on 127.0.0.1 from a thread of its own (a
/// plain static server: a GET of one file beside the page); returns the
/// address, and what the page's `bench-result` requests asked.
///
/// # Errors
/// No port on the loopback could be had.
pub fn serve(site: &Path) -> std::io::Result<(SocketAddr, mpsc::Receiver<String>)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let address = listener.local_addr()?;
    let (tell, heard) = mpsc::channel();
    let root = site.to_path_buf();
    std::thread::spawn(move || answer(&listener, &root, &tell));
    Ok((address, heard))
}

/// Answers GETs of the files in `root` (one name, no folders) and hands
/// the query of `bench-result` to `tell`; ends after a bounded number of
/// requests.
fn answer(listener: &TcpListener, root: &Path, tell: &mpsc::Sender<String>) {
    for stream in listener.incoming().take(10_000) {
        let Ok(mut stream) = stream else { continue };
        let mut request = String::new();
        if BufReader::new(&stream).read_line(&mut request).is_err() {
            continue;
        }
        let target = request.split_whitespace().nth(1).unwrap_or("/");
        let (name, query) = target.split_once('?').unwrap_or((target, ""));
        let name = name.trim_start_matches('/');
        if name == "bench-result" {
            let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
            let _ = tell.send(query.to_string());
            continue;
        }
        let file: Option<PathBuf> =
            (!name.is_empty() && !name.contains(['/', '\\']) && name != "..")
                .then(|| root.join(name));
        let body = file.and_then(|f| std::fs::read(f).ok());
        let kind = match name.rsplit('.').next() {
            Some("html") => "text/html",
            Some("js") => "text/javascript",
            Some("wasm") => "application/wasm",
            _ => "application/octet-stream",
        };
        let _ = match body {
            Some(body) => stream
                .write_all(
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
                         Connection: close\r\n\r\n",
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
}
