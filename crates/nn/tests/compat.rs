//! Old release players keep playing as they did: the release folders of commit ba10c4c
//! (network `model.bpk` + `meta.json` of checkpoint format 1, learned evaluation
//! `eval.txt` of format 1) load in this build and give the outputs recorded in
//! `tests/data/release_ba10c4c.json` on a set of positions: the network's win/draw/loss
//! and its largest policy logits, and the learned evaluation's score.
//!
//! So any later build can play an old release against a new one (`mcts:ckpt=OLD_FOLDER`):
//! a change of a file format needs a reader for the old one, and a change of the input
//! planes, of the hand-written evaluation under the learned one, or of the network's
//! arithmetic shows here. When a new release replaces `checkpoints/release/<variant>`, the
//! old folder moves (say to `checkpoints/release/archive/<variant>-ba10c4c`) and the
//! fixture's `folder` follows it; when only its `eval.txt` is replaced, the old file moves
//! to `checkpoints/release/archive/` and the fixture's `eval_file` names it.
//!
//! The fixture is written by `FANORONA_BLESS=1 cargo test --release --workspace --test
//! compat` (only for a new fixture: blessing an old one defeats the test).

use burn::prelude::*;
use fanorona_nn::NetEvaluator;
use fanorona_nn::checkpoint;
use fanorona_rules::{Position, RuleOptions, TurnMode, Variant};
use fanorona_search::{EvalWeights, LearnedEval};
use fanorona_sim::{Encode, num_planes};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Policy logits recorded for each position: the largest ones.
const TOP: usize = 8;

#[derive(Serialize, Deserialize)]
struct Fixture {
    note: String,
    boards: Vec<Board>,
}

#[derive(Serialize, Deserialize)]
struct Board {
    variant: String,
    /// The release folder, relative to the repository's root.
    folder: String,
    /// Its learned evaluation when it no longer lies in the folder (a later release
    /// replaced it and the old file moved), relative to the repository's root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    eval_file: Option<String>,
    positions: Vec<Expected>,
}

#[derive(Serialize, Deserialize)]
struct Expected {
    fen: String,
    /// The value head's outputs (win, draw, loss for the side to move).
    wdl: Vec<f32>,
    /// The `TOP` largest policy logits: (action index, logit).
    policy: Vec<(usize, f32)>,
    /// The learned evaluation's score, hundredths of a piece for the side to move.
    eval: i32,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/release_ba10c4c.json")
}

/// Positions of random games from the start: openings, middle games, endings.
fn positions(v: Variant, n: usize, seed: u64) -> Vec<Position> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = vec![Position::start(v, RuleOptions::default())];
    while out.len() < n {
        let mut pos = Position::start(v, RuleOptions::default());
        let turns = rng.random_range(1..60);
        for _ in 0..turns {
            let list = pos.turns(TurnMode::Distinct);
            if list.is_empty() || pos.outcome().is_some() {
                break;
            }
            pos.play_unchecked(&list[rng.random_range(0..list.len())]);
        }
        if pos.outcome().is_none() {
            out.push(pos);
        }
    }
    out
}

/// The release player's outputs on `fens`: (wdl, top policy logits, eval) each.
fn outputs(v: Variant, folder: &Path, eval: &Path, fens: &[String]) -> Vec<Expected> {
    let device = Device::flex();
    let dir = checkpoint::resolve(folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
    let (net, _, _) = checkpoint::load(&dir, &device, Some(v), None)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let e = NetEvaluator::new(net.valid(), device, v, false, 0);
    let learned = LearnedEval::read(eval, v).unwrap_or_else(|e| panic!("{}: {e}", eval.display()));
    let size = num_planes(v) * v.points();
    let mut planes = vec![0.0; fens.len() * size];
    let positions: Vec<Position> = fens
        .iter()
        .map(|f| Position::from_fen(f, RuleOptions::default()).unwrap())
        .collect();
    for (p, chunk) in positions.iter().zip(planes.chunks_exact_mut(size)) {
        p.encode(chunk);
    }
    let (policy, wdl) = e.forward_raw(planes, fens.len());
    let actions = policy.len() / fens.len();
    positions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let row = &policy[i * actions..(i + 1) * actions];
            let mut top: Vec<(usize, f32)> = row.iter().copied().enumerate().collect();
            top.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            top.truncate(TOP);
            Expected {
                fen: p.fen(),
                wdl: wdl[i * 3..i * 3 + 3].to_vec(),
                policy: top,
                eval: learned.evaluate(p, &EvalWeights::default()),
            }
        })
        .collect()
}

fn bless() {
    let boards = [Variant::Tsivy, Variant::Dimy]
        .into_iter()
        .map(|v| {
            let folder = format!("checkpoints/release/{}", v.name());
            let fens: Vec<String> = positions(v, 12, 64).iter().map(|p| p.fen()).collect();
            let dir = root().join(&folder);
            Board {
                variant: v.name().into(),
                positions: outputs(v, &dir, &dir.join("eval.txt"), &fens),
                folder,
                eval_file: None,
            }
        })
        .collect();
    let f = Fixture {
        note: "The release players of commit ba10c4c: their outputs, which every later build \
               must reproduce (crates/nn/tests/compat.rs)."
            .into(),
        boards,
    };
    std::fs::create_dir_all(fixture_path().parent().unwrap()).unwrap();
    std::fs::write(
        fixture_path(),
        serde_json::to_string_pretty(&f).unwrap() + "\n",
    )
    .unwrap();
}

#[test]
fn old_release_players_load_and_give_their_outputs() {
    if std::env::var_os("FANORONA_BLESS").is_some() {
        bless();
    }
    let text = std::fs::read_to_string(fixture_path()).expect("the fixture");
    let f: Fixture = serde_json::from_str(&text).expect("a fixture");
    assert_eq!(f.boards.len(), 2);
    for b in &f.boards {
        let v: Variant = b.variant.parse().unwrap();
        let fens: Vec<String> = b.positions.iter().map(|e| e.fen.clone()).collect();
        let dir = root().join(&b.folder);
        let eval = match &b.eval_file {
            Some(f) => root().join(f),
            None => dir.join("eval.txt"),
        };
        let got = outputs(v, &dir, &eval, &fens);
        assert!(got.len() >= 10);
        for (want, got) in b.positions.iter().zip(&got) {
            let close = |a: f32, b: f32| (a - b).abs() <= 1e-4 * (1.0 + b.abs());
            assert!(
                want.wdl.iter().zip(&got.wdl).all(|(&a, &b)| close(a, b)),
                "{v} {}: wdl {:?}, recorded {:?}",
                want.fen,
                got.wdl,
                want.wdl
            );
            // The same largest logits, in the same order where they are not near ties.
            for (k, (&(wi, wl), &(gi, gl))) in want.policy.iter().zip(&got.policy).enumerate() {
                let tie = want
                    .policy
                    .get(k + 1)
                    .is_some_and(|&(_, next)| (wl - next).abs() < 1e-3);
                assert!(
                    close(gl, wl) && (gi == wi || tie),
                    "{v} {}: policy #{k} ({gi}, {gl}), recorded ({wi}, {wl})",
                    want.fen
                );
            }
            // Recorded in floating point; the engine's integer evaluation is within its
            // weights' rounding of it (fanorona-search's `assert_rounding` bounds each
            // position; the release networks differ by 4 hundredths at worst).
            assert!(
                (got.eval - want.eval).abs() <= 4,
                "{v} {}: learned evaluation {}, recorded {}",
                want.fen,
                got.eval,
                want.eval
            );
        }
    }
}
