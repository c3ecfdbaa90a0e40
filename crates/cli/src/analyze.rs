//! `fanorona analyze`: the best turn of a position (or of every position in a file), or
//! every turn of a game scored against the engine's choice (`--game`, `--record`).

use crate::engine::{EngineSpec, Nets};
use crate::input_err;
use crate::rules_cmds::{AnyPosition, PositionArgs, read_game_file};
use anyhow::{Context, Result};
use clap::{ArgGroup, Args};
use fanorona_arena::GameRecord;
use fanorona_rules::notation::split_game;
use fanorona_rules::{Color, History, Position, RuleOptions, Variant};
use fanorona_search::review::{GameReview, SideSummary, TurnReview, review_game, score_words};
use fanorona_search::{Analysis, Player, analyse};

/// `fanorona analyze`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("review").args(["game", "record"])))]
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub pos: PositionArgs,
    /// Analyse every FEN in this file (one a line, any variant; `#` comments and blank
    /// lines skipped), printing one result per position.
    #[arg(long, value_name = "F", conflicts_with = "fen")]
    pub fen_file: Option<String>,
    /// Review a game in notation (`-` for standard input), from `--fen` or the start:
    /// each turn scored against the engine's best, its loss in pieces, and the turns
    /// that lose half a piece (`?!`), one piece (`?`) or two (`??`).
    #[arg(long, value_name = "F", conflicts_with_all = ["fen_file", "record"])]
    pub game: Option<String>,
    /// Review the games of an arena's `games.jsonl` (or its line `--line` alone, as
    /// `--game` does). Records of the traditional openings start at the start of
    /// `--variant`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fen_file", "fen"])]
    pub record: Option<String>,
    /// Judge the engine's choice in each position (`--fen`, `--fen-file`) by this engine
    /// (e.g. `ab:depth=8`), as a review judges a turn: its loss and mark, then the
    /// totals. A set of positions where a player went wrong becomes a test of another.
    #[arg(long, value_name = "SPEC", conflicts_with = "review")]
    pub judge: Option<String>,
    /// The line of `--record` to review, from 1. Without it every game of the file is
    /// reviewed: one line each, then each player's totals.
    #[arg(long, value_name = "N", requires = "record")]
    pub line: Option<usize>,
    /// Review only the first K turns of each game (the openings of an arena's games,
    /// where most are decided, at a fraction of the cost).
    #[arg(long, value_name = "K", requires = "review")]
    pub turns: Option<usize>,
    /// Endgame tables' folder: a position they cover gets their value too (`tb` in the
    /// JSON: wdl, dtc, best). Default: $FANORONA_TB, else checkpoints/tablebases, when it
    /// holds the board's tables.
    #[arg(long, value_name = "DIR")]
    pub tb: Option<std::path::PathBuf>,
    /// The engine (default: the players' default without its opening book: alpha-beta
    /// with the release's learned evaluation, 1 s a turn): `ab:depth=8`, `ab:time=1s` (the
    /// hand-written evaluation), `ab:nodes=N`, `random`, `mcts:time=1s` (the release
    /// network), `mcts:ckpt=DIR,sims=400`. Telo positions are answered by the exact telo
    /// solver (or by a network with `mcts:ckpt=DIR`).
    #[arg(long, default_value = fanorona_nn::spec::DEFAULT_ANALYSIS)]
    pub engine: String,
    /// One line of JSON per position: fen, best, score, pv, depth, nodes (and mate,
    /// seconds, nodes_per_second). With `--game` or `--record`: a line per turn (turn,
    /// side, fen, played, best, score, played_score, loss, mark; and game, the record's
    /// line, for a file of games), a line per game (game, white, black, turns, result,
    /// summary) and, for a file, a line per player (player, games, turns, mean_loss,
    /// blunders, mistakes, inaccuracies, games_with_blunder).
    #[arg(long)]
    pub json: bool,
}

