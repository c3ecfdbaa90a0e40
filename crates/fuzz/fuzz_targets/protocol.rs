//! Engine-protocol lines (`fanorona uci`): any bytes as a session's input. Never a panic,
//! and every `go` before a `quit` gets exactly one `bestmove`. Searches are kept short
//! (`go` becomes `go depth 1`) and `Hash`/`Threads` small, so that an input takes
//! milliseconds.
#![no_main]
use fanorona_engine::protocol::{Out, run};
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, Mutex};

fuzz_target!(|data: &[u8]| {
    // A small table: the default 64 MiB would be most of an input's time.
    let mut input = b"setoption name Hash value 1\n".to_vec();
    let mut owed = 0;
    for line in data.split(|&b| b == b'\n') {
        // Words as the session reads them.
        let text = String::from_utf8_lossy(line);
        let first = text.split_whitespace().next().unwrap_or("");
        match first {
            "go" => {
                owed += 1;
                input.extend_from_slice(b"go depth 1");
            }
            "setoption" => {
                let lower = text.to_ascii_lowercase();
                if lower.contains("hash") || lower.contains("threads") {
                    input.extend_from_slice(b"setoption name Hash value 1");
                } else {
                    input.extend_from_slice(line);
                }
            }
            "quit" => {
                input.extend_from_slice(b"quit");
                input.push(b'\n');
                break;
            }
            _ => input.extend_from_slice(line),
        }
        input.push(b'\n');
    }
    let buf = Arc::new(Mutex::new(Vec::<u8>::new()));
    let out: Out = buf.clone();
    run(&input[..], out);
    let text = String::from_utf8_lossy(&buf.lock().unwrap()).into_owned();
    let answered = text.lines().filter(|l| l.starts_with("bestmove")).count();
    assert_eq!(answered, owed, "{text}");
});
