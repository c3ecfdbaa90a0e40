// Answers positions with the WebAssembly engine (crates/web/pkg-node): reads lines
// `FEN<TAB>DEPTH` on stdin, writes one JSON analysis a line (the fields of
// `fanorona analyze --json`), each from a fresh engine. Run by tests/node.rs.
const { Game, Engine } = require("../pkg-node/fanorona_web.js");
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter((l) => l.trim());
for (const line of lines) {
  const [fen, depth] = line.split("\t");
  const game = Game.fromFen(fen);
  const engine = new Engine();
  console.log(engine.analyse(game, "depth", Number(depth)));
  engine.free();
  game.free();
}
// Errors are exceptions naming the input.
for (const [f, arg] of [[() => Game.fromFen("9/9 w"), "9/9 w"], [() => new Game("dimy").play("a1a9"), "a1a9"]]) {
  try {
    f();
    throw new Error(`no error for ${arg}`);
  } catch (e) {
    if (!String(e.message).includes(arg)) throw e;
  }
}
