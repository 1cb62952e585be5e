//! Refusal: what the host refuses of a request, in the words of the
//! person who made it.

/// What the host refuses of a request, in the words of the person who
/// made it: a screen call past its bounds, a body whose `x` is NaN, an
/// image that is not a PNG, a clock spec that does not read. Each function
/// that checks what a game or a person asked for hands one back; the door
/// it came in by places it (a Luau error at the author's line, an
/// `Error::Asset` when the host loaded the file itself, a usage line
/// naming the argument). Its own type, so the line the author reads cannot
/// be mixed up with the other strings the host passes around, and a
/// function's signature says that it checks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(String);

impl Refusal {
    /// The line the author reads (without the place, which the door adds).
    pub fn line(&self) -> &str {
        &self.0
    }
}

/// A refusal reads as its line (`why.contains("H10")` in a test).
impl std::ops::Deref for Refusal {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<&str> for Refusal {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl From<String> for Refusal {
    fn from(line: String) -> Self {
        Refusal(line)
    }
}

impl From<&str> for Refusal {
    fn from(line: &str) -> Self {
        Refusal(line.to_owned())
    }
}

impl From<Refusal> for String {
    fn from(refusal: Refusal) -> Self {
        refusal.0
    }
}
