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
