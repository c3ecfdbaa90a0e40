//! The shipped presets load, and `configs/tsivy.toml` documents every key.

use fanorona_train::TrainConfig;
use std::path::PathBuf;

fn configs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../configs")
}

#[test]
fn every_preset_loads_and_validates() {
    let mut n = 0;
    for entry in std::fs::read_dir(configs()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            TrainConfig::load(Some(&path), &[])
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            n += 1;
        }
    }
    assert!(n >= 4, "only {n} presets found");
}

#[test]
fn the_tsivy_preset_names_every_key() {
    let text = std::fs::read_to_string(configs().join("tsivy.toml")).unwrap();
    let preset: toml::Table = toml::from_str(&text).unwrap();
    let all: toml::Table = toml::from_str(&TrainConfig::default().to_toml()).unwrap();
    for (section, value) in &all {
        match value {
            toml::Value::Table(keys) => {
                let documented = preset
                    .get(section)
                    .and_then(|v| v.as_table())
                    .unwrap_or_else(|| panic!("tsivy.toml has no [{section}]"));
                for key in keys.keys() {
                    assert!(
                        documented.contains_key(key),
                        "tsivy.toml does not set {section}.{key}"
                    );
                }
            }
            _ => assert!(
                preset.contains_key(section),
                "tsivy.toml does not set {section}"
            ),
        }
    }
}

/// `configs/dimy.toml` is the main job's recipe on the small board: tree learning from
/// nothing with the network learning from the same games, as `configs/tsivy.toml`;
/// only the board's sizes, depths, book and budget differ.
#[test]
fn the_dimy_preset_is_the_main_jobs_recipe_on_the_small_board() {
    let load = |name: &str| TrainConfig::load(Some(&configs().join(name)), &[]).unwrap();
    let (tsivy, dimy) = (load("tsivy.toml"), load("dimy.toml"));
    assert_eq!(
        (tsivy.variant.as_str(), dimy.variant.as_str()),
        ("tsivy", "dimy")
    );
    for cfg in [&tsivy, &dimy] {
        assert_eq!(cfg.tree.method, "treestrap");
        assert_eq!(cfg.tree.init, "", "a run from nothing");
        assert_eq!(cfg.bootstrap.games, 0, "no warm start");
        assert!(
            cfg.net.positions > 0,
            "the network learns beside the evaluation"
        );
        assert!(cfg.run.curve_minutes > 0 && cfg.run.curve_anchors == "release");
    }
    let recipe = |c: &TrainConfig| {
        (
            c.tree.deep_gap,
            c.tree.deep_positions,
            c.tree.outcome_positions,
            c.tree.graded_draws,
            c.tree.games,
            c.net.positions,
            c.net.score_weight,
            c.net.train_ratio,
            c.train.train_ratio,
            c.train.replay_window,
        )
    };
    assert_eq!(recipe(&dimy), recipe(&tsivy));
    assert!(
        dimy.run.arena_book.contains("dimy"),
        "{}",
        dimy.run.arena_book
    );
}

#[test]
fn the_training_book_shares_no_position_with_the_match_book() {
    use fanorona_rules::{RuleOptions, Variant};
    use fanorona_search::book::parse_book;
    let read = |name: &str| {
        let path = configs().join("books").join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        parse_book(name, &text, RuleOptions::default()).unwrap()
    };
    let matches = read("dimy.fen");
    let training = read("dimy-train.fen");
    assert!(training.len() >= 1000, "{} positions", training.len());
    assert!(training.iter().all(|p| p.variant() == Variant::Dimy));
    let held: std::collections::HashSet<String> = matches.iter().map(|p| p.board_fen()).collect();
    let shared = training
        .iter()
        .filter(|p| held.contains(&p.board_fen()))
        .count();
    assert_eq!(
        shared, 0,
        "the training book holds {shared} match positions"
    );
}

/// Every shipped config, mutated at random (bytes flipped, cut, duplicated lines, keys
/// spliced in): each parses or is refused with an error naming the config; never a
/// panic. (Configs are read above burn, out of `crates/fuzz`'s reach: docs/fuzzing.md.)
#[test]
fn mutated_configs_parse_or_are_refused_naming_the_config() {
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs");
    let seeds: Vec<Vec<u8>> = ["tsivy", "dimy", "quick", "smoke", "telo", "zero"]
        .iter()
        .map(|n| std::fs::read(format!("{dir}/{n}.toml")).unwrap())
        .collect();
    let mut rng = SmallRng::seed_from_u64(88);
    for i in 0..3_000 {
        let mut b = seeds[i % seeds.len()].clone();
        for _ in 0..rng.random_range(1..4) {
            let at = rng.random_range(0..b.len());
            match rng.random_range(0..4) {
                0 => b[at] ^= 1 << rng.random_range(0..8),
                1 => b.truncate(at),
                2 => {
                    let line: Vec<u8> = b[at..]
                        .iter()
                        .take_while(|&&c| c != b'\n')
                        .copied()
                        .collect();
                    b.splice(at..at, line);
                }
                _ => {
                    b.splice(
                        at..at,
                        b"\nselfplay.sims = -1\n[tree]\ndepth = 99\n"
                            .iter()
                            .copied(),
                    );
                }
            }
            if b.is_empty() {
                break;
            }
        }
        let text = String::from_utf8_lossy(&b);
        // A config that cannot be read names its file; one that reads but holds a bad
        // value is refused by validation, which names the key.
        if let Err(e) = TrainConfig::parse("mutated.toml", &text, &[]) {
            let e = e.to_string();
            assert!(
                e.starts_with("config `mutated.toml`: ") || e.starts_with("config: "),
                "{e}"
            );
        }
    }
}
