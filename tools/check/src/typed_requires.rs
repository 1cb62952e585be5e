//! Typed requires: what a module returns, carried to the files that
//! require it.
//!
//! The analyzer we build on types `require(...)` as `any` (its shim
//! replaces the builtin `require`, and the typing with it), though it still
//! imports a required module's exported types. So the checker rewrites
//! what it hands the analyzer, keeping every line where it was:
//!
//! - a module ending in a top-level `return X` becomes `local
//!   __moonloop_module = X`, and two lines after its end export that
//!   value's type and return it;
//! - in a file requiring it, `local name = require("./x")` gets, on the
//!   same line, `; local name: name.__MoonloopModule = name :: any`: the
//!   value takes the module's type through its type import.

use std::collections::HashSet;

/// The type a module's returned value is exported as.
pub const EXPORT: &str = "__MoonloopModule";

const VALUE: &str = "__moonloop_module";

/// Rewrites a module's final top-level `return X` to export X's type; the
/// source unchanged (and `false`) when it has none.
pub fn export(source: &str) -> (String, bool) {
    let lines: Vec<&str> = source.lines().collect();
    // The last line that starts a top-level statement.
    let Some(at) = lines.iter().rposition(|l| {
        !l.is_empty() && !l.starts_with(char::is_whitespace) && !l.starts_with("--")
    }) else {
        return (source.to_string(), false);
    };
    // It may be the closing brace of a multi-line return: find where that
    // statement starts.
    let start = lines[..=at]
        .iter()
        .rposition(|l| l.starts_with("return ") || *l == "return")
        .filter(|&r| {
            lines[r + 1..=at].iter().all(|l| {
                l.is_empty()
                    || l.starts_with(char::is_whitespace)
                    || l.starts_with('}')
                    || l.starts_with(')')
                    || l.starts_with("--")
            })
        });
    let Some(start) = start else {
        return (source.to_string(), false);
    };
    let value = lines[start].trim_start_matches("return").trim();
    if value.is_empty() {
        return (source.to_string(), false);
    }
    let mut out = String::with_capacity(source.len() + 128);
    for (i, line) in lines.iter().enumerate() {
        if i == start {
            out.push_str(&format!("local {VALUE} = {value}"));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "export type {EXPORT} = typeof({VALUE})\nreturn {VALUE}\n"
    ));
    (out, true)
}

/// The simple requires of `source`: `local NAME = require("PATH")` alone on
/// a line, as (line index, NAME, PATH).
pub fn simple_requires(source: &str) -> Vec<(usize, String, String)> {
    let mut found = Vec::new();
    for (i, line) in source.lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("local ") else {
            continue;
        };
        let Some((name, rest)) = rest.split_once('=') else {
            continue;
        };
        let name = name.trim();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = rest.trim();
        let Some(inner) = rest
            .strip_prefix("require(")
            .and_then(|r| r.strip_suffix(')'))
        else {
            continue;
        };
        let inner = inner.trim();
        let quoted = inner.len() >= 2
            && matches!(inner.as_bytes()[0], b'"' | b'\'')
            && inner.as_bytes()[inner.len() - 1] == inner.as_bytes()[0];
        if quoted {
            found.push((i, name.to_string(), inner[1..inner.len() - 1].to_string()));
        }
    }
    found
}

/// Gives each require at a line in `typed` its module's type; returns the
/// source and the lines (from 1) it changed.
pub fn type_requires(source: &str, typed: &[(usize, String)]) -> (String, HashSet<u32>) {
    let mut changed = HashSet::new();
    let mut out = String::with_capacity(source.len() + typed.len() * 64);
    for (i, line) in source.lines().enumerate() {
        out.push_str(line);
        if let Some((_, name)) = typed.iter().find(|(at, _)| *at == i) {
            out.push_str(&format!("; local {name}: {name}.{EXPORT} = {name} :: any"));
            changed.insert(i as u32 + 1);
        }
        out.push('\n');
    }
    (out, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_final_return_is_exported_where_it_was() {
        let (out, ok) = export("local m = {}\nreturn {\n\ta = 1,\n}\n");
        assert!(ok);
        assert_eq!(
            out,
            "local m = {}\nlocal __moonloop_module = {\n\ta = 1,\n}\nexport type __MoonloopModule = typeof(__moonloop_module)\nreturn __moonloop_module\n"
        );
        let (_, ok) = export("local x = 1\nprint(x)\n");
        assert!(!ok, "no return, nothing exported");
        let (_, ok) = export("if x then\n\treturn 1\nend\n");
        assert!(!ok, "a return inside a block is not the module's");
    }

    #[test]
    fn simple_requires_are_found_and_typed_on_their_own_line() {
        let src = "local a = require(\"./a\")\nlocal b = require('@moonloop/timer')\nlocal c = f(require(\"./c\"))\n";
        let found = simple_requires(src);
        assert_eq!(
            found,
            vec![
                (0, "a".into(), "./a".into()),
                (1, "b".into(), "@moonloop/timer".into())
            ]
        );
        let (out, lines) = type_requires(src, &[(0, "a".into())]);
        assert!(out.starts_with(
            "local a = require(\"./a\"); local a: a.__MoonloopModule = a :: any\nlocal b"
        ));
        assert_eq!(lines, HashSet::from([1]));
    }
}
