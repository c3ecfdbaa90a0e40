// The WebAssembly engine's node rate on book positions at a fixed depth (node; the
// native figure: `cargo run --release -p fanorona-engine --example node_rate` with the same
// arguments). Needs crates/web/pkg-node (crates/web/build.sh).
//
//   node crates/web/bench.js configs/books/tsivy.fen 6 50
const { Game, Engine } = require("./pkg-node/fanorona_web.js");
const [book, depth, count = "50"] = process.argv.slice(2);
if (!book || !depth) { console.error("usage: bench.js BOOK.fen DEPTH [POSITIONS]"); process.exit(2); }
const fens = require("fs").readFileSync(book, "utf8").split("\n").map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#")).slice(0, Number(count));
let nodes = 0, seconds = 0;
for (const fen of fens) {
  const a = JSON.parse(new Engine().analyse(Game.fromFen(fen), "depth", Number(depth)));
  nodes += a.nodes; seconds += a.seconds;
}
console.log(JSON.stringify({ nodes, seconds: +seconds.toFixed(3), nodes_per_second: Math.round(nodes / seconds) }));
