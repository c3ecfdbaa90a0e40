//! The arena with injected players: failures are errors, books are played in pairs, and
//! a stop rule ends a match early.

use fanorona_arena::arena::{StopRule, pentanomial, play_pairings, play_pairings_with};
use fanorona_arena::{ArenaConfig, ArenaError, Openings};
use fanorona_nn::burn::prelude::Device;
use fanorona_rules::{History, Position, RuleOptions, TurnMode, Variant};
use fanorona_search::{Choice, GameError, Player, RandomPlayer};

/// Returns no turn: the symptom of the network player's old lost-turn bug.
struct Mute;
impl Player for Mute {
    fn name(&self) -> String {
        "mute".into()
    }
    fn choose(&mut self, _: &History) -> Choice {
        Choice {
            turn: None,
            search: None,
        }
    }
}

fn config(openings: Openings, games: usize, threads: usize) -> ArenaConfig {
    ArenaConfig {
        variant: Variant::Dimy,
        rules: RuleOptions::default(),
        openings,
        format: fanorona_arena::Format::Riatras,
        games,
        threads,
        seed: 1,
        max_turns: 400,
        out: None,
        device: Device::flex(),
        adjudicate: None,
        clock: None,
    }
}

/// A few dimy positions a few turns in.
fn book(n: usize) -> Vec<Position> {
    let start = Position::start(Variant::Dimy, RuleOptions::default());
    start
        .turns(TurnMode::Distinct)
        .into_iter()
        .take(n)
        .map(|t| {
            let mut p = start;
            p.play_unchecked(&t);
            p
        })
        .collect()
}

#[test]
fn a_player_that_returns_no_turn_fails_the_arena_loudly() {
    let specs = vec!["random".to_string(), "mute".to_string()];
    let make = |k: usize, seed: u64| -> Result<Box<dyn Player>, ArenaError> {
        Ok(if k == 0 {
            Box::new(RandomPlayer::new(seed))
        } else {
            Box::new(Mute)
        })
    };
    let e = play_pairings_with(
        &config(Openings::Traditional, 4, 2),
        &specs,
        &[(0, 1)],
        &make,
        &|_, _, _| {},
        None,
    )
    .unwrap_err();
    assert!(
        matches!(&e, ArenaError::Game(GameError::NoTurn { player, .. }) if player == "mute"),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(
        text.contains("mute") && text.contains('/'),
        "names the player and the FEN: {text}"
    );
}

#[test]
fn book_games_start_from_the_book_in_pairs() {
    let specs = vec!["ab:depth=1".to_string(), "ab:depth=2".to_string()];
    let b = book(3);
    let recs = play_pairings(
        &config(Openings::Book(b.clone()), 6, 2),
        &specs,
        &[(0, 1)],
        &|_, _, _| {},
        None,
    )
    .unwrap();
    assert_eq!(recs.len(), 6);
    for (i, p) in b.iter().enumerate() {
        let games: Vec<_> = recs
            .iter()
            .filter(|r| r.fen.as_deref() == Some(&p.fen()))
            .collect();
        assert_eq!(games.len(), 2, "position {i} twice");
        assert_ne!(games[0].white, games[1].white, "each side once");
        assert_eq!(games[0].pair, games[1].pair);
        // The recorded turns replay from the book position.
        for g in games {
            let text = g.turns.join(" ");
            fanorona_rules::notation::parse_game(p, &text).unwrap();
        }
    }
    assert_eq!(pentanomial(&specs[0], &specs[1], &recs).pairs(), 3);
    // Each game records both sides' thinking time and turns, which sum to the game.
    for r in &recs {
        let n = r.chosen.unwrap();
        assert_eq!((n[0] + n[1]) as usize, r.turns.len());
        assert!(r.seconds.unwrap().iter().all(|&t| t >= 0.0));
    }
    let times = fanorona_arena::arena::time_per_turn(&specs, &recs);
    assert_eq!(times.len(), 2);
    assert!(
        times
            .iter()
            .all(|t| t.mean >= 0.0 && t.turns > 0 && t.longest >= t.mean && t.lost_on_time == 0)
    );
    // Four games take the first two positions.
    let recs = play_pairings(
        &config(Openings::Book(b.clone()), 4, 2),
        &specs,
        &[(0, 1)],
        &|_, _, _| {},
        None,
    )
    .unwrap();
    let fens: std::collections::HashSet<_> = recs.iter().map(|r| r.fen.clone().unwrap()).collect();
    assert_eq!(fens.len(), 2);
    assert!(!fens.contains(&b[2].fen()));
}

#[test]
fn a_stop_rule_ends_the_match_early() {
    let specs = vec!["ab:depth=1".to_string(), "random".to_string()];
    let stop = |r: &[fanorona_arena::GameRecord]| r.len() >= 2;
    let stop: StopRule<'_> = &stop;
    let recs = play_pairings(
        &config(Openings::Book(book(5)), 10, 1),
        &specs,
        &[(0, 1)],
        &|_, _, _| {},
        Some(stop),
    )
    .unwrap();
    assert_eq!(
        recs.len(),
        2,
        "one thread: exactly the games before the rule held"
    );
}

#[test]
fn malagasy_matches_insert_velas_and_resume() {
    let dir = std::env::temp_dir().join(format!("fanorona-malagasy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cfg = config(Openings::Traditional, 4, 2);
    cfg.format = fanorona_arena::Format::Malagasy {
        vela_form: fanorona_rules::VelaForm::Be,
        max_velas: 2,
    };
    cfg.out = Some(dir.clone());
    let specs = vec!["ab:depth=2".to_string(), "random".to_string()];
    let records = play_pairings(&cfg, &specs, &[(0, 1)], &|_, _, _| {}, None).unwrap();
    let riatras: Vec<_> = records.iter().filter(|r| r.vela.is_none()).collect();
    assert_eq!(riatras.len(), 4);
    for r in &riatras {
        let velas: Vec<_> = records
            .iter()
            .filter(|v| v.vela.is_some() && v.key.starts_with(&format!("{} | vela ", r.key)))
            .collect();
        match r.result.as_str() {
            "draw" => assert!(velas.is_empty(), "no vela after a drawn riatra"),
            winner => {
                let debtor = if winner == "white" { "black" } else { "white" };
                assert!(!velas.is_empty() && velas.len() <= 2, "{}", r.key);
                for (k, v) in velas.iter().enumerate() {
                    assert_eq!(v.vela.as_deref(), Some(&*format!("{debtor} be")));
                    // Only the last vela may be won by the debtor.
                    if k + 1 < velas.len() {
                        assert_ne!(v.result, debtor);
                    }
                    // The vela starts with the debtor to move.
                    let fen = v.fen.as_deref().unwrap();
                    assert!(fen.contains(if debtor == "white" { " w" } else { " b" }));
                }
            }
        }
    }
    assert!(
        records.iter().any(|r| r.vela.is_some()),
        "alpha-beta won a riatra against random"
    );
    let points = fanorona_arena::match_points(&specs, &records, 2);
    assert!(points[0].points >= 3);
    // A rerun finds every game recorded and plays none.
    let again = play_pairings(
        &cfg,
        &specs,
        &[(0, 1)],
        &|_, _, _| panic!("no game should be played"),
        None,
    )
    .unwrap();
    assert_eq!(again.len(), records.len());
    // A book cannot be played in this format.
    cfg.openings = Openings::Book(book(2));
    assert!(matches!(
        play_pairings(&cfg, &specs, &[(0, 1)], &|_, _, _| {}, None),
        Err(ArenaError::Invalid(_))
    ));
    std::fs::remove_dir_all(&dir).ok();
}
