//! Inputs quoted in messages, bounded: every error that names what it was given (a FEN, a
//! turn, an engine spec, a protocol line, a request's field) quotes it through [`quote`],
//! so a multi-megabyte input makes a short line, never a copy of itself.
//!
//! ```
//! use fanorona_rules::quote;
//! assert_eq!(quote("d3e3").to_string(), "`d3e3`");
//! let long = "x".repeat(5_000_000);
//! let q = quote(&long).to_string();
//! assert!(q.len() < 140 && q.ends_with("(5000000 bytes)"), "{q}");
//! assert_eq!(quote("a\nb").to_string(), "`a\\nb`");
//! ```

use std::fmt;

/// At most this many characters of an input are quoted.
pub const QUOTE_CHARS: usize = 100;

/// An input as a message quotes it: in backticks, control characters escaped, cut after
/// [`QUOTE_CHARS`] characters with `…` and the input's length in bytes.
#[derive(Clone, Copy, Debug)]
pub struct Quoted<'a>(&'a str, usize);

/// `text` as a message quotes it (see [`Quoted`]).
pub fn quote(text: &str) -> Quoted<'_> {
    Quoted(text, QUOTE_CHARS)
}

impl Quoted<'_> {
    /// The same quote cut after `chars` characters: for a message that quotes a whole
    /// input for context and then the part of it that is wrong, so that the two stay
    /// within about [`QUOTE_CHARS`] characters of the input.
    #[must_use]
    pub fn at_most(self, chars: usize) -> Self {
        Quoted(self.0, chars)
    }
}

/// A message that may repeat its input (another library's, say) as a message passes it
/// on: control characters escaped, cut after twice [`QUOTE_CHARS`] characters with `…`
/// and its length in bytes; no backticks.
#[derive(Clone, Copy, Debug)]
pub struct Cut<'a>(&'a str, usize);

/// `text` as a message passes it on (see [`Cut`]).
pub fn cut(text: &str) -> Cut<'_> {
    Cut(text, 2 * QUOTE_CHARS)
}

impl Cut<'_> {
    /// The same text cut after `chars` characters (see [`Quoted::at_most`]).
    #[must_use]
    pub fn at_most(self, chars: usize) -> Self {
        Cut(self.0, chars)
    }
}

/// Writes the first characters of `text`, control characters escaped, at most `chars`
/// characters written (an escape counts as the characters it writes); whether it was
/// cut.
fn bounded(f: &mut fmt::Formatter<'_>, text: &str, chars: usize) -> Result<bool, fmt::Error> {
    let mut written = 0;
    for c in text.chars() {
        let escaped = c.is_control().then(|| c.escape_default().to_string());
        let n = escaped.as_ref().map_or(1, String::len);
        if written + n > chars {
            return Ok(true);
        }
        written += n;
        match escaped {
            Some(e) => f.write_str(&e)?,
            None => write!(f, "{c}")?,
        }
    }
    Ok(false)
}

impl fmt::Display for Cut<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if bounded(f, self.0, self.1)? {
            write!(f, "… ({} bytes)", self.0.len())?;
        }
        Ok(())
    }
}

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`")?;
        if bounded(f, self.0, self.1)? {
            write!(f, "…` ({} bytes)", self.0.len())
        } else {
            f.write_str("`")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_inputs_whole_long_ones_cut_at_a_character() {
        let exact = "é".repeat(QUOTE_CHARS);
        assert_eq!(quote(&exact).to_string(), format!("`{exact}`"));
        let over = "é".repeat(QUOTE_CHARS + 1);
        let q = quote(&over).to_string();
        assert_eq!(
            q,
            format!("`{}…` ({} bytes)", "é".repeat(QUOTE_CHARS), over.len())
        );
        assert_eq!(quote("").to_string(), "``");
        assert_eq!(quote("a\tb\u{1b}").to_string(), "`a\\tb\\u{1b}`");
        // Escapes count as the characters they write: the line stays short.
        let controls = "\u{0}".repeat(1 << 20);
        let q = quote(&controls).to_string();
        assert!(
            q.starts_with("`\\u{0}\\u{0}") && q.len() < QUOTE_CHARS + 30,
            "{q}"
        );
        let q = quote(&over).at_most(10).to_string();
        assert_eq!(q, format!("`{}…` ({} bytes)", "é".repeat(10), over.len()));
        assert_eq!(cut("line 1\nline 2").to_string(), "line 1\\nline 2");
        let long = "y".repeat(3 * QUOTE_CHARS);
        assert_eq!(
            cut(&long).to_string(),
            format!("{}… ({} bytes)", "y".repeat(2 * QUOTE_CHARS), long.len())
        );
    }
}
