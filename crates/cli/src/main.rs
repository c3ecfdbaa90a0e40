//! `fanorona`: the command-line front of the workspace.

mod analyze;
mod arena_cmd;
mod backend;
mod bench;
mod book_cmd;
mod dist_cmd;
mod engine;
mod eval_cmd;
mod export_cmd;
mod play;
mod rules_cmds;
mod serve;
mod tb_cmd;
mod train_cmd;
mod uci;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Fanorona: exact rules, self-play training and evaluation.
#[derive(Parser, Debug)]
#[command(name = "fanorona", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the turns of the game tree to a depth (distinct turns by default).
    Perft(rules_cmds::PerftArgs),
    /// List the legal turns of a position in notation, one a line.
    Turns(rules_cmds::TurnsArgs),
    /// Check a game turn by turn and print every position.
    Replay(rules_cmds::ReplayArgs),
    /// The best turn of a position, its score and principal variation.
    Analyze(analyze::AnalyzeArgs),
    /// Play against an engine in the terminal.
    Play(play::PlayArgs),
    /// Training (the main job): learns tsivy from nothing, alpha-beta's self-play
    /// teaching an evaluation and a network from the same games (configs/tsivy.toml,
    /// built in; `--config` for another recipe); resumable: the same --run continues.
    Train(train_cmd::TrainArgs),
    /// A self-play worker: plays with the newest model from object storage and uploads
    /// its games there (see `learn`).
    Selfplay(dist_cmd::SelfplayArgs),
    /// The learner of distributed self-play: trains on the workers' games in object
    /// storage and publishes models there.
    Learn(dist_cmd::LearnArgs),
    /// Judge a telo network against the exact solver.
    Oracle(train_cmd::OracleArgs),
    /// Round robins, gauntlets and SPRT: traditional openings or a book, Elo with
    /// confidence intervals.
    Arena(arena_cmd::ArenaArgs),
    /// Make an opening book: balanced (or unbalanced) positions after random turns, judged by alpha-beta.
    Book(book_cmd::BookArgs),
    /// Fit a learned evaluation for alpha-beta (`ab:eval=FILE`) to positions scored by a
    /// deeper search.
    TuneEval(eval_cmd::TuneEvalArgs),
    /// Export a checkpoint for other front ends: ONNX, safetensors and model.json.
    Export(export_cmd::ExportArgs),
    /// Plot training metrics (metrics.jsonl) as an SVG.
    Plot(arena_cmd::PlotArgs),
    /// Throughput benchmarks.
    Bench(bench::BenchArgs),
    /// Play and analyse in the browser: a web page and its JSON API.
    Serve(serve::ServeArgs),
    /// Endgame tablebases: build them (`tb build`), ask them (`tb probe`).
    Tb(tb_cmd::TbArgs),
    /// The engine protocol over stdin and stdout (the UCI dialect of Fanorona engines:
    /// uci, isready, setoption, position, go, stop, quit), for GUIs and match runners.
    Uci(uci::UciArgs),
}

/// An error in what the user gave (a FEN, a turn, an option): exit status 2.
#[derive(Debug)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for InputError {}

/// Turns any displayable error into an [`InputError`].
pub fn input_err(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::Error::new(InputError(e.to_string()))
}

/// Lets a closed pipe end the program as it ends other Unix tools (`fanorona analyze ... |
/// head`), silently, instead of a panic in `println!`: Rust starts with SIGPIPE ignored,
/// so a write to a pipe whose reader has gone returns an error that `println!` turns
/// into a panic. The signal comes only on a write to the closed pipe, so no write to a
/// file (checkpoints, records) is cut short by it.
///
/// And lets a write past the file-size limit (`ulimit -f`) fail as a full disk does, with
/// an error naming the file (which the program reports, keeping the last good file),
/// instead of SIGXFSZ killing the program mid-run.
#[cfg(unix)]
fn default_sigpipe() {
    // SAFETY: called first thing in `main`, before any thread starts; SIG_DFL and SIG_IGN
    // are valid dispositions for SIGPIPE and SIGXFSZ.
    #[allow(unsafe_code)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

#[cfg(not(unix))]
fn default_sigpipe() {}

/// A command-line error with each argument it quotes cut to 40 characters (clap quotes
/// a bad value whole, an argument may be 128 KiB, and the value's own error, which
/// follows, quotes it again).
fn briefly(mut e: clap::Error) -> clap::Error {
    use clap::error::ContextValue;
    let cut = |s: &str| fanorona_rules::cut(s).at_most(40).to_string();
    let long: Vec<_> = e
        .context()
        .filter_map(|(k, v)| match v {
            ContextValue::String(s) => Some((k, ContextValue::String(cut(s)))),
            ContextValue::Strings(v) => {
                Some((k, ContextValue::Strings(v.iter().map(|s| cut(s)).collect())))
            }
            _ => None,
        })
        .collect();
    for (k, v) in long {
        e.insert(k, v);
    }
    e
}

fn main() -> ExitCode {
    default_sigpipe();
    let cli = Cli::try_parse().unwrap_or_else(|e| briefly(e).exit());
    if let Err(e) = backend::check_env() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let result = match cli.command {
        Command::Perft(a) => rules_cmds::perft(a),
        Command::Turns(a) => rules_cmds::turns(a),
        Command::Replay(a) => rules_cmds::replay(a),
        Command::Analyze(a) => analyze::analyze(a),
        Command::Play(a) => play::play(a),
        Command::Train(a) => train_cmd::train(a),
        Command::Oracle(a) => train_cmd::oracle(a),
        Command::Selfplay(a) => dist_cmd::selfplay(a),
        Command::Learn(a) => dist_cmd::learn(a),
        Command::Arena(a) => arena_cmd::arena(a),
        Command::Book(a) => book_cmd::book(a),
        Command::TuneEval(a) => eval_cmd::tune_eval(a),
        Command::Plot(a) => arena_cmd::plot(a),
        Command::Export(a) => export_cmd::export(a),
        Command::Bench(a) => bench::run(a),
        Command::Serve(a) => serve::serve(a),
        Command::Tb(a) => tb_cmd::tb(a),
        Command::Uci(a) => uci::uci(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<InputError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}
