//! The engine protocol of `fanorona uci`, the dialect of UCI that Fanorona engines speak
//! (an-do-ni-ai-na's), over stdin and stdout, so that a GUI or match runner written for
//! such an engine drives this one unchanged.
//!
//! ```text
//! uci                                   -> id name ..., option ..., uciok
//! isready                               -> readyok
//! setoption name Variant value dimy     (tsivy, dimy; also Hash, Threads, EvalFile)
//! ucinewgame
//! position startpos [moves d3e3W ...]
//! position fen BBBBBBBBB/BBBBBBBBB/BWBW1BWBW/WWWWWWWWW/WWWWWWWWW w 0 0 [moves ...]
//! go movetime 500 | depth 8 | nodes 100000 | wtime W btime B [winc I binc I] | infinite
//!                                       -> info depth .. score cp|mate .. nodes .. pv ..
//!                                          bestmove d3e3W
//! stop                                  (ends a search now: its bestmove comes)
//! quit
//! ```
//!
//! Turns are the points visited, each capture followed by `A` (approach) or `W`
//! (withdrawal) (`fanorona_rules::notation::format_engine_turn`). The FEN is the
//! project's own (RULES.md section 6, what `replay --fen` takes and that dialect's
//! engines write: the start is `... w 0 0`, the last field the turns played), and its
//! board names the variant. The engine is alpha-beta with the release's learned
//! evaluation (`EvalFile`, `none` for the hand-written one) and the endgame tables when
//! found (`$FANORONA_TB`, else `checkpoints/tablebases`). A malformed or illegal command
//! is answered by `info string error: ...` and changes nothing; but after a `position`
//! or a `setoption` that failed (until a `position` or that option succeeds), `go`
//! answers `bestmove (none)` with the error, never a turn of another position. Every
//! `go` gets exactly one `bestmove`.

//!
//! Here, below every network library, so that the binary, the fuzz targets and any
//! embedder run the same session ([`run`]).

use fanorona_rules::notation::{format_engine_turn, parse_turn};
use fanorona_rules::{Color, History, Position, RuleOptions, TurnMode, Variant, quote};
use fanorona_search::{AbConfig, AlphaBeta, ClockState, LearnedEval, Limits, SearchResult};
use fanorona_tb::Tablebase;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Where the protocol's lines go: stdout, or a buffer.
pub type Out = Arc<Mutex<dyn Write + Send>>;

fn say(out: &Out, line: &str) {
    let mut o = out.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(o, "{line}");
    let _ = o.flush();
}

/// The protocol's state between commands.
struct Session {
    out: Out,
    variant: Variant,
    rules: RuleOptions,
    game: History,
    hash_mb: usize,
    threads: usize,
    /// `EvalFile`: `release`, a file, or `none`.
    eval: String,
    /// The engine, made on the first `go` after a change of options.
    engine: Option<AlphaBeta>,
    /// The endgame tables found for a board, read once a session.
    tables: Vec<(Variant, Option<Arc<Tablebase>>)>,
    /// The search in progress: its thread (which gives the engine back) and stop flag.
    search: Option<(JoinHandle<AlphaBeta>, Arc<AtomicBool>)>,
    /// The last `position` failed: why (`go` then answers `bestmove (none)`).
    position_error: Option<String>,
    /// Options whose last `setoption` failed, with why (lower-case name, message).
    option_errors: Vec<(String, String)>,
}

impl Session {
    fn new(out: Out) -> Session {
        let rules = RuleOptions::default();
        Session {
            out,
            variant: Variant::Tsivy,
            rules,
            game: History::new(Position::start(Variant::Tsivy, rules)),
            hash_mb: 64,
            threads: 1,
            eval: "release".into(),
            engine: None,
            tables: Vec::new(),
            search: None,
            position_error: None,
            option_errors: Vec::new(),
        }
    }

    fn error(&self, what: &str) {
        say(&self.out, &format!("info string error: {what}"));
    }

    /// A `go` that cannot search: the reason, then the one `bestmove` it is owed.
    fn no_move(&self, why: &str) {
        self.error(why);
        say(&self.out, "bestmove (none)");
    }

