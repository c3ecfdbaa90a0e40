//! Endgame-table files (`tb=DIR`): any bytes as dimy's two-piece tables. Never a panic;
//! tables that read answer probes of their positions.
#![no_main]
use fanorona_rules::{Position, RuleOptions, TurnMode, Variant};
use fanorona_tb::{Tablebase, file_name, stored_classes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("fanorona-fuzz-tables-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for c in stored_classes(Variant::Dimy, 2) {
        std::fs::write(dir.join(file_name(Variant::Dimy, c)), data).unwrap();
    }
    if let Ok(tb) = Tablebase::open(&dir, Variant::Dimy) {
        // Every 1-against-1 position reached from a few placements.
        for w in 0..25 {
            for b in 0..25 {
                if w == b {
                    continue;
                }
                let mut rows = vec!['.'; 25];
                rows[w] = 'W';
                rows[b] = 'B';
                let fen: Vec<String> = rows
                    .chunks(5)
                    .map(|r| {
                        let mut s = String::new();
                        let mut empty = 0;
                        for &c in r {
                            if c == '.' {
                                empty += 1;
                            } else {
                                if empty > 0 {
                                    s.push_str(&empty.to_string());
                                    empty = 0;
                                }
                                s.push(c);
                            }
                        }
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                        }
                        s
                    })
                    .collect();
                if let Ok(p) =
                    Position::from_fen(&format!("{} w 0 2", fen.join("/")), RuleOptions::default())
                {
                    let _ = tb.probe(&p);
                    let _ = p.turns(TurnMode::Distinct);
                }
            }
        }
    }
});
