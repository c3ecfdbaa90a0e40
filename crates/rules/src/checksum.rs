//! The checksum of the project's files (FNV-1a, 64 bits): binary files (tables, sample
//! records, chunks) end with it, text files (learned evaluations, opening books) with a
//! last line that holds it ([`seal`], [`unseal`]), checkpoints list their files' in
//! `meta.json`. Not a defence against an attacker: a way to refuse a file that a disk,
//! a copy or an editor damaged instead of reading other values from it.

/// FNV-1a, 64 bits, of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A sealed text's checksum does not match its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChecksumMismatch {
    /// The checksum of the bytes.
    pub expected: u64,
    /// The checksum the file gives (0 when it is not a number).
    pub found: u64,
}

impl std::fmt::Display for ChecksumMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "its checksum {:016x} does not match its bytes ({:016x}): the file was damaged or edited",
            self.found, self.expected
        )
    }
}

impl std::error::Error for ChecksumMismatch {}

/// Appends to `text` (after a newline, added if missing) the line `{prefix}{checksum}`
/// over every byte before it.
pub fn seal(text: &mut String, prefix: &str) {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let sum = fnv1a(text.as_bytes());
    text.push_str(&format!("{prefix}{sum:016x}\n"));
}

/// The body of a text [`seal`] wrote, and whether it had a seal: a text whose last
/// non-empty line starts with `prefix` is checked against it; one without such a line
/// (written by hand, or before seals) is returned whole.
///
/// # Errors
/// The seal does not match the bytes before it.
pub fn unseal<'a>(text: &'a str, prefix: &str) -> Result<(&'a str, bool), ChecksumMismatch> {
    let trimmed = text.trim_end_matches(['\n', '\r']);
    let start = trimmed.rfind('\n').map_or(0, |i| i + 1);
    let Some(hex) = trimmed[start..].strip_prefix(prefix) else {
        return Ok((text, false));
    };
    let body = &text[..start];
    let expected = fnv1a(body.as_bytes());
    let found = u64::from_str_radix(hex.trim(), 16).unwrap_or(0);
    // Exactly as written (lower-case hex, nothing after it): `B` for `b` is a damaged
    // byte too.
    if hex == format!("{expected:016x}") {
        Ok((body, true))
    } else {
        Err(ChecksumMismatch { expected, found })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_has_its_published_values() {
        // The reference values of FNV-1a 64 (Fowler, Noll, Vo).
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn a_sealed_text_reads_back_and_every_flipped_bit_is_refused() {
        let mut text = "header 1\n0.5 -0.25 1e-3\n".to_string();
        seal(&mut text, "checksum ");
        assert_eq!(
            unseal(&text, "checksum "),
            Ok(("header 1\n0.5 -0.25 1e-3\n", true))
        );
        assert_eq!(unseal("no seal\n", "checksum "), Ok(("no seal\n", false)));
        let bytes = text.as_bytes();
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.to_vec();
                b[i] ^= 1 << bit;
                let Ok(t) = std::str::from_utf8(&b) else {
                    continue;
                };
                // Either refused, or the flip broke the seal line itself so that the
                // text has none (then the body's own parser sees a stray line).
                if let Ok((body, sealed)) = unseal(t, "checksum ") {
                    assert!(!sealed && body == t, "byte {i} bit {bit}: {t:?}");
                }
            }
        }
    }
}
