//! The engine's node rate on book positions at a fixed depth, on one thread: the native
//! figure that `crates/web/bench.js` (the same search in WebAssembly) is compared with.
//!
//!     cargo run --release -p fanorona-engine --example node_rate -- configs/books/tsivy.fen 6 50

use fanorona_engine::{Budget, Engine, Game};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(book), Some(depth)) = (args.first(), args.get(1).and_then(|d| d.parse().ok())) else {
        eprintln!("usage: node_rate BOOK.fen DEPTH [POSITIONS]");
        std::process::exit(2);
    };
    let count: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(50);
    let text = std::fs::read_to_string(book).unwrap_or_else(|e| {
        eprintln!("{book}: {e}");
        std::process::exit(2);
    });
    let (mut nodes, mut seconds) = (0u64, 0f64);
    for fen in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .take(count)
    {
        let game = Game::from_fen(fen).unwrap_or_else(|e| {
            eprintln!("{book}: {e}");
            std::process::exit(2);
        });
        let a = Engine::new()
            .analyse(&game, Budget::Depth(depth))
            .expect("a depth in range");
        nodes += a.nodes;
        seconds += a.seconds;
    }
    println!(
        "{{\"nodes\":{nodes},\"seconds\":{seconds:.3},\"nodes_per_second\":{:.0}}}",
        nodes as f64 / seconds
    );
}