/// Prints an analysis, as text or as the line of `--json`, with the endgame tables'
/// answer when there is one.
fn print_analysis(a: &Analysis, json: bool, tb: Option<serde_json::Value>) {
    let nps = a.nodes_per_second();
    if json {
        let mut v = a.to_json();
        if let Some(t) = tb {
            v["tb"] = t;
        }
        println!("{v}");
        return;
    }
    if let Some(t) = &tb {
        println!(
            "tables: {} for the side to move, {} turns to the next capture, best {}",
            t["wdl"].as_str().unwrap_or("-"),
            t["dtc"],
            t["best"].as_str().unwrap_or("-")
        );
    }
    println!("position: {}", a.fen);
    match &a.best {
        None => println!("no legal turn: the game is over"),
        Some(b) => {
            let score = match (a.mate(), a.score) {
                (Some(m), _) if m > 0 => format!("win in {m} turns"),
                (Some(m), _) => format!("loss in {} turns", -m),
                (None, Some(s)) => format!("{:+.2} pieces", s as f64 / 100.0),
                (None, None) => "-".to_string(),
            };
            println!(
                "best: {b}\nscore: {score} (for the side to move)\npv: {}",
                a.pv.join(" ")
            );
            println!(
                "depth {}, {} nodes, {:.2} s, {:.2} M nodes/s",
                a.depth,
                a.nodes,
                a.seconds,
                nps / 1e6
            );
        }
    }
}

pub fn analyze(a: AnalyzeArgs) -> Result<()> {
    let spec = crate::engine::parse_interactive(&a.engine)?;
    let rules = a.pos.rule_options()?;
    let device = crate::backend::device();
    let run = |p: AnyPosition| -> Result<Analysis> {
        spec.analyse(&p, "analyze", &Nets::on(&device))
            .map_err(input_err)
    };
    if a.game.is_some() || a.record.is_some() {
        return review_games(&a, &spec, rules);
    }
    if let Some(j) = &a.judge {
        return judge_choices(&a, &spec, &crate::engine::parse_interactive(j)?, rules);
    }
    let tables = |p: &AnyPosition| match p {
        AnyPosition::Fanorona(f) => crate::tb_cmd::tb_json(f, a.tb.as_deref()),
        AnyPosition::Telo(_) => None,
    };
    match &a.fen_file {
        None => {
            let pos = a.pos.position()?;
            print_analysis(&run(pos)?, a.json, tables(&pos));
        }
        Some(f) => {
            for (_, pos) in read_fen_file(f, rules)? {
                print_analysis(&run(pos)?, a.json, tables(&pos));
                if !a.json {
                    println!();
                }
            }
        }
    }
    Ok(())
}

/// The positions of a FEN file (one a line, any variant; `#` comments and blank lines
/// skipped), each with its place in the file (`F, line N`) for messages.
fn read_fen_file(f: &str, rules: RuleOptions) -> Result<Vec<(String, AnyPosition)>> {
    let text = std::fs::read_to_string(f)
        .map_err(|e| input_err(format!("cannot read FEN file `{f}`: {e}")))?;
    let mut v = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let label = format!("{f}, line {}", i + 1);
        let pos =
            AnyPosition::from_fen(line, rules).map_err(|e| input_err(format!("{label}: {e}")))?;
        v.push((label, pos));
    }
    Ok(v)
}

/// `analyze --judge`: the engine's choice in each position, reviewed by the judge.
fn judge_choices(
    a: &AnalyzeArgs,
    spec: &EngineSpec,
    judge: &EngineSpec,
    rules: RuleOptions,
) -> Result<()> {
    let positions = match &a.fen_file {
        None => vec![("the position".to_string(), a.pos.position()?)],
        Some(f) => read_fen_file(f, rules)?,
    };
    // The engine and the judge, made again when the variant changes.
    type Engines = (Variant, Box<dyn Player>, Box<dyn Player>);
    let mut players: Option<Engines> = None;
    let mut total = SideSummary::default();
    for (label, pos) in positions {
        let AnyPosition::Fanorona(pos) = pos else {
            return Err(input_err(format!(
                "{label}: --judge is for tsivy and dimy; telo positions are solved exactly"
            )));
        };
        let v = pos.variant();
        if players.as_ref().is_none_or(|(pv, _, _)| *pv != v) {
            players = Some((
                v,
                crate::engine::player(spec, "analyze", v)?,
                crate::engine::player(judge, "judge", v)?,
            ));
        }
        let (_, engine, judge) = players.as_mut().expect("made above");
        engine.new_game();
        let Some(choice) = analyse(engine.as_mut(), &History::new(pos)).best else {
            continue; // no legal turn: nothing to judge
        };
        let review = review_game(judge.as_mut(), pos, &choice, |_| {})
            .map_err(input_err)
            .with_context(|| format!("{label}: the engine's turn `{choice}`"))?;
        let turn = &review.turns[0];
        if !a.json {
            println!("{label}: {}", turn.fen);
        }
        print_turn(turn, a.json, None);
        total.add(&review.summary(turn.side));
    }
    if a.json {
        let mut v = total.to_json();
        v.as_object_mut().map(|o| o.remove("first_blunder"));
        v["positions"] = total.turns.into();
        println!("{v}");
    } else {
        println!("\n{} positions: {}", total.turns, total.words());
    }
    Ok(())
}

