//! The contract's rules (SPEC.md; docs/contract.md says what each holds),
//! as an error names the one it keeps: a field, rendered into the one
//! line at the edge as `R1: ...`, so a caller tells refusals apart by
//! rule rather than by reading text.

use std::fmt;

/// A rule an error says was kept (the frame, history, the sync test...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // each is its id in SPEC.md
pub enum Rule {
    S4,
    S5,
    S7,
    K4,
    H9,
    H11,
    R1,
    R2,
    R3,
    N1,
    N3,
    X1,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::Rule;

    #[test]
    fn a_rule_shows_as_its_id() {
        assert_eq!(Rule::R1.to_string(), "R1");
        assert_eq!(format!("{}: past", Rule::H11), "H11: past");
    }
}
