//! Engine specs (`ab:depth=6,eval=release`, `mcts:sims=8,guard=4`, ...) through the one
//! parser (crates/players): any text, parsed as the arena and as an interactive front
//! end parse it; a spec it accepts lists its files, is capped as the server caps it,
//! gives its search settings for every board (mcts), and makes its player without a
//! network (ab, random; mcts refused with a message). Specs that name files are not
//! made into players (the fuzzer would read whatever path it wrote). Never a panic.
#![no_main]
use fanorona_players::{EngineSpec, NoNetworks};
use fanorona_rules::Variant;
use libfuzzer_sys::fuzz_target;
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for parsed in [EngineSpec::parse(text), EngineSpec::parse_interactive(text)] {
        let spec = match parsed {
            Ok(s) => s,
            Err(e) => {
                assert!(!e.to_string().is_empty());
                continue;
            }
        };
        let named_files = !spec.files().is_empty();
        let capped = spec.clone().capped(2, 64, Duration::from_secs(1), 1000, 200);
        for v in [Variant::Tsivy, Variant::Dimy, Variant::Telo] {
            if let EngineSpec::Mcts { .. } = capped {
                let _ = capped.settings(v);
            }
        }
        if !named_files {
            match capped.player("fuzz", Variant::Dimy, &NoNetworks) {
                Ok(_) => assert!(!matches!(capped, EngineSpec::Mcts { .. })),
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
    }
});
