//! Training configs (`fanorona train --config FILE`, `--set key=value`): the TOML text,
//! then after a NUL byte one override a line. Never a panic; a config that reads writes
//! back (`config.toml` of every run) as one that reads the same.
#![no_main]
use fanorona_formats::config::TrainConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (toml, sets) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let (Ok(toml), Ok(sets)) = (std::str::from_utf8(toml), std::str::from_utf8(sets)) else {
        return;
    };
    let sets: Vec<String> = sets.lines().map(str::to_string).collect();
    if let Ok(cfg) = TrainConfig::parse("fuzz.toml", toml, &sets) {
        let again = TrainConfig::parse("config.toml", &cfg.to_toml(), &[])
            .expect("a config written by to_toml reads");
        assert!(cfg.same_training(&again), "{cfg:?}\n{again:?}");
        let _ = cfg.tree_network();
    }
});