    /// Waits for the search in progress, stopping it first when `stop`.
    fn finish(&mut self, stop: bool) {
        if let Some((handle, flag)) = self.search.take() {
            if stop {
                // The search clears the flag when it starts: set it until it ends.
                while !handle.is_finished() {
                    flag.store(true, Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
            match handle.join() {
                Ok(engine) => self.engine = Some(engine),
                // The search panicked before its `bestmove`: the `go` is still owed one.
                Err(_) => self.no_move("the search failed"),
            }
        }
    }

    /// Handles one line; `false` for `quit`.
    fn execute(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = words.split_first() else {
            return true;
        };
        match command {
            "quit" => {
                self.finish(true);
                return false;
            }
            "stop" => self.finish(true),
            "uci" => {
                let version = env!("CARGO_PKG_VERSION");
                for l in [
                    format!("id name Fanorona {version}"),
                    "id author the fanorona contributors".into(),
                    "option name Variant type combo default tsivy var tsivy var dimy".into(),
                    "option name Hash type spin default 64 min 1 max 65536".into(),
                    "option name Threads type spin default 1 min 1 max 256".into(),
                    "option name EvalFile type string default release".into(),
                    "uciok".into(),
                ] {
                    say(&self.out, &l);
                }
            }
            "isready" => say(&self.out, "readyok"),
            "ucinewgame" => {
                self.finish(true);
                if let Some(e) = &mut self.engine {
                    e.new_game();
                }
                self.game = History::new(Position::start(self.variant, self.rules));
                self.position_error = None;
            }
            "setoption" => {
                self.finish(true);
                let name = option_name(args);
                self.option_errors.retain(|(n, _)| *n != name);
                if let Err(e) = self.set_option(args) {
                    self.error(&e);
                    self.option_errors.push((name, e));
                }
            }
            "position" => {
                self.finish(true);
                match self.position(args) {
                    Ok((variant, game)) => {
                        if variant != self.variant {
                            self.variant = variant;
                            self.engine = None;
                        }
                        self.game = game;
                        self.position_error = None;
                    }
                    Err(e) => {
                        let e = format!("position: {e}");
                        self.error(&e);
                        self.position_error = Some(e);
                    }
                }
            }
            "go" => {
                self.finish(true);
                if let Some(e) = &self.position_error {
                    self.no_move(&format!("no position to search ({e})"));
                } else if let Some((_, e)) = self.option_errors.first() {
                    self.no_move(&format!("an option failed to set ({e})"));
                } else {
                    match go_limits(args, self.game.position().side_to_move()) {
                        Ok(limits) => self.go(limits),
                        Err(e) => self.no_move(&e),
                    }
                }
            }
            "d" => say(
                &self.out,
                &format!("info string fen {}", self.game.position().fen()),
            ),
            other => self.error(&format!("unknown command {}", quote(other))),
        }
        true
    }

    fn set_option(&mut self, args: &[&str]) -> Result<(), String> {
        let text = args.join(" ");
        let rest = text
            .strip_prefix("name ")
            .ok_or("expected `setoption name NAME value VALUE`")?;
        let (name, value) = rest
            .split_once(" value ")
            .ok_or("expected `setoption name NAME value VALUE`")?;
        let value = value.trim();
        let number = |lo: usize, hi: usize| {
            value
                .parse::<usize>()
                .ok()
                .filter(|n| (lo..=hi).contains(n))
                .ok_or(format!(
                    "{} must be {lo} to {hi}, not {}",
                    quote(name.trim()),
                    quote(value)
                ))
        };
        match name.trim().to_ascii_lowercase().as_str() {
            "variant" => {
                let v: Variant =
                    value
                        .parse()
                        .ok()
                        .filter(|v| *v != Variant::Telo)
                        .ok_or(format!(
                            "Variant must be tsivy or dimy, not {}",
                            quote(value)
                        ))?;
                self.variant = v;
                self.game = History::new(Position::start(v, self.rules));
            }
            "hash" => self.hash_mb = number(1, 65536)?,
            "threads" => self.threads = number(1, 256)?,
            "evalfile" => self.eval = value.to_string(),
            _ => return Err(format!("unknown option {}", quote(name.trim()))),
        }
        self.engine = None;
        Ok(())
    }

    /// `position startpos|fen FEN [moves ...]`: the variant and the game it describes.
    fn position(&self, args: &[&str]) -> Result<(Variant, History), String> {
        let moves_at = args.iter().position(|w| *w == "moves");
        let (setup, moves) = match moves_at {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        let start = match setup {
            ["startpos"] => Position::start(self.variant, self.rules),
            ["fen", fen @ ..] if !fen.is_empty() => {
                Position::from_fen(&fen.join(" "), self.rules).map_err(|e| e.to_string())?
            }
            _ => return Err("expected `position startpos|fen FEN [moves ...]`".into()),
        };
        let mut game = History::new(start);
        for m in moves {
            if game.outcome().is_some() {
                return Err(format!("move {}: the game is over", quote(m)));
            }
            let turn = parse_turn(game.position(), m).map_err(|e| e.to_string())?;
            game.play_unchecked(&turn);
        }
        Ok((start.variant(), game))
    }

    fn go(&mut self, limits: Limits) {
        let engine = match self.engine.take() {
            Some(e) => e,
            None => match self.make_engine() {
                Ok(e) => e,
                Err(e) => return self.no_move(&e),
            },
        };
        let flag = engine.stop_handle();
        let (game, out) = (self.game.clone(), self.out.clone());
        let handle = std::thread::spawn(move || {
            let mut engine = engine;
            let pos = *game.position();
            if pos.turns(TurnMode::Distinct).is_empty() || game.outcome().is_some() {
                say(&out, "info string the game is over");
                say(&out, "bestmove (none)");
                return engine;
            }
            let r = engine.search(&game, &limits);
            say(&out, &info_line(&pos, &r));
            match r.best {
                Some(t) => say(&out, &format!("bestmove {}", format_engine_turn(&pos, &t))),
                None => say(&out, "bestmove (none)"),
            }
            engine
        });
        self.search = Some((handle, flag));
    }

    fn make_engine(&mut self) -> Result<AlphaBeta, String> {
        let learned = learned_eval(&self.eval, self.variant)?;
        // Tables where they are kept, when they are there (none is no error).
        let variant = self.variant;
        let tb = match self.tables.iter().find(|(v, _)| *v == variant) {
            Some((_, t)) => t.clone(),
            None => {
                let t = Tablebase::open(&fanorona_tb::default_dir(), variant)
                    .ok()
                    .map(Arc::new);
                self.tables.push((variant, t.clone()));
                t
            }
        };
        Ok(AlphaBeta::new(AbConfig {
            hash_mb: self.hash_mb,
            threads: self.threads,
            learned,
            tb,
            ..AbConfig::default()
        }))
    }
}

/// `EvalFile`'s evaluation for `variant`: `none` the hand-written one, `release` the
/// release's (built in), a folder its `eval.txt`, else a file.
fn learned_eval(name: &str, variant: Variant) -> Result<Option<Arc<LearnedEval>>, String> {
    match name {
        "none" | "" | "<empty>" => Ok(None),
        "release" => crate::release_eval(variant)
            .map(Some)
            .ok_or(format!("EvalFile: no release evaluation for {variant}")),
        file => {
            let path = std::path::Path::new(file);
            let path = if path.is_dir() {
                path.join("eval.txt")
            } else {
                path.to_path_buf()
            };
            LearnedEval::read(&path, variant)
                .map(|e| Some(Arc::new(e)))
                .map_err(|e| format!("EvalFile {}: {e}", quote(&path.display().to_string())))
        }
    }
}

/// The option a `setoption name NAME value ...` line names, in lower case.
fn option_name(args: &[&str]) -> String {
    let text = args.join(" ");
    let rest = text.strip_prefix("name ").unwrap_or(&text);
    rest.split(" value ")
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The search's limits of `go ...` for `side` to move.
fn go_limits(args: &[&str], side: Color) -> Result<Limits, String> {
    let mut limits = Limits::default();
    let (mut time, mut inc, mut movestogo) = ([None, None], [0u64, 0], None);
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        if key == "infinite" {
            limits.depth = Some(100);
            i += 1;
            continue;
        }
        let value = args
            .get(i + 1)
            .and_then(|v| v.parse::<u64>().ok())
            .ok_or_else(|| format!("go {} needs a number", quote(key)))?;
        match key {
            "depth" => limits.depth = Some(value.clamp(1, 100) as u32),
            "nodes" => limits.nodes = Some(value.max(1)),
            "movetime" => limits.time = Some(Duration::from_millis(value.max(1))),
            "wtime" => time[0] = Some(value),
            "btime" => time[1] = Some(value),
            "winc" => inc[0] = value,
            "binc" => inc[1] = value,
            "movestogo" => movestogo = Some(value.max(1)),
            other => return Err(format!("unknown go parameter {}", quote(other))),
        }
        i += 2;
    }
    // A clock: the time manager's target and limit for the turn
    // (fanorona_search::ClockState::turn_time).
    let s = side.index();
    if limits.time.is_none()
        && let Some(left) = time[s]
    {
        let clock = ClockState {
            left: Duration::from_millis(left),
            increment: Duration::from_millis(inc[s]),
            turns_played: 0,
            moves_to_go: movestogo.map(|m| m.min(u64::from(u32::MAX)) as u32),
        };
        limits = clock.limits(limits);
    }
    if limits.depth.is_none() && limits.nodes.is_none() && limits.time.is_none() {
        // `go` alone: a second.
        limits.time = Some(Duration::from_secs(1));
    }
    Ok(limits)
}

/// `info depth D score cp S|mate N nodes N nps N time MS pv ...` for a search of `pos`.
fn info_line(pos: &Position, r: &SearchResult) -> String {
    let score = match r.mate_in() {
        Some(n) => format!("mate {n}"),
        None => format!("cp {}", r.score),
    };
    let ms = (r.seconds * 1000.0).round() as u64;
    let nps = (r.nodes as f64 / r.seconds.max(1e-6)) as u64;
    let mut p = *pos;
    let mut pv = Vec::new();
    for t in &r.pv {
        pv.push(format_engine_turn(&p, t));
        p.play_unchecked(t);
    }
    format!(
        "info depth {} score {score} nodes {} nps {nps} time {ms} pv {}",
        r.depth,
        r.nodes,
        pv.join(" ")
    )
    .trim_end()
    .to_string()
}

/// Runs the protocol over `input` until `quit` or its end, writing to `out`; a search
/// still running when the input ends finishes and reports.
pub fn run(mut input: impl BufRead, out: Out) {
    let mut session = Session::new(out);
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            // A line that is not UTF-8 is answered as an unknown command.
            Ok(_) => {
                if !session.execute(&String::from_utf8_lossy(&line)) {
                    return;
                }
            }
        }
    }
    // The input ended: a search in progress finishes and reports.
    session.finish(false);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines a session writes for `input`.
    fn session(input: &str) -> Vec<String> {
        let buf = Arc::new(Mutex::new(Vec::<u8>::new()));
        let out: Out = buf.clone();
        run(input.as_bytes(), out);
        let bytes = buf.lock().unwrap().clone();
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    }

    #[test]
    fn the_handshake_and_a_search() {
        let lines = session("uci\nisready\nposition startpos\ngo depth 3\n");
        assert_eq!(
            lines[0],
            format!("id name Fanorona {}", env!("CARGO_PKG_VERSION"))
        );
        assert!(lines.contains(&"uciok".to_string()));
        assert!(lines.contains(&"readyok".to_string()));
        let info = lines
            .iter()
            .find(|l| l.starts_with("info depth 3 score cp"))
            .unwrap();
        assert!(info.contains(" pv "), "{info}");
        let best = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
        let start = Position::start(Variant::Tsivy, RuleOptions::default());
        parse_turn(&start, best).unwrap();
    }

    #[test]
    fn a_clock_is_the_time_managers_target_and_limit_for_the_side_to_move() {
        let ms = Duration::from_millis;
        let args = [
            "wtime", "60000", "btime", "2000", "winc", "600", "binc", "100",
        ];
        // White: 60 s + 0.6 s, a target of 1.95 s and a limit of four of them.
        let w = go_limits(&args, Color::White).unwrap();
        assert_eq!((w.target, w.time), (Some(ms(1950)), Some(ms(7800))));
        // Black: 2 s + 0.1 s, a limit of a quarter of the time left.
        let b = go_limits(&args, Color::Black).unwrap();
        assert_eq!((b.target, b.time), (Some(ms(125)), Some(ms(500))));
        // A fixed time a turn wins over the clock, and is no target.
        let m = go_limits(&["movetime", "300", "wtime", "60000"], Color::White).unwrap();
        assert_eq!((m.target, m.time), (None, Some(ms(300))));
    }

    #[test]
    fn malformed_commands_are_answered_and_change_nothing() {
        let lines = session(
            "hello\nsetoption name Variant value chess\nsetoption name Hash value 0\n\
             position fen 9/9/9 w\nposition startpos moves e2e4\n\
             go depth x\ngo sideways 3\nsetoption Variant dimy\nd\n",
        );
        let errors = lines
            .iter()
            .filter(|l| l.starts_with("info string error:"))
            .count();
        assert_eq!(errors, 8, "{lines:?}");
        let start = Position::start(Variant::Tsivy, RuleOptions::default());
        assert_eq!(
            lines.last().unwrap(),
            &format!("info string fen {}", start.fen())
        );
    }

    #[test]
    fn the_protocols_fen_is_the_projects() {
        // The start as RULES.md writes it (`w 0 0`), and a FEN with a quiet counter and a
        // turn count, read as `replay --fen` reads them; the board names the variant.
        let tsivy = Position::start(Variant::Tsivy, RuleOptions::default());
        let lines = session(&format!("position fen {}\nd\n", tsivy.fen()));
        assert_eq!(lines, [format!("info string fen {}", tsivy.fen())]);
        let fen = "BBBBB/BBBBB/BW1BW/WWWWW/WWWWW b 3 7";
        let lines = session(&format!("position fen {fen}\nd\n"));
        let p = Position::from_fen(fen, RuleOptions::default()).unwrap();
        assert_eq!((p.ply(), p.quiet()), (7, 3));
        assert_eq!(lines, [format!("info string fen {}", p.fen())]);
    }

    #[test]
    fn a_go_after_a_failed_position_or_option_answers_none() {
        let lines = session(
            "position startpos moves a1a1\ngo depth 2\nposition fen 9/9/9 w\ngo depth 2\n\
             position startpos\nsetoption name EvalFile value /nonexistent/eval.txt\ngo depth 2\n\
             setoption name Hash value 0\ngo depth 2\ngo sideways\n",
        );
        let best: Vec<&String> = lines.iter().filter(|l| l.starts_with("bestmove")).collect();
        assert_eq!(best.len(), 5, "{lines:?}");
        assert!(best.iter().all(|l| *l == "bestmove (none)"), "{lines:?}");
        // Each is preceded by the reason.
        for (i, l) in lines.iter().enumerate() {
            if l.starts_with("bestmove") {
                assert!(lines[i - 1].starts_with("info string error: "), "{lines:?}");
            }
        }
        // The option set right and a position loaded again: a move.
        let lines = session(
            "setoption name Hash value 0\nsetoption name Hash value 8\nposition fen 9/9/9 w\n\
             position startpos\ngo depth 2\n",
        );
        let last = lines.last().unwrap();
        assert!(
            last.starts_with("bestmove ") && last != "bestmove (none)",
            "{lines:?}"
        );
    }

    #[test]
    fn a_multi_megabyte_line_is_answered_briefly() {
        let huge = "W".repeat(5 << 20);
        let input = [
            format!("position fen {huge}"),
            "go depth 1".into(),
            format!("position startpos moves d3e3W {huge}"),
            format!("setoption name {huge} value 1"),
            format!("setoption name Variant value {huge}"),
            format!("setoption name Hash value {huge}"),
            format!("setoption name EvalFile value {huge}"),
            "go depth 1".into(),
            "setoption name EvalFile value none".into(),
            format!("go depth {huge}"),
            format!("go {huge} 3"),
            huge.clone(),
        ]
        .join("\n");
        let lines = session(&(input + "\n"));
        let errors = lines.iter().filter(|l| l.contains("error")).count();
        assert!(errors >= 10, "{errors} errors: {lines:?}");
        for l in &lines {
            assert!(l.len() <= 300, "{} bytes: {}", l.len(), &l[..300]);
        }
    }

    #[test]
    fn stop_ends_an_infinite_search_with_its_best_turn() {
        let lines = session("position startpos\ngo infinite\nstop\nquit\n");
        assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
    }
}
