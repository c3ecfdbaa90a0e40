//! `fanorona uci` driven through the protocol alone: a whole game between two engine
//! processes, whose turns `fanorona replay` then accepts.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// One engine process and its pipes.
struct Engine {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Engine {
    fn start(options: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fanorona"))
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("runs");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        let mut e = Engine {
            child,
            input,
            output,
        };
        e.send("uci");
        e.until("uciok");
        for o in options {
            e.send(o);
        }
        e.send("isready");
        e.until("readyok");
        e
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").unwrap();
        self.input.flush().unwrap();
    }

    /// The lines up to the first that starts with `prefix`, which is returned.
    fn until(&mut self, prefix: &str) -> String {
        loop {
            let mut line = String::new();
            assert!(
                self.output.read_line(&mut line).unwrap() > 0,
                "no `{prefix}`"
            );
            let line = line.trim_end().to_string();
            assert!(!line.starts_with("info string error"), "{line}");
            if line.starts_with(prefix) {
                return line;
            }
        }
    }

    /// Sends `go` and returns the best move it answers (`None` for `(none)`: the game is
    /// over).
    fn best(&mut self, go: &str) -> Option<String> {
        self.send(go);
        let line = self.until("bestmove ");
        let turn = line.strip_prefix("bestmove ").expect("a bestmove line");
        (turn != "(none)").then(|| turn.to_string())
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "quit");
        let _ = self.child.wait();
    }
}

#[test]
fn two_engines_play_a_whole_game_through_the_protocol() {
    let opts = |eval: &'static str| {
        [
            "setoption name Variant value dimy",
            if eval == "none" {
                "setoption name EvalFile value none"
            } else {
                "setoption name Hash value 16"
            },
        ]
    };
    let mut engines = [
        Engine::start(&opts("release")),
        Engine::start(&opts("none")),
    ];
    for e in &mut engines {
        e.send("ucinewgame");
    }
    let mut moves: Vec<String> = Vec::new();
    let mut over = false;
    for ply in 0..400 {
        let e = &mut engines[ply % 2];
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        let Some(turn) = e.best("go depth 2") else {
            over = true;
            break;
        };
        moves.push(turn);
    }
    assert!(moves.len() > 4);
    // Every turn is a legal turn of dimy, in order: the game replays.
    let o = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(["replay", "--json", "--variant", "dimy", &moves.join(" ")])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().last().unwrap()).unwrap();
    if over {
        assert_ne!(v["result"], "ongoing", "{v}");
    }
}

/// A match runner of the dialect: each turn `position fen <start> moves ...` from the
/// start FEN as RULES.md and that dialect's engines write it (`w 0 0`), a `go`, one
/// `bestmove`; a whole tsivy game, then `replay --fen` accepts its turns.
#[test]
fn a_match_runner_plays_a_whole_game_from_the_start_fen() {
    let start = "BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 0";
    let mut engines = [
        Engine::start(&["setoption name Hash value 16"]),
        Engine::start(&["setoption name EvalFile value none"]),
    ];
    for e in &mut engines {
        e.send("ucinewgame");
        e.send("isready");
        e.until("readyok");
    }
    let mut moves: Vec<String> = Vec::new();
    let mut over = false;
    for ply in 0..300 {
        let e = &mut engines[ply % 2];
        let tail = if moves.is_empty() {
            String::new()
        } else {
            format!(" moves {}", moves.join(" "))
        };
        e.send(&format!("position fen {start}{tail}"));
        let Some(turn) = e.best("go depth 1") else {
            over = true;
            break;
        };
        moves.push(turn);
    }
    assert!(moves.len() > 10, "{moves:?}");
    let o = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .args(["replay", "--json", "--fen", start, &moves.join(" ")])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().last().unwrap()).unwrap();
    assert_eq!(v["turns"].as_u64(), Some(moves.len() as u64), "{v}");
    if over {
        assert_ne!(v["result"], "ongoing", "{v}");
    }
}

#[test]
fn malformed_commands_get_an_error_line_and_the_engine_goes_on() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .arg("uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"go nowhere\nposition fen nonsense w\nposition startpos moves a1a1\n\xff\xfe\nisready\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert_eq!(text.matches("info string error:").count(), 4, "{text}");
    // The `go` could not search, and still got its one answer.
    assert_eq!(text.matches("bestmove").count(), 1, "{text}");
    assert!(text.contains("bestmove (none)"), "{text}");
    assert!(text.ends_with("readyok\n"), "{text}");
}

#[test]
fn a_multi_megabyte_line_gets_a_short_error() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fanorona"))
        .arg("uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let huge = "W".repeat(5 << 20);
    let input = format!(
        "position fen {huge}\ngo depth 1\nposition startpos moves {huge}\n\
         setoption name EvalFile value {huge}\nsetoption name {huge} value 1\n{huge}\nisready\n"
    );
    let mut stdin = child.stdin.take().unwrap();
    // Written from another thread: the engine answers while it reads.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.matches("info string error:").count() >= 5,
        "{}",
        &text[..2000.min(text.len())]
    );
    for line in text.lines() {
        assert!(line.len() <= 300, "{} bytes: {}", line.len(), &line[..300]);
    }
    assert!(text.ends_with("readyok\n"));
}
