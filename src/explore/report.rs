//! Reports a CI system reads (rule X4): `--report PATH` on `moonloop test`
//! and `moonloop explore` writes JUnit XML when PATH ends in `.xml`, JSON
//! lines when it ends in `.jsonl`: one case a test (or a property), with
//! its failure's message.

use crate::Refusal;
use std::fmt::Write as _;
use std::path::Path;

/// One case: its suite (a file, a game), its name, how long it took, and
/// why it failed, if it did.
#[derive(Debug, Clone)]
pub struct Case {
    /// The suite it belongs to.
    pub suite: String,
    /// Its name.
    pub name: String,
    /// Seconds it took (0 when not measured).
    pub seconds: f64,
    /// Why it failed.
    pub failure: Option<String>,
}

/// Escapes `text` for XML text and attributes; drops what XML 1.0 cannot
/// hold (most control characters).
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Escapes `text` as a JSON string, quotes included.
fn json(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// JUnit XML for `cases`, suites in the order first met.
pub fn junit(cases: &[Case]) -> String {
    let mut suites: Vec<&str> = Vec::new();
    for case in cases {
        if !suites.contains(&case.suite.as_str()) {
            suites.push(&case.suite);
        }
    }
    let failures = cases.iter().filter(|c| c.failure.is_some()).count();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"moonloop\" tests=\"{}\" failures=\"{failures}\">\n",
        cases.len()
    );
    for suite in suites {
        let mine: Vec<&Case> = cases.iter().filter(|c| c.suite == suite).collect();
        let failed = mine.iter().filter(|c| c.failure.is_some()).count();
        let time: f64 = mine.iter().map(|c| c.seconds).sum();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\" time=\"{time:.3}\">",
            xml(suite),
            mine.len()
        );
        for case in mine {
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
                xml(suite),
                xml(&case.name),
                case.seconds
            );
            match &case.failure {
                None => out.push_str("/>\n"),
                Some(why) => {
                    let first = why.lines().next().unwrap_or_default();
                    let _ = write!(
                        out,
                        ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                        xml(first),
                        xml(why)
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// JSON lines for `cases`: one object a case.
pub fn json_lines(cases: &[Case]) -> String {
    let mut out = String::new();
    for case in cases {
        let _ = writeln!(
            out,
            "{{\"suite\": {}, \"name\": {}, \"seconds\": {:.3}, \"passed\": {}, \"failure\": {}}}",
            json(&case.suite),
            json(&case.name),
            case.seconds,
            case.failure.is_none(),
            case.failure.as_deref().map_or("null".to_string(), json)
        );
    }
    out
}

/// Says whether a report at `path` is JUnit XML (true) or JSON lines
/// (false); asked before a run, so a name that is neither is refused
/// before any test or search runs.
///
/// # Errors
/// The path ends in neither `.xml` nor `.jsonl`, or is there and is a
/// folder, a device or a pipe.
pub fn check(path: &Path) -> crate::Result<bool> {
    if let Ok(meta) = std::fs::metadata(path)
        && !meta.is_file()
    {
        return Err(crate::Error::usage_of(
            format!(
                "--report {}",
                crate::terminal::escape(&path.to_string_lossy())
            ),
            "it is there and is not a file",
        ));
    }
    match path.extension().and_then(|x| x.to_str()) {
        Some("xml") => Ok(true),
        Some("jsonl") => Ok(false),
        _ => Err(crate::Error::usage_of(
            format!(
                "--report {}",
                crate::terminal::escape(&path.to_string_lossy())
            ),
            "a report is a .xml (JUnit) or a .jsonl (JSON lines) file",
        )),
    }
}

/// Writes `cases` to `path`, as its extension says.
///
/// # Errors
/// The path ends in neither `.xml` nor `.jsonl`, or cannot be written.
pub fn write(path: &Path, cases: &[Case]) -> crate::Result<()> {
    let text = if check(path)? {
        junit(cases)
    } else {
        json_lines(cases)
    };
    crate::files::write(path, text, crate::files::Readers::Owner)
}

/// Reads `--shard`: `I/N` (the shard from 0, of how many), or `N` with
/// the index from `JOB_COMPLETION_INDEX` (a Kubernetes Indexed Job's).
///
/// # Errors
/// Neither form, an index past its count, or `N` with no index set.
pub fn parse_shard(text: &str) -> Result<(u64, u64), Refusal> {
    let (index, count) = match text.split_once('/') {
        Some((i, n)) => (i.trim().to_string(), n.trim().to_string()),
        None => {
            let index = std::env::var("JOB_COMPLETION_INDEX").map_err(|_| {
                format!("`{text}`: a shard is I/N, or N with JOB_COMPLETION_INDEX set")
            })?;
            (index, text.trim().to_string())
        }
    };
    let bad = || refuse!("`{text}`: a shard is I/N with 0 <= I < N (N at most 10000)");
    let index: u64 = index.parse().map_err(|_| bad())?;
    let count: u64 = count.parse().map_err(|_| bad())?;
    if count == 0 || count > 10_000 || index >= count {
        return Err(bad());
    }
    Ok((index, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_read_from_the_argument_or_the_job_index() {
        assert_eq!(parse_shard("2/5"), Ok((2, 5)));
        assert!(parse_shard("5/5").is_err());
        assert!(parse_shard("0/0").is_err());
        assert!(parse_shard("x/2").is_err());
    }

    #[test]
    fn names_and_messages_are_escaped() {
        let cases = [Case {
            suite: "g/tests/a.luau".into(),
            name: "<&\"quoted\">".into(),
            seconds: 0.5,
            failure: Some("line 1 \u{1b}\nline 2".into()),
        }];
        let x = junit(&cases);
        assert!(
            x.contains("name=\"&lt;&amp;&quot;quoted&quot;&gt;\""),
            "{x}"
        );
        assert!(!x.contains('\u{1b}'), "{x}");
        let j = json_lines(&cases);
        assert!(
            j.contains("\"failure\": \"line 1 \\u001b\\nline 2\""),
            "{j}"
        );
    }
}