/// A game to review: where it starts, its turns in notation, what to call it in errors
/// and the players' names (White's, Black's).
struct GameText {
    start: Position,
    text: String,
    label: String,
    players: [String; 2],
}

/// The games that `--game` or `--record` (one line, or every line) names.
fn games_to_review(a: &AnalyzeArgs, rules: RuleOptions) -> Result<Vec<GameText>> {
    let fanorona = |p: AnyPosition, what: &str| match p {
        AnyPosition::Fanorona(p) => Ok(p),
        AnyPosition::Telo(_) => Err(input_err(format!(
            "{what}: a game review is for tsivy and dimy; telo positions are solved exactly \
             (`analyze --fen FEN`)"
        ))),
    };
    let colours = || {
        [
            Color::White.name().to_string(),
            Color::Black.name().to_string(),
        ]
    };
    if let Some(f) = &a.game {
        let text = read_game_file(f)?;
        let label = format!("game `{f}`");
        let start = fanorona(a.pos.position()?, &label)?;
        return Ok(vec![GameText {
            start,
            text,
            label,
            players: colours(),
        }]);
    }
    let f = a.record.as_deref().unwrap_or_default();
    let text = std::fs::read_to_string(f)
        .map_err(|e| input_err(format!("cannot read record file `{f}`: {e}")))?;
    let lines: Vec<(usize, &str)> = match a.line {
        Some(n) => {
            let line = text
                .lines()
                .nth(n.saturating_sub(1))
                .filter(|_| n >= 1)
                .ok_or_else(|| {
                    input_err(format!(
                        "`{f}` has {} lines; there is no line {n}",
                        text.lines().count()
                    ))
                })?;
            vec![(n, line)]
        }
        None => text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l))
            .filter(|(_, l)| !l.trim().is_empty())
            .collect(),
    };
    let mut games = Vec::with_capacity(lines.len());
    for (n, line) in lines {
        let label = format!("`{f}`, line {n}");
        let r: GameRecord = serde_json::from_str(line)
            .map_err(|e| input_err(format!("{label}: not a game record: {e}")))?;
        let start = match &r.fen {
            Some(fen) => Position::from_fen(fen, rules)
                .map_err(|e| input_err(format!("{label}: its fen: {e}")))?,
            None => fanorona(a.pos.position()?, &label)?,
        };
        games.push(GameText {
            start,
            text: r.turns.join(" "),
            label,
            players: [r.white, r.black],
        });
    }
    Ok(games)
}

/// One reviewed turn: in words, or JSON (with the game's label, when a file of games is
/// reviewed).
fn print_turn(t: &TurnReview, json: bool, game: Option<&str>) {
    if json {
        let mut v = t.to_json();
        if let Some(g) = game {
            v["game"] = g.into();
        }
        println!("{v}");
        return;
    }
    let verdict = match (&t.best, t.loss) {
        (Some(b), _) if *b == t.played => "best".to_string(),
        (Some(b), Some(l)) => format!(
            "loses {:.2}{}, best {b}",
            l as f64 / 100.0,
            t.mark().map(|m| format!(" {m}")).unwrap_or_default()
        ),
        (Some(b), None) => format!("best {b}"),
        (None, _) => String::new(),
    };
    println!(
        "{:>3}. {:<5} {:<40} {:>9} -> {:<9} {verdict}",
        t.number,
        t.side.name(),
        t.played,
        score_words(t.score),
        score_words(t.played_score),
    );
}

