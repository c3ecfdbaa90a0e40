//! How often the clock's guard leaves the network a choice: positions of an arena's games
//! judged as the players' default on a clock judges them (20 turns at most, margin 0,
//! deepening until a deadline), with how many different positions the kept turns reach
//! and how deep the judgement got.
//!
//! ```sh
//! cargo run --release -p fanorona-search --example guard_ties -- OUT/games.jsonl 25 60
//! ```
//! (GAMES MS COUNT [DEPTH]: the first COUNT games of the file, every third position of
//! each with more than one outcome, MS milliseconds each, DEPTH turns at most (20 when
//! not given); the players' guard at 50 ms a turn has 25.)

use fanorona_rules::game::action_from_index;
use fanorona_rules::{History, Position, RuleOptions, TurnMode, notation};
use fanorona_search::{GuardConfig, TurnGuard};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: guard_ties GAMES MS COUNT [DEPTH]";
    let (file, ms, count, depth) = match &args[..] {
        [_, f, m, c] => (f, m, c, "20"),
        [_, f, m, c, d] => (f, m, c, d.as_str()),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let (Ok(ms), Ok(count), Ok(depth)) = (
        ms.parse::<u64>(),
        count.parse::<usize>(),
        depth.parse::<u32>(),
    ) else {
        eprintln!("{usage} (MS, COUNT and DEPTH are numbers)");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("guard_ties: {file}: {e}");
            std::process::exit(1);
        }
    };
    let mut kept_hist: BTreeMap<usize, u32> = BTreeMap::new();
    let mut depths: BTreeMap<u32, u32> = BTreeMap::new();
    let mut n = 0;
    for (i, line) in text.lines().take(count).enumerate() {
        let record: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("guard_ties: {file}: line {}: {e}", i + 1);
                std::process::exit(1);
            }
        };
        let (Some(fen), Some(turns)) = (record["fen"].as_str(), record["turns"].as_array()) else {
            eprintln!("guard_ties: {file}: line {}: no fen and turns", i + 1);
            std::process::exit(1);
        };
        let pos = Position::from_fen(fen, RuleOptions::default()).unwrap_or_else(|e| {
            eprintln!("guard_ties: {file}: line {}: {e}", i + 1);
            std::process::exit(1)
        });
        let mut game = History::new(pos);
        let mut guard = TurnGuard::new(GuardConfig { depth, margin: 0 });
        for (k, t) in turns.iter().enumerate() {
            let p = *game.position();
            if k % 3 == 0 && p.turns(TurnMode::Distinct).len() > 1 {
                let deadline = Instant::now() + Duration::from_millis(ms);
                let kept = guard.sound_turns_until(&game, deadline);
                *kept_hist.entry(reached(&game, &kept).min(6)).or_default() += 1;
                *depths.entry(guard.last_depth()).or_default() += 1;
                n += 1;
            }
            let turn = t
                .as_str()
                .and_then(|t| notation::parse_turn(&p, t).ok())
                .unwrap_or_else(|| {
                    eprintln!(
                        "guard_ties: {file}: line {}: turn {} is not legal",
                        i + 1,
                        k + 1
                    );
                    std::process::exit(1)
                });
            game.play_unchecked(&turn);
        }
    }
    println!("{n} positions with more than one outcome, judged for {ms} ms each");
    println!("positions the kept turns reach (6: 6 or more): {kept_hist:?}");
    println!("depth of the judgement in turns: {depths:?}");
}

/// How many positions `turns` (step actions from `game`'s position) reach.
fn reached(game: &History, turns: &[Vec<usize>]) -> usize {
    let pos = *game.position();
    let mut keys: Vec<u64> = turns
        .iter()
        .map(|t| {
            let steps: Vec<_> = t
                .iter()
                .map(|&i| action_from_index(pos.variant().points(), i).expect("a guard's action"))
                .collect();
            let turn = pos.turn_of_actions(&steps).expect("a guard's turn");
            let mut g = game.clone();
            g.play_unchecked(&turn);
            g.position().hash()
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys.len()
}
