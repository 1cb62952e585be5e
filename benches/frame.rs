//! `cargo bench`: the host's speed as ratios against in-process baselines
//! (the same report as `moonloop bench`).

fn main() {
    match moonloop::bench::run(None) {
        Ok(rows) => moonloop::bench::print(&rows),
        Err(err) => {
            eprintln!("bench: {err}");
            std::process::exit(1);
        }
    }
}