/// A reviewed game's summary: the players (White's, Black's), the result, each side's
/// figures; as JSON, one line, or a few.
fn print_game(r: &GameReview, label: &str, players: &[String; 2], json: bool, one_line: bool) {
    let result = r.result.map_or("ongoing", |o| o.name());
    let n = r.turns.len();
    let sides = [Color::White, Color::Black].map(|c| r.summary(c));
    if json {
        let summary: Vec<serde_json::Value> = [Color::White, Color::Black]
            .iter()
            .zip(sides)
            .map(|(c, s)| {
                let mut v = s.to_json();
                v["side"] = c.name().into();
                v
            })
            .collect();
        println!(
            "{}",
            serde_json::json!({
                "game": label, "white": players[0], "black": players[1],
                "turns": n, "result": result, "summary": summary,
            })
        );
    } else if one_line {
        println!(
            "{label}: {} (white) vs {} (black), {n} turns, {result}; white {}; black {}",
            players[0],
            players[1],
            sides[0].words(),
            sides[1].words()
        );
    } else {
        println!(
            "\n{n} turn{}, result: {result}",
            if n == 1 { "" } else { "s" }
        );
        for (c, s) in [Color::White, Color::Black].iter().zip(sides) {
            println!("{}: {} turns, {}", c.name(), s.turns, s.words());
        }
    }
}

/// `analyze --game` or `--record`: one game turn by turn, or every game of a record file
/// one line each and then each player's totals.
fn review_games(a: &AnalyzeArgs, spec: &EngineSpec, rules: RuleOptions) -> Result<()> {
    let games = games_to_review(a, rules)?;
    let single = a.game.is_some() || a.line.is_some();
    let mut engine: Option<(Variant, Box<dyn Player>)> = None;
    let mut totals: Vec<(String, SideSummary)> = Vec::new();
    for g in &games {
        let v = g.start.variant();
        if engine.as_ref().is_none_or(|(ev, _)| *ev != v) {
            engine = Some((v, crate::engine::player(spec, "analyze", v)?));
        }
        let player = &mut engine.as_mut().expect("made above").1;
        let text = match a.turns {
            Some(k) => split_game(&g.text)
                .into_iter()
                .take(k)
                .collect::<Vec<_>>()
                .join(" "),
            None => g.text.clone(),
        };
        let review = review_game(player.as_mut(), g.start, &text, |t| {
            // Every turn in words for one game; as JSON lines for a file of games too.
            if single {
                print_turn(t, a.json, None);
            } else if a.json {
                print_turn(t, true, Some(&g.label));
            }
        })
        .map_err(input_err)
        .with_context(|| g.label.clone())?;
        print_game(&review, &g.label, &g.players, a.json, !single);
        for (name, side) in g.players.iter().zip([Color::White, Color::Black]) {
            let s = review.summary(side);
            match totals.iter_mut().find(|(n, _)| n == name) {
                Some((_, t)) => t.add(&s),
                None => {
                    let mut t = SideSummary::default();
                    t.add(&s);
                    totals.push((name.clone(), t));
                }
            }
        }
    }
    if single {
        return Ok(());
    }
    if !a.json {
        println!(
            "\n{:<40} {:>6} {:>7} {:>10} {:>5} {:>5} {:>5} {:>14}",
            "player", "games", "turns", "mean loss", "??", "?", "?!", "games with ??"
        );
    }
    for (name, t) in &totals {
        let games = games.iter().filter(|g| g.players.contains(name)).count();
        if a.json {
            let mut v = t.to_json();
            v["player"] = name.as_str().into();
            v["games"] = games.into();
            v["games_with_blunder"] = t.games_with_blunder.into();
            v.as_object_mut().map(|o| o.remove("first_blunder"));
            println!("{v}");
        } else {
            println!(
                "{:<40} {games:>6} {:>7} {:>10.2} {:>5} {:>5} {:>5} {:>14}",
                name,
                t.turns,
                t.mean_loss() / 100.0,
                t.marks[0],
                t.marks[1],
                t.marks[2],
                t.games_with_blunder
            );
        }
    }
    Ok(())
}
