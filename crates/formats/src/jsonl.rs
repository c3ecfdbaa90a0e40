//! JSON-lines files (game records, the arena's record of a match): one value a line,
//! appended as they come, so a crash can cut the last line.

use serde::de::DeserializeOwned;

/// The values of a JSON-lines file's bytes that parse and pass `check`, and a message for
/// each line that does not (`name:line: why`, the name and the reason cut short; blank
/// lines are skipped). A line cut by a crash is one such line.
pub fn parse<T: DeserializeOwned>(
    bytes: &[u8],
    name: &str,
    check: impl Fn(&T) -> Result<(), String>,
) -> (Vec<T>, Vec<String>) {
    let mut good = Vec::new();
    let mut bad = Vec::new();
    let name = fanorona_rules::quote(name).at_most(60);
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<T>(line)
            .map_err(|e| e.to_string())
            .and_then(|v| check(&v).map(|()| v))
        {
            Ok(v) => good.push(v),
            Err(e) => bad.push(format!("{name}:{}: {}", i + 1, fanorona_rules::cut(&e))),
        }
    }
    (good, bad)
}
