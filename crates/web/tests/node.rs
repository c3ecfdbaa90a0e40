//! The WebAssembly engine against the native one: on 50 book positions of each board, at
//! a fixed depth, the same best turn, score, depth and node count (the same code, so the
//! same search). Runs `tests/check.js` under node on `crates/web/pkg-node`, which
//! `crates/web/build.sh` makes; without node or the package the test says so and passes,
//! unless `FANORONA_WASM_TEST=1` (set by `.ci/run`) demands them.

use fanorona_engine::{Budget, Engine, Game};
use std::path::PathBuf;
use std::process::Command;

const POSITIONS: usize = 50;
const DEPTH: u32 = 4;

fn book(board: &str) -> Vec<String> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../configs/books/{board}.fen"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .take(POSITIONS)
        .map(str::to_string)
        .collect()
}

#[test]
fn wasm_and_native_search_the_same() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let pkg = dir.join("pkg-node/fanorona_web.js");
    let has_node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !pkg.exists() || !has_node {
        assert!(
            std::env::var_os("FANORONA_WASM_TEST").is_none(),
            "FANORONA_WASM_TEST is set but node or {} is missing (crates/web/build.sh makes it)",
            pkg.display()
        );
        eprintln!(
            "warning: node or {} missing: the WebAssembly build is not tested (crates/web/build.sh)",
            pkg.display()
        );
        return;
    }
    let fens: Vec<String> = ["tsivy", "dimy"].into_iter().flat_map(book).collect();
    assert_eq!(fens.len(), 2 * POSITIONS);
    let input: String = fens.iter().map(|f| format!("{f}\t{DEPTH}\n")).collect();
    let out = fanorona_testkit::run_with_input(
        Command::new("node").arg(dir.join("tests/check.js")),
        &input,
    );
    assert!(
        out.status.success(),
        "node: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answers: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(answers.len(), fens.len());
    for (fen, wasm) in fens.iter().zip(&answers) {
        let native = Engine::new()
            .analyse(&Game::from_fen(fen).unwrap(), Budget::Depth(DEPTH))
            .unwrap()
            .to_json();
        let wasm: serde_json::Value = serde_json::from_str(wasm).unwrap();
        for field in ["fen", "best", "score", "pv", "depth", "nodes"] {
            assert_eq!(wasm[field], native[field], "{field} of {fen}");
        }
    }
}
