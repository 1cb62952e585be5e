//! `moonloop test`: every test file of each game, in parallel on the
//! cores, printed in file order; sharded and reported for CI.

use crate::terminal::say;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::lua::{TestReport, TestRun, run_test_file_with};

/// Finds the test files of each game, runs them in parallel on the
/// available cores, and prints the results in file order.
pub(super) fn test(
    games: Vec<PathBuf>,
    budget: Option<f64>,
    bless: bool,
    shard: Option<&str>,
    report: Option<&Path>,
) -> Result<ExitCode> {
    if let Some(path) = report {
        crate::explore::report::check(path)?;
    }
    let (shard, shards) = match shard {
        None => (0, 1),
        Some(text) => crate::explore::report::parse_shard(text)
            .map_err(|why| Error::usage(format!("--shard {why}")))?,
    };
    let games = if games.is_empty() {
        default_games()?
    } else {
        games
    };
    let mut files = Vec::new();
    for game in &games {
        crate::lua::game_folder(game)?;
        let dir = game.join("tests");
        let entries = std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "luau" || x == "lua"))
            .collect();
        found.sort();
        files.extend(found.into_iter().map(|f| (game.clone(), f)));
    }
    // Every shard lists the files alike (sorted) and takes its share.
    let files: Vec<_> = files
        .into_iter()
        .enumerate()
        .filter(|(k, _)| *k as u64 % shards == shard)
        .map(|(_, f)| f)
        .collect();
    let run = TestRun {
        budget: budget.map_or(crate::lua::TEST_BUDGET, std::time::Duration::from_secs_f64),
        bless,
    };
    let reports = run_parallel(&files, run);
    if let Some(path) = report {
        let cases: Vec<crate::explore::report::Case> = reports
            .iter()
            .flat_map(|r| {
                r.results
                    .iter()
                    .map(|outcome| crate::explore::report::Case {
                        suite: r.file.clone(),
                        name: outcome.name.clone(),
                        seconds: 0.0,
                        failure: outcome.failure.clone(),
                    })
            })
            .collect();
        crate::explore::report::write(path, &cases)?;
    }
    let (mut passed, mut failed) = (0, 0);
    for report in &reports {
        for crate::lua::Outcome { name, failure } in &report.results {
            match failure {
                None => {
                    passed += 1;
                    say!(
                        "ok    {}: {}",
                        crate::terminal::line(&report.file),
                        crate::terminal::line(name)
                    );
                }
                Some(why) => {
                    failed += 1;
                    say!(
                        "FAIL  {}: {}\n      {}",
                        crate::terminal::line(&report.file),
                        crate::terminal::line(name),
                        crate::terminal::line(why)
                    );
                }
            }
        }
    }
    say!("{passed} passed, {failed} failed");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn run_parallel(files: &[(PathBuf, PathBuf)], run: TestRun) -> Vec<TestReport> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<(usize, TestReport)>> = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(files.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = {
                        let mut next = next.lock().unwrap();
                        let i = *next;
                        *next += 1;
                        i
                    };
                    let Some((game, file)) = files.get(i) else {
                        break;
                    };
                    // One file that trips the host must not lose the
                    // others' results: it fails alone (the panic hook has
                    // printed what happened).
                    let report = std::panic::catch_unwind(|| run_test_file_with(game, file, run))
                        .unwrap_or_else(|_| TestReport {
                            file: file.display().to_string(),
                            results: vec![crate::lua::Outcome::failed(
                            "(the file)".into(),
                            "the host failed while running this file; see the internal error above"
                                .into(),
                        )],
                        });
                    results.lock().unwrap().push((i, report));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

fn default_games() -> Result<Vec<PathBuf>> {
    let here = Path::new(".");
    if here.join("tests").is_dir()
        && (here.join("main.luau").is_file() || here.join("main.lua").is_file())
    {
        return Ok(vec![PathBuf::from(".")]);
    }
    let dir = Path::new("games");
    let entries = std::fs::read_dir(dir).map_err(|e| Error::Game {
        path: dir.to_path_buf(),
        reason: format!("{e}; name the games to test, as in `moonloop test games/spinner`"),
    })?;
    let mut games: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("tests").is_dir())
        .collect();
    games.sort();
    Ok(games)
}
