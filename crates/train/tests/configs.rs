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
