//! The table `main.luau` returns is a `Game` whatever its annotation
//! (rule T1): the common style, `return { init = ..., update = ... }`,
//! gets the API checked as if it were written `local game: Game<any> =`.
//! Without it the analyzer types each function from its own body: a
//! correct `state.n + 1` was "Unknown type used in + operation", and a
//! wrong `screen:rect(0, 0, 10, "wide")` passed.

/// Rewrites `source` (a game's main file) so its final `return { ... }`
/// is an annotated local, on the same lines: `return {` becomes `local
/// __moonloop_game: Game<any> = {` and `; return __moonloop_game` follows
/// the table's closing brace. Returns the source unchanged when the file
/// does not end by returning a table constructor.
pub fn annotate(source: &str) -> String {
    let Some(open) = final_return_table(source) else {
        return source.to_string();
    };
    let Some(close) = source.rfind('}') else {
        return source.to_string();
    };
    // Only comments and space may follow the table.
    let after = &source[close + 1..];
    if !after
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with("--"))
    {
        return source.to_string();
    }
    format!(
        "{}local __moonloop_game: Game<any> = {}{}; return __moonloop_game{}",
        &source[..open],
        &source[open + "return ".len()..close],
        "}",
        after
    )
}

/// Where the last line that starts with `return {` starts, when it is at
/// the top level (not indented).
fn final_return_table(source: &str) -> Option<usize> {
    let mut at = 0;
    let mut found = None;
    for line in source.split_inclusive('\n') {
        if line.starts_with("return {") || line.trim_end() == "return {" {
            found = Some(at);
        }
        at += line.len();
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_returned_table_becomes_an_annotated_game_on_the_same_lines() {
        let source = "local x = 1\nreturn {\n\tupdate = function(s) return s end,\n}\n-- done\n";
        let annotated = annotate(source);
        assert_eq!(
            annotated,
            "local x = 1\nlocal __moonloop_game: Game<any> = {\n\tupdate = function(s) return s end,\n}; return __moonloop_game\n-- done\n"
        );
        assert_eq!(annotated.lines().count(), source.lines().count());
        // Already annotated, or not a table: as it was.
        let typed = "local game: Game<any> = {}\nreturn game\n";
        assert_eq!(annotate(typed), typed);
        let other = "return {}\nlocal after = 1\n";
        assert_eq!(annotate(other), other);
    }
}
